@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import Testing

/// A linear code without a check character read across its bars at a slant: the part a scan
/// line crossed is not reported as a code when the code turned upright reads as the whole.
@Suite struct WholeReadTests {
    /// The ITF fixture (12345678) turned 25°, on a light ground.
    static func turned() throws -> GrayFrame {
        let pure = try ImageFile.load(Fixture.path("itf.png"))
        return ImagePass.rotated(ImagePass.bordered(pure, 60), by: 25 * Double.pi / 180, factor: 1, originX: 0, originY: 0).frame
    }

    /// A read along a horizontal line through the middle of the frame, `from` to `to` in x.
    static func read(_ text: String, _ symbology: Symbology = .itf, from: Int, to: Int, y: Int) -> Symbol {
        Symbol(symbology: symbology, bytes: Array(text.utf8), corners: [PixelPoint(x: from, y: y), PixelPoint(x: to, y: y)])
    }

    @Test func aPartOfASlantedCodeIsDroppedTheWholeKept() throws {
        let frame = try Self.turned()
        let pipeline = DecodePipeline()
        #expect(pipeline.decode(frame).map(\.text) == ["12345678"], "the pipeline reads the whole code")
        let y = frame.height / 2, x = frame.width / 2
        // Six of its digits, read along a line across the slanted bars: a part.
        #expect(pipeline.whole([Self.read("345678", from: x - 60, to: x + 60, y: y)], in: frame).isEmpty)
        // The whole code's text: kept; so is a text of as many digits that the code does not hold
        // (nothing says it is a part; a shorter one lacks bars the image shows, `BarRun`).
        #expect(pipeline.whole([Self.read("12345678", from: x - 90, to: x + 90, y: y)], in: frame).map(\.text) == ["12345678"])
        #expect(pipeline.whole([Self.read("99999999", from: x - 60, to: x + 60, y: y)], in: frame).map(\.text) == ["99999999"])
        // A code with check characters is never questioned, nor a 2D code.
        #expect(pipeline.whole([Self.read("345678", .code128, from: x - 60, to: x + 60, y: y)], in: frame).count == 1)
    }

    @Test func aReadAlongTheBarsNormalIsNotDecodedAgain() throws {
        let pure = try ImageFile.load(Fixture.path("itf.png"))
        let frame = ImagePass.bordered(pure, 60)
        // Upright bars, a horizontal line: a straight crossing, not decoded again; the whole
        // code's read is kept as it is, and a part of it is dropped by the bars its digits lack
        // (`BarRun`).
        let y = frame.height / 2
        #expect(DecodePipeline().whole([Self.read("12345678", from: frame.width / 2 - 130, to: frame.width / 2 + 130, y: y)], in: frame).map(\.text) == ["12345678"])
        #expect(DecodePipeline().whole([Self.read("3456", from: frame.width / 2 - 40, to: frame.width / 2 + 40, y: y)], in: frame).isEmpty)
    }
}
