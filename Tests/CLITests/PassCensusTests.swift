import Foundation
import TestThreads
import Testing

/// `scand bench passes --reads`: which passes read each file, against its corpus's manifest.
@Suite(.onTestThreads) struct PassCensusTests {
    @Test func eachFileGetsTheFirstLooksVerdictAndThePassesThatReadIt() throws {
        // A corpus folder with a file in a subfolder, named by its path from the manifest.
        let corpus = try Fixture.temporaryFolder("census")
        defer { try? FileManager.default.removeItem(at: corpus) }
        let sub = corpus.appendingPathComponent("turned")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixture.folder.appendingPathComponent("qr.png"), to: corpus.appendingPathComponent("qr.png"))
        try FileManager.default.copyItem(at: Fixture.folder.appendingPathComponent("itf-turned.jpg"), to: sub.appendingPathComponent("itf.jpg"))
        try Data("""
            [{"file": "qr.png", "symbology": "QR-Code", "text": "https://example.org/kiosk?id=42", "difficulty": "clean"},
             {"file": "turned/itf.jpg", "symbology": "ITF", "text": "885877356459", "difficulty": "rotated"}]
            """.utf8).write(to: corpus.appendingPathComponent("manifest.json"))
        let qr = corpus.appendingPathComponent("qr.png").path, itf = sub.appendingPathComponent("itf.jpg").path
        let run = try Run.scand(["bench", "passes", "--reads", "--all-passes", qr, itf])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let qrLine = try #require(lines.first { $0.hasPrefix(qr + ":") })
        #expect(qrLine.contains("first look correct"), "\(qrLine)")
        // The turned ITF: the first look misses it; the `rotate` pass reads it, and with
        // --all-passes every pass of balanced is listed, those that read nothing as missed.
        let itfLine = try #require(lines.first { $0.hasPrefix(itf + ":") })
        #expect(itfLine.contains("first look missed"), "\(itfLine)")
        let passes = itfLine.components(separatedBy: "; ").dropFirst().joined().components(separatedBy: ", ")
        #expect(passes.count == 17, "\(passes)") // balanced quality's passes
        #expect(passes.contains { $0.hasPrefix("rotate ") && !$0.contains("missed") && $0.hasSuffix(" ms") }, "\(passes)")
        #expect(passes.contains { $0.hasPrefix("runes missed ") }, "\(passes)")
        #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("rotate") && $0.hasSuffix(" 1") }, "\(run.stdout)")
        #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("no pass") && $0.hasSuffix(" 0") }, "\(run.stdout)")

        // A file that no manifest above it names is an error that names it.
        let stray = try Fixture.temporaryFolder("census-stray")
        defer { try? FileManager.default.removeItem(at: stray) }
        try FileManager.default.copyItem(at: Fixture.folder.appendingPathComponent("qr.png"), to: stray.appendingPathComponent("qr.png"))
        let bad = try Run.scand(["bench", "passes", "--reads", stray.appendingPathComponent("qr.png").path])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("qr.png") && bad.stderr.contains("manifest.json") && !bad.stderr.contains("Usage"), "\(bad.stderr)")
    }
}
