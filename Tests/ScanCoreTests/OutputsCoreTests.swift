import Delivery
import ScanCore
import Testing

@Suite struct OutputFormatTests {
    let qr = ScanResult(sequence: 7, session: 3, symbol: Symbol(symbology: .qrCode, text: "WIFI:S:kiosk;T:WPA;P:se\u{1B}cret;;"))

    @Test func textWithPrefixSuffixAndAIM() {
        let f = OutputFormat.text(prefix: [0x02], suffix: [0x03, 13, 10], aim: true)
        #expect(f.render(qr, unixMillis: 0) == [0x02] + Array("]Q1WIFI:S:kiosk;T:WPA;P:se\\x1Bcret;;".utf8) + [0x03, 13, 10])
        let plain = OutputFormat.text(prefix: [], suffix: [10], aim: false)
        #expect(plain.render(ScanResult(sequence: 1, session: 1, symbol: Symbol(symbology: .ean13, text: "5901234123457")), unixMillis: 0)
                == Array("5901234123457\n".utf8))
    }

    /// A book's ISBN with its EAN-5 price add-on: the text sends both (after the configured
    /// separator, none by default) under AIM `]E3`; JSON keeps the main code as `text`, the
    /// add-on as `addon`, and the payload names the price.
    @Test func anAddOnFollowsItsCode() throws {
        var book = Symbol(symbology: .ean13, text: "9780306406157")
        book.addOn = "52495"
        let result = ScanResult(sequence: 2, session: 1, symbol: book)
        let aim = OutputFormat.text(prefix: [], suffix: [10], aim: true)
        #expect(aim.render(result, unixMillis: 0) == Array("]E3978030640615752495\n".utf8))
        var spaced = SymbologyRules()
        spaced.addOnSeparator = " "
        let separated = ScanResult(sequence: 2, session: 1, symbol: try #require(spaced.apply([Symbol(symbology: .ean13, text: "9780306406157")].map { s in
            var s = s; s.addOn = "52495"; return s
        }).first.map { s -> Symbol in s }))
        #expect(separated.symbol.addOn == nil, "the default rule ignores add-ons")
        var reading = spaced
        var rule = reading.rule(.ean13)
        rule.addOn = .read
        reading.rules[.ean13] = rule
        let kept = try #require(reading.apply([book]).first)
        #expect(OutputFormat.text(prefix: [], suffix: [], aim: false).render(ScanResult(sequence: 1, session: 1, symbol: kept), unixMillis: 0)
                == Array("9780306406157 52495".utf8))
        let line = String(decoding: OutputFormat.jsonLines.render(result, unixMillis: 0), as: UTF8.self)
        #expect(line.contains("\"aim\":\"]E3\",\"text\":\"9780306406157\","))
        #expect(line.contains("\"addon\":\"52495\","))
        #expect(line.contains("\"payload\":{\"type\":\"isbn\",\"isbn\":\"9780306406157\",\"addon\":\"52495\",\"currency\":\"USD\",\"price\":\"24.95\"}"))
        #expect(!String(decoding: OutputFormat.jsonLines.render(qr, unixMillis: 0), as: UTF8.self).contains("addon"))
        var free = book
        free.addOn = "90000"
        #expect(PayloadClassifier.classify(free).field("price") == "none")
        free.addOn = "01050"
        #expect(PayloadClassifier.classify(free).field("currency") == "GBP" && PayloadClassifier.classify(free).field("price") == "10.50")
    }

    /// `require` drops a main code read without an add-on; an add-on that is not 2 or 5 digits
    /// is no add-on.
    @Test func addOnRules() {
        var rules = SymbologyRules()
        var rule = rules.rule(.upcA)
        rule.addOn = .require
        rules.rules[.upcA] = rule
        var withAddOn = Symbol(symbology: .upcA, text: "036000291452")
        withAddOn.addOn = "12"
        #expect(rules.apply([Symbol(symbology: .upcA, text: "036000291452")]).isEmpty)
        #expect(rules.apply([withAddOn]).map(\.addOn) == ["12"])
        withAddOn.addOn = "123"
        #expect(rules.apply([withAddOn]).isEmpty)
        #expect(rules.readsAddOns && !SymbologyRules().readsAddOns)
        #expect(rules.addOn(.isbn13) == .ignore && rules.addOn(.code128) == .ignore)
    }

    /// An EAN/UPC is its own length: an 11-digit "EAN-13" whose check passed by chance, with its
    /// last two digits taken for an EAN-2 (a tryout: 4006381333931 sent as 40063813339 + 31),
    /// is no read, whatever its add-on.
    @Test func aGTINOfAnotherLengthIsNoRead() {
        var cut = Symbol(symbology: .ean13, text: "40063813339")
        cut.addOn = "31"
        #expect(UPC.hasValidCheckDigit("40063813339"), "the check passes by chance")
        #expect(SymbologyRules().apply([cut, Symbol(symbology: .ean13, text: "4006381333931")]).map(\.text) == ["4006381333931"])
        for (symbology, text) in [(Symbology.ean8, "4006381333931"), (.upcA, "4006381333931"), (.itf14, "4006381333931"), (.ean13, "036000291452")] {
            #expect(SymbologyRules().apply([Symbol(symbology: symbology, text: text)]).isEmpty, "\(symbology) \(text)")
        }
        for (symbology, text) in [(Symbology.upcA, "036000291452"), (.ean8, "96385074")] {
            #expect(SymbologyRules().apply([Symbol(symbology: symbology, text: text)]).count == 1, "\(symbology) \(text)")
        }
    }

    /// An engine that read a code on scan lines that crossed its add-on and on others that did
    /// not gives it twice, with and without; under `read` it is sent once, with the add-on. The
    /// same product elsewhere in the frame, without one, is still sent.
    @Test func aCodeReadWithAndWithoutItsAddOnIsSentOnceWithIt() {
        var rules = SymbologyRules()
        var rule = rules.rule(.upcA)
        rule.addOn = .read
        rules.rules[.upcA] = rule
        let corners = [PixelPoint(x: 10, y: 10), PixelPoint(x: 110, y: 10), PixelPoint(x: 110, y: 60), PixelPoint(x: 10, y: 60)]
        let plain = Symbol(symbology: .upcA, text: "036000291452", corners: corners)
        var withAddOn = Symbol(symbology: .upcA, text: "036000291452", corners: corners.map { PixelPoint(x: $0.x == 110 ? 140 : $0.x, y: $0.y) })
        withAddOn.addOn = "07"
        #expect(rules.apply([plain, withAddOn]).map(\.addOn) == ["07"])
        #expect(rules.apply([withAddOn, plain]).map(\.addOn) == ["07"])
        // zxing's two reads of a skewed EAN-13+2 (the add-on set's EAN-13plus2-skew-00): rows apart.
        var ean = SymbologyRules()
        ean.rules[.ean13] = rule
        let rows = Symbol(symbology: .ean13, text: "3437536936973", corners: [PixelPoint(x: 410, y: 401), PixelPoint(x: 718, y: 401), PixelPoint(x: 707, y: 445), PixelPoint(x: 399, y: 445)])
        var rowsWithAddOn = Symbol(symbology: .ean13, text: "3437536936973", corners: [PixelPoint(x: 399, y: 447), PixelPoint(x: 794, y: 447), PixelPoint(x: 793, y: 452), PixelPoint(x: 397, y: 452)])
        rowsWithAddOn.addOn = "72"
        #expect(ean.apply([rows, rowsWithAddOn]).map(\.addOn) == ["72"])
        let elsewhere = Symbol(symbology: .upcA, text: "036000291452", corners: corners.map { PixelPoint(x: $0.x + 400, y: $0.y) })
        #expect(rules.apply([withAddOn, elsewhere]).map(\.addOn) == ["07", nil])
    }

    @Test func jsonLineCarriesEverythingOnOneLine() {
        let line = String(decoding: OutputFormat.jsonLines.render(qr, unixMillis: 1_795_867_200_123), as: UTF8.self)
        #expect(line.hasSuffix("}\n") && line.dropLast().firstIndex(of: "\n") == nil)
        #expect(line.hasPrefix("{\"seq\":7,\"time\":\"2026-11-28T12:00:00.123Z\",\"symbology\":\"QR-Code\",\"aim\":\"]Q1\","))
        #expect(line.contains("\"text\":\"WIFI:S:kiosk;T:WPA;P:se\\u001bcret;;\""))
        #expect(line.contains("\"bytesBase64\":\"" + PayloadText.base64(qr.symbol.bytes) + "\""))
        #expect(line.contains("\"payload\":{\"type\":\"wifi\",\"ssid\":\"kiosk\",\"security\":\"WPA\",\"password\":\"se\\u001bcret\"}"))
    }

    @Test func iso8601() {
        #expect(OutputFormat.iso8601(0) == "1970-01-01T00:00:00.000Z")
        #expect(OutputFormat.iso8601(951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }
}

