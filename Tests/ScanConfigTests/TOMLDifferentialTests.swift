import Foundation
import ScanConfig
import TestThreads
import Testing

/// scand's TOML parser against the reference, tomli (Debian's python3-tomli): hand-written
/// cases, random documents from a small grammar, mutations of the shipped config and the fuzz
/// seeds all go through both parsers; each document must give the same tree, or be rejected by
/// both.
@Suite(.onTestThreads) struct TOMLDifferentialTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func agreesWithTomli() throws {
        var documents: [[UInt8]] = TOMLCases.valid.map { Array($0.utf8) } + TOMLCases.invalid.map { Array($0.utf8) }
        var rng = SplitMix(seed: 0x5CA4D)
        for _ in 0..<3000 { documents.append(Array(TOMLGenerator.document(&rng).utf8)) }
        let shipped = Array(try Data(contentsOf: Self.repo.appendingPathComponent("config/scand.toml")))
        for _ in 0..<2100 { documents.append(TOMLGenerator.mutate(shipped, &rng)) }
        let seeds = Self.repo.appendingPathComponent("Tests/Fuzz/corpus/toml")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: seeds.path))?.sorted() ?? [] {
            documents.append(Array(try Data(contentsOf: seeds.appendingPathComponent(name))))
        }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("toml-diff-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var paths: [String] = []
        for (i, doc) in documents.enumerated() {
            let path = dir.appendingPathComponent("\(i).toml").path
            try Data(doc).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let reference = try Self.tomli(paths)
        try #require(reference.count == documents.count, "tomli answered \(reference.count) of \(documents.count)")

        var disagreements: [String] = []
        var accepted = 0
        for (i, doc) in documents.enumerated() {
            let ours: String
            do { ours = TOMLCanonical.text(.table(try TOML.parse(doc).root)); accepted += 1 } catch { ours = "ERROR" }
            let theirs = ["BIGINT", "DEEP"].contains(reference[i]) ? "ERROR" : reference[i]
            if ours != theirs, disagreements.count < 10 {
                disagreements.append("document \(i) \(String(decoding: doc.prefix(200), as: UTF8.self).debugDescription): scand \(ours.prefix(120)), tomli \(theirs.prefix(120))")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        // The random documents must exercise both sides.
        #expect(accepted > documents.count / 5 && accepted < documents.count * 4 / 5, "accepted \(accepted) of \(documents.count)")
    }

    static func tomli(_ paths: [String]) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [repo.appendingPathComponent("scripts/tomli-canonical.py").path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data((paths.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// The canonical form `scripts/tomli-canonical.py` prints.
enum TOMLCanonical {
    static func hex(_ s: String) -> String {
        s.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func text(_ v: ConfigValue) -> String {
        switch v {
        case .bool(let b): return b ? "b:1" : "b:0"
        case .int(let n): return "i:\(n)"
        case .double(let d): return d.isNaN ? "f:nan" : "f:\(Int64(bitPattern: d.bitPattern))"
        case .string(let s): return "s:" + hex(s)
        case .datetime(let dt):
            if let d = dt.date, let t = dt.time {
                let base = "\(d.year)-\(d.month)-\(d.day)-\(t.hour)-\(t.minute)-\(t.second)-\(t.microsecond)"
                return dt.offsetMinutes.map { "odt:\(base)@\($0)" } ?? "ldt:" + base
            }
            if let d = dt.date { return "ld:\(d.year)-\(d.month)-\(d.day)" }
            let t = dt.time!
            return "lt:\(t.hour)-\(t.minute)-\(t.second)-\(t.microsecond)"
        case .array(let items): return "[" + items.map(text).joined(separator: ",") + "]"
        case .table(let t):
            return "{" + t.map { (hex($0.key), $0.value) }.sorted { $0.0 < $1.0 }.map { "\($0.0)=\(text($0.1))" }.joined(separator: ",") + "}"
        }
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Random TOML documents, valid and invalid, from fragments that sit on the spec's edges.
enum TOMLGenerator {
    static let keys = ["a", "b", "c", "a.b", "b.c", "a.b.c", "\"a\"", "'b'", "\"a.b\"", "a . b", "1", "-", "_x", "\"\"",
                       "\"\\u00e9\"", "x-y", "a.\"b\"", "é", "a..b", ".a", "a.", "'a\nb'"]
    static let scalars = [
        "0", "+1", "-0", "1_000", "0x_1", "0xDEAD_beef", "0o17", "0b101", "01", "1__2", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "+0x1", "0x", "1_", "0b2",
        "1.5", "-0.0", "1e5", "1E+5", "1e-05", "1.", "0.1_2", ".5", "inf", "-nan", "+inf", "1e400", "6.626e-34", "1_0.0_1e1_0", "1e_5",
        "\"x\"", "\"\\t\"", "\"\\q\"", "'lit'", "\"\"\"ml\n\"\"\"", "'''a''''", "\"\"\"a\\\n   b\"\"\"", "\"\"\"a\\   \n b\"\"\"",
        "\"\\U0001F600\"", "\"\\uD800\"", "\"tab\there\"", "\"\"\"\"\"\"\"\"", "'''\n'''", "\"a\u{7f}\"", "\"\\u12\"", "\"\\x41\"",
        "\"\"\"a\"\"\"\"\"", "'''a'''''", "'a", "\"a", "\"\\\"\"", "\"\\\\\"", "\"ë\"",
        "true", "false", "True", "truex",
        "1979-05-27T07:32:00Z", "1979-05-27 07:32:00.999999-07:00", "1979-05-27", "07:32:00", "2000-02-30", "2000-02-29", "1900-02-29",
        "1979-05-27T07:32", "1979-05-27t07:32:00z", "0000-01-01", "24:00:00", "1979-05-27T07:32:00.1234567+05:30",
        "1979-05-27T07:32:00+24:00", "07:32:00.", "1979-05-27T07:32:60", "1979-5-27",
    ]

    static func value(_ rng: inout SplitMix, depth: Int) -> String {
        switch depth < 3 ? rng.below(10) : 9 {
        case 0: return "[" + (0..<rng.below(4)).map { _ in value(&rng, depth: depth + 1) }.joined(separator: rng.pick([", ", ",\n", " , ", ",# c\n"])) + rng.pick(["]", ",]", "\n]", ""])
        case 1:
            let items = (0..<rng.below(3)).map { _ in rng.pick(keys) + rng.pick([" = ", "=", " ="]) + value(&rng, depth: depth + 1) }
            return "{" + rng.pick([" ", ""]) + items.joined(separator: rng.pick([", ", ","])) + rng.pick([" }", "}", ",}", "\n}"])
        default: return rng.pick(scalars)
        }
    }

    static func document(_ rng: inout SplitMix) -> String {
        var lines: [String] = []
        for _ in 0..<(1 + rng.below(8)) {
            switch rng.below(10) {
            case 0, 1: lines.append("[" + rng.pick(keys) + rng.pick(["]", "]]", " ]", ""]))
            case 2: lines.append("[[" + rng.pick(keys) + rng.pick(["]]", "]", " ]]"]))
            case 3: lines.append(rng.pick(["# comment", "", "  ", "#\u{1}", "\t# x\u{7f}", "# é"]))
            default: lines.append(rng.pick(keys) + rng.pick([" = ", "=", " ", " = "]) + value(&rng, depth: 0) + rng.pick(["", " # c", " x", "\t"]))
            }
        }
        var text = lines.joined(separator: rng.pick(["\n", "\n", "\r\n", "\r"]))
        if rng.below(4) == 0 {
            var bytes = Array(text.utf8)
            bytes = mutate(bytes, &rng)
            text = String(decoding: bytes, as: UTF8.self)
        }
        return text
    }

    static let inserts: [[UInt8]] = ["[", "]", "{", "}", "=", ",", "\"", "'", "\\", "\n", "\r", "\t", " ", "#", ".", "\u{0}", "\u{7f}", "é", "\"\"\"", "[[", "0", "e"].map { Array($0.utf8) } + [[0xFF], [0xC3]]

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + rng.below(3)) {
            let at = bytes.isEmpty ? 0 : rng.below(bytes.count)
            switch rng.below(4) {
            case 0: bytes.insert(contentsOf: rng.pick(inserts), at: at)
            case 1: if !bytes.isEmpty { bytes.remove(at: at) }
            case 2: if !bytes.isEmpty { bytes[at] = rng.pick(inserts)[0] }
            default:
                let end = min(bytes.count, at + rng.below(40))
                bytes.insert(contentsOf: bytes[at..<end], at: rng.below(bytes.count + 1))
            }
        }
        return bytes
    }
}
