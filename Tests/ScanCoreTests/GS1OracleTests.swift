import Foundation
@testable import ScanCore
import Testing

/// scand's GS1 parser against biip (PyPI), an independent reader of GS1 element strings and
/// Digital Links: `bench/gs1-oracle.py` makes valid strings of random AIs and strings with one
/// known fault each, and gives biip's reading; scand must read each as the General
/// Specifications say, and as biip does except where biip departs from them (named below).
@Suite struct GS1OracleTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The Python with biip: scripts/setup.sh makes it.
    static let python = ProcessInfo.processInfo.environment["SCAND_BIIP_PYTHON"] ?? "/opt/scand-tests/venv/bin/python3"

    /// Where biip departs from the General Specifications, by the kind of case and what biip
    /// answered; scand follows the specification there.
    static func biipDeparts(_ kind: String, _ biip: [String: Any]) -> String? {
        let error = biip["error"] as? String ?? ""
        let last = (biip["elements"] as? [[String]])?.last?.first
        switch kind {
        case "fixed-length-without-fnc1": return "biip ends a fixed-length AI at its length even where no FNC1 follows (8006, 8017, 402, 7003, 4309 are not in the predefined-length table: an FNC1 must end them)"
        case "repeated-ai": return "biip takes an AI given twice with different values"
        case "day-00-not-allowed": return "biip takes day 00 in 7006 and 4326, whose dates are YYMMDD without the month's-end 00"
        case "piece-of-total": return "biip does not check 8006's piece and total"
        case "check-digit" where last == "8017": return "biip does not check a GSRN's (8017) check digit"
        case "valid" where error.contains("(7007) date"): return "biip refuses a 7007 harvest date range whose end is in the next century by the century rule (93 to 48: 1993 to 2048)"
        default: return nil
        }
    }

    /// AIs biip 5.2 knows that came after the release scand's table follows (the General
    /// Specifications 24 and the Barcode Syntax Dictionary restating it): scand refuses them
    /// as unknown, and says so.
    static let newerAIs = ["717", "8040", "8041", "8042", "8043"]

    static func newerAI(_ reading: GS1.Reading?) -> Bool {
        reading?.problems.first.map { p in newerAIs.contains { p.contains("no Application Identifier starts \($0)") } } ?? false
    }

    @Test func scandReadsAsTheSpecificationAndAsBiipWhereBiipFollowsIt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "\(Self.python) is missing: scripts/setup.sh installs biip there")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.repo.appendingPathComponent("bench/gs1-oracle.py").path, "--count", "400", "--seed", "42"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "gs1-oracle.py failed")
        var cases = 0, agree = 0, departures: [String: Int] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            let o = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            let kind = try #require(o["kind"] as? String), input = try #require(o["input"] as? String)
            let biip = try #require(o["biip"] as? [String: Any])
            let reading = kind.hasPrefix("link") ? GS1.digitalLink(input) : GS1.parse(elementString: Array(input.utf8))
            let ok = reading.map { $0.isComplete && $0.isValid } ?? false
            cases += 1
            if kind == "valid" && Self.newerAI(reading) {
                departures["an AI newer than scand's table (\(Self.newerAIs.joined(separator: ", "))): scand refuses it as unknown", default: 0] += 1
                continue
            }
            #expect(ok == (o["spec"] as? String == "valid"), "\(kind) \(input.debugDescription): \(reading?.problems ?? ["no Digital Link"])")
            let biipOK = biip["ok"] as? Bool ?? false
            let biipElements = (biip["elements"] as? [[String]]) ?? []
            if ok == biipOK && (!ok || biipElements == reading?.elements.map { [$0.ai, $0.value] }) {
                agree += 1
            } else if let reason = Self.biipDeparts(kind, biip) {
                departures[reason, default: 0] += 1
            } else {
                Issue.record("scand and biip disagree on \(kind) \(input.debugDescription): scand \(reading?.problems ?? ["no Digital Link"]), biip \(biip)")
            }
        }
        #expect(cases == 500)
        print("gs1 oracle: \(cases) cases, \(agree) read alike by scand and biip, \(cases - agree) apart:")
        for (reason, count) in departures.sorted(by: { $0.value > $1.value }) { print("  \(count): \(reason)") }
    }
}
