import ArgumentParser
import Decoding
import ImageLoading
import Logging
import ScanApp
import ScanConfig
import ScanHardware
import Delivery
import KioskTestKit
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

    @Option(help: "The image the simulated camera shows, e.g. samples/qr-wifi.jpg.")
    var image: String

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
        let trace = Trace(capacity: 1000)
        let delivered = Counter()
        let output = DeliveringOutput(name: "soak", format: .jsonLines, outbox: try Outbox(path: dir + "/soak.outbox", capacity: 100)) { _ in
            delivered.add()
        }
        var settings = ScandConfig().kiosk
        settings.sessionTimeout = .seconds(5)
        let quiet = Logger(label: "soak") { _ in SwiftLogNoOpLogHandler() }
        let driver = KioskDriver(
            hardware: KioskHardware(camera: camera, torch: SimulatedLine(name: "torch", trace: trace),
                                    buzzer: SimulatedLine(name: "buzzer", trace: trace), statusLED: SimulatedLine(name: "led", trace: trace)),
            tuning: KioskTuning(settings: settings, viewport: .full, decoder: DecodePipeline(quality: .fast)),
            outputs: [output], logger: quiet, onEvent: { _ in })
        let kiosk = VirtualKiosk(driver: driver, camera: camera, clock: clock)
        // A host `SET` goes through the daemon's own config path and lands in the loop.
        let box = LoopBox(kiosk)
        let live = LiveConfig(path: configPath, overrides: [], running: try ConfigLoader.load(path: configPath), hasTorchLine: true,
                              logger: quiet) { tuning in box.kiosk.driver.reload(tuning, now: box.kiosk.now) }
        kiosk.start()
        guard driver.status.camera == .available else { throw ValidationError("the simulated camera did not open") }

        let warmUp = min(1000, sessions / 10)
        var rssAfterWarmUp = 0
        let started = ContinuousClock.now
        for session in 1...sessions {
            let before = driver.status.metrics.goodReads
            kiosk.click()
            guard kiosk.advance(until: { driver.status.metrics.goodReads > before }, step: .milliseconds(34), limit: .seconds(6)) else {
                let st = driver.status
                throw ValidationError("session \(session): no read (phase \(st.phase), camera \(st.camera.name), frames \(st.framesDecoded))")
            }
            // The flash and beep patterns play out.
            kiosk.advance(.seconds(1))
            guard driver.status.phase == "idle" else { throw ValidationError("session \(session): not idle after the read") }
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
        let status = driver.status
        kiosk.stop()
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
    private let lock = Locked(0)
    func add() { lock.withLock { $0 += 1 } }
    var value: Int { lock.withLock { $0 } }
}

/// The soak's kiosk, handed to the config actor's apply closure (the soak runs one step at a
/// time, so the loop is never used from two places at once).
final class LoopBox: @unchecked Sendable {
    let kiosk: VirtualKiosk
    init(_ kiosk: VirtualKiosk) { self.kiosk = kiosk }
}