@Suite struct PayloadClassifierTests {
    static let cases: [(String, PayloadKind, String?, String?)] = [
        ("https://example.org/p/1", .url, "host", "example.org"),
        ("mailto:help@example.com?subject=Hi", .email, "subject", "Hi"),
        ("MATMSG:TO:a@b.c;SUB:s;BODY:b;;", .email, "address", "a@b.c"),
        ("tel:+49301234", .telephone, "number", "+49301234"),
        ("SMSTO:+4930:hello", .sms, "body", "hello"),
        ("WIFI:S:kiosk;T:WPA;P:pw\\;x;;", .wifi, "password", "pw;x"),
        ("MECARD:N:Doe,Jane;TEL:123;EMAIL:j@d.e;;", .contact, "name", "Jane Doe"),
        ("BEGIN:VCARD\nVERSION:3.0\nFN:Jane Doe\nTEL;TYPE=cell:123\nEND:VCARD", .contact, "telephone", "123"),
        ("BEGIN:VEVENT\nSUMMARY:Launch\nDTSTART:20261201T100000Z\nEND:VEVENT", .calendar, "summary", "Launch"),
        ("geo:52.52,13.405", .geo, "longitude", "13.405"),
        ("0306406152", .isbn, "isbn", "0306406152"),
        ("just text", .text, nil, nil),
    ]

