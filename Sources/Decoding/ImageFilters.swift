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
        smooth.withUnsafeBufferPointer { sm in
            light.withUnsafeMutableBufferPointer { l in
                for y in 0..<h {
                    let row = y &* w, brow = (y / block) &* bw
                    for b in 0..<bw {
                        var most: UInt8 = 0
                        for x in (b &* block)..<min(w, (b &+ 1) &* block) { most = max(most, sm[row &+ x]) }
                        l[brow &+ b] = max(l[brow &+ b], Int32(most))
                    }
                }
            }
        }
        light = extremeFiltered(light, bw, bh, radius: 5, max: true)
        light = extremeFiltered(light, bw, bh, radius: 5, max: false)
        let level = Upsampled(boxBlurred(light, bw, bh, radius: 2), bw, bh, block: block, width: w)
        var out = [UInt8](repeating: 0, count: w * h), row = [Double](repeating: 0, count: w)
        smooth.withUnsafeBufferPointer { sm in
            row.withUnsafeMutableBufferPointer { lv in
                out.withUnsafeMutableBufferPointer { o in
                    for y in 0..<h {
                        level.row(y, into: lv.baseAddress!)
                        for x in 0..<w { o[y &* w &+ x] = roundedByte(Double(sm[y &* w &+ x]) * 230 / max(1, lv[x])) }
                    }
                }
            }
        }
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
            dark.withUnsafeMutableBufferPointer { d in
                light.withUnsafeMutableBufferPointer { l in
                    for y in 0..<h {
                        let row = y &* f.stride, brow = (y / block) &* bw
                        for b in 0..<bw {
                            var least: UInt8 = 255, most: UInt8 = 0
                            for x in (b &* block)..<min(w, (b &+ 1) &* block) {
                                least = min(least, p[row &+ x])
                                most = max(most, p[row &+ x])
                            }
                            d[brow &+ b] = min(d[brow &+ b], Int32(least))
                            l[brow &+ b] = max(l[brow &+ b], Int32(most))
                        }
                    }
                }
            }
        }
        let low = Upsampled(boxBlurred(extremeFiltered(dark, bw, bh, radius: 4, max: false), bw, bh, radius: 4), bw, bh, block: block, width: w)
        let high = Upsampled(boxBlurred(extremeFiltered(light, bw, bh, radius: 4, max: true), bw, bh, radius: 4), bw, bh, block: block, width: w)
        var out = [UInt8](repeating: 255, count: w * h), lows = [Double](repeating: 0, count: w), highs = lows
        f.withUnsafeBytes { p in
            lows.withUnsafeMutableBufferPointer { lo in
                highs.withUnsafeMutableBufferPointer { hi in
                    out.withUnsafeMutableBufferPointer { o in
                        for y in 0..<h {
                            low.row(y, into: lo.baseAddress!)
                            high.row(y, into: hi.baseAddress!)
                            let row = y &* f.stride
                            for x in 0..<w {
                                let range = hi[x] - lo[x]
                                guard range >= 24 else { continue }
                                o[y &* w &+ x] = roundedByte((Double(p[row &+ x]) - lo[x]) * 255 / range)
                            }
                        }
                    }
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// A grid of per-block levels (blocks of `block` pixels) interpolated back to a `width`-wide
    /// frame a row at a time (`row(_:into:)`), bilinear between block centres.
    struct Upsampled {
        let grid: [Int32], bw: Int, bh: Int, block: Int
        // Each column's two blocks and weight, worked out once.
        let x0s: [Int], x1s: [Int], fxs: [Double]

        init(_ grid: [Int32], _ bw: Int, _ bh: Int, block: Int, width w: Int) {
            self.grid = grid
            self.bw = bw
            self.bh = bh
            self.block = block
            var x0s = [Int](repeating: 0, count: w), x1s = x0s, fxs = [Double](repeating: 0, count: w)
            for x in 0..<w {
                let sx = (Double(x) + 0.5) / Double(block) - 0.5
                x0s[x] = max(0, min(bw - 1, Int(sx.rounded(.down))))
                x1s[x] = min(bw - 1, x0s[x] + 1)
                fxs[x] = min(1, max(0, sx - Double(x0s[x])))
            }
            (self.x0s, self.x1s, self.fxs) = (x0s, x1s, fxs)
        }

        /// Row `y`'s levels, into `o` (the frame's width of them).
        func row(_ y: Int, into o: UnsafeMutablePointer<Double>) {
            let sy = (Double(y) + 0.5) / Double(block) - 0.5
            let y0 = max(0, min(bh - 1, Int(sy.rounded(.down)))), y1 = min(bh - 1, y0 + 1)
            let fy = min(1, max(0, sy - Double(y0)))
            let r0 = y0 * bw, r1 = y1 * bw
            grid.withUnsafeBufferPointer { g in
                x0s.withUnsafeBufferPointer { x0s in
                    x1s.withUnsafeBufferPointer { x1s in
                        fxs.withUnsafeBufferPointer { fxs in
                            for x in 0..<fxs.count {
                                let x0 = x0s[x], x1 = x1s[x], fx = fxs[x]
                                let top = Double(g[r0 &+ x0]) * (1 - fx) + Double(g[r0 &+ x1]) * fx
                                let bottom = Double(g[r1 &+ x0]) * (1 - fx) + Double(g[r1 &+ x1]) * fx
                                o[x] = top * (1 - fy) + bottom * fy
                            }
                        }
                    }
                }
            }
        }
    }

    /// The frame deconvolved for a Gaussian blur of `sigma` pixels: lightly smoothed (3x3 box:
    /// the filter would raise sensor noise), then a Wiener filter, row by row and column by
    /// column (`wienerTaps`).
    static func deblurred(_ f: GrayFrame, sigma: Double) -> GrayFrame {
        let w = f.width, h = f.height
        let taps = lensBlurTaps[sigma] ?? wienerTaps(sigma: sigma), r = taps.count / 2, n = taps.count
        guard w > 2 * r, h > 2 * r else { return f }
        let smooth = boxBlurred(f, radius: 1)
        // A row at a time: the smoothed row padded with its edge pixels (so each tap runs over a
        // whole row unchecked), filtered across into a ring of the last `n` rows, and each
        // output row filtered down from the ring's rows (edge rows repeated). Eight pixels at a
        // time (`Lanes`), each tap's products added in tap order as one pixel at a time would:
        // the same image to the last bit, in buffers that stay in the cache.
        let pw = w + 2 * r
        var padded = [Float](repeating: 0, count: pw), ring = [Float](repeating: 0, count: n * w), down = [Float](repeating: 0, count: w)
        var out = [UInt8](repeating: 0, count: w * h)
        smooth.withUnsafeBufferPointer { sm in
            padded.withUnsafeMutableBufferPointer { pd in
                ring.withUnsafeMutableBufferPointer { ring in
                    down.withUnsafeMutableBufferPointer { acc in
                        out.withUnsafeMutableBufferPointer { o in
                            let pd = pd.baseAddress!, ring = ring.baseAddress!, acc = acc.baseAddress!
                            // Row `j` filtered across, into the ring.
                            func across(_ j: Int) {
                                let row = sm.baseAddress! + j &* w
                                for x in 0..<r { pd[x] = Float(row[0]) }
                                for x in 0..<w { pd[r &+ x] = Float(row[x]) }
                                for x in 0..<r { pd[r &+ w &+ x] = Float(row[w &- 1]) }
                                let d = ring + (j % n) &* w
                                var x = 0
                                while x &+ Lanes.count <= w {
                                    var a = Lanes(repeating: 0)
                                    for k in 0..<n { a += taps[k] * Lanes.load(pd + (x &+ k)) }
                                    a.store(d + x)
                                    x &+= Lanes.count
                                }
                                while x < w {
                                    var a: Float = 0
                                    for k in 0..<n { a += taps[k] * pd[x &+ k] }
                                    d[x] = a
                                    x &+= 1
                                }
                            }
                            // The ring's row for each tap of output row y.
                            var from = [UnsafePointer<Float>](repeating: UnsafePointer(ring), count: n)
                            var done = 0
                            for y in 0..<h {
                                while done <= min(h - 1, y + r) { across(done); done += 1 }
                                for k in 0..<n { from[k] = UnsafePointer(ring + (max(0, min(h - 1, y + k - r)) % n) &* w) }
                                var x = 0
                                while x &+ Lanes.count <= w {
                                    var v = Lanes(repeating: 0)
                                    for k in 0..<n { v += taps[k] * Lanes.load(from[k] + x) }
                                    v.store(acc + x)
                                    x &+= Lanes.count
                                }
                                while x < w {
                                    var v: Float = 0
                                    for k in 0..<n { v += taps[k] * from[k][x] }
                                    acc[x] = v
                                    x &+= 1
                                }
                                let row = o.baseAddress! + y &* w
                                for x in 0..<w { row[x] = roundedByte(acc[x]) }
                            }
                        }
                    }
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// The taps of the blurs the `deblurred` pass undoes, made once: the fixed ones and every
    /// quarter pixel a frame's own blur may be fitted to (`FrameCondition.fittedLensBlur(beyond:)`).
    static let lensBlurTaps: [Double: [Float]] = Dictionary(
        uniqueKeysWithValues: (lensBlurs + Array(stride(from: lensBlurs.max()! + 0.25, through: FrameCondition.largestLensBlur, by: 0.25)))
            .map { ($0, wienerTaps(sigma: $0)) })

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

    /// The frame's pixels (row by row, no stride) under a box of `radius`, edges repeated,
    /// rounded half up: each row's sums across, and running sums of them down the columns
    /// (a ring of the rows' sums that the box spans, so nothing but the image is frame-sized).
    static func boxBlurred(_ f: GrayFrame, radius r: Int) -> [UInt8] {
        let w = f.width, h = f.height, n = 2 * r + 1
        var out = [UInt8](repeating: 0, count: w * h)
        guard w > 0, h > 0 else { return out }
        let mean = QuotientByMultiply(Int32(n * n)), half = Int32(n * n / 2)
        // Row v (from -r to h + r, edges repeated) summed across, at ring slot (v + r) % (n + 1):
        // the row the box takes in and the one it lets go are n apart.
        var ring = [Int32](repeating: 0, count: (n + 1) * w), sums = [Int32](repeating: 0, count: w)
        f.withUnsafeBytes { p in
            ring.withUnsafeMutableBufferPointer { ring in
                sums.withUnsafeMutableBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        let ring = ring.baseAddress!, s = s.baseAddress!
                        let pixels = p.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        func across(_ v: Int) -> UnsafeMutablePointer<Int32> {
                            let a = ring + ((v + r) % (n + 1)) &* w
                            sumsAcross(pixels + max(0, min(h - 1, v)) &* f.stride, w, radius: r, into: a)
                            return a
                        }
                        for v in -r...r {
                            let a = across(v)
                            for x in 0..<w { s[x] &+= a[x] }
                        }
                        for y in 0..<h {
                            let row = o.baseAddress! + y &* w
                            for x in 0..<w { row[x] = UInt8(truncatingIfNeeded: mean(s[x] &+ half)) }
                            guard y + 1 < h else { break }
                            let add = across(y + r + 1), drop = ring + (y % (n + 1)) &* w
                            for x in 0..<w { s[x] &+= add[x] &- drop[x] }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The sums of the `2r + 1` levels around each of a row's `w` (edges repeated), into `a`;
    /// the clamps only where the box reaches past an edge.
    @inline(__always)
    static func sumsAcross<T: FixedWidthInteger>(_ row: UnsafePointer<T>, _ w: Int, radius r: Int, into a: UnsafeMutablePointer<Int32>) {
        var sum: Int32 = 0
        for k in -r...r { sum &+= Int32(row[max(0, min(w - 1, k))]) }
        let lo = min(r, w), hi = max(lo, w - r - 1)
        for x in 0..<lo {
            a[x] = sum
            sum &+= Int32(row[min(w - 1, x + r + 1)]) &- Int32(row[max(0, x - r)])
        }
        for x in lo..<hi {
            a[x] = sum
            sum &+= Int32(row[x &+ r &+ 1]) &- Int32(row[x &- r])
        }
        for x in hi..<w {
            a[x] = sum
            sum &+= Int32(row[min(w - 1, x + r + 1)]) &- Int32(row[max(0, x - r)])
        }
    }

    /// A box mean of `radius` over a `w` x `h` grid of levels (0-255: pixels, or block levels;
    /// separable running sums, edges repeated), rounded half up.
    static func boxBlurred(_ v: [Int32], _ w: Int, _ h: Int, radius r: Int) -> [Int32] {
        let n = Int32(2 * r + 1), mean = QuotientByMultiply(n * n)
        var across = [Int32](repeating: 0, count: w * h), out = across
        v.withUnsafeBufferPointer { v in
            across.withUnsafeMutableBufferPointer { a in
                for y in 0..<h { sumsAcross(v.baseAddress! + y * w, w, radius: r, into: a.baseAddress! + y * w) }
            }
        }
        // Down the columns, a row of running sums at a time.
        var sums = [Int32](repeating: 0, count: w)
        across.withUnsafeBufferPointer { a in
            sums.withUnsafeMutableBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    for k in -r...r {
                        let row = max(0, min(h - 1, k)) * w
                        for x in 0..<w { s[x] += a[row + x] }
                    }
                    for y in 0..<h {
                        let add = min(h - 1, y + r + 1) * w, drop = max(0, y - r) * w, row = y * w
                        for x in 0..<w {
                            o[row &+ x] = mean(s[x] &+ n &* n / 2)
                            s[x] &+= a[add &+ x] &- a[drop &+ x]
                        }
                    }
                }
            }
        }
        return out
    }

    /// The largest (`max`) or smallest value within `radius` along rows, then along columns.
    static func extremeFiltered(_ v: [Int32], _ w: Int, _ h: Int, radius r: Int, max isMax: Bool) -> [Int32] {
        var across = v, out = v
        // The sign flipped for a minimum: one loop takes the largest.
        let sign: Int32 = isMax ? 1 : -1
        v.withUnsafeBufferPointer { v in
            across.withUnsafeMutableBufferPointer { a in
                for y in 0..<h {
                    let row = y * w
                    for x in 0..<w {
                        var e = sign &* v[row &+ x]
                        for k in Swift.max(0, x - r)...Swift.min(w - 1, x + r) { e = Swift.max(e, sign &* v[row &+ k]) }
                        a[row &+ x] = sign &* e
                    }
                }
            }
        }
        across.withUnsafeBufferPointer { a in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    let lo = Swift.max(0, y - r), hi = Swift.min(h - 1, y + r), row = y * w
                    for x in 0..<w { o[row &+ x] = sign &* a[row &+ x] }
                    for k in lo...hi {
                        let src = k &* w
                        for x in 0..<w { o[row &+ x] = Swift.max(o[row &+ x], sign &* a[src &+ x]) }
                    }
                    for x in 0..<w { o[row &+ x] = sign &* o[row &+ x] }
                }
            }
        }
        return out
    }

    /// Unsharp mask (original + 1.5 x (original - 5x5 box blur)): blurred edges made steep again.
    /// The box's mean is clipped to the frame at its edges (the mean of the pixels it covers),
    /// from running sums down the columns and along each row.
    static func sharpen(_ f: GrayFrame) -> GrayFrame {
        let w = f.width, h = f.height, r = 2
        var out = [UInt8](repeating: 0, count: w * h)
        guard w > 0, h > 0 else { return GrayFrame(width: w, height: h, pixels: out) }
        var column = [Int32](repeating: 0, count: w)
        f.withUnsafeBytes { p in
            column.withUnsafeMutableBufferPointer { col in
                out.withUnsafeMutableBufferPointer { o in
                    // Each column's sum over the rows of the box around row 0.
                    for y in 0..<min(h, r + 1) {
                        let row = y &* f.stride
                        for x in 0..<w { col[x] &+= Int32(p[row &+ x]) }
                    }
                    for y in 0..<h {
                        let rows = Int32(min(h, y + r + 1) - max(0, y - r)), row = y &* f.stride, orow = y &* w
                        var sum: Int32 = 0
                        for x in 0..<min(w, r + 1) { sum &+= col[x] }
                        func sharpened(_ x: Int, mean: Int32) {
                            let v = Int32(p[row &+ x])
                            o[orow &+ x] = UInt8(max(0, min(255, v &+ (3 &* (v &- mean)) / 2)))
                        }
                        func edge(_ x: Int) {
                            let columns = Int32(min(w, x + r + 1) - max(0, x - r))
                            sharpened(x, mean: rows == 5 && columns == 5 ? sum / 25 : sum / (rows &* columns))
                            if x + r + 1 < w { sum &+= col[x &+ r &+ 1] }
                            if x - r >= 0 { sum &-= col[x &- r] }
                        }
                        // Between the edges the box is whole across, and the division by its
                        // area a multiply.
                        let lo = min(r, w), hi = max(lo, w - r - 1), area = QuotientByMultiply(rows &* Int32(2 &* r &+ 1))
                        for x in 0..<lo { edge(x) }
                        for x in lo..<hi {
                            sharpened(x, mean: area(sum))
                            sum &+= col[x &+ r &+ 1] &- col[x &- r]
                        }
                        for x in hi..<w { edge(x) }
                        // The box of the next row: one row in below, one out above.
                        if y + r + 1 < h {
                            let add = (y &+ r &+ 1) &* f.stride
                            for x in 0..<w { col[x] &+= Int32(p[add &+ x]) }
                        }
                        if y - r >= 0 {
                            let drop = (y &- r) &* f.stride
                            for x in 0..<w { col[x] &-= Int32(p[drop &+ x]) }
                        }
                    }
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }
}
