@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// The zxing-cpp 3.1 engine as scand asks it: its reads in the terms scand had from 1.4, the
/// looks it adds (inversion, a first look that stops at one code), and a misread it shares with
/// zbar that the pipeline drops.
@Suite(.onTestThreads) struct ZXingEngineTests {
    static func corpus(_ name: String) -> String { Fixture.shared("zxing-cpp/\(name)") }

    /// 3.1 gives UPC-A as a 13-digit EAN-13 and UPC-E expanded to 13 digits; scand keeps 1.4's
    /// terms: UPC-A's 12 digits, UPC-E's own 8, each as its symbology.
    @Test func upcKeepsItsOwnDigits() throws {
        let a = ZXingDecoder().decode(try ImageFile.load(Fixture.path("upca.png")))
        #expect(a.map(\.symbology) == [.upcA])
        #expect(a.map(\.text) == ["036000291452"])
        let e = ZXingDecoder().decode(try ImageFile.load(Fixture.path("upce.png")))
        #expect(e.map(\.symbology) == [.upcE])
        #expect(e.map(\.text) == ["01234565"])
        let ean = ZXingDecoder().decode(try ImageFile.load(Fixture.path("ean13.png")))
        #expect(ean.map(\.symbology) == [.ean13])
        #expect(ean.map(\.aimIdentifier) == ["]E0"])
    }

    /// A light-on-dark code: zxing-cpp 3.1 reads it where asked to invert, not otherwise.
    @Test func invertingIsAsked() throws {
        let qr = try ImageFile.load(Fixture.path("qr.png"))
        let inverted = GrayFrame(width: qr.width, height: qr.height, pixels: qr.packedPixels().map { 255 - $0 })
        #expect(ZXingDecoder().decode(inverted).isEmpty)
        var effort = ZXingDecoder.Effort.standard
        effort.tryInvert = true
        #expect(ZXingDecoder(effort: effort).decode(inverted).map(\.text) == ["https://example.org/kiosk?id=42"])
    }

    /// `maxSymbols` 1 stops at the first code (the first look's ask); 0 reads both.
    @Test func theFirstLookStopsAtOneCode() throws {
        let frame = try ImageFile.load(Fixture.path("two-codes.png"))
        #expect(ZXingDecoder().decode(frame).count == 2)
        var effort = ZXingDecoder.Effort.standard
        effort.maxSymbols = 1
        #expect(ZXingDecoder(effort: effort).decode(frame).count == 1)
        // The kiosk's pipeline stops at one too; `scand decode`'s gives every code in a file.
        #expect(DecodePipeline().decode(frame).count == 1)
        #expect(Set(DecodePipeline(stopsAtFirstCode: false).decode(frame).map(\.symbology)) == [.qrCode, .code128])
    }

    /// The first look's zxing reads linear codes along the rows only; a code turned upright is
    /// read all the same (zbar, then the passes, turned).
    @Test func aTurnedLinearCodeIsLeftToThePasses() throws {
        let code = try ImageFile.load(Fixture.path("code128.png"))
        let px = code.packedPixels()
        var turned = [UInt8](repeating: 0, count: px.count)
        for y in 0..<code.height { for x in 0..<code.width { turned[x * code.height + y] = px[y * code.width + x] } }
        let frame = GrayFrame(width: code.height, height: code.width, pixels: turned)
        let pipeline = DecodePipeline()
        #expect(pipeline.firstLooker.decode(frame).isEmpty)
        #expect(ZXingDecoder().decode(frame).map(\.text) == ["scand-128/ok"])
        #expect(pipeline.decode(frame).map(\.text) == ["scand-128/ok"])
        #expect(pipeline.firstLooker.decode(code).map(\.text) == ["scand-128/ok"])
    }

    /// Only symbologies asked for come back: Aztec alone reads no QR code.
    @Test func onlyTheAskedSymbologies() throws {
        let qr = try ImageFile.load(Fixture.path("qr.png"))
        #expect(ZXingDecoder(symbologies: [.aztec, .code128]).decode(qr).isEmpty)
        #expect(ZXingDecoder(symbologies: [.qrCode]).decode(qr).map(\.symbology) == [.qrCode])
    }

    /// zxing-cpp 3.1 takes a 4-digit ITF where ITF is all it looks for (a part of a longer ITF
    /// reads so); scand asks six digits, as zbar does.
    @Test func aShortITFIsNoRead() throws {
        let frame = try ImageFile.load(Self.corpus("itf-1/_853.png"))
        #expect(ZXingDecoder(symbologies: [.itf]).decode(frame).isEmpty)
        #expect(ZXingDecoder(symbologies: [.itf]).decode(try ImageFile.load(Fixture.path("itf.png"))).map(\.text) == ["12345678"])
    }

    /// zxing's `upca-4/1.png`: along two lines through the code's moiré, zxing-cpp 3.1 and zbar
    /// both read another valid EAN-13 (9074932437075; the code is 023942431015). The read's bars
    /// do not fit the image and it comes from a thin band: dropped. The same read from a band as
    /// tall as a code's bars stands (the verifier's misfit alone drops nothing).
    @Test func aThinBandThatMisfitsIsNoRead() throws {
        let frame = try ImageFile.load(Self.corpus("upca-4/1.png"))
        let zxing = ZXingDecoder().decode(frame)
        #expect(zxing.map(\.text) == ["9074932437075"], "zxing-cpp 3.1 misreads it")
        #expect(ZBarDecoder().decode(frame).map(\.text) == ["9074932437075"], "and so does zbar")
        let thin = try #require(zxing.first)
        #expect(DecodePipeline.withoutThinMisfits([thin], in: frame).isEmpty)
        var tall = thin
        tall.corners = [PixelPoint(x: 147, y: 100), PixelPoint(x: 339, y: 100), PixelPoint(x: 339, y: 200), PixelPoint(x: 147, y: 200)]
        #expect(DecodePipeline.withoutThinMisfits([tall], in: frame).count == 1)
        #expect(!DecodePipeline().decode(frame).contains { $0.text == "9074932437075" })
    }
}
