@testable import Decoding
import Foundation
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// The sets `bench/make-misreads.py` generates (zint, numpy, Pillow: scripts/setup.sh), made
/// once per test run in a temporary folder: the misread corpus and the add-on set of issue 42.
enum GeneratedSet {
    struct Record {
        var file: String
        var text: String?
        var others: [String]
        var addOn: String?
        var difficulty: String
    }

    /// Makes the set (`--addons`: the add-on set; `generator`: another of bench/'s, whose
    /// arguments follow the folder) and reads its manifest.
    static func make(_ arguments: [String], generator: String = "make-misreads.py") throws -> (folder: String, records: [Record]) {
        let name = "scand-generated-\(getpid())-\(generator.dropLast(3))-\(arguments.joined(separator: "_"))"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        let script = Fixture.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("bench/\(generator)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, folder] + arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw GenerationFailed(message: "bench/\(generator) \(arguments) failed (status \(process.terminationStatus)): zint, python3-numpy and python3-pil are needed (scripts/setup.sh)")
        }
        let json = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))))
        let records = (json.array ?? []).map { item in
            Record(file: item["file"]?.string ?? "", text: item["text"]?.string, others: item["others"]?.array?.compactMap(\.string) ?? [],
                   addOn: item["addon"]?.string, difficulty: item["difficulty"]?.string ?? "")
        }
        return (folder, records)
    }

    struct GenerationFailed: Error, CustomStringConvertible { var message: String; var description: String { message } }

    /// The same code, UPC-A and EAN-13 forms alike.
    static func same(_ a: String, _ b: String) -> Bool { a == b || "0" + a == b || a == "0" + b }
}

@Suite(.serialized, .onTestThreads) struct GeneratedSetTests {
    /// Issue 42's misread budget: on frames made the way misreads arise (shallow clutter lines
    /// across an EAN/UPC, two EAN-13 side by side, an add-on's bars beside the main code, a
    /// short Codabar/ITF/Code 39 inside or beside a long code, codes in noise, two EAN/UPC one
    /// over the other with their bars overlapping), with every
    /// symbology on, the pipeline reads the right code or nothing: never another.
    @Test func theMisreadCorpusHasNoMisread() throws {
        let (folder, records) = try GeneratedSet.make(["--count", "6", "--seed", "4242"])
        #expect(records.count == 42)
        let all = Set(Symbology.allCases).subtracting([.isbn10, .isbn13])
        let pipeline = DecodePipeline(symbologies: all, quality: .balanced)
        var misreads: [String] = [], reads = 0
        for r in records {
            let frame = try ImageFile.load(folder + "/" + r.file)
            let got = pipeline.decode(frame).map(\.text)
            let allowed = (r.text.map { [$0] } ?? []) + r.others
            for t in got where !allowed.contains(where: { GeneratedSet.same($0, t) }) { misreads.append("\(r.file): \(t) (want \(r.text ?? "nothing"))") }
            if let want = r.text, got.contains(where: { GeneratedSet.same($0, want) }) { reads += 1 }
        }
        #expect(misreads.isEmpty, "\(misreads)")
        // Not a read budget, a sign the set holds readable codes: most are read.
        #expect(reads >= records.filter { $0.text != nil }.count / 2, "\(reads) reads")
    }

