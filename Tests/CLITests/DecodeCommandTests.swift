import Foundation
import ScanCore
import TestThreads
import Testing

@Suite(.onTestThreads) struct DecodeCommandTests {
    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func jsonPrintsOneObjectPerFileInOrderWithPathsAsGiven() throws {
        let files = ["qr.png", "./ean13.png", "no-code.png", "two-codes.png"]
        let run = try Run.scand(["decode", "--json"] + files, currentDirectory: Fixture.folder)
        #expect(run.status == 1, "a file without a code exits 1")
        let lines = try objects(run.stdout)
        #expect(lines.map { $0["file"] as? String } == files)
        let qr = try #require((lines[0]["symbols"] as? [[String: Any]])?.first)
        #expect(qr["symbology"] as? String == "QR-Code")
        #expect(qr["text"] as? String == "https://example.org/kiosk?id=42")
        #expect(qr["bytesBase64"] as? String == Data("https://example.org/kiosk?id=42".utf8).base64EncodedString())
        #expect(qr["numericOnly"] as? Bool == false)
        let corners = try #require(qr["corners"] as? [[Int]])
        #expect(corners.count == 4 && corners.allSatisfy { $0.count == 2 })
        let ean = try #require((lines[1]["symbols"] as? [[String: Any]])?.first)
        #expect(ean["symbology"] as? String == "EAN-13" && ean["numericOnly"] as? Bool == true)
        #expect((lines[2]["symbols"] as? [Any])?.isEmpty == true)
        #expect((lines[3]["symbols"] as? [Any])?.count == 2)
        #expect(lines.allSatisfy { ($0["ms"] as? Double ?? -1) >= 0 })
    }

