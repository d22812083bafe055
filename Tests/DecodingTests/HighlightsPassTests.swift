@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// Glare that clips the paper to white: the `highlights` pass spreads the brightest tones over
/// the whole range so that the bars it lifted to a light grey are dark again.
@Suite(.onTestThreads) struct HighlightsPassTests {
    /// The curve: 255 x (v / 255)^16, rising, white stays white, black black; mid-grey and
    /// below go to black, the top tenth spreads over most of the range.
    @Test func theCurveSpreadsTheBrightestTones() {
        let curve = ImagePass.highlightCurve
        #expect(curve.count == 256 && curve[0] == 0 && curve[255] == 255)
        #expect(zip(curve, curve.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(curve[128] == 0 && curve[200] == 5 && curve[240] == 96 && curve[250] == 185)
        let frame = GrayFrame(width: 4, height: 2, pixels: [0, 128, 200, 255, 240, 250, 255, 10])
        let out = ImagePass.highlights.apply(frame)
        #expect(out.count == 1 && out[0].scale == 1)
        #expect((0..<8).map { out[0].frame[$0 % 4, $0 / 4] } == [0, 0, 5, 255, 96, 185, 255, 0])
    }

    /// Cut from generated glare scenes (make-fixtures.sh): a UPC-A and a DataMatrix under a
    /// light that clips their paper to white. No balanced pass without the curve reads them
    /// (the resampled look's third image, the enlargement under the same curve, reads the
    /// UPC-A too, and the region looks the DataMatrix, a region's crop under the curve); this
    /// one does, and the pipeline returns the right texts.
    @Test(arguments: [("upca-glare.png", "725078102615"), ("datamatrix-glare.png", "scand-1590")])
    func aCodeUnderGlareIsRead(file: String, text: String) throws {
        let frame = try ImageFile.load(Fixture.path(file))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { ![.highlights, .resampled, .regionLooks].contains($0) })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline(passes: [.highlights]).decode(frame).map(\.text) == [text])
        #expect(DecodePipeline().decode(frame).map(\.text) == [text])
        #expect(DecodePipeline(quality: .accurate).decode(frame).map(\.text) == [text])
    }

    /// An Aztec under glare too small for the curve at its size (cut from seed 4242): the
    /// resampled look's third image, the enlargement under the curve, reads it; its other
    /// enlargements and every other pass do not.
    @Test func aSmallCodeUnderGlareIsReadEnlargedUnderTheCurve() throws {
        let frame = try ImageFile.load(Fixture.path("aztec-glare.png"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .resampled })
        #expect(without.decode(frame).isEmpty)
        let images = ImagePass.resampled.apply(frame)
        #expect(images.count == 5)
        let engines: [any BarcodeDecoder] = [ZXingDecoder(), ZBarDecoder()]
        for image in [images[0], images[1], images[3]] { #expect(engines.allSatisfy { $0.decode(image.frame).isEmpty }) }
        #expect(images[2].frame[0, 0] == ImagePass.highlightCurve[Int(images[0].frame[0, 0])])
        #expect(ZXingDecoder().decode(images[2].frame).map(\.text) == ["gate-98472943"])
        #expect(DecodePipeline().decode(frame).map(\.text) == ["gate-98472943"])
    }
}
