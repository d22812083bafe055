import Decoding
import Foundation
import ImageLoading
import InMemoryLogging
import Logging
import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A kiosk on simulated hardware with a manual clock, a real pty for the serial output and an
/// in-memory log.
final class Harness: @unchecked Sendable {
    let clock = ManualClock()
    let trace = Trace()
    let camera: SimulatedCamera<ManualClock>
    let button = SimulatedButton()
    let pty: PseudoTerminal
    let hostFD: Int32
    let logs = InMemoryLogHandler()
    let runtime: KioskRuntime
    private var runTask: Task<Void, Never>?

    init(images: [String] = ["qr.png"], settings: (inout KioskSettings) -> Void = { _ in }, torch: Bool = true,
         sameSymbolTimeout: Duration = .zero, onEvent: (@Sendable (String) -> Void)? = nil,
         outputs: ((PseudoTerminal) throws -> [any ResultOutput])? = nil) throws {
        camera = SimulatedCamera(frames: try images.map { try ImageFile.load(Fixture.path($0)) }, fps: 30, clock: clock)
        pty = try PseudoTerminal()
        hostFD = open(pty.hostPath, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        var s = KioskSettings()
        s.hasTorch = torch
        s.sessionTimeout = .seconds(5)
        settings(&s)
        let hardware = KioskHardware(
            camera: camera, button: button, torch: torch ? SimulatedLine(name: "torch", trace: trace) : nil,
            buzzer: SimulatedLine(name: "buzzer", trace: trace), statusLED: SimulatedLine(name: "status_led", trace: trace))
        let logs = self.logs
        runtime = KioskRuntime(
            hardware: hardware, tuning: KioskTuning(settings: s, viewport: .full, decoder: ZBarDecoder(), sameSymbolTimeout: sameSymbolTimeout),
            outputs: try outputs?(pty) ?? [SerialOutput(port: pty), LogOutput(logger: Logger(label: "test") { _ in logs })], clock: clock,
            logger: Logger(label: "test") { _ in logs }, onEvent: onEvent)
    }

    deinit { close(hostFD) }

    /// Types a line at the host end of the serial pty.
    func hostSends(_ line: String) {
        let fd = open(pty.hostPath, O_WRONLY | O_NOCTTY)
        defer { close(fd) }
        _ = Array(line.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Starts the runtime and waits until it has looked at the camera.
    func start() async throws {
        let runtime = self.runtime
        runTask = Task { await runtime.run() }
        try await until("camera state known") { await runtime.status.camera != .starting }
    }

    func stop() async {
        await runtime.stop()
        await runTask?.value
    }

    /// Waits (bounded: 15 s of real time, generous for a loaded CI machine running the suites
    /// in parallel) until `condition` holds.
    func until(_ what: String, _ condition: @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("timed out waiting for: \(what); trace: \(trace.all)")
        throw CancellationError()
    }

    /// Advances the manual clock in frame-sized steps, letting tasks run in between.
    func advance(_ total: Duration, step: Duration = .milliseconds(34)) async throws {
        var left = total
        while left > .zero {
            let d = min(step, left)
            clock.advance(by: d)
            left -= d
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Advances the clock step by step (at most `limit` in all) until `condition` holds: for
    /// timed patterns whose tasks may lag a step behind the clock.
    func advance(until what: String, limit: Duration = .seconds(3), step: Duration = .milliseconds(20),
                 _ condition: @Sendable () async -> Bool) async throws {
        var spent = Duration.zero
        while !(await condition()) {
            guard spent < limit else {
                Issue.record("clock advanced \(limit) without: \(what); trace: \(trace.all)")
                throw CancellationError()
            }
            try await advance(step, step: step)
            spent += step
        }
    }

    var status: KioskStatus { get async { await runtime.status } }

    private var receivedSoFar: [UInt8] = []

    /// Everything the host end of the serial pty has received so far.
    func hostReceived() -> String {
        var out: [UInt8] = []
        defer { receivedSoFar += out }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(hostFD, $0.baseAddress, $0.count) }
            if n > 0 { out += buffer[0..<n] } else { break }
        }
        return String(decoding: receivedSoFar + out, as: UTF8.self)
    }
}
