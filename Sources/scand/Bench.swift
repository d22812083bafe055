import ArgumentParser
import Decoding
import ImageLoading
import LinuxHardware
import Logging
import ScanConfig
import Delivery
import ScanCore
import ScanHardware
import ScanRuntime
import SetupPage
import SimulatedHardware
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `scand bench`: measurements, reported as ratios against a reference from the same run.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks.", subcommands: [KioskLatency.self, ConvertBench.self, DecodeBench.self, SoakBench.self, SpeechBench.self, NoCodeBench.self, PassesBench.self, RegionsTool.self, ContrastTool.self, FrameTool.self])
}

extension TriggerMode: ExpressibleByArgument {}
extension DecodeQuality: ExpressibleByArgument {}

/// Trigger-to-serial latency on simulated hardware: the camera plays images at a frame rate in
/// real time through the whole runtime (capture child, decode thread, serial output), and the
/// time is taken when the result's line is read back on the host end of the serial pty. For
/// pulse and level, from the press; for presentation and continuous, from the first frame in
/// which the code is in view (blank frames come between the images). Idle CPU is measured first
/// for the same mode with a still, blank scene.
struct KioskLatency: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "kiosk", abstract: "Press-to-serial latency over many sessions.")

    @Option(help: "Image files or folders the simulated camera plays (required; e.g. --images samples).")
    var images: [String] = []

    @Option(help: "Frames per second.")
    var fps = 30

    @Option(help: "Scan sessions (or code presentations) to run.")
    var sessions = 200

    @Option(help: "Frames each image stays in view (as a code held up to the camera).")
    var framesPerImage = 15

    @Option(help: "pulse, level, presentation or continuous.")
    var trigger = TriggerMode.pulse

    @Flag(help: "Keep the camera streaming between sessions.")
    var warm = false

    @Option(help: "Presentation: the camera's rate while watching (0: --fps).")
    var watchFps = 0

    @Option(help: "Seconds of idle to measure CPU over.")
    var idleSeconds = 3.0

    @Option(help: "Consecutive frames with the same code before a read counts, for every symbology (default: the config's, 2 for 1D codes).")
    var agreeingFrames: Int?

    @Flag(help: "Decode even frames too (to measure what the contrast gate saves).")
    var noContrastGate = false

    @Flag(help: "Run the sessions again with a setup page watching the live preview (JPEG at 5 fps), and compare.")
    var page = false

    func validate() throws {
        if images.isEmpty { throw ValidationError("name the images to play: --images FILE_OR_FOLDER (e.g. --images samples)") }
        for path in images where access(path, R_OK) != 0 {
            throw ValidationError("--images \(path): cannot open (\(String(cString: strerror(errno))))")
        }
    }

    func run() async throws {
        let period = 1000.0 / Double(fps)
        let idle = try await idleCPU()
        let (latencies, decoded, dropped) = try await latency()
        if page {
            let (watched, _, _) = try await latency(pageWatching: true)
            let a = latencies.sorted(), b = watched.sorted()
            func at(_ v: [Double], _ q: Double) -> Double { v[min(v.count - 1, Int(Double(v.count) * q))] }
            print("without a page: median \(fixed(at(a, 0.5), 1)) ms = \(fixed(at(a, 0.5) / period, 2)) frame periods; p99 \(fixed(at(a, 0.99), 1)) ms")
            print("with a page watching the preview: median \(fixed(at(b, 0.5), 1)) ms = \(fixed(at(b, 0.5) / period, 2)) frame periods; "
                  + "p99 \(fixed(at(b, 0.99), 1)) ms; median ratio \(fixed(at(b, 0.5) / at(a, 0.5), 3)), p99 ratio \(fixed(at(b, 0.99) / at(a, 0.99), 3))")
        }
        let sorted = latencies.sorted()
        let median = sorted[sorted.count / 2]
        let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        let p95 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
        let from = trigger == .pulse || trigger == .level ? "press" : "code-in-view"
        print("sessions \(sorted.count), trigger \(trigger.rawValue)\(warm ? ", warm camera" : ""), camera \(fps) fps (frame period \(fixed(period, 1)) ms), \(images.joined(separator: ","))")
        print("\(from)-to-serial median \(fixed(median, 1)) ms = \(fixed(median / period, 2)) frame periods; "
              + "p99 \(fixed(p99, 1)) ms = \(fixed(p99 / period, 2)) frame periods; min \(fixed(sorted[0], 1)) ms")
        print("p95 \(fixed(p95, 1)) ms = \(fixed(p95 / period, 2)) frame periods")
        print("frames decoded \(decoded), dropped \(dropped)")
        print("idle CPU \(fixed(idle, 2)) % of one core (\(trigger.rawValue)\(warm ? ", warm" : "")\(watchFps > 0 ? ", watching at \(watchFps) fps" : ""), a still blank scene, \(fixed(idleSeconds, 1)) s)")
    }

    /// The images, with a blank frame of the first one's size.
    func frames() throws -> (blank: GrayFrame, codes: [GrayFrame]) {
        let codes = try SimulatedCamera<ContinuousClock>.expand(images).map { try ImageFile.load($0) }
        guard let first = codes.first else { throw ValidationError("no images in \(images.joined(separator: ","))") }
        // A still, even scene as a camera shows it: a light surface with a few levels of sensor noise.
        let blank = NoCodeBench.evenScene(width: first.width, height: first.height, level: 226)
        return (blank, codes)
    }

    func runtime(camera: SimulatedCamera<ContinuousClock>, button: SimulatedButton, output: (any ResultOutput)?) -> KioskRuntime {
        var settings = ScandConfig().kiosk
        settings.sessionTimeout = .seconds(30)
        settings.trigger = trigger
        settings.presentationIdle = .milliseconds(Int(Double(framesPerImage) * 1000 / Double(fps) * 0.8))
        settings.watchFPS = watchFps
        if let agreeingFrames { for s in Symbology.allCases { settings.agreeingFrames[s] = max(1, agreeingFrames) } }
        let trace = Trace(capacity: 100)
        return KioskRuntime(
            hardware: KioskHardware(camera: camera, button: button, torch: SimulatedLine(name: "torch", trace: trace)),
            tuning: KioskTuning(settings: settings, viewport: .full, decoder: DecodePipeline(checksReadsInFrame: true, passesOverEvenFrames: !noContrastGate)),
            outputs: output.map { [$0] } ?? [], clock: ContinuousClock(), logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() },
            keepStreaming: warm)
    }

    /// CPU of this process (user + system) while the kiosk idles on a blank scene, as a share
    /// of one core.
    func idleCPU() async throws -> Double {
        let (blank, _) = try frames()
        let camera = SimulatedCamera(frames: [blank], fps: fps, clock: ContinuousClock())
        let kiosk = runtime(camera: camera, button: SimulatedButton(), output: nil)
        let task = Task { await kiosk.run() }
        while await kiosk.status.camera != .available { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(300)) // settled
        let before = Self.cpuSeconds(), started = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(Int(idleSeconds * 1000)))
        let cpu = Self.cpuSeconds() - before, wall = (ContinuousClock.now - started).milliseconds / 1000
        await kiosk.stop()
        await task.value
        return cpu / wall * 100
    }

    func latency(pageWatching: Bool = false) async throws -> ([Double], Int, Int) {
        let clock = ContinuousClock()
        let (blank, codes) = try frames()
        let presented = trigger == .presentation || trigger == .continuous
        // Presentation and continuous see a blank scene between the codes.
        let sequence = presented ? codes.flatMap { [blank, $0] } : codes
        let camera = SimulatedCamera(frames: sequence, fps: fps, repeatEach: framesPerImage, clock: clock)
        let inView = Locked<(image: Int, since: ContinuousClock.Instant?)>((-1, nil))
        camera.observe { image, since in
            inView.withLock { if $0.image != image { $0 = (image, since) } }
        }
        let expected = expectedTexts()
        let button = SimulatedButton()
        let pty = try PseudoTerminal()
        let host = open(pty.hostPath, O_RDONLY | O_NOCTTY)
        defer { close(host) }
        let kiosk = runtime(camera: camera, button: button, output: SerialOutput(port: pty))
        let runTask = Task { await kiosk.run() }
        while await kiosk.status.camera != .available { try await Task.sleep(for: .milliseconds(5)) }
        // A setup page watching: the preview encoder takes frames from the tap and a consumer
        // takes its JPEGs, as a browser would.
        let preview = pageWatching ? Preview(frames: { await kiosk.tap.next(within: .seconds(2)) }, view: { await kiosk.view($0) }) : nil
        let pageTask = preview.map { p in Task { for await _ in p.watch() { if Task.isCancelled { break } } } }
        defer { pageTask?.cancel() }

        var latencies: [Double] = []
        var attributed = Attributed()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var pending: [UInt8] = []
        /// The next line from the host end (blocking, bounded), without its line end.
        @discardableResult func nextLine() throws -> String {
            while !pending.contains(10) {
                var p = pollfd(fd: host, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 60_000) > 0 else { throw ValidationError("no result within 60 s") }
                if p.revents & Int16(POLLHUP) != 0 { throw ValidationError("the serial pty hung up") }
                let n = buffer.withUnsafeMutableBytes { read(host, $0.baseAddress, $0.count) }
                if n > 0 { pending += buffer[0..<n] }
            }
            let end = pending.firstIndex(of: 10)!
            var line = pending[..<end]
            while line.last == 13 { line.removeLast() }
            defer { pending.removeSubrange(...end) }
            return String(decoding: line, as: UTF8.self)
        }
        var lastImage = -1
        while latencies.count < sessions {
            if presented {
                try nextLine()
                let now = clock.now
                let (image, since) = inView.withLock { $0 }
                // One figure per presentation (a code image may give more than one line).
                guard let since, image % 2 == 1, image != lastImage else { continue }
                lastImage = image
                latencies.append((now - since).milliseconds)
            } else {
                let start = clock.now
                let pressedOn = inView.withLock { $0.image }
                button.press()
                if trigger == .pulse { button.release() }
                let line = try nextLine()
                let ms = (clock.now - start).milliseconds
                latencies.append(ms)
                // Which image's code was read: the one in view at the press, or (when that one
                // could not be read) a later one.
                let (nowImage, since) = inView.withLock { $0 }
                if nowImage != pressedOn, let later = expected(nowImage), Self.sameCode(line, later),
                   expected(pressedOn).map({ !Self.sameCode(line, $0) }) ?? true {
                    attributed.later.append(since.map { min(ms, (clock.now - $0).milliseconds) } ?? ms)
                } else {
                    attributed.pressed.append(ms)
                }
                if trigger == .level { button.release() }
                while await kiosk.status.phase != "idle" { try await Task.sleep(for: .milliseconds(1)) }
                // The next press comes at a random point of the frame period, as a person's would.
                try await Task.sleep(for: .microseconds(Int.random(in: 0..<Int(1_000_000 / Double(fps)))))
            }
        }
        let status = await kiosk.status
        if let preview { print("preview: \(preview.encodedCount) JPEG frames encoded while the sessions ran") }
        pageTask?.cancel()
        await kiosk.stop()
        await runTask.value
        if !presented, !attributed.later.isEmpty { print(attributed.summary(period: 1000.0 / Double(fps))) }
        return (latencies, status.framesDecoded, camera.droppedFrames)
    }

    /// Pulse and level sessions split by the image whose code was read (known from the image
    /// folder's manifest.json): a press on an image the pipeline cannot read is answered by the
    /// next image, up to `framesPerImage` periods later, which is the camera's timing, not the
    /// scanner's.
    struct Attributed {
        var pressed: [Double] = []
        var later: [Double] = []

        func summary(period: Double) -> String {
            func at(_ v: [Double], _ q: Double) -> Double { let s = v.sorted(); return s.isEmpty ? 0 : s[min(s.count - 1, Int(Double(s.count) * q))] }
            return "reads of the code in view at the press: \(pressed.count) sessions, median \(fixed(at(pressed, 0.5) / period, 2)), "
                + "p95 \(fixed(at(pressed, 0.95) / period, 2)), p99 \(fixed(at(pressed, 0.99) / period, 2)) frame periods; "
                + "presses on an image not read there, answered by a later image: \(later.count) sessions "
                + "(from that image's arrival: median \(fixed(at(later, 0.5) / period, 2)), max \(fixed(at(later, 1) / period, 2)) frame periods)"
        }
    }

    /// The expected text of each image the camera plays (by its index), from manifest.json in
    /// the folder it came from; nil where there is no manifest or no text.
    func expectedTexts() -> @Sendable (Int) -> String? {
        let paths = SimulatedCamera<ContinuousClock>.expand(images)
        var byPath: [String: String] = [:]
        for folder in images {
            guard let records = try? DecodeBench.manifest(folder + "/manifest.json") else { continue }
            for r in records { if let text = r.text { byPath[folder + "/" + r.file] = text } }
        }
        let texts = paths.map { byPath[$0] }
        return { i in i >= 0 && i < texts.count ? texts[i] : nil }
    }

    /// The same code read, allowing for a UPC's other forms (`DecodeBench.sameUPC`).
    static func sameCode(_ a: String, _ b: String) -> Bool { a == b || DecodeBench.sameUPC(a, b) }

    /// This process's CPU time so far, user and system, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }
}

/// Camera frame to gray: the Y plane of YUYV and MJPEG decoding, per frame size, against a
/// plain copy of the same bytes measured in the same run.
struct ConvertBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "convert", abstract: "YUYV and MJPEG to gray, ms per frame.")

    @Option(help: "A folder of JPEG scenes (one per size is used as the MJPEG frame; required).")
    var corpus: String

    func validate() throws {
        if Posix.directoryEntries(corpus) == nil { throw ValidationError("--corpus \(corpus): cannot open the folder (\(String(cString: strerror(errno))))") }
    }

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

/// The strongest cell contrast of each image (tuning aid for `ContrastGate`).
struct ContrastTool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "contrast", abstract: "The strongest cell contrast per image (tuning aid).")
    @Argument var files: [String]
    func run() throws {
        for file in files {
            guard let frame = try? ImageFile.load(file) else { continue }
            print("\(ContrastGate.strongestCellContrast(frame)) \(file)")
        }
    }
}