    @Test("payload classes", arguments: cases)
    func classify(text: String, kind: PayloadKind, field: String?, value: String?) {
        let info = PayloadClassifier.classify(text)
        #expect(info.kind == kind)
        if let field { #expect(info.field(field) == value) }
    }

    @Test func isbnFromEAN13() {
        #expect(PayloadClassifier.classify(Symbol(symbology: .ean13, text: "9780306406157")).kind == .isbn)
        #expect(PayloadClassifier.classify(Symbol(symbology: .ean13, text: "5901234123457")).kind == .text)
    }

    @Test func gs1ElementStrings() {
        // ]C1 (GS1-128): GTIN, expiry, lot (variable, ended by GS), serial.
        let s = Symbol(symbology: .code128, bytes: Array("0109501101530003172612311012A\u{1D}21SN9".utf8), aimIdentifier: "]C1")
        let info = PayloadClassifier.classify(s)
        #expect(info.kind == .gs1)
        #expect(info.field("gtin") == "09501101530003")
        #expect(info.field("expiry") == "2026-12-31")
        #expect(info.field("lot") == "12A")
        #expect(info.field("serial") == "SN9")
        // A leading FNC1 as GS marks GS1 data too; plain Code 128 is not GS1.
        #expect(PayloadClassifier.classify(Symbol(symbology: .dataMatrix, bytes: [0x1D] + Array("0109501101530003".utf8))).kind == .gs1)
        #expect(PayloadClassifier.classify(Symbol(symbology: .code128, text: "0109501101530003")).kind == .text)
    }
}

@Suite struct SameSymbolFilterTests {
    @Test func theSameCodeWithinTheWindowIsNotReportedTwice() {
        var f = SameSymbolFilter(window: .milliseconds(500))
        let a = Symbol(symbology: .ean13, text: "5901234123457"), b = Symbol(symbology: .ean13, text: "4006381333931")
        var verdicts = [f.admit(a, at: .seconds(10)), f.admit(a, at: .seconds(10) + .milliseconds(300))]
        f.frame(showing: [], at: .seconds(10) + .milliseconds(400))        // out of view from 10.3 s
        verdicts.append(f.admit(a, at: .seconds(10) + .milliseconds(700))) // 400 ms out of view: held
        f.frame(showing: [], at: .seconds(11) + .milliseconds(300))         // a frame without it 600 ms on
        verdicts.append(f.admit(a, at: .seconds(12)))
        verdicts.append(f.admit(b, at: .seconds(12) + .milliseconds(1)))    // another code
        #expect(verdicts == [true, false, false, true, true])
    }

