@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

@Suite(.onTestThreads) struct EANVerifierTests {
    /// A valid EAN/UPC text with one digit changed and the check digit made valid again: a
    /// misread no check digit can catch.
    static func oneDigitOff(_ text: String, at index: Int) -> String {
        var d = text.map { $0.wholeNumberValue! }
        d[index] = (d[index] + 3) % 10
        let body = d.dropLast()
        var sum = 0
        for (i, v) in body.reversed().enumerated() { sum += v * (i % 2 == 0 ? 3 : 1) }
        d[d.count - 1] = (10 - sum % 10) % 10
        return d.map(String.init).joined()
    }

    @Test("a real read fits the bars; the same place read one digit off does not",
          arguments: ["ean13.png", "upca.png", "ean8.png", "upce.png", "ean13.jpg"])
    func realReadsFitAndMisreadsDoNot(file: String) throws {
        let frame = try ImageFile.load(Fixture.path(file))
        let read = try #require(ZBarDecoder().decode(frame).first)
        #expect(EANVerifier.verify(read, in: frame) == .fits)
        var wrong = read
        let index = read.symbology == .upcE ? 3 : 2
        wrong.bytes = Array(Self.oneDigitOff(read.text, at: index).utf8)
        #expect(wrong.text != read.text)
        guard case .misfit = EANVerifier.verify(wrong, in: frame) else {
            Issue.record("\(wrong.text) accepted where \(read.text) is printed")
            return
        }
    }

    @Test func withoutAPlaceOrADigitLayoutItCannotTell() throws {
        let frame = try ImageFile.load(Fixture.path("ean13.png"))
        #expect(EANVerifier.verify(Symbol(symbology: .ean13, bytes: Array("5901234123457".utf8)), in: frame) == .cannotTell)
        #expect(EANVerifier.verify(Symbol(symbology: .code128, bytes: Array("12".utf8), corners: [PixelPoint(x: 0, y: 0), PixelPoint(x: 200, y: 0)]), in: frame) == .cannotTell)
    }

    /// A blurred UPC-A (zxing-cpp's sample upca-4/1) that zbar reads as another valid EAN-13
    /// (9074932437075): the pipeline must return the printed code or nothing, never that.
    @Test func aBlurredCodeIsNotMisread() throws {
        let frame = try ImageFile.load(Fixture.path("blurred-upca.png"))
        #expect(ZBarDecoder().decode(frame).map(\.text) == ["9074932437075"], "the engine alone misreads it")
        // zxing reads the printed code in a later pass; zbar's contradicting misread fits no
        // better, so zxing's read counts because it reads the same again at half size.
        #expect(DecodePipeline().decode(frame).map(\.text) == ["023942431015"])
        // Fast (first look only) and balanced (the kiosk's default passes); accurate adds only
        // rescaled looks, and takes seconds in a debug build.
        for quality in [DecodePipeline.Quality.fast, .balanced] {
            let texts = DecodePipeline(quality: quality).decode(frame).map(\.text)
            #expect(texts.allSatisfy { $0 == "023942431015" || $0 == "0023942431015" }, "\(quality): \(texts)")
        }
    }

    @Test func code32IsReadAsItsNineDigits() throws {
        #expect(Code39.code32(Array("3PRM8N".utf8)).map { String(decoding: $0, as: UTF8.self) } == "A123456788")
        #expect(Code39.code32(Array("3PRM8P".utf8)) == nil, "check digit wrong: plain Code 39")
        #expect(Code39.code32(Array("SCAND9".utf8)) == nil, "vowels are not in the Code 32 alphabet")
        #expect(Code39.code32(Array("3PRM8".utf8)) == nil)
        let frame = try ImageFile.load(Fixture.path("code32.png"))
        // Off by default: a plain Code 39 label (one in ten six-character ones passes the check
        // by chance) is sent as printed.
        #expect(DecodePipeline().decode(frame).map(\.text) == ["3PRM8N"])
        var pharmacode = SymbologyRules.Rule()
        pharmacode.code32 = true
        #expect(DecodePipeline(rules: SymbologyRules([.code39: pharmacode])).decode(frame).map(\.text) == ["A123456788"])
        // A pharmacy that also verifies Code 39's modulo-43 character: a Code 32 has its own
        // check digit and none of that character (it was dropped); one printed with it is read.
        for check in [SymbologyRules.CheckDigit.verify, .verifyAndStrip] {
            pharmacode.checkDigit = check
            let rules = SymbologyRules([.code39: pharmacode])
            #expect(rules.apply([Symbol(symbology: .code39, text: "3PRM8N")]).map(\.text) == ["A123456788"], "\(check)")
            #expect(rules.apply([Symbol(symbology: .code39, text: "SCAND9")]).isEmpty, "a plain Code 39 is still verified")
        }
        #expect(SymbologyRules([.code39: pharmacode]).apply([Symbol(symbology: .code39, text: "3PRM8NM")]).map(\.text) == ["A123456788"])
    }
}

/// Issue 14: the pipeline marks linear reads it checked within the frame.
@Suite(.onTestThreads) struct VerifiedInFrameTests {
    @Test("an EAN/UPC whose bars fit is verified in its frame", arguments: ["ean13.png", "upca.png", "ean8.png", "ean13.jpg"])
    func fittingBarsVerify(file: String) throws {
        let read = try #require(DecodePipeline().decode(try ImageFile.load(Fixture.path(file))).first)
        #expect(read.verifiedInFrame, "\(read.symbology) \(read.text)")
    }

    @Test func twoEnginesAlikeVerify() throws {
        // Code 39 has no mandatory check character: zxing's read needs zbar's (or a reread).
        let frame = try ImageFile.load(Fixture.path("code39.png"))
        let pipeline = DecodePipeline()
        let read = try #require(pipeline.decode(frame).first)
        let zbar = ZBarDecoder().decode(frame)
        #expect(read.verifiedInFrame == zbar.contains { DecodePipeline.same($0, read) }, "verified exactly when the second engine read it too")
    }

    @Test func aCode128IsCheckedByTheOtherEngineFromACrop() throws {
        let frame = try ImageFile.load(Fixture.path("code128.png"))
        let read = try #require(DecodePipeline(checksReadsInFrame: true).decode(frame).first)
        #expect(read.symbology == .code128)
        #expect(read.verifiedInFrame, "zbar reads the crop around zxing's read alike")
        // With one engine there is no second opinion in the frame: the kiosk waits for a second frame.
        let alone = try #require(DecodePipeline(engines: [.zxing], checksReadsInFrame: true).decode(frame).first)
        #expect(!alone.verifiedInFrame)
        // Batch decoding does not spend the reread.
        #expect(try #require(DecodePipeline().decode(frame).first).verifiedInFrame == false)
    }

    @Test func twoDCodesAreNotMarked() throws {
        let read = try #require(DecodePipeline().decode(try ImageFile.load(Fixture.path("qr.png"))).first)
        #expect(!read.verifiedInFrame)
    }
}
