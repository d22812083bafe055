@testable import ScanCore
import Testing

/// The GS1 element-string and Digital Link parser: every check of the AI table, the FNC1
/// rules, and hostile input.
@Suite struct GS1Tests {
    static let gs = "\u{1D}"

    func parse(_ text: String) -> GS1.Reading { GS1.parse(elementString: Array(text.utf8)) }
    func pairs(_ r: GS1.Reading) -> [String] { r.elements.map { "\($0.ai)=\($0.value)" } }

    @Test func elementStringsSplitAtPredefinedLengthsAndFNC1() {
        let r = parse("0109506000134352172012311" + "0ABC" + Self.gs + "21XYZ")
        #expect(pairs(r) == ["01=09506000134352", "17=201231", "10=ABC", "21=XYZ"])
        #expect(r.isValid && r.isComplete && r.source == .elementString)
        #expect(r.hri == "(01)09506000134352(17)201231(10)ABC(21)XYZ")
        // A leading FNC1 (0x1D), an FNC1 after a predefined-length AI and a trailing one are tolerated.
        let tolerant = parse(Self.gs + "0109506000134352" + Self.gs + "10ABC" + Self.gs)
        #expect(pairs(tolerant) == ["01=09506000134352", "10=ABC"] && tolerant.isValid)
    }

    @Test func checkDigitsOfGTINSSCCAndGLN() {
        #expect(parse("0109506000134352").isValid)
        #expect(parse("0109506000134353").problems == ["(01) 09506000134353: check digit 3 is wrong, 2 expected: a misprinted or misread code"])
        #expect(parse("00106141411234567897").isValid)                   // SSCC
        #expect(parse("00106141411234567898").problems.first?.contains("check digit 8 is wrong, 7 expected") == true)
        #expect(parse("4140614141000005").isValid)                       // GLN, 41x predefined at 13 digits
        #expect(parse("4140614141000006").problems.first?.hasPrefix("(414) 0614141000006: check digit 6 is wrong") == true)
        #expect(parse("8006095060001343520102").isValid)                  // ITIP: GTIN + piece 01 of 02
        #expect(parse("8006095060001343520302").problems.first?.contains("piece 3 of 2") == true)
        // A check failure keeps the element and the reading complete: the data is there, wrong.
        let wrong = parse("0109506000134353" + "10ABC")
        #expect(wrong.isComplete && pairs(wrong) == ["01=09506000134353", "10=ABC"])
    }

    @Test func datesAreCalendarDaysAndDay00IsTheMonthsEnd() {
        #expect(parse("17201231").isValid)
        #expect(parse("17210200").isValid, "DD 00: the end of the month")
        #expect(parse("17240229").isValid, "2024 is a leap year")
        #expect(parse("17210229").problems == ["(17) 210229: day 29 is not in month 2 (01 to 28, or 00 for the month's end)"])
        #expect(parse("17211301").problems == ["(17) 211301: month 13 is not a month (01 to 12)"])
        #expect(parse("7006210200").problems.first?.contains("day 0 is not in month 2 (01 to 28)") == true, "7006 has no day 00")
        #expect(parse("70032012312359").isValid)
        #expect(parse("70032012312460").problems.first?.contains("hour 24") == true)
        #expect(parse("800820123123").isValid && parse("80082012312359").isValid && parse("8008201231235959").isValid)
        #expect(parse("8008201231235").problems.first?.contains("2 or 4 digits") == true)
        #expect(parse("725020240229").isValid && !parse("725019000229").isValid, "1900 was no leap year")
        #expect(parse("7007201231").isValid && parse("7007201231210101").isValid)
        #expect(parse("700720123121").problems.first?.contains("6 expected or none") == true)
    }

    @Test func decimalPointAIsTakeTheirDecimalPlacesFromTheFourthDigit() {
        #expect(pairs(parse("3103001250")) == ["3103=001250"])
        #expect(parse("3105001250").isValid && parse("3929" + "1999").isValid && parse("3943" + "0050").isValid)
        #expect(parse("3106001250").problems == ["(310n) with n = 6 decimal places: 310n allows n from 0 to 5"])
        #expect(parse("39440050").problems == ["(394n) with n = 4 decimal places: 394n allows n from 0 to 3"])
        #expect(parse("3910978" + "1999").isValid, "currency code and amount")
    }

