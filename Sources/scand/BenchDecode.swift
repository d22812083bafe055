import ArgumentParser
import Decoding
import ImageLoading
import ScanConfig
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// `scand bench decode CORPUS`: reads a corpus folder (manifest.json) with each engine alone and
/// with the pipeline, and zbarimg and ZXingReader as the outside references, in one run.
struct DecodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decode", abstract: "Correct reads, misreads and decode time per symbology and difficulty.")

    @Argument(help: "A corpus folder with manifest.json.")
    var corpus: String

    @Option(help: "Decoders to measure: zbar, zxing, pipeline-fast, pipeline-balanced, pipeline-accurate.")
    var decoders: [String] = ["zbar", "zxing", "pipeline-balanced"]

    @Option(help: "Threads for the pipeline's deeper passes on an image (1: as the kiosk runs them, beside the next frame's first look).")
    var workers: Int = Posix.onlineProcessors

    @Flag(inversion: .prefixedNo, help: "Also run zbarimg once per image as the outside reference.")
    var zbarimg = true

    @Flag(inversion: .prefixedNo, help: "Also run zxing-cpp's ZXingReader once per image (Debian's zxing-cpp-tools), where installed.")
    var zxingReader = true

    @Flag(inversion: .prefixedNo, help: "Also run zxing-cpp 3.1 from PyPI in-process (bench/zxingcpp_reference.py), where bench/setup-zxing-cpp.sh installed it.")
    var zxingCpp = true

    @Option(help: "The Python with zxing-cpp 3.1 installed (default: .build/zxing-cpp-venv/bin/python in the checkout, the current folder or the one this scand was built in).")
    var python: String?

    @Option(name: .customLong("repeat"), help: "Decode each image this many times and count the fastest (the same for zxing-cpp 3.1 in-process): a figure steadier than one timing on a shared or throttled machine. Process-per-image references (zbarimg, ZXingReader) run once.")
    var repeats: Int = 1

    @Option(help: ArgumentHelp("What the times count: wall (elapsed) or cpu (this process's CPU time on all its threads, and the zxing-cpp 3.1 reference's alike; zbarimg and ZXingReader, a process per image, stay wall time): cpu is steadier on a shared machine, and with --workers 1 it is the decoding thread's work.", valueName: "wall|cpu"))
    var clock: BenchClock = .wall

    @Option(name: .customLong("set"), help: ArgumentHelp("A symbology.* key for the pipeline, as `scand decode --set` takes it (e.g. symbology.ean13.addon=read).", valueName: "key=value"))
    var overrides: [String] = []

    @Option(help: ArgumentHelp("Corrections to the corpus's expected texts: a JSON array of {file, text, why} (default: bench/errata/<the corpus folder's name>.json from the working folder, where there is one). Every decoder is judged by the corrected texts.", valueName: "file"))
    var errata: String?

    @Flag(help: "Judge by the manifest as it is, without bench/errata/<name>.json.")
    var noErrata = false

    @Flag(help: "List every image a decoder got wrong or missed.")
    var verbose = false

    @Option(help: "Also write each image's outcome per decoder to this CSV file (decoder, file, symbology, difficulty, verdict, ms).")
    var csv: String?

    static let decoderNames = ["zbar", "zxing", "pipeline-fast", "pipeline-balanced", "pipeline-accurate", "pipeline"]

    func validate() throws {
        let names = decoders.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        if let unknown = names.first(where: { !Self.decoderNames.contains($0) }) {
            throw ValidationError("--decoders: \(Self.quoted(unknown)) is no decoder; use zbar, zxing, pipeline-fast, pipeline-balanced or pipeline-accurate")
        }
        if noErrata && errata != nil { throw ValidationError("--errata and --no-errata say opposite things: give one") }
    }

    func run() throws {
        var records = try Self.manifest(corpus + "/manifest.json")
        // The corpus's own name, however its path is written (auto/zxing-cpp/., a link to it).
        let name = (Posix.resolved(corpus) ?? corpus).split(separator: "/").last.map(String.init) ?? corpus
        // The standing errata are in the checkout (found from any folder, as the reference script).
        let standing = "bench/errata/\(name).json"
        let found = noErrata ? nil : Posix.folderHolding(standing).map { $0 == "." ? standing : $0 + "/" + standing }
        if let path = errata ?? found {
            let (fixed, count, absent) = try Self.corrected(records, by: path)
            records = fixed
            print("\(count) expected text\(count == 1 ? "" : "s") corrected by \(path)" + (absent > 0 ? " (\(absent) of its files not in this corpus)" : ""))
        }
        // Each image is loaded when its turn comes (for each decoder): a corpus is never all in
        // memory at once (kept, they took a frame's megabyte each until a large corpus was killed).
        var unreadable: [(file: String, reason: String)] = [], unreadableFiles = Set<String>()
        var rules = SymbologyRules()
        if !overrides.isEmpty {
            do { rules = try ConfigLoader.parse(Decode.settingsBase, file: "--set", overrides: overrides, boardsDirectory: "/nonexistent").rules } catch {
                throw ValidationError(error.description)
            }
        }
        var names: [String] = []
        for name in decoders.flatMap({ $0.split(separator: ",").map(String.init) }) where !names.contains(name) { names.append(name) }
        var all: [(String, [Outcome])] = names.compactMap { name -> (String, [Outcome])? in
            guard let decoder = Self.decoder(named: name, workers: workers, rules: rules) else { return nil } // refused by validate()
            var outcomes: [Outcome] = []
            for r in records {
                let frame: GrayFrame
                do throws(ImageLoadError) { frame = try ImageFile.load(corpus + "/" + r.file) } catch {
                    if unreadableFiles.insert(r.file).inserted { unreadable.append((r.file, error.reason)) }
                    outcomes.append(Outcome(record: r, verdict: .missed, ms: 0, got: "unreadable file: \(error.reason)"))
                    continue
                }
                var symbols: [Symbol] = []
                var ms = Double.infinity
                for _ in 0..<max(1, min(repeats, 100)) {
                    ms = min(ms, clock.milliseconds { symbols = decoder.decode(frame) })
                }
                outcomes.append(Outcome(record: r, verdict: Self.judge(r, symbols.map { ($0.text, $0.bytes) }, addOns: symbols.map(\.addOn)), ms: ms,
                                        got: symbols.map { "\($0.symbology.rawValue):\($0.text)" + ($0.addOn.map { "+" + $0 } ?? "") }.joined(separator: " | ")))
            }
            return (name, outcomes)
        }
        if zbarimg {
            // zbarimg prints each code's bytes on a line of its own.
            all.append(("zbarimg (process per image)", external("/usr/bin/zbarimg", ["--nodbus", "-q", "--raw"], records) { out in
                out.split(separator: 10).map { (String(decoding: $0, as: UTF8.self), Array($0)) }
            }))
        }
        if zxingReader {
            if Posix.isExecutable("/usr/bin/ZXingReader") {
                // ZXingReader -1 writes a line per code (-bytes ran the codes' bytes together).
                all.append(("ZXingReader (process per image)", external("/usr/bin/ZXingReader", ["-1"], records, parse: Self.zxingReaderLines)))
            } else {
                printError("ZXingReader is not installed (apt-get install zxing-cpp-tools): left out")
            }
        }
        if zxingCpp {
            // The reference script and its venv from the checkout, wherever this runs from.
            if let checkout = Posix.folderHolding(Self.referenceScript) {
                let python = self.python ?? checkout + "/.build/zxing-cpp-venv/bin/python"
                if !Posix.isExecutable(python) {
                    printError("zxing-cpp 3.1 from PyPI is not installed (\(python); bash bench/setup-zxing-cpp.sh): left out")
                } else if let outcomes = zxingCppInProcess(records, python: python, script: checkout + "/" + Self.referenceScript) {
                    all.append(outcomes)
                }
            } else {
                printError("\(Self.referenceScript) is in scand's checkout, which is neither this folder nor above this scand: zxing-cpp 3.1 left out")
            }
        }
        if let first = unreadable.first {
            printError("\(unreadable.count) of the manifest's files could not be read and count as missed (\(PayloadText.escaped(first.file)): \(first.reason)\(unreadable.count > 1 ? "; --verbose lists them" : ""))")
        }
        report(all, records: records)
        if let csv { try writeCSV(all, to: csv) }
    }

    func writeCSV(_ all: [(String, [Outcome])], to path: String) throws {
        func field(_ s: String) -> String { s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + s.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\"" : s }
        var text = "decoder,file,symbology,difficulty,verdict,ms\n"
        for (name, outcomes) in all {
            for o in outcomes {
                text += [name, o.record.file, o.record.symbology ?? "", o.record.difficulty, "\(o.verdict)", fixed(o.ms, 2)].map(field).joined(separator: ",") + "\n"
            }
        }
        do { try FileBytes.writeAtomically(Array(text.utf8), to: path) } catch { throw ValidationError("\(path): \(error)") }
    }

    static let referenceScript = "bench/zxingcpp_reference.py"

    /// zxing-cpp 3.1 in one Python process over the whole corpus, each decode call timed inside
    /// it (in-process, like scand's own figures); nil when the script fails.
    func zxingCppInProcess(_ records: [Record], python: String, script: String) -> (String, [Outcome])? {
        guard let run = Posix.run(python, [script, corpus, "--repeat", "\(max(1, min(repeats, 100)))"] + (clock == .cpu ? ["--cpu"] : [])), run.status == 0 else {
            printError("bench/zxingcpp_reference.py failed: left out")
            return nil
        }
        var version = "3.1"
        var byFile: [String: (ms: Double, found: [(String, [UInt8])])] = [:]
        for line in run.output.split(separator: 10) {
            guard let json = try? JSONValue.parse(Array(line)) else { continue }
            if let v = json["version"]?.string { version = v; continue }
            guard let file = json["file"]?.string else { continue }
            let found = (json["results"]?.array ?? []).map { r in (r["text"]?.string ?? "", Self.hexBytes(r["hex"]?.string ?? "")) }
            byFile[file] = (json["ms"]?.number ?? 0, found)
        }
        let outcomes = records.map { r -> Outcome in
            guard let got = byFile[r.file] else { return Outcome(record: r, verdict: .missed, ms: 0, got: "not decoded") }
            return Outcome(record: r, verdict: Self.judge(r, got.found), ms: got.ms, got: got.found.map(\.0).joined(separator: " | "))
        }
        return ("zxing-cpp \(version) PyPI", outcomes)
    }

    /// An outside decoder run once per image, as a user would run it; the time includes starting
    /// the process.
    func external(_ path: String, _ arguments: [String], _ records: [Record],
                  parse: ([UInt8]) -> [(String, [UInt8])]) -> [Outcome] {
        var outcomes: [Outcome] = []
        let clock = ContinuousClock()
        for r in records {
            var found: [(String, [UInt8])] = []
            let ms = clock.measure {
                guard let run = Posix.run(path, arguments + [corpus + "/" + r.file]) else { return }
                found = parse(run.output)
            }.milliseconds
            outcomes.append(Outcome(record: r, verdict: Self.judge(r, found), ms: ms, got: found.map(\.0).joined(separator: " | ")))
        }
        return outcomes
    }

    /// ZXingReader's `-1` lines, `FILE FORMAT "TEXT"` (`FILE None` without a code), each code's
    /// text with its angle-bracket escapes (`<GS>`, `<U+FE>`) undone.
    static func zxingReaderLines(_ out: [UInt8]) -> [(String, [UInt8])] {
        out.split(separator: 10).compactMap { line -> (String, [UInt8])? in
            let line = String(decoding: line, as: UTF8.self)
            guard let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close else { return nil }
            let text = unescapedZXing(String(line[line.index(after: open)..<close]))
            return (text, Array(text.utf8))
        }
    }

    static let controlNames = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
                               "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"]

    static func unescapedZXing(_ text: String) -> String {
        var out = "", rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let code = controlNames.firstIndex(of: name) { out.unicodeScalars.append(Unicode.Scalar(UInt8(code))) }
            else if name == "DEL" { out += "\u{7F}" }
            else if name.hasPrefix("U+"), let v = UInt32(name.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(v) { out.unicodeScalars.append(scalar) }
            else { out += rest[open...close] }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    struct Outcome {
        enum Verdict { case correct, misread, missed, rejectedEmpty }
        var record: Record
        var verdict: Verdict
        var ms: Double
        var got: String
    }

    /// Correct when any result matches the expected text (UPC-A/UPC-E in short or EAN-13 form) or
    /// the expected bytes; a result on an image with no code, or only wrong results, is a misread.
    /// Where the record names the other codes in the image (`others`), any result that is
    /// neither the expected code nor one of them is a misread, even beside a right one, and so is
    /// one of them with an add-on other than the one its entry names (`TEXT+ADDON`). Where it
    /// names an add-on and the decoder reports add-ons (`addOns`, one per result), the right
    /// code with another add-on is a misread, and without one a miss; where it names the empty
    /// add-on (the code has none), the right code with any add-on is a misread.
    static func judge(_ r: Record, _ results: [(String, [UInt8])], addOns: [String?]? = nil) -> Outcome.Verdict {
        guard let want = r.text else { return results.isEmpty ? .correct : .misread }
        if results.isEmpty { return .missed }
        let wantBytes = r.hex.map(Self.hexBytes)
        func matches(_ text: String, _ bytes: [UInt8], _ want: String) -> Bool {
            text == want || (want == r.text && bytes == wantBytes) || ((r.symbology == "UPC-A" || r.symbology == "UPC-E" || r.others != nil) && sameUPC(text, want))
        }
        if let named = r.others {
            // `TEXT+ADDON` names the other code's add-on (`TEXT+`: none): with another, it is a misread.
            let others = named.map { o in o.firstIndex(of: "+").map { (String(o[..<$0]), String(o[o.index(after: $0)...]) as String?) } ?? (o, nil) }
            if results.contains(where: { t, b in !matches(t, b, want) && !others.contains { matches(t, b, $0.0) } }) { return .misread }
            if let addOns, results.indices.contains(where: { i in
                !matches(results[i].0, results[i].1, want) && addOns[i] != nil
                    && others.contains { matches(results[i].0, results[i].1, $0.0) && $0.1 != nil && $0.1 != addOns[i] }
            }) { return .misread }
            if !results.contains(where: { matches($0.0, $0.1, want) }) { return .correct } // one of the others: right, if not the one asked
        }
        for (i, (text, bytes)) in results.enumerated() where matches(text, bytes, want) {
            if let addon = r.addon, let addOns {
                if addon.isEmpty { return addOns[i] == nil ? .correct : .misread }
                guard let got = addOns[i] else { return .missed }
                return got == addon ? .correct : .misread
            }
            return .correct
        }
        return .misread
    }

    /// The same UPC in any of its forms, on either side: short (UPC-E), its UPC-A expansion, or
    /// either's EAN-13 form.
    static func sameUPC(_ a: String, _ b: String) -> Bool {
        func forms(_ t: String) -> Set<String> {
            var out: Set<String> = [t, "0" + t]
            if let a = UPC.expandUPCE(t) { out.formUnion([a, "0" + a]) }
            return out
        }
        return !forms(a).isDisjoint(with: forms(b))
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = hex.makeIterator()
        while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16) ?? 0) }
        return out
    }

    func report(_ all: [(String, [Outcome])], records: [Record]) {
        let symbologies = Array(Set(records.map { $0.symbology ?? "(none)" })).sorted()
        let difficulties = Array(Set(records.map(\.difficulty))).sorted()
        print("corpus \(corpus): \(records.count) image\(records.count == 1 ? "" : "s") (\(records.filter { $0.text == nil }.count) without a code); times: \(clock == .cpu ? "CPU time of the process" + (zbarimg || zxingReader ? " (zbarimg and ZXingReader, a process per image: elapsed)" : "") : "elapsed")")
        print("")
        let width = max(30, (all.map(\.0.count).max() ?? 0) + 2)
        print(pad("decoder", width) + pad("correct", 10) + pad("misreads", 10) + pad("median ms", 11) + "p95 ms")
        // The ratio is to zxing-cpp 3.1 in-process, where it ran: the other in-process reference.
        let reference = all.first { $0.0.hasPrefix("zxing-cpp") }.map { (name: $0.0, median: Self.median($0.1.map(\.ms))) }
        for (name, outcomes) in all {
            let ok = outcomes.filter { $0.verdict == .correct && $0.record.text != nil }.count
            let bad = outcomes.filter { $0.verdict == .misread }.count
            let med = Self.median(outcomes.map(\.ms)), p95 = Self.percentile(outcomes.map(\.ms), 0.95)
            var ratio = ""
            if let reference, name != reference.name, !name.hasSuffix("(process per image)"), reference.median > 0 {
                ratio = "   (median \(fixed(med / reference.median, 2))x \(reference.name)'s)"
            }
            print(pad(name, width) + pad("\(ok)/\(records.filter { $0.text != nil }.count)", 10) + pad("\(bad)", 10)
                  + pad(fixed(med, 1), 11) + fixed(p95, 1) + ratio)
        }
        for (title, key, values) in [("symbology", \Record.symbology, symbologies), ("difficulty", \Record.difficulty as PartialKeyPath<Record>, difficulties)] as [(String, PartialKeyPath<Record>, [String])] {
            print("")
            // Each decoder's column as wide as its name (names were cut at 18 characters).
            let widths = all.map { max(20, $0.0.count + 2) }
            let labels = max(22, (values.map { PayloadText.escaped($0).count }.max() ?? 0) + 2)
            print(pad("by \(title)", labels) + zip(all, widths).map { pad($0.0.0, $0.1) }.joined())
            for value in values {
                var line = pad(value, labels)
                for ((_, outcomes), columnWidth) in zip(all, widths) {
                    let group = outcomes.filter { (($0.record[keyPath: key] as? String?) ?? nil ?? "(none)") == value || ($0.record[keyPath: key] as? String) == value }
                    let ok = group.filter { $0.verdict == .correct }.count
                    let bad = group.filter { $0.verdict == .misread }.count
                    line += pad("\(ok)/\(group.count)" + (bad > 0 ? " [\(bad)]" : "") + " \(fixed(Self.median(group.map(\.ms)), 0))ms", columnWidth)
                }
                print(line)
            }
        }
        if verbose {
            for (name, outcomes) in all {
                print("\n\(name): wrong or missed")
                for o in outcomes where o.verdict != .correct {
                    let want = o.record.text.map { PayloadText.escaped(String($0.prefix(40))) } ?? "nothing"
                    print("  \(o.verdict == .misread ? "MISREAD" : "missed ") \(PayloadText.escaped(o.record.file)) want \(want) got \(PayloadText.escaped(String(o.got.prefix(80))))")
                }
            }
        }
    }

    /// `s` escaped (a manifest's names reach the terminal: no control character passes) and padded to `n`.
    func pad(_ s: String, _ n: Int) -> String {
        let s = PayloadText.escaped(s)
        return s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count)
    }
    static func median(_ v: [Double]) -> Double { percentile(v, 0.5) }
    static func percentile(_ v: [Double], _ p: Double) -> Double {
        guard !v.isEmpty else { return 0 }
        let s = v.sorted()
        return s[min(s.count - 1, Int(Double(s.count - 1) * p + 0.5))]
    }

    static func decoder(named name: String, workers: Int = 1, rules: SymbologyRules = SymbologyRules()) -> (any BarcodeDecoder)? {
        let all = Set(Symbology.allCases).subtracting([.isbn10, .isbn13])
        var effort = ZXingDecoder.Effort.standard
        effort.readsAddOns = rules.readsAddOns
        switch name {
        case "zbar": return ZBarDecoder(symbologies: all)
        case "zxing": return ZXingDecoder(symbologies: all, effort: effort)
        case "pipeline-fast": return DecodePipeline(symbologies: all, quality: .fast, rules: rules, workers: workers)
        case "pipeline-balanced", "pipeline": return DecodePipeline(symbologies: all, quality: .balanced, rules: rules, workers: workers)
        case "pipeline-accurate": return DecodePipeline(symbologies: all, quality: .accurate, rules: rules, workers: workers)
        default: return nil
        }
    }
}

/// What `scand bench decode` times with: the elapsed time, or the process's CPU time (all its
/// threads), which other load on a shared machine moves far less.
enum BenchClock: String, ExpressibleByArgument {
    case wall, cpu

    /// The milliseconds `work` took on this clock.
    func milliseconds(_ work: () -> Void) -> Double {
        switch self {
        case .wall:
            return ContinuousClock().measure(work).milliseconds
        case .cpu:
            let start = Self.processCPUNanoseconds()
            work()
            return Double(Self.processCPUNanoseconds() - start) / 1e6
        }
    }

    static func processCPUNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