    /// Labels over labels (bench/make-stacked-labels.py, seed 9393's first 20: two EAN-13/UPC-A
    /// overprinted or pasted one over the other, turned, in perspective, blurred): the pipeline
    /// reads one of the two codes or nothing, on one thread as the kiosk's deep look runs and on
    /// two. Among them is a read of two codes' halves with a digit of each misfit (0010); the
    /// set's image 0035 is still misread (a deconvolved read of neither code: docs/decoding.md).
    @Test func stackedLabelsHaveNoMisread() throws {
        let (folder, records) = try GeneratedSet.make(["20", "9393"], generator: "make-stacked-labels.py")
        #expect(records.count == 20)
        var misreads: [String] = [], reads = 0
        for workers in [1, 2] {
            let pipeline = DecodePipeline(workers: workers, stopsAtFirstCode: false)
            for r in records {
                let got = pipeline.decode(try ImageFile.load(folder + "/" + r.file)).map(\.text)
                let allowed = (r.text.map { [$0] } ?? []) + r.others.map { String($0.prefix { $0 != "+" }) }
                for t in got where !allowed.contains(where: { GeneratedSet.same($0, t) }) { misreads.append("\(workers): \(r.file): \(t)") }
                if got.contains(where: { t in allowed.contains { GeneratedSet.same($0, t) } }) { reads += 1 }
            }
        }
        #expect(misreads.isEmpty, "\(misreads)")
        #expect(reads >= records.count, "\(reads) reads of \(2 * records.count) looks: most images show a code read")
    }

    /// `symbology.*.addon = "read"`: EAN-13+2, EAN-13+5, UPC-A+5 and ISBN+5, clean, blurred,
    /// skewed, in perspective and at low resolution; at least 95 % read whole (the main code and
    /// its add-on), none with a wrong main code or add-on.
    @Test func addOnsAreReadWhole() throws {
        let (folder, records) = try GeneratedSet.make(["--addons", "--count", "4", "--seed", "2468"])
        #expect(records.count == 40)
        var rules = SymbologyRules()
        for s in SymbologyRules.addOnSymbologies { var r = rules.rule(s); r.addOn = .read; rules.rules[s] = r }
        let pipeline = DecodePipeline(quality: .balanced, rules: rules)
        var whole = 0, wrong: [String] = [], partial: [String] = []
        for r in records {
            let frame = try ImageFile.load(folder + "/" + r.file)
            for s in pipeline.decode(frame) {
                guard let want = r.text, GeneratedSet.same(s.text, want) else { wrong.append("\(r.file): \(s.text)"); continue }
                if s.addOn == r.addOn { whole += 1; #expect(s.aim == "]E3") }
                else if let a = s.addOn { wrong.append("\(r.file): add-on \(a), want \(r.addOn ?? "")") }
                else { partial.append(r.file) }
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        // Issue 42's goal: 39 of 40 of this set in the bench (33 before the fitted add-on look);
        // 75, 76 and 77 of 80 on the bench's sets of seeds 4242, 2468 and 9753 (68, 63, 68).
        #expect(Double(whole) >= 0.95 * Double(records.count), "\(whole) of \(records.count) whole; without the add-on: \(partial)")
    }

    /// `require`: a main code without an add-on is no read, one with it is; `ignore` (the
    /// default) reads the main code of the same image alone.
    @Test func requireAndIgnore() throws {
        let (folder, records) = try GeneratedSet.make(["--addons", "--count", "2", "--seed", "1357"])
        let clean = try #require(records.first { $0.difficulty == "EAN-13+5 clean" })
        let frame = try ImageFile.load(folder + "/" + clean.file)
        var rules = SymbologyRules()
        var rule = rules.rule(.ean13)
        rule.addOn = .require
        rules.rules[.ean13] = rule
        let requiring = DecodePipeline(quality: .balanced, rules: rules)
        #expect(requiring.decode(frame).map { "\($0.text)+\($0.addOn ?? "")" } == ["\(clean.text!)+\(clean.addOn!)"])
        let plain = try ImageFile.load(Fixture.path("ean13.png"))
        #expect(try #require(DecodePipeline().decode(plain).first).symbology == .ean13, "the fixture reads without add-on rules")
        #expect(requiring.decode(plain).isEmpty, "no add-on, no read")
        let ignoring = DecodePipeline(quality: .balanced)
        let read = ignoring.decode(frame)
        #expect(read.map(\.text) == [clean.text!])
        #expect(read.allSatisfy { $0.addOn == nil && $0.aim == "]E0" })
    }
}
