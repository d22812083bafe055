import ArgumentParser
import Decoding
import Glibc
import ImageLoading
import ScanCore
import ScanHardware

/// What making each deep pass's images costs (`ImagePass.apply`), against the first engine's
/// read of the same frame, for one image of each frame size given.
struct PassesBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "passes", abstract: "The cost of making each deep pass's images, ms per frame.")

    @Option(help: "Repetitions per measurement (the median counts).")
    var repeats = 9

    @Option(help: "Decode quality whose passes are measured: fast, balanced or accurate.")
    var quality: DecodeQuality = .balanced

    @Flag(help: "Instead of timing, print a digest (FNV-1a) of each pass's images for every file: a change to the image filters that should keep every pixel shows the same digests before and after.")
    var digests = false

    @Flag(help: "Instead of timing the images, tell which passes read each file (the manifest.json of the nearest folder above it gives the expected text): the first look, then each pass alone after it, on one thread, with the time each took, and the frame's condition where it moves passes up (out of focus, dark). Shows where a slow read or a miss could be read sooner.")
    var reads = false

    @Flag(help: "With --reads: also each pass that read nothing, and its time (the figures to weigh another order of the passes with).")
    var allPasses = false

    @Argument(help: "Image files (the first of each size is measured).")
    var files: [String]

    func run() throws {
        if reads { return try census() }
        if digests {
            for file in files {
                let frame = try ImageFile.load(file)
                let made = MadeImages()
                for pass in ImagePass.passes(for: quality) {
                    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                    for t in pass.apply(frame, made: made) {
                        for v in [t.frame.width, t.frame.height, t.offsetX, t.offsetY] { hash = (hash ^ UInt64(truncatingIfNeeded: v)) &* 0x100_0000_01b3 }
                        t.frame.withUnsafeBytes { p in
                            for y in 0..<t.frame.height {
                                for x in 0..<t.frame.width { hash = (hash ^ UInt64(p[y * t.frame.stride + x])) &* 0x100_0000_01b3 }
                            }
                        }
                    }
                    print("\(file) \(pass.rawValue) \(String(hash, radix: 16))")
                }
            }
            return
        }
        var frames: [GrayFrame] = []
        for file in files {
            let frame = try ImageFile.load(file)
            if !frames.contains(where: { $0.width == frame.width && $0.height == frame.height }) { frames.append(frame) }
        }
        let passes = ImagePass.passes(for: quality)
        let zxing = ZXingDecoder(symbologies: Set(Symbology.allCases))
        print(padded("pass", 20) + frames.map { padded("\($0.width)x\($0.height)", 20, right: true) }.joined())
        let reads = frames.map { frame in ConvertBench.time(repeats) { _ = zxing.decode(frame) } }
        print(padded("zxing read (ref)", 20) + reads.map { padded(fixed($0, 2) + " ms", 20, right: true) }.joined())
        var total = Array(repeating: 0.0, count: frames.count)
        for pass in passes {
            let ms = frames.map { frame in ConvertBench.time(repeats) { _ = pass.apply(frame, made: MadeImages()) } }
            for k in ms.indices { total[k] += ms[k] }
            print(padded(pass.rawValue, 20) + zip(ms, reads).map { padded(fixed($0, 2) + " ms " + fixed($0 / $1, 2) + "x", 20, right: true) }.joined())
        }
        print(padded("all", 20) + zip(total, reads).map { padded(fixed($0, 2) + " ms " + fixed($0 / $1, 2) + "x", 20, right: true) }.joined())
    }

    /// `--reads`: per file, the first look's verdict and each pass's, alone after the first
    /// look (its time is the whole decode's less the first look's); then, per pass, the files it
    /// reads that no pass before it in the quality's order reads.
    func census() throws {
        let passes = ImagePass.passes(for: quality)
        let firstLook = DecodePipeline(quality: .fast)
        let alone = passes.map { DecodePipeline(quality: quality, passes: [$0]) }
        var manifests = Manifests()
        let clock = ContinuousClock()
        var firstReads = Array(repeating: 0, count: passes.count)
        var missed = 0
        var warmed = false
        for file in files {
            let record = try manifests.record(for: file)
            let frame = try ImageFile.load(file)
            if !warmed {
                // Each pipeline's first decode pays its engines' start, once: paid here, untimed
                // (else the first file's first look took it, and its passes showed 0 ms).
                _ = firstLook.decode(frame)
                for decoder in alone { _ = decoder.decode(frame) }
                warmed = true
            }
            func verdict(_ decoder: DecodePipeline) -> (DecodeBench.Outcome.Verdict, Double) {
                var found: [Symbol] = []
                let ms = clock.measure { found = decoder.decode(frame) }.milliseconds
                return (DecodeBench.judge(record, found.map { ($0.text, $0.bytes) }), ms)
            }
            let (first, firstMs) = verdict(firstLook)
            // The frame's condition, which moves passes up (`ImagePass.passes(for:condition:)`).
            let condition = FrameCondition(of: frame)
            let told = [condition.isOutOfFocus ? "out of focus" : nil, condition.isDark ? "dark" : nil].compactMap { $0 }
            var line = "\(file): first look \(first) \(fixed(firstMs, 1)) ms" + (told.isEmpty ? "" : " (" + told.joined(separator: ", ") + ")")
            var read = first == .correct
            if read { print(line); continue }
            var readers: [String] = []
            for (k, pass) in passes.enumerated() {
                let (v, ms) = verdict(alone[k])
                guard v != .missed || allPasses else { continue }
                readers.append("\(pass.rawValue) \(v == .correct ? "" : "\(v) ")\(fixed(max(0, ms - firstMs), 1)) ms")
                if v == .correct, !read { firstReads[k] += 1; read = true }
            }
            if !read { missed += 1 }
            line += readers.isEmpty ? "; no pass reads it" : "; " + readers.joined(separator: ", ")
            print(line)
        }
        print("")
        print("first read by (in \(quality.rawValue)'s order):")
        for (k, pass) in passes.enumerated() where firstReads[k] > 0 { print("  \(padded(pass.rawValue, 20)) \(firstReads[k])") }
        print("  \(padded("no pass", 20)) \(missed)")
    }

    /// The corpus manifests the census's files are named in, each read once.
    struct Manifests {
        var byFolder: [String: [String: DecodeBench.Record]] = [:]

        /// The record of `file` in the manifest of the nearest folder above it that names it (a
        /// corpus's files may lie in subfolders, named by their path from the manifest's folder).
        mutating func record(for file: String) throws -> DecodeBench.Record {
            var parts = file.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            var name = parts.removeLast()
            while true {
                let folder = parts.isEmpty ? "." : parts.joined(separator: "/")
                if byFolder[folder] == nil {
                    let path = folder + "/manifest.json"
                    byFolder[folder] = access(path, F_OK) == 0
                        ? Dictionary(try DecodeBench.manifest(path).map { ($0.file, $0) }, uniquingKeysWith: { a, _ in a }) : [:]
                }
                if let record = byFolder[folder]?[name] { return record }
                guard let up = parts.popLast(), !up.isEmpty else { break }
                name = up + "/" + name
            }
            throw DecodeBench.FileProblem(description: "\(file): no manifest.json in the folders above it names it (the census judges each file by its record)")
        }
    }
}