    @Test func lengthsAndCharacterSets() {
        #expect(parse("10" + String(repeating: "A", count: 21)).problems
            == ["(10) AAAAAAAAAAAAAAAAAAAAA: 21 characters, 1 to 20 expected (is the FNC1 separator after it missing?)"])
        // 8006 has a fixed length but no predefined one: an FNC1 must end it.
        #expect(parse("8006095060001343520102" + "10ABC").problems.first?.contains("23 characters, 18 expected (is the FNC1 separator after it missing?)") == true)
        #expect(parse("10AB CD").problems == ["(10) AB CD: a space is not allowed (GS1's 82 characters, CSET 82)"])
        #expect(parse("8010ABC#-/12").isValid && parse("8010abc").problems.first?.contains("CSET 39") == true)
        #expect(parse("30" + "12a").problems.first?.contains("'a' is not allowed (digits only)") == true)
        #expect(parse("4330001234-").isValid && parse("4330001234+").problems.first?.contains("'-'") == true)
        #expect(parse("10").problems.first?.contains("0 characters, 1 to 20 expected") == true, "an AI with no data")
    }

    @Test func unknownAIsAndTruncatedDataStopTheReading() {
        let unknown = parse("0109506000134352" + "2312")
        #expect(pairs(unknown) == ["01=09506000134352"] && !unknown.isComplete)
        #expect(unknown.problems == ["byte 17: no Application Identifier starts 2312 in the GS1 General Specifications"])
        #expect(parse("04123").problems.first?.contains("no Application Identifier starts 0412") == true, "04 is reserved")
        let cut = parse("010950600013")
        #expect(cut.problems == ["(01) needs 14 characters, the data ends after 10: the code is cut short"] && !cut.isComplete)
        #expect(parse("AB").problems == ["byte 1: 'A' where an Application Identifier (2 to 4 digits) should start"])
        #expect(parse("1").problems.first?.contains("byte 1") == true)
    }

    @Test func hostileInputGivesReasonsNeverATrap() {
        #expect(parse("").problems == ["no element string: the GS1 data is empty"])
        #expect(parse(Self.gs).problems == ["no element string: the GS1 data is empty"])
        #expect(parse(String(repeating: Self.gs, count: 100)).elements.isEmpty)
        let doubled = parse("10A" + Self.gs + Self.gs + Self.gs + "21B")
        #expect(pairs(doubled) == ["10=A", "21=B"] && doubled.isValid, "lone FNC1s between elements carry nothing")
        let nonASCII = GS1.parse(elementString: Array("10Ä".utf8) + [0xFF])
        #expect(nonASCII.problems.count == 1 && nonASCII.problems[0].hasSuffix(": byte 0xC3 is not allowed (GS1's 82 characters, CSET 82)"))
        #expect(GS1.parse(elementString: [UInt8](repeating: 0x31, count: GS1.maxLength + 1)).problems.first?.contains("more than GS1 data can be") == true)
        // The longest data taken: 4096 lots of an AI with one character, each ended by FNC1.
        let many = GS1.parse(elementString: Array(String(repeating: "10A" + Self.gs, count: GS1.maxLength / 4).utf8))
        #expect(many.elements.count == GS1.maxLength / 4 && many.isValid)
        #expect(parse("10A" + Self.gs + "10B").problems == ["(10) given twice with different values, A and B"])
        #expect(parse("10A" + Self.gs + "10A").isValid, "the same AI with the same value twice is allowed")
    }

    @Test func aimIdentifiersAndALeadingFNC1FlagGS1() {
        let data = Array("0109506000134352".utf8)
        for aim in ["]C1", "]d2", "]Q3", "]e0", "]J1"] {
            #expect(GS1.read(Symbol(symbology: .code128, bytes: data, aimIdentifier: aim))?.hri == "(01)09506000134352", "\(aim)")
        }
        #expect(GS1.read(Symbol(symbology: .code128, bytes: data, aimIdentifier: "]C0")) == nil)
        #expect(GS1.read(Symbol(symbology: .qrCode, bytes: [0x1D] + data))?.elements.count == 1)
        #expect(GS1.read(Symbol(symbology: .dataBar, bytes: data))?.isValid == true, "DataBar is always GS1 (]e0)")
    }

    @Test func digitalLinkURIs() throws {
        let r = try #require(GS1.digitalLink("https://id.gs1.org/01/09506000134352/10/ABC?17=201231"))
        #expect(pairs(r) == ["01=09506000134352", "10=ABC", "17=201231"] && r.isValid && r.source == .digitalLink)
        #expect(r.hri == "(01)09506000134352(10)ABC(17)201231")
        // A custom domain with a path before the key, a GTIN-13 padded to 14, percent-encoding,
        // qualifiers in their order, parameters that are not AIs ignored, the fragment dropped.
        let custom = try #require(GS1.digitalLink("HTTP://shop.example.com/p/01/01/9506000134352/22/V1/10/A%2FB/21/S%201?linkType=all&3103=000500#top"))
        #expect(pairs(custom) == ["01=09506000134352", "22=V1", "10=A/B", "21=S 1", "3103=000500"])
        #expect(custom.problems == ["(21) S 1: a space is not allowed (GS1's 82 characters, CSET 82)"])
        #expect(GS1.digitalLink("https://example.com/00/106141411234567897")?.hri == "(00)106141411234567897")
        #expect(GS1.digitalLink("https://example.com/414/0614141000005/254/A1")?.hri == "(414)0614141000005(254)A1")
        // Percent-encoded UTF-8 is read as such (and is not GS1's 82 characters); other bytes as Latin-1.
        let utf8 = try #require(GS1.digitalLink("https://example.com/01/09506000134352/10/%C3%84B/21/%FF"))
        #expect(pairs(utf8) == ["01=09506000134352", "10=ÄB", "21=\u{FF}"])
        #expect(utf8.problems == ["(10) ÄB: byte 0xC3 is not allowed (GS1's 82 characters, CSET 82)",
                                  "(21) \u{FF}: byte 0xFF is not allowed (GS1's 82 characters, CSET 82)"])
        // A value that mixes UTF-8 and a stray byte keeps its characters: only the stray byte
        // is read as Latin-1 (read whole as Latin-1, "é😀" came out as five characters of mojibake
        // and the HRI outgrew its link: the gs1 fuzz target's find).
        let mixed = try #require(GS1.digitalLink("https://example.com/01/09506000134352/10/\u{E9}\u{1F600}%FF%C3%84%E2%82"))
        #expect(pairs(mixed) == ["01=09506000134352", "10=\u{E9}\u{1F600}\u{FF}\u{C4}\u{E2}\u{82}"])
        #expect(mixed.hri.unicodeScalars.count == "(01)09506000134352(10)".count + 6)
        // Attributes in the query are checked like element strings.
        let bad = try #require(GS1.digitalLink("https://id.gs1.org/01/09506000134352?17=201332&123=x&10=%G1"))
        #expect(bad.problems == ["(17) 201332: month 13 is not a month (01 to 12)",
                                 "?123=: no such Application Identifier in the GS1 General Specifications",
                                 "(10): a broken percent-encoding (% not followed by two hex digits)"])
    }

    @Test func aURLWithoutAValidPrimaryKeyIsNoDigitalLink() {
        for url in ["https://id.gs1.org/01/09506000134353",              // check digit
                    "https://id.gs1.org/01/0950600013435",               // length
                    "https://id.gs1.org/01/09506000134352/21/X/10/Y",    // qualifiers out of order
                    "https://id.gs1.org/01/09506000134352/17/201231",    // 17 is no qualifier of 01
                    "https://id.gs1.org/10/ABC",                         // 10 is no primary key
                    "https://id.gs1.org/01/09506000134352/10",           // a qualifier without its value
                    "https://example.org/kiosk?id=42", "ftp://id.gs1.org/01/09506000134352", "https://01/09506000134352"] {
            #expect(GS1.digitalLink(url) == nil, "\(url)")
        }
        #expect(GS1.digitalLink("https://x.org/" + String(repeating: "01/", count: 5000)) == nil)
    }

    @Test func theTableAgreesWithTheSpecsPredefinedLengths() {
        // Every AI whose first two digits are in the predefined-length table has exactly that
        // length and needs no FNC1; every other AI does.
        var predefined = 0
        for (ai, spec) in GS1.table {
            if let total = GS1.predefinedLengths[String(ai.prefix(2))] {
                predefined += 1
                #expect(spec.predefined && spec.minLength == spec.maxLength && ai.count + spec.maxLength == total, "\(ai)")
            } else {
                #expect(!spec.predefined, "\(ai)")
            }
            #expect((2...4).contains(ai.count) && ai.allSatisfy(\.isASCIIDigit))
        }
        #expect(predefined == 4 + 6 + 1 + 53 * 6 + 8, "00-03, 11-17 less 14, 20, the 53 measure families (n 0 to 5), 410-417")
        // No AI is the start of another: AIs split data unambiguously.
        for ai in GS1.table.keys { for n in 2..<ai.count { #expect(GS1.table[String(ai.prefix(n))] == nil, "\(ai)") } }
        // Each check named in the formats is a check the parser has.
        for (ais, format) in GS1.formats where format.contains(",") {
            #expect(GS1.parts(format).contains { $0.check != nil }, "\(ais): \(format)")
        }
    }
}
