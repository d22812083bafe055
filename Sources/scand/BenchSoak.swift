import ArgumentParser
import Decoding
import ImageLoading
import Logging
import ScanConfig
import ScanHardware
import Synchronization
import ScanCore
import ScanRuntime
import SimulatedHardware
#if canImport(Glibc)
import Glibc
#endif

/// Many scan sessions on simulated hardware in virtual time (a manual clock: no waiting for
/// frames), through the whole runtime, a file outbox, the event stream and a host `SET` every
/// tenth session; resident memory before and after. A daemon that runs for months must come
/// back to the same size.
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "soak", abstract: "Sessions in virtual time; RSS before and after.")

    @Option(help: "Scan sessions to run.")
    var sessions = 10_000

    @Option(help: "The image the simulated camera shows.")
    var image = "samples/qr-wifi.jpg"

    func validate() throws {
        if !(100...10_000_000).contains(sessions) { throw ValidationError("--sessions must be from 100 to 10000000") }
    }

    func run() async throws {
        let dir = "/tmp/scand-soak-\(getpid())"
        mkdir(dir, 0o700)
        defer {
            for name in Posix.directoryEntries(dir) ?? [] { unlink(dir + "/" + name) }
            rmdir(dir)
        }
        let configPath = dir + "/scand.toml"
        let configText = "hardware = \"simulated\"\n[camera]\nimages = [\"\(image)\"]\n[scan]\nsame_symbol_timeout_ms = 0\n"
        guard let f = fopen(configPath, "w") else { throw ValidationError("cannot write \(configPath)") }
        fputs(configText, f)
        fclose(f)

        let clock = ManualClock()
        let camera = SimulatedCamera(frames: [try ImageFile.load(image)], fps: 30, clock: clock)
        let button = SimulatedButton()
        let trace = Trace(capacity: 1000)
        let delivered = Counter()
        let output = DeliveringOutput(name: "soak", format: .jsonLines, outbox: try Outbox(path: dir + "/soak.outbox", capacity: 100)) { _ in
            delivered.add()
        }
        var settings = ScandConfig().kiosk
        settings.sessionTimeout = .seconds(5)
        let quiet = Logger(label: "soak") { _ in SwiftLogNoOpLogHandler() }
        let runtime = KioskRuntime(
            hardware: KioskHardware(camera: camera, button: button, torch: SimulatedLine(name: "torch", trace: trace),
                                    buzzer: SimulatedLine(name: "buzzer", trace: trace), statusLED: SimulatedLine(name: "led", trace: trace)),
            tuning: KioskTuning(settings: settings, viewport: .full, decoder: DecodePipeline(quality: .fast)),
            outputs: [output], clock: clock, logger: quiet, onEvent: { _ in })
        let live = LiveConfig(path: configPath, overrides: [], running: try ConfigLoader.load(path: configPath), hasTorchLine: true,
                              runtime: runtime, logger: quiet)
        let runTask = Task { await runtime.run() }
        while await runtime.status.camera != .available { clock.advance(by: .milliseconds(10)); try await Task.sleep(for: .milliseconds(1)) }

        func step() async throws {
            clock.advance(by: .milliseconds(34))
            for _ in 0..<3 { await Task.yield() }
            // Settled: every frame handed out decoded, and a streaming camera's consumer back
            // waiting for the next one (bounded in real time).
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                let decodedAll = await runtime.status.framesDecoded >= camera.framesDelivered
                if decodedAll && (!camera.isStreaming || camera.isWaitingForFrame) { break }
                try await Task.sleep(for: .microseconds(50))
            }
        }
        let warmUp = min(1000, sessions / 10)
        var rssAfterWarmUp = 0
        let started = ContinuousClock.now
        for session in 1...sessions {
            let (before, presses) = await { let m = await runtime.status.metrics; return (m.goodReads, m.presses) }()
            button.click()
            // The press reaches the machine through the button's event stream: wait for it (in
            // real time, bounded) before moving the clock.
            let pressDeadline = ContinuousClock.now + .seconds(10)
            while await runtime.status.metrics.presses == presses {
                guard ContinuousClock.now < pressDeadline else { throw ValidationError("session \(session): the press was not taken") }
                try await Task.sleep(for: .microseconds(50))
            }
            // One frame period at a time, and time moves on only when every frame handed out
            // has been decoded (decoding takes real time; the session timer runs on the clock).
            var steps = 0
            while await runtime.status.metrics.goodReads == before {
                try await step()
                steps += 1
                guard steps < 1000 else {
                    let st = await runtime.status
                    let m = st.metrics
                    throw ValidationError("session \(session): no read (phase \(st.phase), camera \(st.camera.name), frames \(st.framesDecoded), "
                                          + "presses \(m.presses), good reads \(m.goodReads), closed without scan \(m.closedWithoutScan), errors \(m.errors); "
                                          + "camera streaming \(camera.isStreaming), waiting \(camera.isWaitingForFrame), delivered \(camera.framesDelivered))")
                }
            }
            // The flash and beep patterns play out; the same-symbol window passes.
            for _ in 0..<30 { try await step() }
            while await runtime.status.phase != "idle" { try await step() }
            if session % 10 == 0, let problem = await live.set("scan.session_timeout_ms", "\(5000 + session % 7)") {
                throw ValidationError("SET refused: \(problem)")
            }
            if session == warmUp { rssAfterWarmUp = Self.rssKB() }
            if session % max(1, sessions / 10) == 0 {
                printError("soak: \(session) sessions, RSS \(Self.rssKB() / 1024) MB")
            }
        }
        let seconds = (ContinuousClock.now - started).milliseconds / 1000
        let rssEnd = Self.rssKB()
        let status = await runtime.status
        await runtime.stop()
        await runTask.value
        print("soak: \(sessions) sessions in \(Int(seconds)) s of real time (virtual \(Int(clock.now.offset.milliseconds / 1000)) s); "
              + "good reads \(status.metrics.goodReads), delivered \(delivered.value), pending \(status.pendingResults)")
        print("soak: RSS after \(warmUp) sessions \(rssAfterWarmUp / 1024) MB, after \(sessions) \(rssEnd / 1024) MB "
              + "(\(rssEnd - rssAfterWarmUp >= 0 ? "+" : "")\(rssEnd - rssAfterWarmUp) kB)")
    }

    /// Resident memory of this process in kB (VmRSS).
    static func rssKB() -> Int {
        guard let bytes = try? FileBytes.read("/proc/self/status", limit: 1 << 16) else { return 0 }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

/// A count shared with a writer closure.
final class Counter: @unchecked Sendable {
    private let lock = Mutex(0)
    func add() { lock.withLock { $0 += 1 } }
    var value: Int { lock.withLock { $0 } }
}
