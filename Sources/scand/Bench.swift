import ArgumentParser
import Decoding
import Foundation
import Logging
import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware

/// `scand bench`: measurements, reported as ratios against a reference from the same run.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks.", subcommands: [KioskLatency.self])
}

/// Trigger-to-serial latency on simulated hardware: the camera plays images at a frame rate in
/// real time, each session is a button press, and the time is taken when the result's line is
/// read back on the host end of the serial pty.
struct KioskLatency: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "kiosk", abstract: "Press-to-serial latency over many sessions.")

    @Option(help: "Image files or folders the simulated camera plays.")
    var images: [String] = ["../shared/corpus/scenes"]

    @Option(help: "Frames per second.")
    var fps = 30

    @Option(help: "Scan sessions to run.")
    var sessions = 200

    func run() async throws {
        let clock = ContinuousClock()
        let camera = try SimulatedCamera(images: images, fps: fps, clock: clock)
        let button = SimulatedButton()
        let trace = Trace()
        let pty = try PseudoTerminal()
        let host = open(pty.hostPath, O_RDONLY | O_NOCTTY)
        defer { close(host) }
        var settings = KioskSettings()
        settings.sessionTimeout = .seconds(30)
        let runtime = KioskRuntime(
            hardware: KioskHardware(camera: camera, button: button, torch: SimulatedLine(name: "torch", trace: trace)),
            tuning: KioskTuning(settings: settings, viewport: .full, decoder: ZBarDecoder()),
            outputs: [SerialOutput(port: pty)], clock: clock, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
        let runTask = Task { await runtime.run() }
        while await runtime.status.camera != .available { try await Task.sleep(for: .milliseconds(5)) }

        let period = 1000.0 / Double(fps)
        var latencies: [Double] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<sessions {
            let start = clock.now
            button.click()
            // Block on the host end until the line's end arrives.
            var line: [UInt8] = []
            while line.last != 10 {
                let n = buffer.withUnsafeMutableBytes { read(host, $0.baseAddress, $0.count) }
                if n <= 0 { throw ValidationError("the serial pty closed") }
                line += buffer[0..<n]
            }
            latencies.append((clock.now - start).milliseconds)
            while await runtime.status.phase != "idle" { try await Task.sleep(for: .milliseconds(1)) }
        }
        await runtime.stop()
        await runTask.value
        latencies.sort()
        let median = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
        print("sessions \(sessions), camera \(fps) fps (frame period \(String(format: "%.1f", period)) ms), \(images.joined(separator: ","))")
        print(String(format: "press-to-serial median %.1f ms = %.2f frame periods; p99 %.1f ms = %.2f frame periods; min %.1f ms",
                     median, median / period, p99, p99 / period, latencies[0]))
        print("frames decoded \(await runtime.status.framesDecoded), dropped \(camera.droppedFrames)")
    }
}
