import Decoding
import ImageLoading
import Logging
import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// The kiosk as the daemon runs it: `KioskRuntime.run()` with its children (button, capture with
/// the decode thread, host link, timers) on simulated hardware and the real clock. Tests await
/// what the runtime reports (events, serial writes); the bounds only end a test that hangs.
final class ServiceKiosk: Sendable {
    let trace = Trace()
    let camera: SimulatedCamera<ContinuousClock>
    let button = SimulatedButton()
    let serial: SimulatedSerialPort
    let runtime: KioskRuntime
    private let events: AsyncStream<String>
    private let runTask = Locked<Task<Void, Never>?>(nil)
    private let writes: StreamReader<[UInt8]>
    private let eventIterator: StreamReader<String>

    /// - Parameter torch: whether the board has a torch line (without one, as `scand run` builds it).
    /// - Parameter sessionTimeout: longer for a test that reads the status while a session that
    ///   reads nothing is still on (a loaded machine's deep looks take seconds each).
    init(images: [String] = ["qr.png"], frames: [GrayFrame]? = nil, decoder: any BarcodeDecoder = ZBarDecoder(), torch: Bool = true,
         sessionTimeout: Duration = .seconds(30)) throws {
        camera = SimulatedCamera(frames: try frames ?? images.map { try ImageFile.load(Fixture.path($0)) }, fps: 30, clock: ContinuousClock(), trace: trace)
        serial = SimulatedSerialPort(name: "serial", trace: trace)
        let (events, continuation) = AsyncStream.makeStream(of: String.self)
        self.events = events
        var settings = KioskSettings()
        settings.sessionTimeout = sessionTimeout
        settings.hasTorch = torch
        runtime = KioskRuntime(
            hardware: KioskHardware(camera: camera, button: button, torch: torch ? SimulatedLine(name: "torch", trace: trace) : nil,
                                    buzzer: SimulatedLine(name: "buzzer", trace: trace), statusLED: SimulatedLine(name: "status_led", trace: trace)),
            tuning: KioskTuning(settings: settings, viewport: .full, decoder: decoder),
            outputs: [SerialOutput(port: serial)], logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            onEvent: { continuation.yield($0) })
        writes = StreamReader(serial.writes)
        eventIterator = StreamReader(events)
    }

    /// Starts `run()` and waits for the camera to be open.
    func start() async throws {
        let runtime = self.runtime
        runTask.withLock { $0 = Task { await runtime.run() } }
        _ = try await event(containing: "\"camera\"")
    }

    /// Stops the runtime and waits for `run()` to return.
    func stop() async throws {
        await runtime.stop()
        try await bounded("run() to return") { await self.runTask.withLock { $0 }?.value }
    }

    /// The next event whose line contains `text`.
    func event(containing text: String) async throws -> String {
        try await bounded("an event with \(text)") {
            while let line = await self.eventIterator.next() { if line.contains(text) { return line } }
            return ""
        }
    }

    /// Sends `line` from the host and returns the answer line (without CR LF).
    func ask(_ line: String) async throws -> String {
        serial.hostSends(line + "\r\n")
        return try await bounded("the answer to \(line.prefix(20))") {
            var got: [UInt8] = []
            while let chunk = await self.writes.next() {
                got += chunk
                if got.suffix(2) == [13, 10] { break }
            }
            return String(decoding: got.dropLast(2), as: UTF8.self)
        }
    }

    /// Runs `body`, failing the test if it takes more than 60 s (a hang, not a speed limit: on a loaded
    /// two-core machine the decoding suites can hold the test threads for many seconds).
    func bounded<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async -> T) async throws -> T {
        guard let value = await withinBound(.seconds(60), body) else {
            Issue.record("timed out waiting for \(what); trace: \(trace.all)")
            throw CancellationError()
        }
        return value
    }
}

/// `KioskRuntime` as a service: its children, its end.
@Suite struct KioskServiceTests {
    /// A press on the button, a frame from the camera decoded on the decode thread, the result
    /// on the serial port: the whole path of the daemon.
    @Test func aPressIsReadThroughTheService() async throws {
        let service = try ServiceKiosk()
        try await service.start()
        service.button.click()
        let result = try await service.event(containing: "\"result\"")
        #expect(result.contains("https://example.org/kiosk?id=42"))
        #expect(service.serial.text == "https://example.org/kiosk?id=42\r\n")
        try await service.stop()
        #expect(service.trace.of("torch").last == "inactive")
        #expect(service.trace.of("status_led").last == "inactive")
        #expect(service.trace.of("camera").last == "close")
    }

    /// Issue 13, defect 4: `run()` after `stop()` (SIGTERM during start-up) reopened the camera
    /// and waited forever.
    @Test func runAfterStopReturnsAtOnceAndTouchesNothing() async throws {
        let service = try ServiceKiosk()
        await service.runtime.stop()
        let runtime = service.runtime
        try await service.bounded("run() after stop()") { await runtime.run() }
        #expect(!service.trace.all.contains("camera open"))
    }

    /// Cancelling the task that runs `run()` ends it, with everything off.
    @Test func cancellingTheRunTaskEndsIt() async throws {
        let service = try ServiceKiosk()
        let runtime = service.runtime
        let task = Task { await runtime.run() }
        _ = try await service.event(containing: "\"camera\"")
        service.button.click()
        _ = try await service.event(containing: "scanning-started")
        task.cancel()
        try await service.bounded("run() to end after cancellation") { await task.value }
        #expect(service.trace.of("torch").last == "inactive")
        #expect(service.trace.of("camera").last == "close")
        #expect(await runtime.status.phase == "stopped")
    }
}
