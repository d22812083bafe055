import Glibc
@testable import Decoding
import Dispatch
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// The fast paths of the pixel work are the same, pixel for pixel, as the plain ones.
@Suite(.onTestThreads) struct FastPixelPathTests {
    func randomFrame(_ w: Int, _ h: Int, seed: UInt64) -> GrayFrame {
        var state = seed
        let pixels = (0..<(w * h)).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return GrayFrame(width: w, height: h, pixels: pixels)
    }

    @Test func doubledBilinearIsTheGeneralResize() {
        for (w, h) in [(1, 1), (1, 5), (7, 3), (2, 2), (64, 33)] {
            let f = randomFrame(w, h, seed: UInt64(w * 100 + h))
            #expect(ImagePass.doubledBilinear(f).all == ImagePass.bilinearResize(f, factor: 2).all, "\(w)x\(h)")
        }
        // A crop: its stride is not its width.
        let crop = randomFrame(50, 40, seed: 9).cropped(to: PixelRect(x: 3, y: 5, width: 21, height: 17))
        #expect(ImagePass.doubledBilinear(crop).all == ImagePass.bilinearResize(crop, factor: 2).all)
    }

    @Test func darkerThanMeanIsTheMeanComparison() {
        // A crop (its stride is not its width), frames narrower and shorter than the box, one
        // pixel.
        let crop = randomFrame(90, 70, seed: 4).cropped(to: PixelRect(x: 5, y: 2, width: 80, height: 61))
        for (f, radius) in [(crop, 16), (crop, 3), (randomFrame(20, 9, seed: 5), 16), (randomFrame(1, 1, seed: 6), 2)] {
            let integral = IntegralImage(f)
            let fast = IntegralImage.darkerThanMean(f, radius: radius, by: 4)
            var plain: [Bool] = []
            for y in 0..<f.height {
                for x in 0..<f.width { plain.append(Int(f[x, y]) < integral.mean(x: x, y: y, radius: radius) - 4) }
            }
            #expect(fast == plain, "\(f.width)x\(f.height) radius \(radius)")
            #expect(f.width == 1 || (fast.contains(true) && fast.contains(false)))
        }
    }

    @Test func rotatedIsThePlainRotation() {
        let f = randomFrame(61, 47, seed: 12).cropped(to: PixelRect(x: 2, y: 3, width: 55, height: 40))
        for (angle, factor) in [(0.0, 0.75), (0.3, 1.0), (-1.1, 2.0), (2.5, 1.5)] {
            let fast = ImagePass.rotated(f, by: angle, factor: factor, originX: 0, originY: 0).frame
            let c = cos(angle), s = sin(angle)
            let cx = Double(f.width) / 2, cy = Double(f.height) / 2, cu = Double(fast.width) / 2, cv = Double(fast.height) / 2
            var plain: [UInt8] = []
            for v in 0..<fast.height {
                for u in 0..<fast.width {
                    let dx = (Double(u) - cu) / factor, dy = (Double(v) - cv) / factor
                    let sx = cx + dx * c - dy * s, sy = cy + dx * s + dy * c
                    let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                    guard x0 >= 0, y0 >= 0, x0 + 1 < f.width, y0 + 1 < f.height else { plain.append(255); continue }
                    let fx = sx - Double(x0), fy = sy - Double(y0)
                    let a = Double(f[x0, y0]), b = Double(f[x0 + 1, y0]), cc = Double(f[x0, y0 + 1]), d = Double(f[x0 + 1, y0 + 1])
                    let value = (a * (1 - fx) + b * fx) * (1 - fy) + (cc * (1 - fx) + d * fx) * fy
                    plain.append(UInt8(max(0, min(255, value.rounded()))))
                }
            }
            #expect(fast.all == plain, "angle \(angle) factor \(factor)")
        }
    }

    /// Frames of odd sizes (rows that are no whole number of SIMD lanes) and a crop whose
    /// stride is not its width.
    func oddFrames() -> [GrayFrame] {
        [randomFrame(1, 1, seed: 1), randomFrame(3, 2, seed: 2), randomFrame(7, 5, seed: 3), randomFrame(64, 33, seed: 4),
         randomFrame(45, 41, seed: 5), randomFrame(80, 60, seed: 6).cropped(to: PixelRect(x: 3, y: 4, width: 61, height: 39))]
    }

    @Test func sharpenIsThePlainUnsharpMask() {
        for f in oddFrames() {
            let integral = IntegralImage(f)
            var plain: [UInt8] = []
            for y in 0..<f.height {
                for x in 0..<f.width {
                    let v = Int(f[x, y])
                    plain.append(UInt8(max(0, min(255, v + (3 * (v - integral.mean(x: x, y: y, radius: 2))) / 2))))
                }
            }
            #expect(ImagePass.sharpen(f).all == plain, "\(f.width)x\(f.height)")
        }
    }

