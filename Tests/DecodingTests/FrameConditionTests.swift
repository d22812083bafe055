@testable import Decoding
import Foundation
import ImageLoading
import ScanHardware
import TestThreads
import Testing

/// The frame measures that put the passes reading a blurred or a dark frame first.
@Suite(.onTestThreads) struct FrameConditionTests {
    /// A 640x480 scene of dark and mid-grey cards on light paper: lone edges, one pixel steps.
    static func cards() -> GrayFrame {
        var pixels = [UInt8](repeating: 210, count: 640 * 480)
        for (x, y, w, h, level) in [(40, 30, 120, 90, 40), (220, 60, 80, 160, 90), (380, 40, 200, 70, 30), (60, 250, 150, 120, 120),
                                    (300, 300, 90, 90, 50), (450, 200, 140, 220, 70)] as [(Int, Int, Int, Int, UInt8)] {
            for row in y..<(y + h) { for column in x..<(x + w) { pixels[row * 640 + column] = level } }
        }
        return GrayFrame(width: 640, height: 480, pixels: pixels)
    }

    /// `frame` through a Gaussian of `sigma` pixels, rows then columns (edges clamped).
    static func blurred(_ frame: GrayFrame, sigma: Double) -> GrayFrame {
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let w = frame.width, h = frame.height
        let source = frame.packedPixels().map(Double.init)
        var across = [Double](repeating: 0, count: w * h), out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                across[y * w + x] = (-radius...radius).reduce(0.0) { $0 + kernel[$1 + radius] * source[y * w + min(w - 1, max(0, x + $1))] }
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                let v = (-radius...radius).reduce(0.0) { $0 + kernel[$1 + radius] * across[min(h - 1, max(0, y + $1)) * w + x] }
                out[y * w + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    @Test func aSharpSceneMeasuresUnderAPixelAndABlurredOneItsBlur() throws {
        let sharp = Self.cards()
        let inFocus = try #require(EdgeSpread.sigma(of: sharp))
        // A step from one pixel to the next: its central difference spreads it over two.
        #expect(inFocus < 0.9 && inFocus < FrameCondition.outOfFocusBlur)
        for sigma in [1.5, 2.0, 3.0] {
            let measured = try #require(EdgeSpread.sigma(of: Self.blurred(sharp, sigma: sigma)))
            // The blur, plus a little for the central difference's own spread.
            #expect(measured > sigma && measured < sigma + 0.35, "lens blur \(sigma): measured \(measured)")
            #expect(FrameCondition(blur: measured, brightLevel: 210).isOutOfFocus)
        }
    }

    @Test func noiseAnEvenSceneAndThinBarsTellNothing() {
        // Heavy noise: nearly every pixel has a steep slope, and no step is lone.
        #expect(EdgeSpread.sigma(of: ContrastGateTests.noise(640, 480, level: 60, amplitude: 140)) == nil)
        #expect(EdgeSpread.sigma(of: GrayFrame(width: 640, height: 480, pixels: [UInt8](repeating: 128, count: 640 * 480))) == nil)
        // Bars of two pixels, side by side: no step between flat levels.
        let bars = GrayFrame(width: 320, height: 240, pixels: (0..<(320 * 240)).map { ($0 % 320) / 2 % 2 == 0 ? 20 : 230 })
        #expect(EdgeSpread.sigma(of: bars) == nil)
        // Too small to look along.
        #expect(EdgeSpread.sigma(of: GrayFrame(width: 16, height: 16, pixels: [UInt8](repeating: 0, count: 256))) == nil)
    }

    @Test func aFrameOutOfFocusIsDeconvolvedFirstADarkOneHalvedFirstAndOneInFocusEnlargedSooner() throws {
        let balanced = ImagePass.passes(for: .balanced)
        // In focus: `resampled` right after `flatField`, the rest in their order.
        let inFocus: [ImagePass] = [.rotate, .regionLooks, .thresholds, .quietZone, .regions, .invert, .flatField, .resampled, .sharpen, .enhancedRegions,
                                    .downscale, .smallUpscale, .deblurred, .localRange, .highlights, .deblurredResampled, .runes]
        #expect(Set(inFocus) == Set(balanced) && inFocus.count == balanced.count)
        let sharp = FrameCondition(blur: 0.85, brightLevel: 210)
        #expect(!sharp.isOutOfFocus && !sharp.isDark)
        #expect(ImagePass.passes(for: .balanced, condition: sharp) == inFocus)
        #expect(ImagePass.passes(for: .balanced, condition: FrameCondition(blur: nil, brightLevel: 210)) == inFocus)
        // The same passes; the moved ones right after quietZone, the others in their order (in
        // focus, as above; out of focus, `balanced`'s).
        func check(_ condition: FrameCondition, moves moved: [ImagePass]) throws {
            let order = ImagePass.passes(for: .balanced, condition: condition)
            #expect(Set(order) == Set(balanced) && order.count == balanced.count)
            let at = try #require(order.firstIndex(of: .quietZone))
            #expect(Array(order[(at + 1)...(at + moved.count)]) == moved)
            let base = condition.isOutOfFocus ? balanced : inFocus
            #expect(order.filter { !moved.contains($0) } == base.filter { !moved.contains($0) })
        }
        try check(FrameCondition(blur: 2.1, brightLevel: 210), moves: [.deblurred, .deblurredResampled])
        try check(FrameCondition(blur: nil, brightLevel: 40), moves: [.downscale])
        try check(FrameCondition(blur: 1.5, brightLevel: 60), moves: [.deblurred, .deblurredResampled, .downscale])
        // Out of focus, `resampled` stays late, behind the deconvolutions.
        let blurredOrder = ImagePass.passes(for: .balanced, condition: FrameCondition(blur: 2.1, brightLevel: 210))
        #expect(blurredOrder.firstIndex(of: .resampled)! > blurredOrder.firstIndex(of: .highlights)!)
        #expect(ImagePass.passes(for: .fast, condition: FrameCondition(blur: 2, brightLevel: 20)).isEmpty)

        // The brightest hundredth: the cards' paper; a tenth of the light: dark.
        let cards = Self.cards()
        #expect(FrameCondition.brightLevel(of: cards) == 210)
        let dim = GrayFrame(width: cards.width, height: cards.height, pixels: cards.packedPixels().map { $0 / 6 })
        #expect(FrameCondition(of: dim).isDark && !FrameCondition(of: cards).isDark)

        // A blurred 1080p scene (a Code 128 of U8b82T) is out of focus, a sharp one is not; the
        // pipeline orders its passes so.
        let blurred = try ImageFile.load(Fixture.path("code128-blur.jpg"))
        let code = try ImageFile.load(Fixture.path("code128.png"))
        #expect(FrameCondition(of: blurred).isOutOfFocus && !FrameCondition(of: code).isOutOfFocus)
        let pipeline = DecodePipeline()
        #expect(pipeline.plan(for: blurred).passes == ImagePass.passes(for: .balanced, condition: FrameCondition(blur: 2, brightLevel: 255)))
        #expect(pipeline.plan(for: code).passes == inFocus)
        #expect(pipeline.plan(for: dim).passes == ImagePass.passes(for: .balanced, condition: FrameCondition(blur: nil, brightLevel: 0)))
        // Passes given (to measure one) are kept as given.
        #expect(DecodePipeline(passes: [.sharpen, .deblurred]).plan(for: blurred).passes == [.sharpen, .deblurred])
        // And the blurred code is read, on one thread and on two.
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(blurred).map(\.text) == ["U8b82T"], "\(workers) workers")
        }
    }

