import Glibc
import ScanHardware

/// The pixel filters the passes are made of: tone (inversion, contrast stretch, the flat field),
/// sharpness (unsharp mask, deconvolution) and the box and min/max filters under them.
extension ImagePass {
    static func map(_ f: GrayFrame, _ op: (UInt8) -> UInt8) -> GrayFrame {
        var out = [UInt8](repeating: 0, count: f.width * f.height)
        f.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<f.height {
                    let row = y * f.stride, o = y * f.width
                    for x in 0..<f.width { dst[o + x] = op(src[row + x]) }
                }
            }
        }
        return GrayFrame(width: f.width, height: f.height, pixels: out)
    }

    /// The gray levels below which and above which 1/`tail` of the pixels lie (every other
    /// pixel of every other row sampled).
    static func percentiles(_ f: GrayFrame, tail: Int) -> (low: Int, high: Int) {
        var histogram = [Int](repeating: 0, count: 256)
        f.withUnsafeBytes { src in
            for y in stride(from: 0, to: f.height, by: 2) { for x in stride(from: 0, to: f.width, by: 2) { histogram[Int(src[y * f.stride + x])] += 1 } }
        }
        let total = histogram.reduce(0, +)
        var acc = 0, lo = 0, hi = 255
        for (v, n) in histogram.enumerated() { acc += n; if acc >= total / tail { lo = v; break } }
        acc = 0
        for (v, n) in histogram.enumerated().reversed() { acc += n; if acc >= total / tail { hi = v; break } }
        return (lo, hi)
    }

    /// The frame inside a border of its own light level.
    static func bordered(_ f: GrayFrame, _ border: Int) -> GrayFrame {
        let light = percentiles(f, tail: 20).high
        let w = f.width + 2 * border, h = f.height + 2 * border
        var out = [UInt8](repeating: UInt8(light), count: w * h)
        f.withUnsafeBytes { src in
            for y in 0..<f.height {
                for x in 0..<f.width { out[(y + border) * w + x + border] = src[y * f.stride + x] }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// Contrast stretch between the 1st and 99th percentile: faint and dark codes.
    static func stretch(_ f: GrayFrame) -> GrayFrame? {
        let (lo, hi) = percentiles(f, tail: 100)
        guard hi - lo >= 8, hi - lo < 200 else { return nil } // already full range, or flat
        var table = [UInt8](repeating: 0, count: 256)
        for v in 0..<256 { table[v] = UInt8(max(0, min(255, (v - lo) * 255 / (hi - lo)))) }
        return map(f) { table[Int($0)] }
    }

    /// The frame lightly smoothed (3x3 box: sensor noise) and divided by its light level: the
    /// brightest pixel of each 4x4 block, closed over 11 blocks (dark marks narrower than about
    /// 40 pixels, bars and modules, do not count), smoothed and interpolated back to full size.
    /// The paper then reads near 230 wherever it lies, in a shadow or in full light.
    static func flattened(_ f: GrayFrame) -> GrayFrame {
        let w = f.width, h = f.height
        guard w >= 8, h >= 8 else { return f }
        let smooth = boxBlurred(f, radius: 1)
        // The light level per 4x4 block: brightest pixel, then a closing (max, then min).
        let block = 4, bw = (w + block - 1) / block, bh = (h + block - 1) / block
        var light = [Int32](repeating: 0, count: bw * bh)
        for y in 0..<h {
            let row = y * w, brow = (y / block) * bw
            for x in 0..<w where Int32(smooth[row + x]) > light[brow + x / block] { light[brow + x / block] = Int32(smooth[row + x]) }
        }
        light = extremeFiltered(light, bw, bh, radius: 5, max: true)
        light = extremeFiltered(light, bw, bh, radius: 5, max: false)
        light = boxBlurred(light, bw, bh, radius: 2)
        let level = upsampled(light, bw, bh, block: block, width: w, height: h)
        var out = [UInt8](repeating: 0, count: w * h)
        for i in 0..<(w * h) { out[i] = UInt8(min(255, (Double(smooth[i]) * 230 / max(1, level[i])).rounded())) }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// Each pixel placed between the dark and the light level around it: the darkest and the
    /// brightest pixel of each 4x4 block, spread over 4 blocks either way (the nearest bar and
    /// the nearest paper, about 36 pixels), smoothed and interpolated back to full size; the
    /// pixel stretched from that dark (0) to that light (255). Where glare lifts the bars of
    /// part of a code towards the paper, they are dark again. Where the two levels lie within 24
    /// of each other (no mark nearby) the pixel is paper.
    /// The tone curve of the `highlights` pass: 255 x (v / 255)^16. Grey 250 becomes 185, 240
    /// 96, 200 5: under glare a bar lifted to 200 and a space clipped at 255 are black and white
    /// again, and the edge between them is taken where the clipped profile leaves white, not
    /// halfway down (which narrows each bar by the part of its blur that glare cut off).
    static let highlightCurve: [UInt8] = (0...255).map { UInt8((255 * pow(Double($0) / 255, 16)).rounded(.down)) }

    static func highlighted(_ f: GrayFrame) -> GrayFrame {
        highlightCurve.withUnsafeBufferPointer { curve in map(f) { curve[Int($0)] } }
    }

    static func rangeNormalized(_ f: GrayFrame) -> GrayFrame {
        let w = f.width, h = f.height
        guard w >= 8, h >= 8 else { return f }
        let block = 4, bw = (w + block - 1) / block, bh = (h + block - 1) / block
        var dark = [Int32](repeating: 255, count: bw * bh), light = [Int32](repeating: 0, count: bw * bh)
        f.withUnsafeBytes { p in
            for y in 0..<h {
                let row = y * f.stride, brow = (y / block) * bw
                for x in 0..<w {
                    let v = Int32(p[row + x]), b = brow + x / block
                    if v < dark[b] { dark[b] = v }
                    if v > light[b] { light[b] = v }
                }
            }
        }
        let low = upsampled(boxBlurred(extremeFiltered(dark, bw, bh, radius: 4, max: false), bw, bh, radius: 4), bw, bh, block: block, width: w, height: h)
        let high = upsampled(boxBlurred(extremeFiltered(light, bw, bh, radius: 4, max: true), bw, bh, radius: 4), bw, bh, block: block, width: w, height: h)
        var out = [UInt8](repeating: 255, count: w * h)
        f.withUnsafeBytes { p in
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x, range = high[i] - low[i]
                    guard range >= 24 else { continue }
                    out[i] = UInt8(max(0, min(255, ((Double(p[y * f.stride + x]) - low[i]) * 255 / range).rounded())))
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// A grid of per-block levels (blocks of `block` pixels) interpolated back to a `width` x
    /// `height` frame, bilinear between block centres.
    static func upsampled(_ grid: [Int32], _ bw: Int, _ bh: Int, block: Int, width w: Int, height h: Int) -> [Double] {
        var out = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            let sy = (Double(y) + 0.5) / Double(block) - 0.5
            let y0 = max(0, min(bh - 1, Int(sy.rounded(.down)))), y1 = min(bh - 1, y0 + 1)
            let fy = min(1, max(0, sy - Double(y0)))
            for x in 0..<w {
                let sx = (Double(x) + 0.5) / Double(block) - 0.5
                let x0 = max(0, min(bw - 1, Int(sx.rounded(.down)))), x1 = min(bw - 1, x0 + 1)
                let fx = min(1, max(0, sx - Double(x0)))
                let top = Double(grid[y0 * bw + x0]) * (1 - fx) + Double(grid[y0 * bw + x1]) * fx
                let bottom = Double(grid[y1 * bw + x0]) * (1 - fx) + Double(grid[y1 * bw + x1]) * fx
                out[y * w + x] = top * (1 - fy) + bottom * fy
            }
        }
        return out
    }

    /// The frame deconvolved for a Gaussian blur of `sigma` pixels: lightly smoothed (3x3 box:
    /// the filter would raise sensor noise), then a Wiener filter, row by row and column by
    /// column (`wienerTaps`).
    static func deblurred(_ f: GrayFrame, sigma: Double) -> GrayFrame {
        let w = f.width, h = f.height
        let taps = lensBlurTaps[sigma] ?? wienerTaps(sigma: sigma), r = taps.count / 2
        guard w > 2 * r, h > 2 * r else { return f }
        // Rows padded with their edge pixels, so each tap runs over a whole row unchecked.
        let pw = w + 2 * r
        var padded = [Float](repeating: 0, count: pw * h)
        let smooth = boxBlurred(f, radius: 1)
        for y in 0..<h {
            for x in 0..<pw { padded[y * pw + x] = Float(smooth[y * w + max(0, min(w - 1, x - r))]) }
        }
        var across = [Float](repeating: 0, count: w * h)
        padded.withUnsafeBufferPointer { src in
            across.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for (k, t) in taps.enumerated() {
                        let s = y * pw + k, d = y * w
                        for x in 0..<w { dst[d + x] += t * src[s + x] }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        var sum = [Float](repeating: 0, count: w)
        across.withUnsafeBufferPointer { src in
            sum.withUnsafeMutableBufferPointer { acc in
                for y in 0..<h {
                    for x in 0..<w { acc[x] = 0 }
                    for (k, t) in taps.enumerated() {
                        let s = max(0, min(h - 1, y + k - r)) * w
                        for x in 0..<w { acc[x] += t * src[s + x] }
                    }
                    for x in 0..<w { out[y * w + x] = UInt8(max(0, min(255, acc[x].rounded()))) }
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// The taps of the blurs the `deblurred` pass undoes, made once.
    static let lensBlurTaps: [Double: [Float]] = Dictionary(uniqueKeysWithValues: lensBlurs.map { ($0, wienerTaps(sigma: $0)) })

    /// A one-dimensional Wiener filter for a Gaussian blur of `sigma` (noise-to-signal 0.01):
    /// the inverse of the blur where it keeps detail, damped where it would only raise noise;
    /// 4 sigma either side, summing to one.
    static func wienerTaps(sigma: Double) -> [Float] {
        let n = 128, k = 0.01, r = Int((4 * sigma).rounded(.up))
        let blur = (0..<n).map { x -> Double in let d = Double(min(x, n - x)); return exp(-d * d / (2 * sigma * sigma)) }
        let total = blur.reduce(0, +)
        let gain = (0..<n).map { j -> Double in
            let g = (0..<n).reduce(0.0) { $0 + blur[$1] / total * cos(2 * Double.pi * Double(j * $1) / Double(n)) }
            return g / (g * g + k)
        }
        let taps = (-r...r).map { x -> Double in (0..<n).reduce(0.0) { $0 + gain[$1] * cos(2 * Double.pi * Double($1 * x) / Double(n)) } / Double(n) }
        let sum = taps.reduce(0, +)
        return taps.map { Float($0 / sum) }
    }

    /// The frame's pixels (row by row, no stride) under a box of `radius`, edges repeated.
    static func boxBlurred(_ f: GrayFrame, radius: Int) -> [UInt8] {
        var plain = [Int32](repeating: 0, count: f.width * f.height)
        f.withUnsafeBytes { p in
            for y in 0..<f.height { for x in 0..<f.width { plain[y * f.width + x] = Int32(p[y * f.stride + x]) } }
        }
        return boxBlurred(plain, f.width, f.height, radius: radius).map { UInt8(clamping: $0) }
    }

    /// A box mean of `radius` over a `w` x `h` grid (separable running sums, edges repeated).
    static func boxBlurred(_ v: [Int32], _ w: Int, _ h: Int, radius r: Int) -> [Int32] {
        let n = Int32(2 * r + 1)
        var across = [Int32](repeating: 0, count: w * h), out = across
        for y in 0..<h {
            let row = y * w
            var sum: Int32 = 0
            for k in -r...r { sum += v[row + max(0, min(w - 1, k))] }
            for x in 0..<w {
                across[row + x] = sum
                sum += v[row + min(w - 1, x + r + 1)] - v[row + max(0, x - r)]
            }
        }
        for x in 0..<w {
            var sum: Int32 = 0
            for k in -r...r { sum += across[max(0, min(h - 1, k)) * w + x] }
            for y in 0..<h {
                out[y * w + x] = (sum + n * n / 2) / (n * n)
                sum += across[min(h - 1, y + r + 1) * w + x] - across[max(0, y - r) * w + x]
            }
        }
        return out
    }

    /// The largest (`max`) or smallest value within `radius` along rows, then along columns.
    static func extremeFiltered(_ v: [Int32], _ w: Int, _ h: Int, radius r: Int, max isMax: Bool) -> [Int32] {
        let pick: (Int32, Int32) -> Int32 = isMax ? { Swift.max($0, $1) } : { Swift.min($0, $1) }
        var across = v, out = v
        for y in 0..<h {
            for x in 0..<w {
                var e = v[y * w + x]
                for k in Swift.max(0, x - r)...Swift.min(w - 1, x + r) { e = pick(e, v[y * w + k]) }
                across[y * w + x] = e
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var e = across[y * w + x]
                for k in Swift.max(0, y - r)...Swift.min(h - 1, y + r) { e = pick(e, across[k * w + x]) }
                out[y * w + x] = e
            }
        }
        return out
    }

    /// Unsharp mask (original + 1.5 x (original - 5x5 box blur)): blurred edges made steep again.
    static func sharpen(_ f: GrayFrame) -> GrayFrame {
        let integral = IntegralImage(f)
        var out = [UInt8](repeating: 0, count: f.width * f.height)
        f.withUnsafeBytes { p in
            for y in 0..<f.height {
                for x in 0..<f.width {
                    let v = Int(p[y * f.stride + x])
                    out[y * f.width + x] = UInt8(max(0, min(255, v + (3 * (v - integral.mean(x: x, y: y, radius: 2))) / 2)))
                }
            }
        }
        return GrayFrame(width: f.width, height: f.height, pixels: out)
    }
}

extension ImagePass {
    /// The frame enlarged `scale` times with bicubic interpolation (Keys' kernel, a = -0.75, as
    /// OpenCV's `INTER_CUBIC`; pixel centres aligned, edges clamped): steeper module edges than
    /// bilinear, with a slight overshoot at each. Separable: across each source row first, then
    /// down, with each output column's and row's four taps worked out once.
    static func cubic(_ f: GrayFrame, scale: Double) -> GrayFrame {
        let w = Int((Double(f.width) * scale).rounded(.toNearestOrEven)), h = Int((Double(f.height) * scale).rounded(.toNearestOrEven))
        guard f.width > 0, f.height > 0, w > 0, h > 0 else { return GrayFrame(width: 0, height: 0, pixels: []) }
        let (cx, wx) = cubicTaps(count: w, source: f.width, scale: scale)
        let (cy, wy) = cubicTaps(count: h, source: f.height, scale: scale)
        var across = [Float](repeating: 0, count: w * f.height)
        across.withUnsafeMutableBufferPointer { a in
            f.withUnsafeBytes { p in
                for y in 0..<f.height {
                    let row = y * f.stride, o = y * w
                    for x in 0..<w {
                        let t = 4 * x
                        a[o + x] = wx[t] * Float(p[row + cx[t]]) + wx[t + 1] * Float(p[row + cx[t + 1]])
                            + wx[t + 2] * Float(p[row + cx[t + 2]]) + wx[t + 3] * Float(p[row + cx[t + 3]])
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        out.withUnsafeMutableBufferPointer { o in
            across.withUnsafeBufferPointer { a in
                for y in 0..<h {
                    let t = 4 * y
                    let r0 = cy[t] * w, r1 = cy[t + 1] * w, r2 = cy[t + 2] * w, r3 = cy[t + 3] * w
                    let k0 = wy[t], k1 = wy[t + 1], k2 = wy[t + 2], k3 = wy[t + 3]
                    for x in 0..<w {
                        let v = k0 * a[r0 + x] + k1 * a[r1 + x] + k2 * a[r2 + x] + k3 * a[r3 + x]
                        o[y * w + x] = UInt8(max(0, min(255, v + 0.5)))
                    }
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// For each of `count` output pixels along one axis: the four source pixels it is made of
    /// (clamped to the edge) and their weights, which sum to 1.
    static func cubicTaps(count: Int, source: Int, scale: Double) -> (index: [Int], weight: [Float]) {
        var index = [Int](repeating: 0, count: 4 * count), weight = [Float](repeating: 0, count: 4 * count)
        let a = -0.75
        func kernel(_ d: Double) -> Double {
            let x = abs(d)
            return x <= 1 ? ((a + 2) * x - (a + 3)) * x * x + 1 : x < 2 ? ((a * x - 5 * a) * x + 8 * a) * x - 4 * a : 0
        }
        for i in 0..<count {
            let s = (Double(i) + 0.5) / scale - 0.5
            let base = Int(s.rounded(.down)), t = s - Double(base)
            for k in 0..<4 {
                index[4 * i + k] = min(source - 1, max(0, base - 1 + k))
                weight[4 * i + k] = Float(kernel(t - Double(k - 1)))
            }
        }
        return (index, weight)
    }
}
