import ArgumentParser
import Decoding
import Delivery
import ImageLoading
import ScanConfig
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// `scand decode`: decode image files, like zbarimg.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode barcodes in image files (PNG, JPEG, PGM).",
        discussion: """
            Prints one line per code: symbology:text (--raw: the text alone), and on stderr each \
            file that yielded no code and a summary (-q: neither).
            Exit status: 0 when every file yielded a code, 1 when some file yielded none \
            (--no-code-status changes it: zbarimg's is 4), 2 when some file could not be read \
            (named on stderr; the others are still decoded).
            """
    )

    @Flag(help: "Print one JSON object per file, one per line, in input order.")
    var json = false

    @Flag(help: "Print each code's text alone, as it is (no symbology prefix, control characters not escaped), as zbarimg --raw does.")
    var raw = false

    @Flag(name: [.customShort("q"), .long], help: "Quiet: no line on stderr for a file without a code, no summary (errors are still shown).")
    var quiet = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Exit status when some file yielded no code and none failed (zbarimg's is 4).", valueName: "status"))
    var noCodeStatus: Int32 = 1

    @Flag(help: "Print UPC-E codes as the UPC-A number they stand for (12 digits).")
    var upceExpand = false

    @Option(help: ArgumentHelp("Read as the kiosk with this config file would: its symbology.*, scan.symbologies and decoding.* keys "
                               + "(the rest of the file is checked but not used); --set applies on top.", valueName: "file"))
    var config: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Decode only inside this region, as fractions of the image: x,y from the top left, "
                               + "width, height (e.g. 0.25,0.25,0.5,0.5).", valueName: "x,y,w,h"),
            transform: ViewportArgument.init(parsing:))
    var roi: ViewportArgument?

    @Option(help: ArgumentHelp("Comma-separated symbologies to read (default: the seed list; Codabar and DataBar on request): "
                               + Symbology.allCases.map(\.rawValue).joined(separator: ", ") + ".", valueName: "names"),
            transform: SymbologyList.init(parsing:))
    var symbologies: SymbologyList?

    @Option(help: ArgumentHelp("Decoder: pipeline (zxing-cpp and zbar with extra passes), zxing or zbar (one look by that engine alone); "
                               + "each answers by the kiosk's symbology rules (--config, --set)."))
    var engine: EngineChoice = .pipeline

    @Option(help: "Pipeline effort: fast, balanced or accurate.")
    var quality: QualityChoice = .balanced

    @Option(parsing: .unconditional, help: "Threads for the pipeline's deeper passes on an image (default: the processors online, \(Posix.onlineProcessors) here).")
    var workers: Int?

    @Option(parsing: .unconditional, help: "Refuse images of more pixels than this (a decompression bomb), from their header.")
    var maxPixels = ImageLimits().maxPixels

    @Option(parsing: .unconditional, help: ArgumentHelp("Give up an image's deeper passes (the pipeline's) after this many seconds, 0.01 to 86400: it counts as "
                               + "without a code, said on stderr (an image of fine texture can cost the pipeline minutes). 0: no limit.", valueName: "seconds"))
    var timeLimit: TimeLimit = TimeLimit(seconds: 30)

    /// `--time-limit`'s seconds, as written: a value that is not 0 but reads as 0 (1e-400) is refused, not taken as no limit.
    struct TimeLimit: ExpressibleByArgument {
        var seconds: Double
        init(seconds: Double) { self.seconds = seconds }
        init?(argument: String) {
            guard let value = Double(argument), value != 0 || !argument.contains(where: { "123456789".contains($0) }) else { return nil }
            seconds = value
        }
        var defaultValueDescription: String { Decode.seconds(seconds) }
    }

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
        if !(1...1_000_000_000).contains(maxPixels) { throw ValidationError("--max-pixels must be from 1 to 1000000000, not \(maxPixels)") }
        if !(timeLimit.seconds == 0 || (timeLimit.seconds >= 0.01 && timeLimit.seconds <= 86_400)) {
            throw ValidationError("--time-limit must be 0 (no limit) or from 0.01 to 86400 seconds, not \(timeLimit.seconds)")
        }
        if let workers, !(1...256).contains(workers) { throw ValidationError("--workers must be from 1 to 256, not \(workers)") }
        if !(1...125).contains(noCodeStatus) || noCodeStatus == 2 {
            throw ValidationError("--no-code-status must be from 1 to 125 and not 2 (2 means a file could not be read), not \(noCodeStatus)")
        }
        if raw && json { throw ValidationError("--raw and --json are two ways to print: choose one") }
    }

    /// `value` seconds as written: no fraction where there is none.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The config text `--set` keys apply to: the decoding settings alone (simulated hardware
    /// needs no board profile).
    static let settingsBase = "hardware = \"simulated\"\n[camera]\nimages = [\"-\"]\n"

    /// The kiosk's decoding settings from `--config` and `--set` (the defaults without either).
    func kioskSettings() throws -> ScandConfig {
        if let other = overrides.first(where: { item in !["symbology", "scan.symbologies", "decoding"].contains { item.hasPrefix($0 + ".") || item.hasPrefix($0 + "=") } }) {
            throw ValidationError("--set \(other): scand decode takes symbology.*, scan.symbologies and decoding.* keys only")
        }
        if let config {
            // The GPIO lines' board profile is not for decoding: read against the simulated
            // board, a kiosk's config loads on a laptop without the profiles installed.
            do { return try ConfigLoader.load(path: config, overrides: overrides + ["gpio.board=\"simulated\""]) } catch {
                throw ValidationError(error.description)
            }
        }
        guard !overrides.isEmpty else { return ScandConfig() }
        do { return try ConfigLoader.parse(Decode.settingsBase, file: "--set", overrides: overrides, boardsDirectory: "/nonexistent") } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        // A config problem is the user's to mend: said alone, as `check-config` says it (not
        // with the root command's usage lines, which ArgumentParser adds to an error from `run`).
        let settings: ScandConfig
        do { settings = try kioskSettings() } catch let error as ValidationError {
            printError("Error: \(error.message)")
            throw ExitCode(64)
        }
        // The kiosk's symbologies (the defaults unless `--set` changes them); `--symbologies` wins.
        let set = symbologies?.set ?? settings.symbologies
        let decoder: any BarcodeDecoder
        switch engine {
        case .zbar:
            decoder = ZBarDecoder(symbologies: set)
            if settings.rules.readsAddOns && !quiet {
                printError("scand decode: zbar reads no EAN-2/EAN-5 add-on: --engine zbar gives main codes only (none where an add-on is required)")
            }
        case .zxing:
            var effort = ZXingDecoder.Effort.standard
            effort.readsAddOns = settings.rules.readsAddOns
            decoder = ZXingDecoder(symbologies: set, effort: effort)
        case .pipeline:
            // One image is one frame: no agreeing frames; check digits, lengths and add-ons as configured.
            let q = overrides.contains { $0.hasPrefix("decoding.quality") } ? settings.decodeQuality
                : DecodePipeline.Quality(rawValue: quality.rawValue) ?? .balanced
            decoder = DecodePipeline(symbologies: set, quality: q, rules: settings.rules, engines: settings.engines, workers: workers ?? Posix.onlineProcessors,
                                     stopsAtFirstCode: false)
        }
        let viewport = roi?.viewport ?? .full
        var anyMissing = false, anyError = false, codes = 0, images = 0, withCode = 0
        let clock = ContinuousClock()
        let started = clock.now
        for path in files {
            let frame: GrayFrame
            do {
                frame = try ImageFile.load(path, limits: ImageLimits(maxPixels: maxPixels))
            } catch {
                anyError = true
                printError("scand decode: \(PayloadText.escaped(error.description))")
                if json { print(DecodeReport.jsonLine(file: path, error: error.reason)) }
                continue
            }
            var symbols: [Symbol] = []
            // The deep passes stop at the time limit (a hostile or huge image is not decoded for minutes).
            let limit = timeLimit.seconds
            let deadline = clock.now + .milliseconds(Int64(limit * 1000))
            let stop: @Sendable () -> Bool = { limit > 0 && ContinuousClock.now >= deadline }
            let elapsed = clock.measure {
                symbols = (decoder as? DecodePipeline)?.decode(frame, viewport: viewport, abandon: stop) ?? decoder.decode(frame, viewport: viewport)
                // One engine alone still answers by the kiosk's rules (check digits, lengths,
                // Code 32, add-ons): the pipeline applies them itself.
                if engine != .pipeline { symbols = settings.rules.apply(symbols) }
            }
            if upceExpand { symbols = symbols.map(UPCE.expanded) }
            images += 1
            codes += symbols.count
            if !symbols.isEmpty { withCode += 1 }
            let timedOut = engine == .pipeline && symbols.isEmpty && stop()
            if symbols.isEmpty {
                anyMissing = true
                if timedOut {
                    // Said even under -q: a result cut short is not the same as no code.
                    printError("scand decode: \(PayloadText.escaped(path)): no code found within the time limit (--time-limit \(Self.seconds(timeLimit.seconds)) s)")
                } else if !quiet {
                    printError("scand decode: \(PayloadText.escaped(path)): no code found")
                }
            }
            if json {
                print(DecodeReport.jsonLine(file: path, symbols: symbols, elapsed: elapsed, timedOut: timedOut))
            } else {
                for symbol in symbols {
                    if raw {
                        // The payload's bytes as decoded (not re-encoded as text), then its add-on.
                        let line = symbol.bytes + Array(symbol.addOn.map { symbol.addOnSeparator + $0 }?.utf8 ?? "".utf8) + [10]
                        writeStandardOutput(line)
                    } else {
                        print("\(symbol.symbology.rawValue):\(PayloadText.escaped(symbol.transmitted))")
                    }
                }
            }
        }
        if !quiet {
            let cs = Int(((clock.now - started).milliseconds / 10).rounded())
            let seconds = "\(cs / 100).\(cs % 100 < 10 ? "0" : "")\(cs % 100)"
            let unread = files.count - images
            printError("scand decode: \(codes) code\(codes == 1 ? "" : "s") in \(withCode) of \(files.count) image\(files.count == 1 ? "" : "s")"
                       + (unread > 0 ? " (\(unread) could not be read)" : "") + " in \(seconds) s")
        }
        if anyError { throw ExitCode(2) }
        if anyMissing { throw ExitCode(noCodeStatus) }
    }
}

