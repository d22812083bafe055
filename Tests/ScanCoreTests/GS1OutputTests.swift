import Delivery
import ScanCore
import Testing

/// GS1 data on the outputs: HRI text when asked, the AIs in JSON.
@Suite struct GS1OutputTests {
    static let symbol = Symbol(symbology: .code128, bytes: Array("01095060001343521720123110ABC".utf8), aimIdentifier: "]C1")

    func render(_ format: OutputFormat, _ symbol: Symbol) -> String {
        String(decoding: format.render(ScanResult(sequence: 1, session: 1, symbol: symbol), unixMillis: 0), as: UTF8.self)
    }

    @Test func textIsRawByDefaultAndHRIWhenAsked() {
        let raw = Symbol(symbology: .dataMatrix, bytes: Array("10ABC\u{1D}0109506000134352".utf8), aimIdentifier: "]d2")
        #expect(render(.text(prefix: [], suffix: [10], aim: false), raw) == "10ABC\\x1D0109506000134352\n")
        #expect(render(.text(prefix: [], suffix: [10], aim: true, gs1: .hri), raw) == "]d2(10)ABC(01)09506000134352\n")
        #expect(render(.text(prefix: [], suffix: [], aim: false, gs1: .hri), Self.symbol) == "(01)09506000134352(17)201231(10)ABC")
        let link = Symbol(symbology: .qrCode, text: "https://id.gs1.org/01/09506000134352/10/ABC?17=201231")
        #expect(render(.text(prefix: [], suffix: [], aim: false, gs1: .hri), link) == "(01)09506000134352(10)ABC(17)201231")
        // Data that does not split whole is sent as decoded: nothing is lost.
        let broken = Symbol(symbology: .code128, bytes: Array("0109506000134352ZZ".utf8), aimIdentifier: "]C1")
        #expect(render(.text(prefix: [], suffix: [], aim: false, gs1: .hri), broken) == "0109506000134352ZZ")
        // So is a link with data attributes that are no AI or not decodable: the HRI would drop them.
        for unread in ["https://id.gs1.org/01/09506000134352?717=ABC", "https://id.gs1.org/01/09506000134352/10/X?10=%%zz"] {
            let symbol = Symbol(symbology: .qrCode, text: unread)
            #expect(render(.text(prefix: [], suffix: [], aim: false, gs1: .hri), symbol) == unread)
        }
        let plain = Symbol(symbology: .qrCode, text: "https://example.org/kiosk?id=42")
        #expect(render(.text(prefix: [], suffix: [], aim: false, gs1: .hri), plain) == "https://example.org/kiosk?id=42")
    }

    @Test func jsonCarriesTheAIsInOrderAndTheirErrors() {
        let line = render(.jsonLines, Self.symbol)
        #expect(line.contains(#""payload":{"type":"gs1","gtin":"09506000134352","expiry":"2020-12-31","lot":"ABC"},"gs1":{"01":"09506000134352","17":"201231","10":"ABC"}}"#), "\(line)")
        #expect(!line.contains("gs1Errors"))
        let wrong = Symbol(symbology: .code128, bytes: Array("0109506000134353".utf8), aimIdentifier: "]C1")
        #expect(render(.jsonLines, wrong).contains(#""gs1":{"01":"09506000134353"},"gs1Errors":["(01) 09506000134353: check digit 3 is wrong, 2 expected: a misprinted or misread code"]}"#))
        let link = render(.jsonLines, Symbol(symbology: .qrCode, text: "https://id.gs1.org/01/09506000134352?17=201231"))
        #expect(link.contains(#""payload":{"type":"url","#) && link.contains(#""gs1":{"01":"09506000134352","17":"201231"}}"#), "\(link)")
        #expect(!render(.jsonLines, Symbol(symbology: .qrCode, text: "hello")).contains("gs1"))
    }

    /// The payload's fields agree with `gs1`: an AI given twice is its first value; a date is a
    /// calendar day (day 00 the month's last), or the digits as written when it is none.
    @Test func payloadDatesAreDaysAndARepeatedAIKeepsItsFirstValue() throws {
        func fields(_ data: String) throws -> [String: String] {
            let info = try #require(GS1.read(Symbol(symbology: .code128, bytes: Array(data.utf8), aimIdentifier: "]C1"))?.payload)
            return Dictionary(info.fields, uniquingKeysWith: { first, _ in first })
        }
        #expect(try fields("17261200")["expiry"] == "2026-12-31")
        #expect(try fields("17240200")["expiry"] == "2024-02-29")
        #expect(try fields("17250200")["expiry"] == "2025-02-28")
        #expect(try fields("17261331")["expiry"] == "261331")
        #expect(try fields("17260230")["expiry"] == "260230")
        #expect(try fields("10AAA\u{1D}10BBB")["lot"] == "AAA")
    }
}
