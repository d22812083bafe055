import ArgumentParser
import Decoding
import ImageLoading
import ScanConfig
import ScanCore
import ScanHardware

/// `scand decode`: decode image files, like zbarimg.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode barcodes in image files (PNG, JPEG, PGM).",
        discussion: """
            Exit status: 0 when every file yielded a code, 1 when some file yielded none,
            2 when some file could not be read (named on stderr; the others are still decoded).
            """
    )

    @Flag(help: "Print one JSON object per file, one per line, in input order.")
    var json = false

    @Option(help: ArgumentHelp("Decode only inside this normalized region.", valueName: "x,y,w,h"))
    var roi: ViewportArgument?

    @Option(help: ArgumentHelp("Comma-separated symbologies to read (default: all the engine supports).",
                               valueName: "names"))
    var symbologies: SymbologyList?

    @Option(help: "Decoder: pipeline (zxing-cpp and zbar with extra passes), zxing or zbar.")
    var engine: EngineChoice = .pipeline

    @Option(help: "Pipeline effort: fast, balanced or accurate.")
    var quality: QualityChoice = .balanced

    @Option(help: "Threads for the pipeline's deeper passes on an image (default: the processors online).")
    var workers: Int = Posix.onlineProcessors

    @Option(help: "Refuse images of more pixels than this (a decompression bomb), from their header.")
    var maxPixels = ImageLimits().maxPixels

    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Read as the kiosk would with this config key (symbology.*, scan.symbologies, decoding.*), e.g. symbology.ean13.addon=read.",
        valueName: "key=value"))
    var overrides: [String] = []

    @Argument(help: "Image files.")
    var files: [String]

    enum EngineChoice: String, ExpressibleByArgument, CaseIterable { case pipeline, zxing, zbar }
    enum QualityChoice: String, ExpressibleByArgument, CaseIterable { case fast, balanced, accurate }

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one image file") }
        if !(1...1_000_000_000).contains(maxPixels) { throw ValidationError("--max-pixels must be from 1 to 1000000000") }
    }

    /// The config text `--set` keys apply to: the decoding settings alone (simulated hardware
    /// needs no board profile).
    static let settingsBase = "hardware = \"simulated\"\n[camera]\nimages = [\"-\"]\n"

    /// The kiosk's decoding settings from `--set` (the defaults without any).
    func kioskSettings() throws -> ScandConfig {
        guard !overrides.isEmpty else { return ScandConfig() }
        if let other = overrides.first(where: { item in !["symbology", "scan.symbologies", "decoding"].contains { item.hasPrefix($0 + ".") || item.hasPrefix($0 + "=") } }) {
            throw ValidationError("--set \(other): scand decode takes symbology.*, scan.symbologies and decoding.* keys only")
        }
        do { return try ConfigLoader.parse(Decode.settingsBase, file: "--set", overrides: overrides, boardsDirectory: "/nonexistent") } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let settings = try kioskSettings()
        // The kiosk's symbologies (the defaults unless `--set` changes them); `--symbologies` wins.
        let set = symbologies?.set ?? settings.symbologies
        let decoder: any BarcodeDecoder
        switch engine {
        case .zbar: decoder = ZBarDecoder(symbologies: set)
        case .zxing:
            var effort = ZXingDecoder.Effort.standard
            effort.readsAddOns = settings.rules.readsAddOns
            decoder = ZXingDecoder(symbologies: set, effort: effort)
        case .pipeline:
            // One image is one frame: no agreeing frames; check digits, lengths and add-ons as configured.
            let q = overrides.contains { $0.hasPrefix("decoding.quality") } ? settings.decodeQuality
                : DecodePipeline.Quality(rawValue: quality.rawValue) ?? .balanced
            decoder = DecodePipeline(symbologies: set, quality: q, rules: settings.rules, engines: settings.engines, workers: workers,
                                     stopsAtFirstCode: false)
        }
        let viewport = roi?.viewport ?? .full
        var anyMissing = false, anyError = false
        let clock = ContinuousClock()
        for path in files {
            let frame: GrayFrame
            do {
                frame = try ImageFile.load(path, limits: ImageLimits(maxPixels: maxPixels))
            } catch {
                anyError = true
                printError("scand decode: \(error)")
                if json { print(DecodeReport.jsonLine(file: path, error: error.reason)) }
                continue
            }
            var symbols: [Symbol] = []
            let elapsed = clock.measure { symbols = decoder.decode(frame, viewport: viewport) }
            if symbols.isEmpty { anyMissing = true }
            if json {
                print(DecodeReport.jsonLine(file: path, symbols: symbols, elapsed: elapsed))
            } else {
                for symbol in symbols {
                    print("\(symbol.symbology.rawValue):\(PayloadText.escaped(symbol.transmitted))")
                }
            }
        }
        if anyError { throw ExitCode(2) }
        if anyMissing { throw ExitCode(1) }
    }
}

/// The JSON line `scand decode --json` prints for one file.
enum DecodeReport {
    static func jsonLine(file: String, symbols: [Symbol], elapsed: Duration) -> String {
        let items = symbols.map { s in
            let corners = s.corners.map { "[\($0.x),\($0.y)]" }.joined(separator: ",")
            return "{\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"text\":\(JSONText.string(s.text)),"
                + "\"bytesBase64\":\(JSONText.string(PayloadText.base64(s.bytes))),"
                + "\"numericOnly\":\(s.numericOnly),\"aim\":\(JSONText.string(s.aim)),"
                + (s.addOn.map { "\"addon\":\(JSONText.string($0))," } ?? "") + "\"corners\":[\(corners)]}"
        }
        let ms = elapsed.milliseconds
        return "{\"file\":\(JSONText.string(file)),\"symbols\":[\(items.joined(separator: ","))],\"ms\":\(JSONText.number(ms))}"
    }

    /// The line for a file that could not be read: no symbols, and the reason.
    static func jsonLine(file: String, error: String) -> String {
        "{\"file\":\(JSONText.string(file)),\"symbols\":[],\"error\":\(JSONText.string(error))}"
    }
}

/// `x,y,w,h` as a viewport.
struct ViewportArgument: ExpressibleByArgument {
    let viewport: Viewport
    init?(argument: String) {
        let parts = argument.split(separator: ",").map { Double(String($0).trimmingSpaces) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else { return nil }
        let v = Viewport(x: x, y: y, width: w, height: h)
        guard v.problem == nil else { return nil }
        viewport = v
    }
    static var defaultCompletionKind: CompletionKind { .default }
}

/// A comma-separated list of symbology names.
struct SymbologyList: ExpressibleByArgument {
    let set: Set<Symbology>
    init?(argument: String) {
        var set = Set<Symbology>()
        for name in argument.split(separator: ",") {
            guard let s = Symbology(name: String(name)) else { return nil }
            set.insert(s)
        }
        guard !set.isEmpty else { return nil }
        self.set = set
    }
}
