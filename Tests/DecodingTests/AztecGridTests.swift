@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

@Suite(.onTestThreads) struct AztecGridTests {
    /// The fixture (8 px modules, hard edges) as a camera sees it: turned 4° and resampled to
    /// 3.7 px modules, on a grey ground.
    static func resampled(inverted: Bool = false) throws -> GrayFrame {
        let pure = try ImageFile.load(Fixture.path("aztec.png"))
        let turned = ImagePass.rotated(pure, by: 4 * Double.pi / 180, factor: 0.4625, originX: 0, originY: 0).frame
        let framed = ImagePass.bordered(turned, 40)
        return inverted ? ImagePass.map(framed) { 255 &- $0 } : framed
    }

    @Test func theRingsGiveTheGridAndTheCodeIsDrawnAgain() throws {
        let frame = try Self.resampled()
        // zxing-cpp 1.4 alone missed the resampled code (3.1 reads it): the pass is for what the
        // engine's own detector misses.
        let found = try #require(RegionFinder.bullseyes(in: frame).first)
        #expect(abs(found.module - 3.7) < 0.6, "\(found.module)")
        let drawn = AztecGrid.redrawn(frame, x: Double(found.x), y: Double(found.y), module: found.module).map(ImagePass.enlarged)
        #expect(!drawn.isEmpty)
        let reads = drawn.flatMap { t in ZXingDecoder().decode(t.frame).map { t.mapBack($0) } }
        #expect(reads.first?.text == "scand Aztec fixture")
        // The corners map back near the code in the frame (it spans about 15 x 3.7 px each way
        // round the bullseye).
        let corners = try #require(reads.first?.corners)
        #expect(corners.allSatisfy { abs(Double($0.x - found.x)) < 50 && abs(Double($0.y - found.y)) < 50 }, "\(corners) vs \(found)")
        #expect(DecodePipeline().decode(frame).map(\.text) == ["scand Aztec fixture"])
    }

    @Test func anInvertedCodeIsFoundAndDrawnDarkOnLight() throws {
        let frame = try Self.resampled(inverted: true)
        let found = try #require(RegionFinder.bullseyes(in: frame).first, "light rings on dark are a bullseye too")
        let drawn = AztecGrid.redrawn(frame, x: Double(found.x), y: Double(found.y), module: found.module).map(ImagePass.enlarged)
        #expect(drawn.contains { ZXingDecoder().decode($0.frame).first?.text == "scand Aztec fixture" })
        #expect(DecodePipeline().decode(frame).map(\.text) == ["scand Aztec fixture"])
    }

    @Test func noGridWithoutRings() throws {
        // A QR code's finder has one ring of each, not a bullseye: the fit refuses it.
        let qr = try ImageFile.load(Fixture.path("qr.png"))
        for found in RegionFinder.bullseyes(in: qr) {
            let reads = AztecGrid.redrawn(qr, x: Double(found.x), y: Double(found.y), module: found.module)
                .flatMap { ZXingDecoder().decode(ImagePass.enlarged($0).frame) }
            #expect(reads.isEmpty)
        }
        let flat = GrayFrame(width: 64, height: 64, pixels: [UInt8](repeating: 200, count: 64 * 64))
        #expect(AztecGrid.redrawn(flat, x: 32, y: 32, module: 3).isEmpty)
        #expect(AztecGrid.redrawn(flat, x: 2, y: 2, module: 3).isEmpty, "near the edge: no rays, no grid")
    }

    @Test func theFitSolvesAProjectiveMap() throws {
        // Points of a known map come back through the least-squares fit.
        let truth = AztecGrid.Grid(h: [3.8, -0.4, 100, 0.3, 3.9, 50, 0.004, -0.003], dark: 0, light: 255)
        let from = (-3...3).flatMap { i in (-3...3).map { j in (Double(i), Double(j)) } }
        let to = from.map { truth.map($0.0, $0.1) }
        let h = try #require(AztecGrid.Grid.homography(from, to, perspective: true))
        let fitted = AztecGrid.Grid(h: h, dark: 0, light: 255)
        for (i, j) in [(10.0, 10.0), (-12.0, 5.0)] {
            let a = truth.map(i, j), b = fitted.map(i, j)
            #expect(abs(a.0 - b.0) < 1e-6 && abs(a.1 - b.1) < 1e-6)
        }
        #expect(AztecGrid.Grid.solve([[1, 2], [2, 4]], [1, 2]) == nil, "singular")
    }
}

@Suite(.onTestThreads) struct AztecRectifiedTests {
    /// The fixture seen at a steep slant: each frame pixel (u, v) shows the fixture's point
    /// through a projective map (modules on the far side about two thirds the size of the near side's).
    static func slanted() throws -> GrayFrame {
        let pure = try ImageFile.load(Fixture.path("aztec.png"))
        let w = 300, h = 260
        var out = [UInt8](repeating: 235, count: w * h)
        let grid = AztecGrid.Grid(h: [1.6, 0.2, 0, 0.1, 1.7, 0, 0.003, 0.0008], dark: 0, light: 255)
        pure.withUnsafeBytes { p in
            for v in 0..<h {
                for u in 0..<w {
                    let (x, y) = grid.map(Double(u) - 30, Double(v) - 30)
                    if let s = AztecGrid.sample(p, pure, x, y) { out[v * w + u] = UInt8(s * 0.8 + 20) }
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    @Test func aSteeplySlantedCodeIsSeenSquareOnAndRead() throws {
        let frame = try Self.slanted()
        // zxing-cpp 1.4 missed the slanted code (3.1 reads it).
        let found = try #require(RegionFinder.bullseyes(in: frame).first)
        let warped = AztecGrid.rectified(frame, x: Double(found.x), y: Double(found.y), module: found.module)
        #expect(warped.count == 2, "a window of 20 modules round the bullseye and one of 32")
        let reads = warped.flatMap { w in ZXingDecoder().decode(w.frame).map { s in s.corners.map { w.map(Double($0.x), Double($0.y)) } } }
        // Read, and its corners map back round the bullseye in the frame.
        let corners = try #require(reads.first)
        #expect(corners.allSatisfy { abs($0.0 - Double(found.x)) < 120 && abs($0.1 - Double(found.y)) < 120 }, "\(corners) vs \(found)")
        #expect(DecodePipeline().decode(frame).map(\.text) == ["scand Aztec fixture"])
    }

    /// A photo of a large code at a slant (zxing's sample aztec-2/04): a window of 20 modules
    /// round its bullseye cuts its edges; the wider one takes it all in.
    @Test func aLargeSlantedCodeIsSeenWhole() throws {
        let frame = try ImageFile.load(Fixture.path("aztec-photo.png"))
        // zxing-cpp 1.4 missed the slanted code, and the narrow window cut it for 1.4 (3.1 reads
        // both).
        let found = RegionFinder.bullseyes(in: frame)
        let narrow = found.flatMap { AztecGrid.rectified(frame, x: Double($0.x), y: Double($0.y), module: $0.module, radii: [20]) }
        let wide = found.flatMap { AztecGrid.rectified(frame, x: Double($0.x), y: Double($0.y), module: $0.module, radii: [32]) }
        #expect(!narrow.isEmpty)
        #expect(wide.flatMap { ZXingDecoder().decode($0.frame) }.map(\.text).first == "This is a real world Aztec barcode test.")
        #expect(DecodePipeline().decode(frame).map(\.text) == ["This is a real world Aztec barcode test."])
    }
}