    @Test func aCodeLeftInViewIsReportedOnceWhateverTheWindow() {
        let a = Symbol(symbology: .qrCode, text: "https://example.org/kiosk?id=42")
        for window in [Duration.zero, .milliseconds(500)] {
            var f = SameSymbolFilter(window: window)
            var verdicts: [Bool] = []
            for tick in 0..<30 { // 30 frames at 30 fps, the code in every one
                let now = Duration.milliseconds(33 * tick)
                f.frame(showing: [a], at: now)
                verdicts.append(f.admit(a, at: now))
            }
            #expect(verdicts == [true] + Array(repeating: false, count: 29), "window \(window)")
            // Taken away for one frame, then shown again: with no window it is a new read.
            f.frame(showing: [], at: .seconds(1))
            let again = f.admit(a, at: .seconds(1) + .milliseconds(33))
            #expect(again == (window == .zero))
        }
    }

    /// A code said to have left the view (a frame not read through showed something else where
    /// it was) is out of view like one missing from a frame read through; the others are not.
    @Test func aCodeThatLeftTheViewIsReportedAgainAfterTheWindow() {
        var f = SameSymbolFilter(window: .milliseconds(500))
        let a = Symbol(symbology: .upcA, text: "725078102615"), b = Symbol(symbology: .code128, text: "PART-1")
        let first = [f.admit(a, at: .zero), f.admit(b, at: .zero)]
        f.leftView([CodeIdentity(a)], at: .milliseconds(300))
        let soon = f.admit(a, at: .milliseconds(400))   // out of view 300 ms: held
        f.leftView([CodeIdentity(a)], at: .milliseconds(950))
        let again = [f.admit(a, at: .milliseconds(1000)), f.admit(b, at: .milliseconds(1000))]
        #expect(first == [true, true] && !soon && again == [true, false])
    }

    /// The time out of view runs from the last sighting to a frame without the code: a code back
    /// in view sooner is held, though its read comes after the window (a code only the deep
    /// passes read comes a deep pass late: counted so, a UPC-A out of view 0.27 s was sent again
    /// with a 500 ms window). A scene that showed something else where it was, still for several
    /// frames, forgets it at once when the window has passed.
    @Test func theWindowRunsToAFrameWithoutTheCode() {
        let a = Symbol(symbology: .upcA, text: "725078102615")
        var f = SameSymbolFilter(window: .milliseconds(500))
        _ = f.admit(a, at: .zero)
        f.frame(showing: [], at: .milliseconds(300))
        f.frame(showing: [a], at: .milliseconds(700))
        let early = f.admit(a, at: .milliseconds(700))
        f.leftView([CodeIdentity(a)], at: .milliseconds(1300))
        f.frame(showing: [a], at: .milliseconds(1700))
        let back = f.admit(a, at: .milliseconds(1700))
        #expect(!early && back)
    }

    @Test func severalCodesInViewAreEachHeldBack() {
        var f = SameSymbolFilter(window: .zero)
        let codes = (0..<3).map { Symbol(symbology: .code128, text: "PART-\($0)") }
        let first = codes.map { f.admit($0, at: .zero) }
        f.frame(showing: codes, at: .milliseconds(33))
        let again = codes.map { f.admit($0, at: .milliseconds(33)) }
        #expect(first == [true, true, true] && again == [false, false, false])
        f.forget()
        let afterAPress = f.admit(codes[0], at: .milliseconds(66))
        #expect(afterAPress)
    }
}

@Suite struct HostCommandTests {
    @Test func everyCommandParses() throws {
        #expect(try HostCommand.parse("TRIGGER") == .trigger)
        #expect(try HostCommand.parse("stop") == .stop)
        #expect(try HostCommand.parse("TORCH on") == .torch(.on))
        #expect(try HostCommand.parse("TORCH OFF") == .torch(.off))
        #expect(try HostCommand.parse("TORCH AUTO") == .torch(.auto))
        #expect(try HostCommand.parse("TORCH DEFAULT") == .torch(nil))
        #expect(try HostCommand.parse("BEEP") == .beep)
        #expect(try HostCommand.parse("STATUS") == .status)
        #expect(try HostCommand.parse("VERSION") == .version)
        #expect(try HostCommand.parse("SET scan.session_timeout_ms=5000") == .set(key: "scan.session_timeout_ms", value: "5000"))
        #expect(try HostCommand.parse("ACK 12") == .ack(12))
    }