    @Test func deblurredIsThePlainDeconvolution() {
        for f in oddFrames().filter({ $0.width > 16 && $0.height > 16 }) {
            for sigma in ImagePass.lensBlurs {
                let taps = ImagePass.wienerTaps(sigma: sigma), r = taps.count / 2, w = f.width, h = f.height
                let smooth = ImagePass.boxBlurred(f, radius: 1)
                var across = [Float](repeating: 0, count: w * h)
                for y in 0..<h {
                    for x in 0..<w {
                        var v: Float = 0
                        for (k, t) in taps.enumerated() { v += t * Float(smooth[y * w + max(0, min(w - 1, x + k - r))]) }
                        across[y * w + x] = v
                    }
                }
                var plain: [UInt8] = []
                for y in 0..<h {
                    for x in 0..<w {
                        var v: Float = 0
                        for (k, t) in taps.enumerated() { v += t * across[max(0, min(h - 1, y + k - r)) * w + x] }
                        plain.append(UInt8(max(0, min(255, v.rounded()))))
                    }
                }
                #expect(ImagePass.deblurred(f, sigma: sigma).all == plain, "\(w)x\(h), sigma \(sigma)")
            }
        }
    }

    /// A frame's box mean (a ring of row sums, the division a multiply) is the plain mean of the
    /// box, edges repeated, rounded half up; boxes wider than the frame included. (The grid's:
    /// `boxAndExtremeFiltersAreThePlainOnes`.)
    @Test func frameBoxMeanIsThePlainBoxMean() {
        for f in oddFrames() {
            for r in [1, 2, 4] {
                let w = f.width, h = f.height, area = (2 * r + 1) * (2 * r + 1)
                var plain: [UInt8] = []
                for y in 0..<h {
                    for x in 0..<w {
                        var sum = 0
                        for dy in -r...r {
                            for dx in -r...r { sum += Int(f[max(0, min(w - 1, x + dx)), max(0, min(h - 1, y + dy))]) }
                        }
                        plain.append(UInt8((sum + area / 2) / area))
                    }
                }
                #expect(ImagePass.boxBlurred(f, radius: r) == plain, "\(w)x\(h), radius \(r)")
            }
        }
    }

    /// The multiply-and-shift quotient is `/`'s for every numerator a box of bytes sums to and
    /// for the largest ones the bound allows.
    @Test func quotientByMultiplyIsTheQuotient() {
        for d in Int32(1)...200 {
            let q = QuotientByMultiply(d)
            var wrong = 0
            for x in 0..<(256 * d) where q(x) != x / d { wrong += 1 }
            for x in ((1 << 24) - 4096)..<(Int32(1) << 24) where q(x) != x / d { wrong += 1 }
            #expect(wrong == 0, "divisor \(d)")
        }
        for d: Int32 in [441, 1023, 4095, 65535] {
            let q = QuotientByMultiply(d)
            #expect(stride(from: Int32(0), to: 1 << 24, by: 997).allSatisfy { q($0) == $0 / d }, "divisor \(d)")
        }
    }

    /// A grid of block levels interpolated a row at a time is the bilinear interpolation between
    /// block centres, edges held.
    @Test func upsampledRowsAreThePlainBilinearInterpolation() {
        let (bw, bh, block) = (5, 4, 4)
        let grid = (0..<(bw * bh)).map { Int32(($0 * 37) % 256) }
        for (w, h) in [(20, 16), (18, 13), (3, 2)] {
            let up = ImagePass.Upsampled(grid, bw, bh, block: block, width: w)
            var row = [Double](repeating: 0, count: w)
            for y in 0..<h {
                row.withUnsafeMutableBufferPointer { up.row(y, into: $0.baseAddress!) }
                for x in 0..<w {
                    func at(_ v: Int, _ n: Int) -> (Int, Int, Double) {
                        let s = (Double(v) + 0.5) / Double(block) - 0.5
                        let a = max(0, min(n - 1, Int(s.rounded(.down))))
                        return (a, min(n - 1, a + 1), min(1, max(0, s - Double(a))))
                    }
                    let (x0, x1, fx) = at(x, bw), (y0, y1, fy) = at(y, bh)
                    func g(_ x: Int, _ y: Int) -> Double { Double(grid[y * bw + x]) }
                    let plain = (g(x0, y0) * (1 - fx) + g(x1, y0) * fx) * (1 - fy) + (g(x0, y1) * (1 - fx) + g(x1, y1) * fx) * fy
                    #expect(row[x] == plain, "\(w)x\(h) at \(x),\(y)")
                }
            }
        }
    }

