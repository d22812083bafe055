import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

@Suite(.onTestThreads) struct ZBarDecoderTests {
    static let everySymbology: Set<Symbology> = [
        .ean13, .ean8, .upcA, .upcE, .itf, .itf14, .code39, .code93, .code128, .codabar, .dataBar, .qrCode,
    ]

    static let cases: [(file: String, symbology: Symbology, text: String)] = [
        ("ean13.png", .ean13, "5901234123457"),
        ("ean8.png", .ean8, "96385074"),
        ("upca.png", .upcA, "036000291452"),
        ("upce.png", .upcE, "01234565"),
        ("itf.png", .itf, "12345678"),
        ("itf14.png", .itf14, "15400141288763"),
        ("code39.png", .code39, "SCAND-39"),
        ("code93.png", .code93, "SCAND93"),
        ("code128.png", .code128, "scand-128/ok"),
        ("codabar.png", .codabar, "A40156B"),
        ("databar.png", .dataBar, "0109501101530010"),
        ("qr.png", .qrCode, "https://example.org/kiosk?id=42"),
    ]

    @Test("every symbology zbar supports decodes", arguments: cases)
    func decodes(file: String, symbology: Symbology, text: String) throws {
        let decoder = ZBarDecoder(symbologies: Self.everySymbology)
        let symbols = decoder.decode(try ImageFile.load(Fixture.path(file)))
        #expect(symbols.count == 1)
        let symbol = try #require(symbols.first)
        #expect(symbol.symbology == symbology)
        #expect(symbol.text == text)
        #expect(symbol.numericOnly == symbology.isNumericOnly)
        #expect(symbol.corners.count >= 4 || symbol.symbology.isLinear)
    }

    /// zbar's EAN decoder keeps the halves it found from one image to the next: zxing-cpp's
    /// `ean13-1/20.png` (4000539017100) read after `14.png` (3560070169443) came out as
    /// 4000539769443, a half of each. Each image is now read on its own: the same as alone.
    @Test func eachImageIsReadOnItsOwn() throws {
        let first = try ImageFile.load(Fixture.shared("zxing-cpp/ean13-1/14.png"))
        let second = try ImageFile.load(Fixture.shared("zxing-cpp/ean13-1/20.png"))
        let alone = ZBarDecoder().decode(second).map(\.text)
        let decoder = ZBarDecoder()
        #expect(decoder.decode(first).map(\.text) == ["3560070169443"])
        let after = decoder.decode(second).map(\.text)
        #expect(after == alone)
        #expect(!after.contains("4000539769443"))
    }

    @Test func numericOnlyClassIsTheSeedsLoadImmediatelyClass() {
        let numeric = Set(Symbology.allCases.filter(\.isNumericOnly))
        #expect(numeric.isSuperset(of: [.upcE, .ean8, .ean13, .upcA, .itf, .itf14]))
        #expect(!Symbology.qrCode.isNumericOnly && !Symbology.code128.isNumericOnly && !Symbology.code39.isNumericOnly)
    }

    @Test func rotatedQRCode() throws {
        let symbols = ZBarDecoder().decode(try ImageFile.load(Fixture.path("rotated-qr.png")))
        #expect(symbols.map(\.text) == ["https://example.org/kiosk?id=42"])
    }

    @Test func twoCodesInOneImageAreBothReturned() throws {
        let symbols = ZBarDecoder().decode(try ImageFile.load(Fixture.path("two-codes.png")))
        #expect(Set(symbols.map(\.symbology)) == [.qrCode, .code128])
    }

    @Test func codeOutsideTheViewportIsNotFound() throws {
        let frame = try ImageFile.load(Fixture.path("two-codes.png"))
        let left = ZBarDecoder().decode(frame, viewport: Viewport(x: 0, y: 0, width: 0.3, height: 1))
        #expect(left.map(\.symbology) == [.qrCode])
        let right = ZBarDecoder().decode(frame, viewport: Viewport(x: 0.3, y: 0, width: 0.7, height: 1))
        #expect(right.map(\.symbology) == [.code128])
        // Corners are in frame coordinates, not viewport coordinates.
        let minX = try #require(right.first?.corners.map(\.x).min())
        #expect(minX > Int(0.3 * Double(frame.width)))
    }

