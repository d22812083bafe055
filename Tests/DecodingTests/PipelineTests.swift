import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

@Suite(.onTestThreads) struct PipelineTests {
    static let seed: [(file: String, symbology: Symbology, text: String)] = [
        ("upce.png", .upcE, "01234565"), ("ean8.png", .ean8, "96385074"), ("ean13.png", .ean13, "5901234123457"),
        ("upca.png", .upcA, "036000291452"), ("itf.png", .itf, "12345678"), ("itf14.png", .itf14, "15400141288763"),
        ("code39.png", .code39, "SCAND-39"), ("code39-mod43.png", .code39, "MOD43N"), ("code93.png", .code93, "SCAND93"),
        ("code128.png", .code128, "scand-128/ok"), ("pdf417.png", .pdf417, "scand PDF417 fixture"),
        ("aztec.png", .aztec, "scand Aztec fixture"), ("datamatrix.png", .dataMatrix, "scand DataMatrix fixture"),
        ("qr.png", .qrCode, "https://example.org/kiosk?id=42"),
    ]

    @Test("every seed symbology decodes", arguments: seed)
    func seedSymbology(file: String, symbology: Symbology, text: String) throws {
        let symbols = DecodePipeline().decode(try ImageFile.load(Fixture.path(file)))
        let first = try #require(symbols.first)
        #expect(first.symbology == symbology)
        #expect(first.text == text)
        #expect(first.aim.hasPrefix("]"))
    }

    @Test func eachEngineAlone() throws {
        let dm = try ImageFile.load(Fixture.path("datamatrix.png"))
        #expect(ZXingDecoder().decode(dm).map(\.text) == ["scand DataMatrix fixture"])
        #expect(ZBarDecoder().decode(dm).isEmpty, "zbar has no DataMatrix decoder")
        let aztec = try ImageFile.load(Fixture.path("aztec.png"))
        #expect(ZXingDecoder().decode(aztec).first?.aimIdentifier == "]z0")
    }

    @Test func binaryPayloadsRoundTripTheirBytes() throws {
        let qr = DecodePipeline().decode(try ImageFile.load(Fixture.path("binary-qr.png")))
        #expect(qr.first?.bytes == Array(0x00...0x0F) + [0x80, 0x81, 0x82, 0x83, 0xFE, 0xFF])
        let dm = DecodePipeline().decode(try ImageFile.load(Fixture.path("binary-datamatrix.png")))
        #expect(dm.first?.bytes == [0, 1, 2, 3, 4, 5, 6, 7, 0xF0, 0xF8, 0xFF])
    }

    @Test func imagesWithoutACodeGiveNothing() throws {
        #expect(DecodePipeline(quality: .accurate).decode(try ImageFile.load(Fixture.path("no-code.png"))).isEmpty)
        var noise = [UInt8](repeating: 0, count: 320 * 240)
        var seed: UInt32 = 12345
        for i in noise.indices { seed = seed &* 1_103_515_245 &+ 12345; noise[i] = UInt8(truncatingIfNeeded: seed >> 16) }
        #expect(DecodePipeline(quality: .accurate).decode(GrayFrame(width: 320, height: 240, pixels: noise)).isEmpty)
    }

    /// zxing alone reads an ITF-14 under a glare spot; zxing reads it again from the crop at three
    /// quarters of its size, not at twice: that second look confirms it.
    @Test func aGlaredCodeOneEngineReadsIsConfirmedAtAnotherSize() throws {
        let frame = try ImageFile.load(Fixture.path("glare-itf14.png"))
        #expect(ZBarDecoder().decode(frame).isEmpty, "zbar alone does not read it: the second look is zxing's")
        #expect(DecodePipeline().decode(frame).map(\.text) == ["62818983471355"])
    }

    @Test func invertedCodeIsReadByTheInvertPass() throws {
        let qr = try ImageFile.load(Fixture.path("qr.png"))
        let inverted = GrayFrame(width: qr.width, height: qr.height, pixels: qr.packedPixels().map { 255 - $0 })
        #expect(DecodePipeline(quality: .balanced).decode(inverted).map(\.text) == ["https://example.org/kiosk?id=42"])
    }

