import Glibc
@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import Testing

@Suite struct PassTests {
    /// A short, wide linear code at 25°: no horizontal or vertical scan line crosses all of it.
    @Test func aSlantedLinearCodeIsTurnedUpright() throws {
        let upright = try ImageFile.load(Fixture.path("code93.png"))
        let padded = ImagePass.bordered(upright, upright.width / 2)
        let slanted = ImagePass.rotated(padded, by: 25 * Double.pi / 180, factor: 1, originX: 0, originY: 0).frame
        let angle = try #require(ImagePass.barAngle(slanted))
        #expect(abs(abs(angle) - 25 * Double.pi / 180) < 0.1, "\(angle * 180 / Double.pi)°")
        #expect(DecodePipeline(quality: .fast).decode(slanted).isEmpty, "the first look alone does not read it")
        let read = DecodePipeline().decode(slanted)
        #expect(read.map(\.text) == ["SCAND93"])
        let corners = try #require(read.first?.corners)
        #expect(corners.allSatisfy { $0.x >= 0 && $0.x <= slanted.width && $0.y >= 0 && $0.y <= slanted.height }, "\(corners)")
        #expect(ImagePass.barAngle(try ImageFile.load(Fixture.path("qr.png"))) == nil, "a 2D code has no one direction")
    }

    @Test func aCodeThatFillsTheCropGetsAQuietZone() throws {
        let frame = try ImageFile.load(Fixture.path("datamatrix.png"))
        let border = 10
        let bordered = ImagePass.bordered(frame, border)
        #expect(bordered.width == frame.width + 2 * border && bordered[0, 0] == 255 && bordered[border + 5, border + 5] == frame[5, 5])
        let t = ImagePass.quietZone.apply(frame)[0]
        let s = t.mapBack(Symbol(symbology: .qrCode, text: "x", corners: [PixelPoint(x: t.frame.width / 10 + 3, y: 40)]))
        #expect(s.corners.first?.x == t.frame.width / 10 + 3 - (t.frame.width - frame.width) / 2)
    }
}

