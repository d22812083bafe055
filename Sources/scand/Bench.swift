import ArgumentParser
import Decoding
import ScanConfig
import Decoding
import ScanCore
import ImageLoading
import LinuxHardware
import Logging
import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware
#if canImport(Glibc)
import Glibc
#endif

/// `scand bench`: measurements, reported as ratios against a reference from the same run.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks.", subcommands: [KioskLatency.self, ConvertBench.self, DecodeBench.self, SoakBench.self, RegionsTool.self, FrameTool.self])
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

    @Option(help: "Frames each image stays in view (as a code held up to the camera).")
    var framesPerImage = 15

    func run() async throws {
        let clock = ContinuousClock()
        let camera = try SimulatedCamera(images: images, fps: fps, repeatEach: framesPerImage, clock: clock)
        let button = SimulatedButton()
        let trace = Trace()
        let pty = try PseudoTerminal()
        let host = open(pty.hostPath, O_RDONLY | O_NOCTTY)
        defer { close(host) }
        var settings = ScandConfig().kiosk
        settings.sessionTimeout = .seconds(30)
        let runtime = KioskRuntime(
            hardware: KioskHardware(camera: camera, button: button, torch: SimulatedLine(name: "torch", trace: trace)),
            tuning: KioskTuning(settings: settings, viewport: .full, decoder: DecodePipeline()),
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
                var p = pollfd(fd: host, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 60_000) > 0 else { throw ValidationError("no result within 60 s") }
                if p.revents & Int16(POLLHUP) != 0 { throw ValidationError("the serial pty hung up") }
                let n = buffer.withUnsafeMutableBytes { read(host, $0.baseAddress, $0.count) }
                if n <= 0 { continue }
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
        print("sessions \(sessions), camera \(fps) fps (frame period \(fixed(period, 1)) ms), \(images.joined(separator: ","))")
        print("press-to-serial median \(fixed(median, 1)) ms = \(fixed(median / period, 2)) frame periods; "
              + "p99 \(fixed(p99, 1)) ms = \(fixed(p99 / period, 2)) frame periods; min \(fixed(latencies[0], 1)) ms")
        print("frames decoded \(await runtime.status.framesDecoded), dropped \(camera.droppedFrames)")
    }
}

/// Camera frame to gray: the Y plane of YUYV and MJPEG decoding, per frame size, against a
/// plain copy of the same bytes measured in the same run.
struct ConvertBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "convert", abstract: "YUYV and MJPEG to gray, ms per frame.")

    @Option(help: "A folder of JPEG scenes (one per size is used as the MJPEG frame).")
    var corpus = "../shared/corpus/scenes"

    @Option(help: "Repetitions per measurement.")
    var repeats = 50

    func run() throws {
        let jpegs = Posix.directoryEntries(corpus)?.filter { $0.hasSuffix(".jpg") } ?? []
        let period = 1000.0 / 30
        print("size       copy(ref)  YUYV->Y   ratio  share@30fps | MJPEG->gray  ratio  share@30fps")
        for (w, h) in [(640, 480), (1280, 720), (1920, 1080)] {
            let yuyv = [UInt8](repeating: 0, count: w * h * 2).enumerated().map { UInt8(truncatingIfNeeded: $0.offset * 7) }
            let out = UnsafeMutableRawBufferPointer.allocate(byteCount: w * h * 2, alignment: 16)
            defer { out.deallocate() }
            let copyMs = Self.time(repeats) { yuyv.withUnsafeBytes { out.copyMemory(from: $0) } }
            let lumaMs = Self.time(repeats) {
                yuyv.withUnsafeBytes { GrayConversion.lumaOfPacked422($0, width: w, height: h, bytesPerLine: w * 2, lumaOffset: 0, into: out) }
            }
            var mjpeg = "n/a (no \(w)x\(h) JPEG in the corpus)"
            if let name = jpegs.first(where: { name in
                (try? ImageFile.load(corpus + "/" + name)).map { $0.width == w && $0.height == h } ?? false
            }), let bytes = try? FileBytes.read(corpus + "/" + name, limit: 64 << 20) {
                let ms = Self.time(repeats) {
                    _ = bytes.withUnsafeBytes { try? GrayConversion.jpeg($0, into: out, stride: w) }
                }
                mjpeg = padded(fixed(ms, 2), 8, right: true) + " ms  " + padded(fixed(ms / copyMs, 1), 5, right: true) + "x  "
                    + padded(fixed(ms / period * 100, 1), 5, right: true) + "%"
            }
            print(padded("\(w)", 4, right: true) + "x" + padded("\(h)", 5) + " " + padded(fixed(copyMs, 3), 7, right: true) + " ms "
                  + padded(fixed(lumaMs, 3), 7, right: true) + " ms " + padded(fixed(lumaMs / copyMs, 1), 5, right: true) + "x  "
                  + padded(fixed(lumaMs / period * 100, 1), 5, right: true) + "%     | " + mjpeg)
        }
    }

    /// Median milliseconds of `body` over `n` runs.
    static func time(_ n: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<max(n, 1) { samples.append(clock.measure(body).milliseconds) }
        return samples.sorted()[samples.count / 2]
    }
}

/// Shows where the region pass looks in each image, and what each region decodes to.
struct RegionsTool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "regions", abstract: "Candidate code regions per image (tuning aid).")

    @Argument var files: [String]

    func run() throws {
        let zxing = ZXingDecoder(symbologies: Set(Symbology.allCases))
        for file in files {
            let frame = try ImageFile.load(file)
            print("\(file) \(frame.width)x\(frame.height)")
            for t in ImagePass.regions.apply(frame) {
                let found = zxing.decode(t.frame).map { "\($0.symbology.rawValue):\($0.text.prefix(30))" }
                print("  region at \(t.offsetX),\(t.offsetY) \(t.frame.width)x\(t.frame.height) scale \(t.scale): \(found)")
            }
        }
    }
}

/// Makes a raw camera frame from an image: the image centred on white, as YUYV, GREY or NV12
/// bytes (for the hardware lab, which writes them into vivid's video output).
struct FrameTool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "frame", abstract: "An image as a raw YUYV/GREY/NV12 frame (lab aid).")

    @Option var width = 640
    @Option var height = 480
    @Option(help: "YUYV, GREY or NV12.") var format = "YUYV"
    @Argument var image: String
    @Argument var output: String

    func run() throws {
        let src = try ImageFile.load(image)
        var gray = [UInt8](repeating: 255, count: width * height)
        let ox = (width - src.width) / 2, oy = (height - src.height) / 2
        for y in 0..<src.height where y + oy >= 0 && y + oy < height {
            for x in 0..<src.width where x + ox >= 0 && x + ox < width { gray[(y + oy) * width + x + ox] = src[x, y] }
        }
        var bytes: [UInt8]
        switch format.uppercased() {
        case "GREY": bytes = gray
        case "NV12": bytes = gray + [UInt8](repeating: 128, count: width * height / 2)
        default: bytes = gray.flatMap { [$0, 128] }
        }
        do { try FileBytes.writeAtomically(bytes, to: output) } catch { throw ValidationError("cannot write \(output): \(error)") }
    }
}