    /// An image of fine texture costs the pipeline seconds to minutes: `--time-limit` gives up
    /// its deeper passes, says so even under -q, and marks its JSON line; the next file is read.
    @Test func aTimeLimitCutsAnImageShortAndSaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scand-time-limit-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let side = 1200
        let board = (0..<(side * side)).map { i -> UInt8 in ((i % side) / 3 + (i / side) / 3) % 2 == 0 ? 0 : 255 }
        try (Data("P5\n\(side) \(side)\n255\n".utf8) + Data(board)).write(to: folder.appendingPathComponent("board.pgm"))
        try FileManager.default.copyItem(atPath: Fixture.folder.appendingPathComponent("qr.png").path, toPath: folder.appendingPathComponent("qr.png").path)
        let run = try Run.scand(["decode", "--json", "-q", "--time-limit", "0.2", "board.pgm", "qr.png"], currentDirectory: folder)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("board.pgm: no code found within the time limit (--time-limit 0.2 s)"), "\(run.stderr)")
        let lines = try objects(run.stdout)
        #expect(lines.count == 2 && lines[0]["timeLimit"] as? Bool == true && lines[1]["timeLimit"] == nil)
        #expect((lines[1]["symbols"] as? [Any])?.count == 1)
        for odd in ["-1", "0.0001", "1e9", "nan", "1e-400"] {
            let refused = try Run.scand(["decode", "--time-limit=\(odd)", "qr.png"], currentDirectory: folder)
            #expect(refused.status == 64 && refused.stderr.contains("--time-limit"), "\(odd): \(refused.stderr)")
        }
        // A negative number after its option is its value, refused with the range (before: "Missing value").
        for (option, range) in [("--time-limit", "0 (no limit) or from 0.01 to 86400"), ("--workers", "from 1 to 256"), ("--no-code-status", "from 1 to 125")] {
            let negative = try Run.scand(["decode", option, "-1", "qr.png"], currentDirectory: folder)
            #expect(negative.status == 64 && negative.stderr.contains("\(option) must be \(range)"), "\(option): \(negative.stderr)")
        }
    }

    @Test func everyFileWithACodeExitsZero() throws {
        let run = try Run.scand(["decode", "qr.png", "ean8.pgm"], currentDirectory: Fixture.folder)
        #expect(run.status == 0)
        #expect(run.stdout == "QR-Code:https://example.org/kiosk?id=42\nEAN-8:96385074\n")
    }

    @Test func unreadableFileIsNamedOnStderrAndTheOthersStillDecode() throws {
        let run = try Run.scand(["decode", "--json", "truncated.jpg", "qr.png", "not-an-image.txt"],
                                currentDirectory: Fixture.folder)
        #expect(run.status == 2)
        #expect(run.stderr.contains("truncated.jpg: JPEG"))
        #expect(run.stderr.contains("not-an-image.txt: not a PNG, JPEG or PGM image"))
        let lines = try objects(run.stdout)
        #expect(lines.map { $0["file"] as? String } == ["truncated.jpg", "qr.png", "not-an-image.txt"])
        #expect(lines[0]["error"] is String)
        #expect((lines[1]["symbols"] as? [Any])?.count == 1)
    }

    @Test func roiAndSymbologyOptions() throws {
        let left = try Run.scand(["decode", "--roi", "0,0,0.3,1", "two-codes.png"], currentDirectory: Fixture.folder)
        #expect(left.stdout == "QR-Code:https://example.org/kiosk?id=42\n")
        let only128 = try Run.scand(["decode", "--symbologies", "code128", "two-codes.png"], currentDirectory: Fixture.folder)
        #expect(only128.stdout == "Code-128:scand-128/ok\n")
        let bad = try Run.scand(["decode", "--roi", "0.5,0.5,0.9,0.9", "qr.png"], currentDirectory: Fixture.folder)
        #expect(bad.status == 64, "a viewport beyond the frame is a usage error")
        #expect(bad.stderr.contains("roi"))
    }

    /// An add-on on a label torn over another code, laid in line with it and turned 1.1°, is
    /// not sent with that code; an add-on under a strong perspective, fanned out 3.6° from its
    /// code's end as the code's own bars fan out, is (README: add-ons).
    @Test func aTornLabelsAddOnIsNotSentWithTheCodeBesideIt() throws {
        let read = try Run.scand(["decode", "--set", "symbology.ean13.addon=read", "torn-addon-turned.jpg", "addon-perspective.jpg"],
                                 currentDirectory: Fixture.folder)
        #expect(read.status == 0)
        #expect(Set(read.stdout.split(separator: "\n")) == ["EAN-13:2014852858687", "EAN-13:979961968032192640", "EAN-13:2620895352893"], "\(read.stdout)")
        // An EAN-2 whose first looks do not confirm it: `read` may leave it off, never sends
        // another; `require` looks on until it is confirmed (README: add-ons).
        let unconfirmed = try Run.scand(["decode", "--set", "symbology.ean13.addon=read", "ean13-addon2-47.png"], currentDirectory: Fixture.folder)
        #expect(["EAN-13:4006381333931\n", "EAN-13:400638133393147\n"].contains(unconfirmed.stdout), "\(unconfirmed.stdout)")
        let required = try Run.scand(["decode", "--set", "symbology.ean13.addon=require", "ean13-addon2-47.png"], currentDirectory: Fixture.folder)
        #expect(required.stdout == "EAN-13:400638133393147\n")
    }

    /// A read made of two codes is not sent: a label torn over another in line, whose ninth
    /// digit stands where the two codes' bars meet (torn-tear.jpg, answered 4601109692651
    /// before stop 60), and two codes one over the other that zbar read along a slanted row and
    /// placed at one point (stacked-zbar-one-point.png, answered 5901234333931 before stop 72);
    /// a real code beside a label torn over its lower bars still is (README: reads).
    @Test func aReadMadeOfTwoCodesIsNotSent() throws {
        let files = ["torn-tear.jpg": ["EAN-13:4601109693085", "EAN-13:2531682267651"],
                     "stacked-zbar-one-point.png": ["EAN-13:4006381333931", "EAN-13:5901234123457"]]
        for (file, codes) in files {
            let read = try Run.scand(["decode", file], currentDirectory: Fixture.folder)
            #expect(read.stdout.split(separator: "\n").allSatisfy { codes.contains(String($0)) }, "\(file): \(read.stdout)")
        }
        let real = try Run.scand(["decode", "torn-covered-real.png"], currentDirectory: Fixture.folder)
        #expect(real.status == 0 && real.stdout.split(separator: "\n").contains("UPC-A:694644967746"), "\(real.stdout)")
    }

    /// `--set` reads as the kiosk would: add-ons sent after the main code (with the configured
    /// separator), the add-on its own JSON field under AIM `]E3`; `require` refuses a main code
    /// without one; keys other than decoding's are a usage error.
    @Test func setReadsAddOnsAsTheKioskWould() throws {
        let files = ["isbn-price.png", "upca-addon2.png"]
        let plain = try Run.scand(["decode"] + files, currentDirectory: Fixture.folder)
        #expect(plain.stdout == "EAN-13:9780306406157\nUPC-A:036000291452\n", "add-ons are ignored by default")
        let read = try Run.scand(["decode", "--set", "symbology.ean13.addon=read", "--set", "symbology.upca.addon=read",
                                  "--set", "symbology.addon_separator=\"/\""] + files, currentDirectory: Fixture.folder)
        #expect(read.status == 0)
        #expect(read.stdout == "EAN-13:9780306406157/52495\nUPC-A:036000291452/07\n")
        let json = try objects(try Run.scand(["decode", "--json", "--set", "symbology.ean13.addon=read", "isbn-price.png"],
                                             currentDirectory: Fixture.folder).stdout)
        let book = try #require((json.first?["symbols"] as? [[String: Any]])?.first)
        #expect(book["text"] as? String == "9780306406157" && book["addon"] as? String == "52495" && book["aim"] as? String == "]E3")
        // The payload as the kiosk's JSON output gives it: a book's price from its add-on.
        let payload = try #require(book["payload"] as? [String: String])
        #expect(payload["type"] == "isbn" && payload["currency"] == "USD" && payload["price"] == "24.95", "\(payload)")
        let require = try Run.scand(["decode", "--set", "symbology.ean13.addon=require", "ean13.png", "isbn-price.png"], currentDirectory: Fixture.folder)
        #expect(require.status == 1, "ean13.png has no add-on: no read")
        #expect(require.stdout == "EAN-13:978030640615752495\n")
        let wrong = try Run.scand(["decode", "--set", "output.serial.device=/dev/ttyS0", "qr.png"], currentDirectory: Fixture.folder)
        #expect(wrong.status == 64 && wrong.stderr.contains("takes symbology.*, scan.symbologies and decoding.* keys only"))
        let bad = try Run.scand(["decode", "--set", "symbology.ean13.addon=always", "qr.png"], currentDirectory: Fixture.folder)
        #expect(bad.status == 64 && bad.stderr.contains("symbology.ean13.addon: \"always\" is not allowed"))
        // Said alone: not followed by the root command's usage (`Usage: scand <subcommand>`).
        for run in [wrong, bad] { #expect(!run.stderr.contains("Usage:") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)") }
    }

    /// One engine alone answers by the kiosk's rules as the pipeline does: a Code 32 pack with
    /// `code32` set (a tryout: `--engine zxing` sent the Code 39 text), add-ons as configured.
    @Test func oneEngineAloneAnswersByTheKiosksRules() throws {
        for engine in ["pipeline", "zxing", "zbar"] {
            let plain = try Run.scand(["decode", "-q", "--engine", engine, "code32.png"], currentDirectory: Fixture.folder)
            #expect(plain.stdout == "Code-39:3PRM8N\n", "\(engine)")
            let pharmacy = try Run.scand(["decode", "-q", "--engine", engine, "--set", "symbology.code-39.code32=true", "code32.png"],
                                         currentDirectory: Fixture.folder)
            #expect(pharmacy.stdout == "Code-39:A123456788\n", "\(engine)")
        }
        let ignored = try Run.scand(["decode", "-q", "--engine", "zxing", "upca-addon2.png"], currentDirectory: Fixture.folder)
        #expect(ignored.stdout == "UPC-A:036000291452\n")
        // zxing alone reads the code on rows that cross its add-on and on rows that do not: once.
        let read = try Run.scand(["decode", "-q", "--engine", "zxing", "--set", "symbology.upca.addon=read", "upca-addon2.png"],
                                 currentDirectory: Fixture.folder)
        #expect(read.stdout == "UPC-A:03600029145207\n")
        let zbar = try Run.scand(["decode", "--engine", "zbar", "--set", "symbology.upca.addon=read", "upca-addon2.png"], currentDirectory: Fixture.folder)
        #expect(zbar.stdout == "UPC-A:036000291452\n" && zbar.stderr.contains("zbar reads no EAN-2/EAN-5 add-on"), "\(zbar.stderr)")
        // A bookshop reads ISBN-13 and not EAN-13: the book's price comes with it.
        let books = try Run.scand(["decode", "-q", "--symbologies", "ISBN-13", "--set", "symbology.ean13.addon=read", "isbn-price-turned.png"],
                                  currentDirectory: Fixture.folder)
        #expect(books.stdout == "ISBN-13:978030640615752495\n")
    }

    /// GS1 data in `--json` as in the kiosk's JSON output: the AIs as an object, and what is wrong.
    @Test func gs1DataComesWithItsFieldsAndErrors() throws {
        let symbol = try #require((try objects(try Run.scand(["decode", "--json", "gs1-128-bad-check.png"], currentDirectory: Fixture.folder).stdout)
            .first?["symbols"] as? [[String: Any]])?.first)
        #expect(symbol["gs1"] as? [String: String] == ["01": "09506000134353", "17": "261231"])
        #expect((symbol["gs1Errors"] as? [String])?.first?.contains("check digit 3 is wrong, 2 expected") == true)
        #expect((symbol["payload"] as? [String: String])?["type"] == "gs1")
    }

    @Test func binaryPayloadIsEscapedInTextModeAndExactInJSON() throws {
        let text = try Run.scand(["decode", "binary-qr.png"], currentDirectory: Fixture.folder)
        #expect(text.stdout.hasPrefix("QR-Code:\\x00\\x01"))
        #expect(!text.stdout.dropLast().contains { $0.asciiValue.map { $0 < 0x20 } ?? false })
        let json = try Run.scand(["decode", "--json", "binary-qr.png"], currentDirectory: Fixture.folder)
        let symbol = try #require((try objects(json.stdout).first?["symbols"] as? [[String: Any]])?.first)
        let bytes = try #require(Data(base64Encoded: symbol["bytesBase64"] as? String ?? ""))
        #expect(Array(bytes) == Array(0x00...0x0F) + [0x80, 0x81, 0x82, 0x83, 0xFE, 0xFF])
    }

    /// What zbarimg users reach for: the text alone, quiet, zbarimg's exit status, UPC-E as
    /// UPC-A; and the kiosk's own config file.
    @Test func zbarimgHabitsAndTheKiosksConfig() throws {
        let plain = try Run.scand(["decode", "qr.png", "no-code.png"], currentDirectory: Fixture.folder)
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("scand decode: no-code.png: no code found"))
        #expect(plain.stderr.contains("scand decode: 1 code in 1 of 2 images in "), "\(plain.stderr)")
        let quiet = try Run.scand(["decode", "-q", "--no-code-status", "4", "qr.png", "no-code.png"], currentDirectory: Fixture.folder)
        #expect(quiet.status == 4 && quiet.stderr.isEmpty)
        #expect(quiet.stdout == "QR-Code:https://example.org/kiosk?id=42\n")
        let raw = try Run.scand(["decode", "--raw", "-q", "qr.png", "binary-qr.png"], currentDirectory: Fixture.folder)
        #expect(raw.status == 0)
        #expect(Array(raw.stdoutBytes.prefix(33)) == Array("https://example.org/kiosk?id=42\n\u{0}".utf8), "the payload as it is, control bytes too")
        #expect(Array(raw.stdoutBytes.dropFirst(32)) == Array(0x00...0x0F) + [0x80, 0x81, 0x82, 0x83, 0xFE, 0xFF, 0x0A],
                "binary bytes exactly, not re-encoded as UTF-8")
        let unreadable = try Run.scand(["decode", "qr.png", "not-an-image.txt"], currentDirectory: Fixture.folder)
        #expect(unreadable.stderr.contains("scand decode: 1 code in 1 of 2 images (1 could not be read) in "), "\(unreadable.stderr)")
        let upce = try Run.scand(["decode", "-q", "upce.png"], currentDirectory: Fixture.folder)
        let short = try #require(upce.stdout.split(separator: ":").last.map { String($0.dropLast()) })
        #expect(upce.stdout.hasPrefix("UPC-E:") && short.count == 8)
        let expanded = try Run.scand(["decode", "-q", "--upce-expand", "upce.png"], currentDirectory: Fixture.folder)
        #expect(expanded.stdout == "UPC-E:\(UPCE.upcA(short) ?? "?")\n" && expanded.stdout.count == "UPC-E:".count + 13)
        // The kiosk's config: Code 128 off there, so only the QR code of two-codes.png is read.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scand-decode-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml").path
        try "hardware = \"simulated\"\n[camera]\nimages = [\"-\"]\n[scan]\nsymbologies = [\"qr\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let kiosk = try Run.scand(["decode", "-q", "--config", config, "two-codes.png"], currentDirectory: Fixture.folder)
        #expect(kiosk.stdout == "QR-Code:https://example.org/kiosk?id=42\n")
        let both = try Run.scand(["decode", "-q", "--config", config, "--set", "scan.symbologies=[\"qr\",\"code128\"]", "two-codes.png"],
                                 currentDirectory: Fixture.folder)
        #expect(both.stdout.split(separator: "\n").count == 2, "--set applies on top of the file")
        // A kiosk's config for a Raspberry Pi (hardware linux, its board profile by default)
        // away from any installed profile: its lines are not for decoding, and it still reads.
        let pi = dir.appendingPathComponent("pi.toml").path
        try "[gpio]\nbutton = { pin = \"GPIO17\" }\n[scan]\nsymbologies = [\"qr\"]\n".write(toFile: pi, atomically: true, encoding: .utf8)
        let onLaptop = try Run.scand(["decode", "-q", "--config", pi, "two-codes.png"], currentDirectory: Fixture.folder)
        #expect(onLaptop.status == 0 && onLaptop.stdout == "QR-Code:https://example.org/kiosk?id=42\n", "\(onLaptop.stderr)")
        // Names from outside are shown escaped on stderr, as in every other line scand prints.
        let hostile = dir.appendingPathComponent("junk\u{1B}[2J\r.png")
        try Data("not an image".utf8).write(to: hostile)
        let named = try Run.scand(["decode", hostile.path, dir.appendingPathComponent("gone\u{1B}.png").path])
        #expect(!named.stderr.contains("\u{1B}") && !named.stderr.contains("\r") && named.stderr.contains("junk\\x1B[2J\\x0D.png"), "\(named.stderr)")
        #expect(named.stderr.contains("gone\\x1B.png"), "\(named.stderr)")
        let missing = try Run.scand(["decode", "--config", dir.appendingPathComponent("none.toml").path, "qr.png"], currentDirectory: Fixture.folder)
        #expect(missing.status == 64 && missing.stderr.contains("none.toml"))
        let bad = try Run.scand(["decode", "--no-code-status", "2", "qr.png"], currentDirectory: Fixture.folder)
        #expect(bad.status == 64 && bad.stderr.contains("--no-code-status"))
    }
}
