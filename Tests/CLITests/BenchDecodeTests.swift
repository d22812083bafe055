import Foundation
import TestThreads
import Testing

/// `scand bench decode`: its verdicts against a corpus manifest, corrected by an errata file,
/// and timed by either clock.
@Suite(.onTestThreads) struct BenchDecodeTests {
    /// A corpus folder holding the fixture `file` and `manifest` as its manifest.json.
    static func corpus(_ name: String, holding file: String, manifest: String) throws -> URL {
        let corpus = try Fixture.temporaryFolder(name)
        try FileManager.default.copyItem(at: Fixture.folder.appendingPathComponent(file), to: corpus.appendingPathComponent(file))
        try Data(manifest.utf8).write(to: corpus.appendingPathComponent("manifest.json"))
        return corpus
    }

    @Test func anErrataFileCorrectsTheExpectedTextEveryDecoderIsJudgedBy() throws {
        // The manifest expects another text than the code carries, as two zxing-cpp samples do.
        let corpus = try Self.corpus("bench-errata", holding: "qr.png", manifest: """
            [{"file": "qr.png", "symbology": "QR-Code", "text": "https://example.org/kiosk?id=41", "difficulty": "clean"}]
            """)
        defer { try? FileManager.default.removeItem(at: corpus) }
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

        // A correction for a file this corpus lacks is passed over and counted (a subset of a
        // corpus keeps its errata); one named twice, or without its reason, is refused.
        try Data(#"[{"file": "qr.png", "text": "https://example.org/kiosk?id=42", "why": "y"}, {"file": "nope.png", "text": "x", "why": "y"}]"#.utf8).write(to: errata)
        let subset = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path] + quiet)
        #expect(subset.status == 0 && subset.stdout.contains("1 expected text corrected by \(errata.path) (1 of its files not in this corpus)"), "\(subset.stdout) \(subset.stderr)")
        try Data(#"[{"file": "qr.png", "text": "a", "why": "y"}, {"file": "qr.png", "text": "b", "why": "z"}]"#.utf8).write(to: errata)
        let twice = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path] + quiet)
        #expect(twice.status == 1 && twice.stderr.contains("1 file is corrected more than once: \"qr.png\"") && !twice.stderr.contains("USAGE"), "\(twice.stderr)")
        try Data(#"[{"file": "/etc/passwd", "text": "a", "why": "y"}, {"file": "../qr.png", "text": "b", "why": "z"}]"#.utf8).write(to: errata)
        let outside = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path] + quiet)
        #expect(outside.status == 1 && outside.stderr.contains("2 files are not a path inside the corpus (no leading /, no ..): \"/etc/passwd\", \"../qr.png\""), "\(outside.stderr)")
        let both = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path, "--no-errata"] + quiet)
        #expect(both.status == 64 && both.stderr.contains("--errata and --no-errata say opposite things"), "\(both.stderr)")
        for bad in [#"[{"file": "qr.png", "text": "x"}]"#, #"[{"file": "qr.png", "text": "x", "why": ""}]"#, #"[{"file": "qr.png", "text": "", "why": "y"}]"#] {
            try Data(bad.utf8).write(to: errata)
            let refused = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path] + quiet)
            #expect(refused.status != 0 && refused.stderr.contains("file, a text (null for no code) and why"), "\(bad): \(refused.stderr)")
        }
        // A null text: the image holds no code, and a read of it is a misread.
        try Data(#"[{"file": "qr.png", "text": null, "why": "no code here"}]"#.utf8).write(to: errata)
        let none = try Run.scand(["bench", "decode", corpus.path, "--errata", errata.path] + quiet)
        #expect(none.status == 0 && none.stdout.contains("1 image (1 without a code)"), "\(none.stdout) \(none.stderr)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8).contains("qr.png,QR-Code,clean,misread,"))
    }

    /// A record's add-on: the code's own (a read without it is a miss, with another a misread),
    /// or none (`""`: a read that gives the code an add-on is a misread).
    @Test func anAddOnIsJudgedAndSoIsOneTheCodeDoesNotHave() throws {
        let corpus = try Self.corpus("bench-addon", holding: "isbn-price.png", manifest: "[]")
        defer { try? FileManager.default.removeItem(at: corpus) }
        let csv = corpus.appendingPathComponent("out.csv").path
        let quiet = ["--decoders", "pipeline-balanced", "--no-zbarimg", "--no-zxing-reader", "--no-zxing-cpp", "--workers", "1", "--csv", csv]
        let read = ["--set", "symbology.ean13.addon=read"]
        for (addon, options, verdict) in [("52495", read, "correct"), ("52490", read, "misread"), ("52495", [], "missed"),
                                          ("", read, "misread"), ("", [], "correct")] {
            try Data(#"[{"file": "isbn-price.png", "symbology": "EAN-13", "text": "9780306406157", "addon": "\#(addon)", "difficulty": "book"}]"#.utf8)
                .write(to: corpus.appendingPathComponent("manifest.json"))
            let run = try Run.scand(["bench", "decode", corpus.path] + quiet + options)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try String(contentsOfFile: csv, encoding: .utf8).contains("isbn-price.png,EAN-13,book,\(verdict),"), "add-on \(addon) \(options)")
        }
        // Another code in the image named with its add-on (`TEXT+ADDON`, `TEXT+`: none) is
        // judged by it too: sent with another add-on, a misread (make-addon-traps.py R8: a
        // UPC-A sent with its neighbour's price counted as right, the record naming the ISBN).
        for (other, verdict) in [("9780306406157+52495", "correct"), ("9780306406157+52490", "misread"), ("9780306406157+", "misread"),
                                 ("9780306406157", "correct")] {
            try Data(#"[{"file": "isbn-price.png", "symbology": "EAN-13", "text": "5901234123457", "addon": "12", "difficulty": "book", "others": ["\#(other)"]}]"#.utf8)
                .write(to: corpus.appendingPathComponent("manifest.json"))
            let run = try Run.scand(["bench", "decode", corpus.path] + quiet + read)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try String(contentsOfFile: csv, encoding: .utf8).contains("isbn-price.png,EAN-13,book,\(verdict),"), "other \(other)")
        }
        // An add-on is 2 or 5 ASCII digits or none, on an EAN/UPC record only (a tryout: any
        // string passed and made every read a misread).
        for (symbology, addon, problem) in [("EAN-13", "12a", "addon is not 2 or 5 digits"), ("EAN-13", "１２", "addon is not 2 or 5 digits"),
                                            ("EAN-13", "123", "addon is not 2 or 5 digits"), ("EAN-13", " 77777", "addon is not 2 or 5 digits"),
                                            ("QR-Code", "12", "only an EAN-13, EAN-8, UPC-A or UPC-E has one")] {
            try Data(#"[{"file": "isbn-price.png", "symbology": "\#(symbology)", "text": "9780306406157", "addon": "\#(addon)", "difficulty": "book"}]"#.utf8)
                .write(to: corpus.appendingPathComponent("manifest.json"))
            let refused = try Run.scand(["bench", "decode", corpus.path] + quiet + read)
            #expect(refused.status == 1 && refused.stderr.contains(problem) && !refused.stderr.contains("USAGE"), "\(addon): \(refused.stderr)")
        }
    }

    /// The table's columns line up whatever the decoders' names (ZXingReader's ran one over),
    /// and a time ratio is given only against zxing-cpp 3.1 in-process, where it ran: without
    /// it, rows said "(1.00x the reference's time)" of whichever decoder came last.
    @Test func theTableLinesUpAndGivesNoRatioWithoutItsReference() throws {
        let corpus = try Self.corpus("bench-table", holding: "qr.png", manifest: #"[{"file": "qr.png", "symbology": "QR-Code", "text": "https://example.org/kiosk?id=42", "difficulty": "clean"}]"#)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let run = try Run.scand(["bench", "decode", corpus.path, "--decoders", "zbar,pipeline-balanced", "--no-zxing-cpp", "--workers", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("decoder ") })
        let column = try #require(header.range(of: "correct")).lowerBound.utf16Offset(in: header)
        let rows = lines.filter { $0.contains(" 1/1 ") || $0.contains(" 0/1 ") }.filter { !$0.hasPrefix("QR-Code") && !$0.hasPrefix("clean") }
        #expect(rows.count >= 2, "\(run.stdout)")
        for row in rows {
            let at = try #require(row.range(of: #"[01]/1 "#, options: .regularExpression)).lowerBound.utf16Offset(in: row)
            #expect(at == column, "\(row)")
        }
        #expect(!run.stdout.contains("reference") && !run.stdout.contains("x zxing-cpp"), "\(run.stdout)")
    }

    /// ZXingReader (zxing-cpp 1.4's tool) is judged code by code: with `-bytes` it ran the
    /// bytes of an image's codes together, a misread wherever an image held two.
    @Test func zxingReaderIsJudgedCodeByCode() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ZXingReader") else { return } // scripts/setup.sh installs it
        let corpus = try Self.corpus("bench-zxingreader", holding: "two-codes.png", manifest: #"[{"file": "two-codes.png", "symbology": "Code-128", "text": "scand-128/ok", "difficulty": "clean", "others": ["https://example.org/kiosk?id=42"]}]"#)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let csv = corpus.appendingPathComponent("out.csv").path
        let run = try Run.scand(["bench", "decode", corpus.path, "--decoders", "zbar", "--no-zbarimg", "--no-zxing-cpp", "--workers", "1", "--csv", csv])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8).contains("ZXingReader (process per image),two-codes.png,Code-128,clean,correct,"))
    }

    /// A manifest from elsewhere is hostile: its files stay inside the corpus, its names reach
    /// the terminal escaped, a file it names that cannot be read is said, and the corpus is
    /// loaded image by image (it was all held in memory: a large one was killed at 24 GB).
    @Test func aManifestIsReadAsHostile() throws {
        let corpus = try Self.corpus("bench-hostile", holding: "qr.png", manifest: #"""
            [{"file": "qr.png", "symbology": "QR-Code\u001b[2J", "text": "https://example.org/kiosk?id=42", "difficulty": "\u001b[31mred\u0007"},
             {"file": "nope.png", "symbology": "QR-Code", "text": "x", "difficulty": "clean"}]
            """#)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let options = ["--decoders", "zbar", "--no-zbarimg", "--no-zxing-reader", "--no-zxing-cpp", "--workers", "1"]
        let run = try Run.scand(["bench", "decode", corpus.path] + options)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("\u{1b}") && !run.stdout.contains("\u{07}") && run.stdout.contains("QR-Code\\x1B[2J"), "\(run.stdout)")
        #expect(run.stderr.contains("1 of the manifest's files could not be read and count as missed (nope.png: "), "\(run.stderr)")
        for outside in ["../qr.png", "/etc/passwd", "a/../../qr.png"] {
            try Data(#"[{"file": "\#(outside)", "text": "x"}]"#.utf8).write(to: corpus.appendingPathComponent("manifest.json"))
            let refused = try Run.scand(["bench", "decode", corpus.path] + options)
            #expect(refused.status != 0 && refused.stderr.contains("is not inside the corpus"), "\(outside): \(refused.stderr)")
        }
        // Every file outside is named, and the error is the file's, not the command line's: no usage text.
        try Data(#"[{"file": "qr.png"}, {"file": "../a.png"}, {"file": "/etc/passwd"}]"#.utf8).write(to: corpus.appendingPathComponent("manifest.json"))
        let both = try Run.scand(["bench", "decode", corpus.path] + options)
        #expect(both.status == 1 && both.stderr.contains("2 files are not inside the corpus (no leading /, no .., no link out of it): \"../a.png\", \"/etc/passwd\""), "\(both.stderr)")
        #expect(!both.stderr.contains("USAGE"), "\(both.stderr)")
        // Nor through a link: the file is not opened.
        try FileManager.default.createSymbolicLink(atPath: corpus.appendingPathComponent("out").path, withDestinationPath: Fixture.folder.path)
        try Data(#"[{"file": "out/qr.png", "text": "x"}]"#.utf8).write(to: corpus.appendingPathComponent("manifest.json"))
        let linked = try Run.scand(["bench", "decode", corpus.path, "--verbose"] + options)
        #expect(linked.status == 1 && linked.stderr.contains("1 file is not inside the corpus") && linked.stderr.contains("\"out/qr.png\" (it leads to"), "\(linked.stderr)")
        #expect(!linked.stdout.contains("kiosk?id=42"), "\(linked.stdout)")
        // One record an image (a link to it inside the corpus is the same image); known fields only, each of its type.
        try FileManager.default.createSymbolicLink(atPath: corpus.appendingPathComponent("same.png").path, withDestinationPath: "qr.png")
        let refusals = [
            #"[{"file": "qr.png", "text": "a"}, {"file": "./qr.png", "text": "b"}]"#: "1 file is named more than once (one record an image): \"./qr.png\"",
            #"[{"file": "qr.png", "Text": "https://example.org/kiosk?id=42"}]"#: "record 1 has a field \"Text\" that a manifest does not have",
            #"[{"file": 5}]"#: "record 1: file is not a string",
            #"[{"file": "qr.png", "symbology": ["QR"]}]"#: "record 1: symbology is not a string",
            #"[{"file": "qr.png", "others": [1]}]"#: "record 1: others is not an array of strings",
            #"[{"file": "qr.png", "text": "a", "hex": "zz"}]"#: "record 1: hex is not bytes in hex digits",
            #"[{"file": "qr.png", "hex": "61"}]"#: "record 1: hex without its text",
            #"[{"file": "qr.png", "size": [1280, "720"]}]"#: "record 1: size is not [width, height] in pixels",
            #"[{"file": "qr.png\u0000x"}]"#: "1 file is not inside the corpus",
            #"[{"file": "qr.png"}, {"file": "same.png"}]"#: "1 file is named more than once (one record an image): \"same.png\"",
            #"["qr.png"]"#: "record 1 is not an object",
        ]
        for (manifest, said) in refusals {
            try Data(manifest.utf8).write(to: corpus.appendingPathComponent("manifest.json"))
            let refused = try Run.scand(["bench", "decode", corpus.path] + options)
            #expect(refused.status == 1 && refused.stderr.contains(said), "\(manifest): \(refused.stderr)")
        }
        let unknown = try Run.scand(["bench", "decode", corpus.path, "--decoders", "zbar,bogus", "--no-zbarimg", "--no-zxing-reader", "--no-zxing-cpp"])
        #expect(unknown.status == 64 && unknown.stderr.contains("--decoders: \"bogus\" is no decoder"), "\(unknown.stderr)")
    }

    /// Run from another folder than the checkout (here the corpus's), the bench still finds
    /// its zxing-cpp 3.1 reference script and venv in the checkout scand was built in: it looked
    /// for bench/zxingcpp_reference.py in the current folder and said "not installed".
    @Test func theReferenceIsFoundFromAnyFolder() throws {
        let corpus = try Self.corpus("bench-elsewhere", holding: "qr.png", manifest: #"[{"file": "qr.png", "symbology": "QR-Code", "text": "https://example.org/kiosk?id=42", "difficulty": "clean"}]"#)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let options = ["--decoders", "zbar", "--no-zbarimg", "--no-zxing-reader", "--workers", "1"]
        let missing = try Run.scand(["bench", "decode", ".", "--python", "/nonexistent/python"] + options, currentDirectory: corpus)
        #expect(missing.status == 0 && missing.stderr.contains("not installed (/nonexistent/python"), "\(missing.stderr)")
        // Where bench/setup-zxing-cpp.sh installed the venv in this checkout, the reference runs.
        if FileManager.default.isExecutableFile(atPath: Fixture.repo.appendingPathComponent(".build/zxing-cpp-venv/bin/python").path) {
            let run = try Run.scand(["bench", "decode", "."] + options, currentDirectory: corpus)
            #expect(run.stdout.contains("zxing-cpp 3.1"), "\(run.stdout)\n\(run.stderr)")
        }
    }
}
