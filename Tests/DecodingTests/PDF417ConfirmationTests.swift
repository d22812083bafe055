@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// A PDF417 that spent all its error correction may be a damaged code "corrected" into another
/// message: such a read counts only when it reads again (`DecodePipeline.readsTwice`).
@Suite(.onTestThreads) struct PDF417ConfirmationTests {
    /// zxing-cpp says how much of a read's error correction went unused.
    @Test func theEngineSaysWhatErrorCorrectionWasLeft() throws {
        let clean = ZXingDecoder().decode(try ImageFile.load(Fixture.path("pdf417.png")))
        #expect(clean.count == 1 && clean.first?.spareErrorCorrection == 1, "\(clean.map(\.spareErrorCorrection))")
        #expect(ZBarDecoder().decode(try ImageFile.load(Fixture.path("ean13.png"))).allSatisfy { $0.spareErrorCorrection == nil })
    }

    @Test func onlyAPDF417WithNoCorrectionLeftNeedsASecondRead() {
        var s = Symbol(symbology: .pdf417, text: "x", corners: [PixelPoint(x: 0, y: 0), PixelPoint(x: 9, y: 0)])
        #expect(DecodePipeline.readsTwice(s), "the engine did not say")
        s.spareErrorCorrection = 0
        #expect(DecodePipeline.readsTwice(s))
        s.spareErrorCorrection = 0.25
        #expect(!DecodePipeline.readsTwice(s))
        var qr = Symbol(symbology: .qrCode, text: "x")
        qr.spareErrorCorrection = 0
        #expect(!DecodePipeline.readsTwice(qr), "QR, DataMatrix and Aztec keep more check words and a format check")
        #expect(DecodePipeline.readsTwice(Symbol(symbology: .code39, text: "x")))
    }

    /// A blurred, noisy, slanted PDF417 of "locker-54037243476" half in shadow: zxing-cpp alone
    /// reads another message from it with nothing of its correction to spare; the pipeline
    /// reads that only if it reads again, and it does not.
    @Test func aMiscorrectedPDF417IsNotTaken() throws {
        let frame = try ImageFile.load(Fixture.path("pdf417-miscorrected.jpg"))
        let alone = ZXingDecoder().decode(frame)
        #expect(alone.map(\.text) == ["VFXZXKR-@WHBI-TWQY"] && alone.first?.spareErrorCorrection == 0, "the misread this guards against")
        for quality in [DecodePipeline.Quality.balanced, .accurate] {
            let read = DecodePipeline(quality: quality).decode(frame).map(\.text)
            #expect(read.isEmpty || read == ["locker-54037243476"], "\(quality): \(read)")
        }
        // The dark PDF417 that only the half-size look reads keeps its read.
        #expect(DecodePipeline().decode(try ImageFile.load(Fixture.path("pdf417-dark.jpg"))).map(\.text).count == 1)
    }
}