    @Test func cubicIsThePlainBicubic() {
        for f in oddFrames() {
            for scale in [2.5, 1.7, 0.8] {
                let fast = ImagePass.cubic(f, scale: scale)
                let (cx, wx) = ImagePass.cubicTaps(count: fast.width, source: f.width, scale: scale)
                let (cy, wy) = ImagePass.cubicTaps(count: fast.height, source: f.height, scale: scale)
                func across(_ x: Int, _ y: Int) -> Float {
                    (0..<4).reduce(Float(0)) { $0 + wx[4 * x + $1] * Float(f[cx[4 * x + $1], y]) }
                }
                var plain: [UInt8] = []
                for y in 0..<fast.height {
                    for x in 0..<fast.width {
                        let v = (0..<4).reduce(Float(0)) { $0 + wy[4 * y + $1] * across(x, cy[4 * y + $1]) }
                        plain.append(UInt8(max(0, min(255, v + 0.5))))
                    }
                }
                #expect(fast.all == plain, "\(f.width)x\(f.height) at \(scale)")
            }
        }
    }

    /// `floorInt` is `Int(rounded(.down))`: whole numbers, the values just beside them and
    /// negative ones included.
    @Test func floorIntIsRoundedDown() {
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1e15, -1e15, 0.0.nextUp, (-0.0).nextDown]
        for k in -300...300 {
            let v = Double(k)
            values += [v, v.nextDown, v.nextUp, v + 0.5, v - 0.25]
        }
        var state: UInt64 = 11
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append(Double(state >> 11) / Double(1 << 53) * 8000 - 4000)
        }
        for v in values { #expect(floorInt(v) == Int(v.rounded(.down)), "\(v)") }
    }

    /// The byte rounding of the filters is `rounded()`'s, halves and the values just under them
    /// included (every float from 0 to 300 was checked outside the suite, with numpy).
    @Test func roundedByteIsRoundedAndClamped() {
        func check<V: BinaryFloatingPoint>(_ fast: (V) -> UInt8) {
            var values: [V] = [-1e9, -256, -0.5, -0.0, 0, V(0.5).nextDown, 0.5, V(0.5).nextUp, 1e9, .infinity, -.infinity]
            for k in 0...300 {
                let half = V(k) + 0.5
                values += [V(k), V(k).nextDown, V(k).nextUp, half, half.nextDown, half.nextUp]
            }
            var state: UInt64 = 7
            for _ in 0..<20_000 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                values.append(V(Double(state >> 11) / Double(1 << 53) * 320 - 20))
            }
            for v in values { #expect(fast(v) == UInt8(max(0, min(255, v.rounded()))), "\(v)") }
        }
        check(roundedByte as (Float) -> UInt8)
        check(roundedByte as (Double) -> UInt8)
    }

    @Test func boxAndExtremeFiltersAreThePlainOnes() {
        for f in oddFrames() {
            let w = f.width, h = f.height
            let values = f.all.map(Int32.init)
            for r in [1, 2, 5] {
                var box: [Int32] = [], most: [Int32] = [], least: [Int32] = []
                for y in 0..<h {
                    for x in 0..<w {
                        var sum: Int32 = 0
                        for dy in -r...r { for dx in -r...r { sum += values[max(0, min(h - 1, y + dy)) * w + max(0, min(w - 1, x + dx))] } }
                        let n = Int32((2 * r + 1) * (2 * r + 1))
                        box.append((sum + n / 2) / n)
                        let window = (max(0, y - r)...min(h - 1, y + r)).flatMap { yy in (max(0, x - r)...min(w - 1, x + r)).map { values[yy * w + $0] } }
                        most.append(window.max()!)
                        least.append(window.min()!)
                    }
                }
                #expect(ImagePass.boxBlurred(values, w, h, radius: r) == box, "box \(w)x\(h) r \(r)")
                #expect(ImagePass.extremeFiltered(values, w, h, radius: r, max: true) == most, "max \(w)x\(h) r \(r)")
                #expect(ImagePass.extremeFiltered(values, w, h, radius: r, max: false) == least, "min \(w)x\(h) r \(r)")
            }
        }
    }

    @Test func ringRunsWithoutAnArrayAgree() {
        #expect(RegionFinder.ringRuns([5, 3, 3, 3, 3, 3, 3, 3, 6]) == 3)
        #expect(RegionFinder.ringRuns([5, 3, 3, 7, 3, 3, 3, 3, 6]) == nil)
        #expect(RegionFinder.ringRuns([1, 3, 3, 3, 3, 3, 3, 3, 6]) == nil)
        #expect(RegionFinder.ringRuns([5, 3, 3]) == nil)
    }
}

extension GrayFrame {
    /// Every pixel, row by row.
    var all: [UInt8] { (0..<height).flatMap { y in (0..<width).map { self[$0, y] } } }
}
