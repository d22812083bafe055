import Glibc
import ScanHardware

/// A frame deconvolved for a round lens blur in two dimensions at once, by the Wiener filter of
/// the whole blur (`ImagePass.deblurredResampled`'s images for the frame's own blur).
///
/// `ImagePass.deblurred` undoes the blur along rows, then along columns: cheap, and enough for
/// the bars of a linear code. A 2D code's modules are blurred into each other along the
/// diagonals too, where the product of two one-way filters raises noise more than detail; the
/// filter of the two-dimensional blur, G / (G² + k) with G = exp(-2π²σ²|f|²), gives each
/// frequency its own gain. Of the 17 blurred Aztec, DataMatrix and QR codes of 640x480 and
/// 1280x720 generated scenes that no pass read (zxing-cpp 3.1 reads none either), zxing read 6
/// from this filter (k 0.002, the blur rounded down or up to a quarter pixel, enlarged twice)
/// and 3 from one-way filters at any setting; in the pipeline, 5 (issue 18).
///
/// Done with fast Fourier transforms of the frame mirrored out to powers of two (so its edges
/// do not ring), two blurs in one transform: both filtered spectra are real images' spectra,
/// so one goes in the real part and one in the imaginary part of one inverse transform. A
/// 640x480 frame takes 9 ms, a 1280x720 one 40 ms.
enum PlaneDeconvolution {
    /// The noise-to-signal ratio of the filter: at most 1/(2√k) ≈ 11 times gain.
    static let noiseToSignal: Float = 0.002
    /// The most pixels a frame may have (its transform has up to three times as many points,
    /// padded): 640x480 and 1280x720 frames; not a full-HD one (about 80 ms).
    static let largestFrame = 1_000_000
    /// The most pixels of a frame whose deconvolved images are read enlarged twice (a 720p
    /// frame's are read as they are).
    static let largestEnlarged = 500_000