    /// A second look for one read (`decodeAgain`) looks only for its kind, along the lines that
    /// cross its bars: the code again, at a quarter of zbar's cost on a crop around an ITF strip
    /// (4.8 to 1.2 ms); a code standing on its side is read along the columns.
    @Test func aSecondLookFindsTheCodeAgainAndNothingElse() throws {
        let frame = try ImageFile.load(Fixture.path("two-codes.png"))
        for engine in [ZBarDecoder() as any BarcodeDecoder, ZXingDecoder()] {
            let code = try #require(engine.decode(frame).first { $0.symbology == .code128 })
            #expect(engine.decodeAgain(frame, as: code).map(\.text) == [code.text], "\(engine.name): not the QR code")
        }
        // The frame turned a quarter: its rows become columns.
        var turned = [UInt8](repeating: 0, count: frame.width * frame.height)
        frame.withUnsafeBytes { p in
            for y in 0..<frame.height { for x in 0..<frame.width { turned[x * frame.height + (frame.height - 1 - y)] = p[y * frame.stride + x] } }
        }
        let standing = GrayFrame(width: frame.height, height: frame.width, pixels: turned)
        let zbar = ZBarDecoder()
        let code = try #require(zbar.decode(standing).first { $0.symbology == .code128 })
        #expect(zbar.decodeAgain(standing, as: code).map(\.text) == [code.text])
    }

    @Test func disabledSymbologyIsNotReported() throws {
        let frame = try ImageFile.load(Fixture.path("two-codes.png"))
        #expect(ZBarDecoder(symbologies: [.code128]).decode(frame).map(\.symbology) == [.code128])
        #expect(ZBarDecoder(symbologies: [.ean13]).decode(try ImageFile.load(Fixture.path("qr.png"))).isEmpty)
    }

    @Test func binaryQRKeepsItsBytes() throws {
        let symbols = ZBarDecoder().decode(try ImageFile.load(Fixture.path("binary-qr.png")))
        let expected: [UInt8] = Array(0x00...0x0F) + [0x80, 0x81, 0x82, 0x83, 0xFE, 0xFF]
        #expect(symbols.first?.bytes == expected)
        #expect(symbols.first?.isUTF8 == false)
        // Shown safely: no raw control characters in the escaped text.
        let shown = PayloadText.escaped(symbols.first?.text ?? "")
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || ($0.value >= 0x7F && $0.value <= 0x9F) })
        #expect(shown.hasPrefix("\\x00\\x01"))
    }

    @Test func imageWithNoCodeGivesNothing() throws {
        #expect(ZBarDecoder().decode(try ImageFile.load(Fixture.path("no-code.png"))).isEmpty)
    }

    @Test func paddedAndBorrowedFramesDecodeLikePackedOnes() throws {
        let packed = try ImageFile.load(Fixture.path("qr.png"))
        let stride = packed.width + 37
        var padded = [UInt8](repeating: 0, count: stride * packed.height)
        for y in 0..<packed.height { for x in 0..<packed.width { padded[y * stride + x] = packed[x, y] } }
        let frame = GrayFrame(width: packed.width, height: packed.height, stride: stride, pixels: padded)
        #expect(ZBarDecoder().decode(frame).map(\.text) == ["https://example.org/kiosk?id=42"])
    }

    @Test func nearestToCentreOrdering() {
        let a = Symbol(symbology: .qrCode, text: "far", corners: [PixelPoint(x: 0, y: 0), PixelPoint(x: 10, y: 10)])
        let b = Symbol(symbology: .qrCode, text: "near", corners: [PixelPoint(x: 45, y: 45), PixelPoint(x: 55, y: 55)])
        #expect([a, b].sortedByDistance(toX: 50, y: 50).map(\.text) == ["near", "far"])
    }
}