    @Test func nearestTheViewportCentreComesFirst() throws {
        let frame = try ImageFile.load(Fixture.path("two-codes.png"))
        let right = DecodePipeline().decode(frame, viewport: Viewport(x: 0.3, y: 0, width: 0.7, height: 1))
        #expect(right.first?.symbology == .code128)
        let all = DecodePipeline().decode(frame, viewport: Viewport(x: 0, y: 0, width: 0.5, height: 1))
        #expect(all.first?.symbology == .qrCode)
    }
}

@Suite(.onTestThreads) struct SymbologyRulesTests {
    func symbol(_ s: Symbology, _ text: String, x: Int = 0, w: Int = 100) -> Symbol {
        Symbol(symbology: s, text: text, corners: [PixelPoint(x: x, y: 0), PixelPoint(x: x + w, y: 0), PixelPoint(x: x + w, y: 40), PixelPoint(x: x, y: 40)])
    }

    @Test func lengthLimitsReject() {
        var rule = SymbologyRules.Rule(agreeingFrames: 1)
        rule.minLength = 4
        rule.maxLength = 6
        let rules = SymbologyRules([.code128: rule])
        #expect(rules.apply([symbol(.code128, "abc")]).isEmpty)
        #expect(rules.apply([symbol(.code128, "abcd")]).count == 1)
        #expect(rules.apply([symbol(.code128, "abcdefg")]).isEmpty)
    }

    @Test func gtinCheckDigitsAreAlwaysVerified() {
        let rules = SymbologyRules()
        #expect(rules.apply([symbol(.ean13, "5901234123457")]).count == 1)
        #expect(rules.apply([symbol(.ean13, "5901234123458")]).isEmpty)
        #expect(rules.apply([symbol(.upcE, "01234565")]).count == 1)
        #expect(rules.apply([symbol(.upcE, "01234566")]).isEmpty)
    }

    @Test func optionalCheckDigitsVerifyAndStrip() {
        var itf = SymbologyRules.Rule()
        itf.checkDigit = .verifyAndStrip
        var code39 = SymbologyRules.Rule()
        code39.checkDigit = .verify
        let rules = SymbologyRules([.itf: itf, .code39: code39])
        #expect(rules.apply([symbol(.itf, "12345670")]).map(\.text) == ["1234567"])
        #expect(rules.apply([symbol(.itf, "12345678")]).isEmpty)
        #expect(rules.apply([symbol(.code39, "MOD43N")]).map(\.text) == ["MOD43N"])
        #expect(rules.apply([symbol(.code39, "MOD43X")]).isEmpty)
    }

    @Test func fullASCIICode39() {
        #expect(Code39.fullASCII(Array("E+X+T /A%J".utf8)).map { String(decoding: $0, as: UTF8.self) } == "Ext !?")
        #expect(Code39.fullASCII(Array("PLAIN-39".utf8)) == nil)
        #expect(Code39.fullASCII(Array("A+1".utf8)) == nil, "not a Full ASCII pair: kept as read")
        var plain = SymbologyRules.Rule()
        plain.fullASCII = false
        #expect(SymbologyRules([.code39: plain]).apply([symbol(.code39, "12+A+B")]).map(\.text) == ["12+A+B"])
        #expect(SymbologyRules().apply([symbol(.code39, "12+A+B")]).map(\.text) == ["12ab"])
    }

    @Test func upcEOrEAN8InsideALongerCodeIsNotARead() {
        let long = symbol(.ean13, "5901234123457", x: 0, w: 200)
        let inside = symbol(.upcE, "01234565", x: 60, w: 60)
        let elsewhere = symbol(.ean8, "96385074", x: 400, w: 80)
        #expect(SymbologyRules().apply([long, inside, elsewhere]).map(\.symbology) == [.ean13, .ean8])
    }

    @Test func linearCodesNeedTwoAgreeingFramesByDefault() {
        #expect(SymbologyRules().rule(.ean13).agreeingFrames == 2)
        #expect(SymbologyRules().rule(.qrCode).agreeingFrames == 1)
    }
}