    @Test func malformedInputIsRefused() {
        for bad in ["", "FLY", "TRIGGER now", "TORCH maybe", "SET nokey", "SET =1", "ACK x", "ACK -1", "STATUS\u{1B}[2J",
                    String(repeating: "A", count: 300)] {
            #expect(throws: HostCommandError.self, "\(bad.prefix(20))") { try HostCommand.parse(bad) }
        }
    }

    @Test func linesAreBoundedAndSplitOnEitherEnding() {
        var a = LineAssembler(limit: 10)
        let r1 = a.feed(Array("TRIG".utf8)), r2 = a.feed(Array("GER\r\nSTATUS\n".utf8))
        let r3 = a.feed(Array("0123456789ABCDEF".utf8)), r4 = a.feed(Array("GH\nBEEP\n".utf8))
        #expect(r1 == [] && r3 == [])
        #expect(r2 == [.line("TRIGGER"), .line("STATUS")])
        #expect(r4 == [.tooLong, .line("BEEP")])
    }
}

@Suite struct HIDKeyboardTests {
    @Test func usLayoutReports() {
        let r = KeyboardLayout.us.reports(for: "Az9-\n")
        #expect(r.untypable.isEmpty)
        #expect(r.reports == [
            [0x02, 0, 0x04, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0],   // A: shift + a
            [0x00, 0, 0x1D, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0],   // z
            [0x00, 0, 0x26, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0],   // 9
            [0x00, 0, 0x2D, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0],   // -
            [0x00, 0, 0x28, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0],   // Enter
        ])
    }

    @Test func germanLayoutPutsKeysWhereAGermanHostExpectsThem() {
        let r = KeyboardLayout.de.reports(for: "zY-@/")
        #expect(r.reports.enumerated().filter { $0.offset % 2 == 0 }.map { [$0.element[0], $0.element[2]] } == [
            [0x00, 0x1C],  // z is on the Y key
            [0x02, 0x1D],  // Y is shift + the Z key
            [0x00, 0x38],  // - is on the / key
            [0x40, 0x14],  // @ is AltGr + q
            [0x02, 0x24],  // / is shift + 7
        ])
    }

    @Test func untypableCharactersAreReportedNotGuessed() {
        #expect(KeyboardLayout.us.reports(for: "aé").untypable == ["é"])
        #expect(KeyboardLayout.de.reports(for: "ä").untypable.isEmpty)
    }
}

/// Hostile payloads and lines (issue 12).
@Suite struct HostileCoreTests {
    @Test func onlyASCIIDigitsMakeAnISBN() {
        #expect(PayloadClassifier.classify(Symbol(symbology: .qrCode, text: "0306406152")).kind == .isbn)
        // The same digits in Arabic-Indic (U+0660...) are text.
        #expect(PayloadClassifier.classify(Symbol(symbology: .qrCode, text: "\u{660}\u{663}\u{660}\u{666}\u{664}\u{660}\u{666}\u{661}\u{665}\u{662}")).kind == .text)
    }

    @Test func aLongNonASCIILineIsReportedAsNonASCII() {
        #expect(throws: HostCommandError(line: "only printable ASCII is accepted")) { try HostCommand.parse(String(repeating: "é", count: 86)) }
    }

    @Test func jsonReaderRefusesWhatIsNotJSON() throws {
        #expect(try JSONValue.parse(Array("{\"a\": [1, \"x\\u00e9\", null]}".utf8))["a"] == .array([.number(1), .string("xé"), .null]))
        for bad in ["", "{", "[1,]", "{\"a\" 1}", String(repeating: "[", count: 1000), "1e999", "\"\u{1}\""] {
            #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(bad.utf8)) }
        }
    }
}

extension HostCommandTests {
    @Test func answersAreToldFromCommands() {
        for line in ["OK TRIGGER", "ERR LAUNCH: unknown command", "ok", "err x", "  OK STATUS {}"] { #expect(HostCommand.isAnswer(line), "\(line)") }
        for line in ["TRIGGER", "OKAY", "ERRATA", "STATUS", "", "SET ok=1"] { #expect(!HostCommand.isAnswer(line), "\(line)") }
    }
}