    @Test func aFrameBlurredBeyondTheFixedLensBlursIsAlsoDeconvolvedForItsOwn() throws {
        // Rounded up to a quarter pixel, where it is beyond the fixed 1.5 and 2 px; at most 4.
        #expect(FrameCondition(blur: 1.5, brightLevel: 200).fittedLensBlur(beyond: 2) == nil)
        #expect(FrameCondition(blur: 2.0, brightLevel: 200).fittedLensBlur(beyond: 2) == nil)
        #expect(FrameCondition(blur: 2.32, brightLevel: 200).fittedLensBlur(beyond: 2) == 2.5)
        #expect(FrameCondition(blur: 2.77, brightLevel: 200).fittedLensBlur(beyond: 2) == 3.0)
        #expect(FrameCondition(blur: 9.0, brightLevel: 200).fittedLensBlur(beyond: 2) == 4.0)
        #expect(FrameCondition(blur: nil, brightLevel: 200).fittedLensBlur(beyond: 2) == nil)

        // A Code 39 of HB01J, blurred by 2.5-3 px, cut from a 1080p scene (bench/make-devset.py's
        // set --seed 5151): deconvolved for 1.5 and 2 px, zxing reads nothing; for the frame's
        // own blur, it reads the code; that image comes first, the nearest to the frame's blur.
        let frame = try ImageFile.load(Fixture.path("code39-blur-wide.png"))
        let condition = FrameCondition(of: frame)
        let fitted = try #require(condition.fittedLensBlur(beyond: ImagePass.lensBlurs.max()!))
        #expect(fitted >= 2.5 && fitted <= 3.0)
        let fixed = ImagePass.deblurred.apply(frame, made: MadeImages())
        let all = ImagePass.deblurred.apply(frame, made: MadeImages(condition: condition))
        #expect(fixed.count == 2 && all.count == 3)
        let zxing = ZXingDecoder()
        #expect(fixed.allSatisfy { zxing.decode($0.frame).isEmpty })
        #expect(zxing.decode(all[0].frame).map(\.text) == ["HB01J"])
        #expect(all[1].frame.all == fixed[0].frame.all && all[2].frame.all == fixed[1].frame.all)
        // The pipeline reads it so, on one thread and on two.
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text) == ["HB01J"], "\(workers) workers")
        }
    }
}
