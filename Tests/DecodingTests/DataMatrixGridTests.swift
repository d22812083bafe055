@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing
import Glibc

@Suite(.onTestThreads) struct DataMatrixGridTests {
    /// The fixture (24 x 24 modules of 8 px, hard edges) as a small, noisy camera image: turned, scaled to
    /// `scale` of its size, on a grey ground, with sensor noise of +-`noise` levels.
    static func camera(turn: Double, scale: Double, noise: Int, inverted: Bool = false) throws -> GrayFrame {
        let pure = try ImageFile.load(Fixture.path("datamatrix.png"))
        let turned = ImagePass.rotated(ImagePass.bordered(pure, 40), by: turn, factor: scale, originX: 0, originY: 0).frame
        var seed: UInt32 = 12345
        let noisy = ImagePass.map(turned) { v in
            seed = seed &* 1_103_515_245 &+ 12345
            let n = Int(seed >> 16) % (2 * noise + 1) - noise
            let level = Int(inverted ? 255 - v : v) * 3 / 4 + 30
            return UInt8(max(0, min(255, level + n)))
        }
        return noisy
    }

    @Test func aSmallNoisyCodeIsDrawnAgainAndRead() throws {
        // 2.7 px modules, turned 11°, noise of +-50 levels.
        let frame = try Self.camera(turn: 0.2, scale: 0.34, noise: 50)
        #expect(ZXingDecoder().decode(frame).isEmpty, "zxing alone misses it")
        let drawn = ImagePass.matrixGrid.apply(frame)
        let reads = drawn.flatMap { t in ZXingDecoder().decode(t.frame).map { t.mapBack($0) } }
        #expect(reads.first?.text == "scand DataMatrix fixture")
        // The corners map back onto the code's corners in the frame: its middle is the frame's
        // middle, and its side 24 x 2.7 px, so each corner lies about 44 px from the middle.
        let corners = try #require(reads.first?.corners)
        let cx = Double(frame.width) / 2, cy = Double(frame.height) / 2
        #expect(corners.allSatisfy { abs(hypot(Double($0.x) - cx, Double($0.y) - cy) - 44) < 8 }, "\(corners) in \(frame.width)x\(frame.height)")
        #expect(DecodePipeline().decode(frame).map(\.text) == ["scand DataMatrix fixture"])
    }

    @Test func aLightOnDarkCodeIsReadToo() throws {
        let frame = try Self.camera(turn: -0.3, scale: 0.5, noise: 30, inverted: true)
        let reads = ImagePass.matrixGrid.apply(frame).flatMap { ZXingDecoder().decode($0.frame) }
        #expect(reads.first?.text == "scand DataMatrix fixture")
    }

    @Test func theFinderIsTheInkiestPairOfNeighbouringSides() {
        let q = { (shares: [Double]) in DataMatrixGrid.Quad(corners: [(68, 68), (0, 68), (0, 0), (68, 0)], inkShare: shares) }
        #expect(DataMatrixGrid.finderSide(q([1, 1, 0.5, 0.5])) == 0)
        #expect(DataMatrixGrid.finderSide(q([0.5, 0.97, 1, 0.45])) == 1)
        #expect(DataMatrixGrid.finderSide(q([0.95, 0.5, 0.55, 1])) == 3, "the pair wraps round")
        #expect(DataMatrixGrid.squares.allSatisfy { $0 % 2 == 0 } && DataMatrixGrid.rectangles.allSatisfy { $0.0 < $0.1 })
    }

    @Test func noFinderNoDrawing() {
        // An even field, a lone dark square, and a field of stripes (no L): nothing drawn.
        let even = GrayFrame(width: 120, height: 120, pixels: [UInt8](repeating: 180, count: 120 * 120))
        #expect(DataMatrixGrid.redrawn(even, in: PixelRect(x: 0, y: 0, width: 120, height: 120)).isEmpty)
        var square = [UInt8](repeating: 220, count: 120 * 120)
        for y in 40..<80 { for x in 40..<80 { square[y * 120 + x] = 20 } }
        #expect(DataMatrixGrid.redrawn(GrayFrame(width: 120, height: 120, pixels: square), in: PixelRect(x: 0, y: 0, width: 120, height: 120)).isEmpty)
        let stripes = (0..<(120 * 120)).map { UInt8(($0 % 120) / 4 % 2 == 0 ? 30 : 220) }
        #expect(DataMatrixGrid.redrawn(GrayFrame(width: 120, height: 120, pixels: stripes), in: PixelRect(x: 0, y: 0, width: 120, height: 120)).isEmpty)
        // Too small a region, or one outside the frame.
        #expect(DataMatrixGrid.redrawn(even, in: PixelRect(x: 0, y: 0, width: 10, height: 10)).isEmpty)
        #expect(DataMatrixGrid.redrawn(even, in: PixelRect(x: 500, y: 500, width: 100, height: 100)).isEmpty)
    }

    /// A clean 48 x 48 code (four data regions), 4 px a module, inside a light border of 40 px:
    /// its corner modules' centres are at 42 and 42 + 47 x 4 = 230.
    @Test func cornersAreMovedBackOntoTheModules() throws {
        let frame = ImagePass.bordered(try ImageFile.load(Fixture.path("datamatrix-48.png")), 40)
        let truth: [(Double, Double)] = [(42, 42), (230, 42), (230, 230), (42, 230)]
        #expect(DataMatrixGrid.regions(rows: 48, columns: 48) == (2, 2) && DataMatrixGrid.regions(rows: 24, columns: 24) == (1, 1))
        // Corners as a fit might give them, each off by up to 0.6 of a module (the finder's
        // sides known: the L is the left column and the bottom row).
        let offsets: [(Double, Double)] = [(1.8, -1.6), (-1.6, 1.8), (2.0, 1.6), (-1.8, -1.4)]
        let off = DataMatrixGrid.Quad(corners: zip(truth, offsets).map { ($0.0 + $1.0, $0.1 + $1.1) }, inkShare: [0.5, 0.5, 1, 1])
        let better = DataMatrixGrid.refined(frame, off, rows: 48, columns: 48, lightInk: false, module: 4)
        // Hard-edged modules sample alike anywhere inside: each corner back inside its module,
        // and every finder and clock module (the inner regions' too) sampled on its own ink or
        // paper, 255 levels apart.
        for (c, t) in zip(better.corners, truth) {
            #expect(abs(c.0 - t.0) < 2 && abs(c.1 - t.1) < 2, "corner \(c), module centre \(t)")
        }
        let before = try #require(DataMatrixGrid.edgeContrast(frame, off, rows: 48, columns: 48, lightInk: false))
        let after = try #require(DataMatrixGrid.edgeContrast(frame, better, rows: 48, columns: 48, lightInk: false))
        #expect(before < 250 && after == 255, "finder and clocks show \(before) -> \(after) levels apart")
    }

    /// A printed 48 x 48 code seen close up: a slight slant, a blur, noise, no quiet zone (the
    /// code fills the image). Found inside a light border, its corners moved onto its modules
    /// through its four regions' finders and clock tracks, it is drawn again and read.
    @Test func aCloseUpOfALargeCodeWithoutQuietZoneIsRead() throws {
        let frame = try ImageFile.load(Fixture.path("datamatrix-48-tight.png"))
        #expect(ZXingDecoder().decode(frame).isEmpty, "zxing alone misses it")
        #expect(DecodePipeline().decode(frame).map(\.text) == ["scand 48x48: four data regions, printed tight"])
    }
}