/// The passes for hard scenes: light that falls unevenly (a shadow's edge) divided out (the
/// flat field), noise averaged away at half size.
@Suite struct HardScenePassTests {
    /// Paper (200) with dark bars (40), the part below a diagonal in a shadow that halves it.
    static func shadowed() -> GrayFrame {
        let w = 240, h = 160
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let ink = x >= 40 && x < 200 && (x / 6) % 3 == 0 && y >= 40 && y < 120
                let light = x + y > 200 ? 0.5 : 1.0
                pixels[y * w + x] = UInt8(Double(ink ? 40 : 200) * light)
            }
        }
        return GrayFrame(width: w, height: h, pixels: pixels)
    }

    @Test func theLightIsDividedOutAndTheBarsStayDark() {
        let frame = Self.shadowed()
        let flat = ImagePass.flattened(frame)
        #expect(flat.width == frame.width && flat.height == frame.height)
        // Paper in full light and in the shadow, away from the shadow's edge and the bars.
        for (x, y) in [(20, 20), (150, 20), (220, 140), (30, 150), (220, 60)] {
            #expect(abs(Int(flat[x, y]) - 230) <= 12, "paper at \(x),\(y): \(flat[x, y]) (was \(frame[x, y]))")
        }
        // A bar in the light and one in the shadow: both well below the paper.
        #expect(flat[56, 60] < 80 && flat[182, 100] < 80, "\(flat[56, 60]) \(flat[182, 100])")
        // In the frame, the shadowed paper (100) is darker than half the light paper's level.
        #expect(frame[220, 140] == 100)
    }

    @Test func theClosingDropsDarkMarksAndKeepsTheLight() {
        // 3 x 3: one light pixel in the corner, one dark mark in a light field.
        let corner: [Int32] = [0, 0, 9, 0, 0, 0, 0, 0, 0]
        #expect(ImagePass.boxBlurred(corner, 3, 3, radius: 1)[4] == 1)
        let grown = ImagePass.extremeFiltered(corner, 3, 3, radius: 1, max: true)
        #expect(grown == [0, 9, 9, 0, 9, 9, 0, 0, 0])
        #expect(ImagePass.extremeFiltered(grown, 3, 3, radius: 1, max: false) == corner, "a closing keeps light")
        let mark: [Int32] = [9, 9, 9, 9, 0, 9, 9, 9, 9]
        let closed = ImagePass.extremeFiltered(ImagePass.extremeFiltered(mark, 3, 3, radius: 1, max: true), 3, 3, radius: 1, max: false)
        #expect(closed == [Int32](repeating: 9, count: 9), "and drops a dark mark")
        let tiny = GrayFrame(width: 4, height: 4, pixels: [UInt8](repeating: 7, count: 16))
        #expect((0..<4).allSatisfy { ImagePass.flattened(tiny)[$0, $0] == 7 }, "too small to judge the light: as it is")
    }

    /// A Code 128 half in a shadow, in perspective, blurred and noisy (a cut of a generated
    /// "hard" scene): no pass but the flat field reads it.
    @Test func aCodeHalfInShadowIsReadOnlyOnceTheLightIsEven() throws {
        let frame = try ImageFile.load(Fixture.path("code128-shadow.png"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .flatField })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline().decode(frame).map(\.text) == ["gCZSh4zlwH"])
        #expect(DecodePipeline(quality: .accurate).decode(frame).map(\.text) == ["gCZSh4zlwH"])
    }

    /// A dark full-HD frame: the balanced passes read it at half size only.
    @Test func aDarkNoisyFrameIsReadAtHalfSize() throws {
        let frame = try ImageFile.load(Fixture.path("pdf417-dark.jpg"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .downscale })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline().decode(frame).map(\.text) == ["https://example.org/room-0353445"])
    }

    /// A DataMatrix out of focus (the shared scenes' blur): read once deconvolved, and only then.
    @Test func aBlurredDataMatrixIsReadOnceDeconvolved() throws {
        let frame = try ImageFile.load(Fixture.shared("scenes/DataMatrix-03-blur.png"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .deblurred })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline().decode(frame).map(\.text) == ["tel:+49301haxednbqe8vbi"])
    }

    /// The Wiener taps: symmetric, summing to one, a peak at the centre with negative lobes
    /// beside it (edges made steeper); a Gaussian blurred edge deconvolved is steeper.
    @Test func theDeconvolutionSteepensABlurredEdge() {
        let taps = ImagePass.wienerTaps(sigma: 2)
        #expect(taps.count == 17)
        #expect(abs(taps.reduce(0, +) - 1) < 1e-4)
        #expect(zip(taps, taps.reversed()).allSatisfy { abs($0 - $1) < 1e-5 })
        #expect(taps[8] == taps.max() && taps.min()! < 0)
        // A dark-to-light step (40 | 220) blurred by a Gaussian of 2 px, rows of 64.
        let w = 64, h = 24
        let blurred = (0..<(w * h)).map { i -> UInt8 in
            let x = Double(i % w) - 31.5
            let rise: Double = 0.5 * (1 + Glibc.erf(x / (2 * 2.0.squareRoot())))
            return UInt8(40 + 180 * rise)
        }
        let frame = GrayFrame(width: w, height: h, pixels: blurred)
        let sharp = ImagePass.deblurred(frame, sigma: 2)
        let before = Int(frame[33, 12]) - Int(frame[30, 12])
        let after = Int(sharp[33, 12]) - Int(sharp[30, 12])
        #expect(after > before + 20, "rise over 3 px: \(before) before, \(after) after")
        #expect(abs(Int(sharp[4, 12]) - 40) < 12 && abs(Int(sharp[60, 12]) - 220) < 12, "flat parts keep their level")
    }
}