/// The JSON line `scand decode --json` prints for one file.
enum DecodeReport {
    static func jsonLine(file: String, symbols: [Symbol], elapsed: Duration, timedOut: Bool = false) -> String {
        let items = symbols.map { s in
            let corners = s.corners.map { "[\($0.x),\($0.y)]" }.joined(separator: ",")
            return "{\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"text\":\(JSONText.string(s.text)),"
                + "\"bytesBase64\":\(JSONText.string(PayloadText.base64(s.bytes))),"
                + "\"numericOnly\":\(s.numericOnly),\"aim\":\(JSONText.string(s.aim)),"
                + (s.addOn.map { "\"addon\":\(JSONText.string($0))," } ?? "")
                + OutputFormat.payloadJSON(s) + ","
                + "\"corners\":[\(corners)]}"
        }
        let ms = elapsed.milliseconds
        return "{\"file\":\(JSONText.string(file)),\"symbols\":[\(items.joined(separator: ","))],\"ms\":\(JSONText.number(ms))"
            + (timedOut ? ",\"timeLimit\":true}" : "}")
    }

    /// The line for a file that could not be read: no symbols, and the reason.
    static func jsonLine(file: String, error: String) -> String {
        "{\"file\":\(JSONText.string(file)),\"symbols\":[],\"error\":\(JSONText.string(error))}"
    }
}

