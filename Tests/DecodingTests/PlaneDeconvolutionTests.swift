@testable import Decoding
import Foundation
import ImageLoading
import ScanHardware
import TestThreads
import Testing

/// The two-dimensional deconvolution of a blurred 2D code (`PlaneDeconvolution`), which
/// `deblurredResampled` reads for a frame out of focus.
@Suite(.onTestThreads) struct PlaneDeconvolutionTests {
    /// The transform and its inverse give the rows back (times the length), and an impulse's
    /// transform is flat.
    @Test func transformRoundTrips() {
        let n = 64
        let fft = PlaneDeconvolution.FFT(count: n)
        var re = (0..<(2 * n)).map { Float(($0 * 37) % 101) }, im = [Float](repeating: 0, count: 2 * n)
        let original = re
        fft.rows(&re, &im, count: 2, inverse: false)
        fft.rows(&re, &im, count: 2, inverse: true)
        for i in 0..<(2 * n) {
            #expect(abs(re[i] / Float(n) - original[i]) < 0.01)
            #expect(abs(im[i] / Float(n)) < 0.01)
        }
        var impulseRe = [Float](repeating: 0, count: n), impulseIm = impulseRe
        impulseRe[0] = 1
        fft.rows(&impulseRe, &impulseIm, count: 1, inverse: false)
        #expect(impulseRe.allSatisfy { abs($0 - 1) < 1e-5 } && impulseIm.allSatisfy { abs($0) < 1e-5 })
    }

    /// A grid of 3-pixel modules blurred by 1.5 px (half a module) comes back much nearer the
    /// sharp grid (under 0.6 times the blurred grid's mean error), each of the two blurs asked
    /// for giving its own image.
    @Test func undoesARoundBlur() throws {
        let w = 120, h = 96
        var pixels = [UInt8](repeating: 230, count: w * h)
        var seed: UInt32 = 12_345
        for my in 2..<(h / 3 - 2) {
            for mx in 2..<(w / 3 - 2) {
                seed = seed &* 1_103_515_245 &+ 12_345
                guard (seed >> 16) & 1 == 1 else { continue }
                for y in (my * 3)..<(my * 3 + 3) { for x in (mx * 3)..<(mx * 3 + 3) { pixels[y * w + x] = 30 } }
            }
        }
        let sharp = GrayFrame(width: w, height: h, pixels: pixels)
        let blurred = FrameConditionTests.blurred(sharp, sigma: 1.5)
        func error(_ f: GrayFrame) -> Double {
            zip(f.packedPixels(), pixels).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(w * h)
        }
        let images = PlaneDeconvolution.deblurred(blurred, sigmas: [1.5, 1.75])
        try #require(images.count == 2)
        #expect(images.allSatisfy { $0.width == w && $0.height == h })
        #expect(error(images[0]) < error(blurred) * 0.6, "\(error(images[0])) vs \(error(blurred))")
        #expect(error(images[1]) < error(blurred) * 0.6, "\(error(images[1])) vs \(error(blurred))")
        #expect(PlaneDeconvolution.deblurred(blurred, sigmas: [1.5]).count == 1)
    }

    /// Frames and blurs it does not take: larger than `largestFrame`, smaller than the blur's
    /// reach; no blur, more than two, one that is not 0-8 px.
    @Test func leavesOtherFrames() {
        let large = GrayFrame(width: 1920, height: 1080, pixels: [UInt8](repeating: 128, count: 1920 * 1080))
        #expect(PlaneDeconvolution.deblurred(large, sigmas: [1.5]).isEmpty)
        let tiny = GrayFrame(width: 12, height: 12, pixels: [UInt8](repeating: 128, count: 144))
        #expect(PlaneDeconvolution.deblurred(tiny, sigmas: [1.5]).isEmpty)
        let narrow = GrayFrame(width: 200, height: 16, pixels: [UInt8](repeating: 128, count: 3200))
        #expect(PlaneDeconvolution.deblurred(narrow, sigmas: [4]).isEmpty)
        let frame = GrayFrame(width: 64, height: 64, pixels: [UInt8](repeating: 128, count: 4096))
        #expect(PlaneDeconvolution.deblurred(frame, sigmas: []).isEmpty)
        #expect(PlaneDeconvolution.deblurred(frame, sigmas: [.nan]).isEmpty)
        #expect(PlaneDeconvolution.deblurred(frame, sigmas: [9]).isEmpty)
        #expect(PlaneDeconvolution.deblurred(frame, sigmas: [1, 1.25, 1.5]).isEmpty)
        // An even frame stays even (the filter's gain at no frequency is 1/(1+k)).
        #expect(PlaneDeconvolution.deblurred(frame, sigmas: [2]).first?.packedPixels().allSatisfy { $0 == 128 } == true)
    }

    /// A blurred Aztec (`aztec-blur-plane.png`, cut from a generated scene): zxing reads nothing
    /// from the one-way deconvolutions, enlarged or not, and reads the code from the
    /// two-dimensional one of `deblurredResampled`, which the frame's measured blur asks for;
    /// the pipeline reads it on one thread and on two.
    @Test func readsABlurredAztec() throws {
        let frame = try ImageFile.load(Fixture.path("aztec-blur-plane.png"))
        let condition = FrameCondition(of: frame)
        #expect(condition.isOutOfFocus)
        let blur = try #require(condition.blur)
        #expect(blur > 1.4 && blur < 1.9, "\(blur)")
        let zxing = ZXingDecoder(symbologies: [.aztec])
        let oneWay = ImagePass.deblurred.apply(frame, made: MadeImages()) + ImagePass.deblurredResampled.apply(frame, made: MadeImages())
        #expect(oneWay.count == 4)
        #expect(oneWay.allSatisfy { zxing.decode($0.frame).isEmpty })
        let withPlane = ImagePass.deblurredResampled.apply(frame, made: MadeImages(condition: condition))
        #expect(withPlane.count == 4)
        let plane = withPlane.suffix(2)
        #expect(plane.allSatisfy { $0.frame.width == 2 * frame.width && $0.scale == 0.5 })
        #expect(plane.contains { zxing.decode($0.frame).map(\.text) == ["REF-ticket-86397769608"] })
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text) == ["REF-ticket-86397769608"], "\(workers) workers")
        }
    }
}
