import Foundation
import Testing

/// `scand bench decode`: its verdicts against a corpus manifest, corrected by an errata file,
/// and timed by either clock.
@Suite struct BenchDecodeTests {
    @Test func anErrataFileCorrectsTheExpectedTextEveryDecoderIsJudgedBy() throws {
        let corpus = try Fixture.temporaryFolder("bench-errata")
        defer { try? FileManager.default.removeItem(at: corpus) }
        try FileManager.default.copyItem(at: Fixture.folder.appendingPathComponent("qr.png"), to: corpus.appendingPathComponent("qr.png"))
        // The manifest expects another text than the code carries, as two zxing-cpp samples do.
        try Data("""
            [{"file": "qr.png", "symbology": "QR-Code", "text": "https://example.org/kiosk?id=41", "difficulty": "clean"}]
            """.utf8).write(to: corpus.appendingPathComponent("manifest.json"))
        let csv = corpus.appendingPathComponent("out.csv").path
        let quiet = ["--decoders", "pipeline-balanced", "--no-zbarimg", "--no-zxing-reader", "--no-zxing-cpp", "--workers", "1", "--csv", csv]

        let wrong = try Run.scand(["bench", "decode", corpus.path] + quiet)
        #expect(wrong.status == 0, "\(wrong.stderr)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8).contains("qr.png,QR-Code,clean,misread,"))

        let errata = corpus.appendingPathComponent("errata.json")
        try Data("""
            [{"file": "qr.png", "text": "https://example.org/kiosk?id=42", "why": "the code carries id=42"}]
            """.utf8).write(to: errata)
        let fixed = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path, "--clock", "cpu"] + quiet)
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stdout.contains("1 expected text corrected by \(errata.path)"), "\(fixed.stdout)")
        let row = try #require(try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").first { $0.contains("qr.png") })
        #expect(row.contains(",correct,"), "\(row)")
        // The CPU clock counts the decode's work: a positive time.
        #expect((Double(row.split(separator: ",").last ?? "") ?? 0) > 0, "\(row)")

        // A correction for a file the manifest lacks, or without its reason, is refused by name.
        try Data(#"[{"file": "nope.png", "text": "x", "why": "y"}]"#.utf8).write(to: errata)
        let stray = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path] + quiet)
        #expect(stray.status != 0 && stray.stderr.contains("nope.png is not in the manifest"), "\(stray.stderr)")
        try Data(#"[{"file": "qr.png", "text": "x"}]"#.utf8).write(to: errata)
        let bare = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path] + quiet)
        #expect(bare.status != 0 && bare.stderr.contains("file, text and why"), "\(bare.stderr)")
    }
}