/// `x,y,w,h` as a viewport; a value refused says why.
struct ViewportArgument {
    let viewport: Viewport

    init(parsing argument: String) throws(ValidationError) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard parts.count == 4 else {
            throw ValidationError("give four numbers x,y,w,h (fractions of the image, e.g. 0.25,0.25,0.5,0.5), not \(parts.count)")
        }
        var numbers: [Double] = []
        for part in parts {
            guard let n = Double(part) else { throw ValidationError("\"\(part.prefix(20))\" is not a number; give x,y,w,h as fractions, e.g. 0.25,0.25,0.5,0.5") }
            numbers.append(n)
        }
        let v = Viewport(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        if let problem = v.problem { throw ValidationError(problem + " (x,y,w,h are fractions of the image, from 0 to 1)") }
        viewport = v
    }
}

/// A comma-separated list of symbology names; an unknown name is refused with the list of names.
struct SymbologyList {
    let set: Set<Symbology>

    init(parsing argument: String) throws(ValidationError) {
        var set = Set<Symbology>()
        for name in argument.split(separator: ",").map({ String($0).trimmingSpaces }) where !name.isEmpty {
            guard let s = Symbology(name: name) else {
                throw ValidationError("\"\(name.prefix(30))\" is not a symbology; use: " + Symbology.allCases.map(\.rawValue).joined(separator: ", "))
            }
            set.insert(s)
        }
        guard !set.isEmpty else { throw ValidationError("name at least one symbology: " + Symbology.allCases.map(\.rawValue).joined(separator: ", ")) }
        self.set = set
    }
}
