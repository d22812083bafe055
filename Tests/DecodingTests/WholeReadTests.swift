@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// A linear code without a check character read across its bars at a slant: the part a scan
/// line crossed is not reported as a code when the code turned upright reads as the whole.
@Suite(.onTestThreads) struct WholeReadTests {
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

    /// A strip of ITF bars six modules tall, turned 3° (itf-strip-tilted.png, make-fixtures.sh):
    /// a row leaves it through its top, and the first look read the last 8 of its 14 digits
    /// (64795882). The square around the read is mostly paper, whose noise hid the bars'
    /// direction there; the band the read crossed shows it, and the bars run on past the read's.
    @Test func aPartOfAStripOfBarsIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("itf-strip-tilted.png"))
        let part = Symbol(symbology: .itf, bytes: Array("64795882".utf8),
                          corners: [PixelPoint(x: 292, y: 121), PixelPoint(x: 571, y: 121), PixelPoint(x: 571, y: 120), PixelPoint(x: 292, y: 120)])
        let pipeline = DecodePipeline()
        #expect(pipeline.whole([part], in: frame).isEmpty)
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers).decode(frame).map(\.text)
            #expect(read.allSatisfy { $0 == "43955564795882" }, "\(workers) workers: \(read)")
        }
    }

    /// An ITF cut by the frame's edge (itf-cut-by-frame.png, make-fixtures.sh): 60193558239660
    /// with its first digits out of the frame was read as its last 8 (58239660). Its bars in
    /// view run on past the read's to the frame's edge: a part, and nothing is read.
    @Test func aPartOfACodeCutByTheFramesEdgeIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("itf-cut-by-frame.png"))
        let part = Symbol(symbology: .itf, bytes: Array("58239660".utf8),
                          corners: [PixelPoint(x: 72, y: 235), PixelPoint(x: 324, y: 235), PixelPoint(x: 324, y: 236), PixelPoint(x: 73, y: 236)])
        #expect(DecodePipeline().whole([part], in: frame).isEmpty)
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).isEmpty, "\(workers) workers")
        }
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

    /// A part read where the image cannot tell (an even ground: no bars to count, no slant to
    /// undo) still is one when a longer code of its kind that holds it was read in the frame,
    /// in this image or an earlier pass's (seed 2026's turned ITF `06616576`: both engines read
    /// it whole in the rotated crop, and `616576` along the slant; a glare-stretched image let
    /// the part through).
    @Test func aPartOfACodeReadEarlierInTheFrameStaysAPart() {
        let blank = GrayFrame(width: 400, height: 200, pixels: [UInt8](repeating: 200, count: 400 * 200))
        let pipeline = DecodePipeline()
        let part = Self.read("616576", from: 120, to: 280, y: 100), whole = Self.read("06616576", from: 100, to: 300, y: 100)
        #expect(pipeline.whole([part], in: blank).map(\.text) == ["616576"], "nothing says it is a part")
        let doubts = DecodePipeline.Doubts()
        #expect(pipeline.whole([whole], in: blank, doubts).map(\.text) == ["06616576"])
        #expect(pipeline.whole([part], in: blank, doubts).isEmpty, "a later image's part")
        #expect(pipeline.whole([Self.read("616576", .itf14, from: 120, to: 280, y: 100)], in: blank, doubts).isEmpty, "ITF-14 is ITF")
        #expect(pipeline.whole([Self.read("9616576", .code39, from: 120, to: 280, y: 100)], in: blank, doubts).count == 1, "another kind")
        // Both in one image: the part goes, the whole stays.
        #expect(pipeline.whole([part, whole], in: blank).map(\.text) == ["06616576"])
    }
}