    /// `frame` deconvolved for each of `sigmas` (at most two; 0-8 pixels), or nothing when the
    /// frame is larger than `largestFrame` or smaller than the blur's reach.
    static func deblurred(_ frame: GrayFrame, sigmas: [Double]) -> [GrayFrame] {
        let w = frame.width, h = frame.height
        guard !sigmas.isEmpty, sigmas.count <= 2, sigmas.allSatisfy({ $0 > 0 && $0 <= 8 }), w * h <= largestFrame, w >= 16, h >= 16,
              let reach = sigmas.max().map({ Int((4 * $0).rounded(.up)) }), reach < min(w, h) else { return [] }
        let cols = power(atLeast: w + 2 * reach), rows = power(atLeast: h + 2 * reach)
        // The frame in the middle, mirrored out to the edges of the padded plane.
        let left = (cols - w) / 2, top = (rows - h) / 2
        // Rows a little longer than the plane: a power-of-two stride would put a column's
        // points in the same cache sets.
        let line = cols + 16
        var re = [Float](repeating: 0, count: line * rows), im = re
        let sourceColumn = (0..<cols).map { mirror($0 - left, w) }
        frame.withUnsafeBytes { p in
            re.withUnsafeMutableBufferPointer { re in
                for y in 0..<rows {
                    let from = mirror(y - top, h) * frame.stride, to = y * line
                    for x in 0..<cols { re[to + x] = Float(p[from + sourceColumn[x]]) }
                }
            }
        }
        let across = FFT(count: cols), down = FFT(count: rows)
        across.rows(&re, &im, count: rows, line: line, inverse: false)
        down.columns(&re, &im, width: cols, line: line, inverse: false)
        // The blur's transfer is the product of one factor per direction (the filter's gain is
        // not). Filter a goes in the real part of the image to come, b (or none) in the
        // imaginary part.
        let a = sigmas[0], b = sigmas.count > 1 ? sigmas[1] : nil
        let k = noiseToSignal
        func factors(_ sigma: Double, _ n: Int) -> [Float] {
            (0..<n).map { let f = frequency($0, n); return Float(exp(-2 * Double.pi * Double.pi * sigma * sigma * f * f)) }
        }
        let ax = factors(a, cols), ay = factors(a, rows)
        let bx = b.map { factors($0, cols) } ?? [Float](repeating: 0, count: cols), by = b.map { factors($0, rows) } ?? [Float](repeating: 0, count: rows)
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                for y in 0..<rows {
                    for x in 0..<cols {
                        let ga = ax[x] * ay[y], gb = bx[x] * by[y]
                        let gainA = ga / (ga * ga + k), gainB = gb / (gb * gb + k)
                        let i = y * line + x, r = re[i], m = im[i]
                        re[i] = r * gainA - m * gainB
                        im[i] = m * gainA + r * gainB
                    }
                }
            }
        }
        down.columns(&re, &im, width: cols, line: line, inverse: true)
        across.rows(&re, &im, count: rows, line: line, inverse: true)
        let scale = 1 / Float(cols * rows)
        func image(_ plane: [Float]) -> GrayFrame {
            var pixels = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    let value = plane[(y + top) * line + x + left] * scale
                    pixels[y * w + x] = UInt8(max(0, min(255, value.rounded())))
                }
            }
            return GrayFrame(width: w, height: h, pixels: pixels)
        }
        return b == nil ? [image(re)] : [image(re), image(im)]
    }

    static func frequency(_ i: Int, _ n: Int) -> Double { Double(i <= n / 2 ? i : i - n) / Double(n) }

    static func power(atLeast n: Int) -> Int {
        var p = 1
        while p < n { p <<= 1 }
        return p
    }

    /// Index `i` reflected into 0..<n (mirror without repeating the edge pixel).
    static func mirror(_ i: Int, _ n: Int) -> Int {
        guard n > 1 else { return 0 }
        let period = 2 * (n - 1)
        var j = i % period
        if j < 0 { j += period }
        return j < n ? j : period - j
    }

    /// A radix-2 complex fast Fourier transform of one length, applied to many rows.
    struct FFT {
        let count: Int
        let reversed: [Int]
        /// Each stage's twiddles (exp(-πik/half) for k in 0..<half), stage after stage (half 1,
        /// 2, 4, ...: stage `half` starts at `half - 1`), so a stage reads them in a row.
        let twiddleRe: [Float], twiddleIm: [Float]

        init(count: Int) {
            self.count = count
            var bits = 0
            while 1 << bits < count { bits += 1 }
            reversed = (0..<count).map { i in
                var r = 0
                for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
                return r
            }
            var re: [Float] = [], im: [Float] = []
            var half = 1
            while half < count {
                for k in 0..<half {
                    let angle = -Double.pi * Double(k) / Double(half)
                    re.append(Float(cos(angle)))
                    im.append(Float(sin(angle)))
                }
                half <<= 1
            }
            twiddleRe = re
            twiddleIm = im
        }

        /// Each of `count` rows of `re`/`im` (`self.count` long, each `line` after the one
        /// before) transformed in place; `inverse`: the sign of the exponent turned (no 1/n).
        func rows(_ re: inout [Float], _ im: inout [Float], count rowCount: Int, line: Int? = nil, inverse: Bool) {
            let n = count, sign: Float = inverse ? -1 : 1
            let line = line ?? n
            guard n > 1, line >= n, rowCount > 0, re.count >= line * (rowCount - 1) + n, im.count == re.count else { return }
            twiddleRe.withUnsafeBufferPointer { wr in
            twiddleIm.withUnsafeBufferPointer { wi in
            reversed.withUnsafeBufferPointer { reversed in
            re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                let wr = wr.baseAddress!, wi = wi.baseAddress!, re = re.baseAddress!, im = im.baseAddress!
                for row in 0..<rowCount {
                    let base = row &* line
                    for i in 0..<n {
                        let j = reversed[i]
                        if j > i {
                            swap(&re[base &+ i], &re[base &+ j])
                            swap(&im[base &+ i], &im[base &+ j])
                        }
                    }
                    var half = 1
                    while half < n {
                        let w = half &- 1
                        for start in Swift.stride(from: base, to: base &+ n, by: 2 &* half) {
                            if half >= 8 {
                                // Eight butterflies at a time.
                                var k = 0
                                while k < half {
                                    let p = start &+ k
                                    butterfly(re, im, p, p &+ half, load(wr + (w &+ k)), load(wi + (w &+ k)) * sign)
                                    k &+= 8
                                }
                            } else {
                                for k in 0..<half {
                                    let c = wr[w &+ k], s = wi[w &+ k] * sign
                                    let p = start &+ k, q = p &+ half
                                    let tr = re[q] * c - im[q] * s, ti = re[q] * s + im[q] * c
                                    re[q] = re[p] - tr
                                    im[q] = im[p] - ti
                                    re[p] += tr
                                    im[p] += ti
                                }
                            }
                        }
                        half <<= 1
                    }
                }
            }
            }
            }
            }
            }
        }

        /// Each column of `re`/`im` (`width` columns, a multiple of 8, of `self.count` rows,
        /// each row `line` after the one before) transformed in place, eight columns at a time;
        /// `inverse` as for `rows`.
        func columns(_ re: inout [Float], _ im: inout [Float], width: Int, line: Int, inverse: Bool) {
            let n = count, sign: Float = inverse ? -1 : 1
            guard n > 1, width % 8 == 0, line >= width, re.count >= line * (n - 1) + width, im.count == re.count else { return }
            twiddleRe.withUnsafeBufferPointer { wr in
            twiddleIm.withUnsafeBufferPointer { wi in
            reversed.withUnsafeBufferPointer { reversed in
            re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                let re = re.baseAddress!, im = im.baseAddress!
                for column in Swift.stride(from: 0, to: width, by: 8) {
                    for i in 0..<n {
                        let j = reversed[i]
                        if j > i {
                            let p = i &* line &+ column, q = j &* line &+ column
                            let (pr, pi, qr, qi) = (load(re + p), load(im + p), load(re + q), load(im + q))
                            store(qr, re + p)
                            store(qi, im + p)
                            store(pr, re + q)
                            store(pi, im + q)
                        }
                    }
                    var half = 1
                    while half < n {
                        let w = half &- 1
                        for start in Swift.stride(from: 0, to: n, by: 2 &* half) {
                            for k in 0..<half {
                                let p = (start &+ k) &* line &+ column
                                butterfly(re, im, p, p &+ half &* line, SIMD8(repeating: wr[w &+ k]), SIMD8(repeating: wi[w &+ k] * sign))
                            }
                        }
                        half <<= 1
                    }
                }
            }
            }
            }
            }
            }
        }

        /// Eight butterflies side by side: the points from `p` and from `q` on become their sum
        /// and difference, `q`'s turned by the twiddle `c` + i`s` first.
        @inline(__always) func butterfly(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, _ p: Int, _ q: Int,
                                         _ c: SIMD8<Float>, _ s: SIMD8<Float>) {
            let qr = load(re + q), qi = load(im + q)
            let tr = qr * c - qi * s, ti = qr * s + qi * c
            let pr = load(re + p), pi = load(im + p)
            store(pr - tr, re + q)
            store(pi - ti, im + q)
            store(pr + tr, re + p)
            store(pi + ti, im + p)
        }

        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        @inline(__always) func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self) }
    }
}
