import Glibc
import ScanCore
import ScanHardware

/// The geometry the passes and the reads' confirmations resample with: turning, scaling
/// (bilinear, nearest, bicubic) and halving.
extension ImagePass {
    /// The crop turned by `-angle` (so that direction becomes the x axis), scaled by `factor`,
    /// bilinear; light outside the crop. Maps back to frame coordinates through `originX/Y`.
    static func rotated(_ f: GrayFrame, by angle: Double, factor: Double, originX: Int, originY: Int) -> TransformedFrame {
        let c = cos(angle), s = sin(angle)
        let w = Int((Double(f.width) * abs(c) + Double(f.height) * abs(s)) * factor), h = Int((Double(f.width) * abs(s) + Double(f.height) * abs(c)) * factor)
        let cx = Double(f.width) / 2, cy = Double(f.height) / 2, cu = Double(w) / 2, cv = Double(h) / 2
        var out = [UInt8](repeating: 255, count: w * h)
        // Each output pixel's source point is (cx + dx c - dy s, cy + dx s + dy c): the column's
        // terms are worked out once, the row's once a row (the same values, the same sums).
        let dxc = (0..<w).map { u in (Double(u) - cu) / factor * c }, dxs = (0..<w).map { u in (Double(u) - cu) / factor * s }
        f.withUnsafeBytes { p in
            out.withUnsafeMutableBufferPointer { o in
                for v in 0..<h {
                    let dy = (Double(v) - cv) / factor
                    let dys = dy * s, dyc = dy * c
                    for u in 0..<w {
                        let sx = cx + dxc[u] - dys, sy = cy + dxs[u] + dyc
                        let x0 = floorInt(sx), y0 = floorInt(sy)
                        guard x0 >= 0, y0 >= 0, x0 + 1 < f.width, y0 + 1 < f.height else { continue }
                        o[v * w + u] = bilinear(p, f.stride, x0, x0 + 1, y0, y0 + 1, sx - Double(x0), sy - Double(y0))
                    }
                }
            }
        }
        var t = TransformedFrame(frame: GrayFrame(width: w, height: h, pixels: out), scale: 1 / factor)
        let ox = Double(originX), oy = Double(originY)
        t.unrotate = { u, v in
            let dx = (u - cu) / factor, dy = (v - cv) / factor
            return (ox + cx + dx * c - dy * s, oy + cy + dx * s + dy * c)
        }
        return t
    }

    /// The frame scaled by `factor` (any, bilinear).
    static func scaled(_ f: GrayFrame, by factor: Double) -> GrayFrame {
        rotated(f, by: 0, factor: factor, originX: 0, originY: 0).frame
    }

    /// Nearest-neighbour upscaling by an integer factor (hard module edges stay hard).
    static func nearest(_ f: GrayFrame, factor: Int) -> GrayFrame {
        let w = f.width * factor, h = f.height * factor
        var out = [UInt8](repeating: 0, count: w * h)
        f.withUnsafeBytes { src in
            for y in 0..<h {
                for x in 0..<w { out[y * w + x] = src[(y / factor) * f.stride + x / factor] }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// The frame at twice its size, when it has at most `limit` pixels.
    static func doubled(_ frame: GrayFrame, upTo limit: Int) -> [TransformedFrame] {
        guard frame.width * frame.height <= limit else { return [] }
        return [TransformedFrame(frame: resize(frame, factor: 2), scale: 0.5)]
    }

    /// The pixel between four neighbours (columns x0/x1, rows y0/y1) at fractions fx, fy.
    @inline(__always)
    static func bilinear(_ p: UnsafeRawBufferPointer, _ stride: Int, _ x0: Int, _ x1: Int, _ y0: Int, _ y1: Int,
                         _ fx: Double, _ fy: Double) -> UInt8 {
        let a = Double(p[y0 * stride + x0]), b = Double(p[y0 * stride + x1])
        let c = Double(p[y1 * stride + x0]), d = Double(p[y1 * stride + x1])
        return roundedByte((a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy)
    }

    /// Bilinear upscaling by an integer factor.
    static func resize(_ f: GrayFrame, factor: Int) -> GrayFrame {
        factor == 2 ? doubledBilinear(f) : bilinearResize(f, factor: factor)
    }

    /// Bilinear upscaling by any integer factor, pixel by pixel in floating point.
    static func bilinearResize(_ f: GrayFrame, factor: Int) -> GrayFrame {
        let w = f.width * factor, h = f.height * factor
        var out = [UInt8](repeating: 0, count: w * h)
        f.withUnsafeBytes { src in
            for y in 0..<h {
                let sy = (Double(y) + 0.5) / Double(factor) - 0.5
                let y0 = max(0, min(f.height - 1, floorInt(sy))), y1 = min(f.height - 1, y0 + 1)
                let fy = max(0, sy - Double(y0))
                for x in 0..<w {
                    let sx = (Double(x) + 0.5) / Double(factor) - 0.5
                    let x0 = max(0, min(f.width - 1, floorInt(sx))), x1 = min(f.width - 1, x0 + 1)
                    let fx = max(0, sx - Double(x0))
                    out[y * w + x] = bilinear(src, f.stride, x0, x1, y0, y1, fx, fy)
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// `resize(f, factor: 2)` in integers, pixel for pixel the same: at twice the size each new
    /// pixel lies a quarter or three quarters of the way between old ones (clamped at the edges),
    /// so its value is a sum of sixteenths, rounded half up as `bilinear` rounds it. Every crop
    /// of a small code is enlarged so, in the passes and in a read's confirmation. Each new row
    /// is first blended down the two old rows it lies between, then across: the same sums.
    static func doubledBilinear(_ f: GrayFrame) -> GrayFrame {
        let w = f.width * 2, h = f.height * 2, fw = f.width
        guard f.width > 0, f.height > 0 else { return GrayFrame(width: w, height: h, pixels: []) }
        var out = [UInt8](repeating: 0, count: w * h)
        var down = [UInt16](repeating: 0, count: fw)
        // For new row y: the two old rows and the second one's weight in quarters.
        func taps(_ y: Int) -> (Int, Int, Int) {
            let i = y / 2
            if y % 2 == 1 { return (i, min(f.height - 1, i + 1), 1) }
            return i == 0 ? (0, min(f.height - 1, 1), 0) : (i - 1, i, 3)
        }
        f.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { dst in
                down.withUnsafeMutableBufferPointer { v in
                    for y in 0..<h {
                        let (y0, y1, wy) = taps(y)
                        let r0 = y0 * f.stride, r1 = y1 * f.stride, row = y * w
                        let a = UInt16(4 - wy), b = UInt16(wy)
                        for x in 0..<fw { v[x] = UInt16(src[r0 + x]) &* a &+ UInt16(src[r1 + x]) &* b }
                        // Across: new column 2x+1 is 3/4 old column x and 1/4 the next, 2x+2
                        // the other way round; the first and the last repeat the edge column.
                        dst[row] = UInt8(truncatingIfNeeded: (v[0] &* 4 &+ 8) >> 4)
                        for x in 0..<(fw - 1) {
                            let left = v[x], right = v[x + 1]
                            dst[row + 2 * x + 1] = UInt8(truncatingIfNeeded: (left &* 3 &+ right &+ 8) >> 4)
                            dst[row + 2 * x + 2] = UInt8(truncatingIfNeeded: (left &+ right &* 3 &+ 8) >> 4)
                        }
                        dst[row + w - 1] = UInt8(truncatingIfNeeded: (v[fw - 1] &* 4 &+ 8) >> 4)
                    }
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// 2x2 box downscaling.
    static func halve(_ f: GrayFrame) -> GrayFrame {
        let w = f.width / 2, h = f.height / 2
        var out = [UInt8](repeating: 0, count: w * h)
        f.withUnsafeBytes { src in
            for y in 0..<h {
                for x in 0..<w {
                    let i = 2 * y * f.stride + 2 * x
                    let sum = Int(src[i]) + Int(src[i + 1]) + Int(src[i + f.stride]) + Int(src[i + f.stride + 1])
                    out[y * w + x] = UInt8(sum / 4)
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// The frame enlarged `scale` times with bicubic interpolation (Keys' kernel, a = -0.75, as
    /// OpenCV's `INTER_CUBIC`; pixel centres aligned, edges clamped): steeper module edges than
    /// bilinear, with a slight overshoot at each. Separable: across each source row first, then
    /// down, with each output column's and row's four taps worked out once. The source rows
    /// filtered across are kept in a ring of the four an output row takes (four consecutive
    /// rows, edges clamped), each filtered once.
    static func cubic(_ f: GrayFrame, scale: Double) -> GrayFrame {
        let w = Int((Double(f.width) * scale).rounded(.toNearestOrEven)), h = Int((Double(f.height) * scale).rounded(.toNearestOrEven))
        guard f.width > 0, f.height > 0, w > 0, h > 0 else { return GrayFrame(width: 0, height: 0, pixels: []) }
        let (cx, wx) = cubicTaps(count: w, source: f.width, scale: scale)
        let (cy, wy) = cubicTaps(count: h, source: f.height, scale: scale)
        var out = [UInt8](repeating: 0, count: w * h)
        // The ring's rows, the source row each holds (-1: none yet), and a row's values before
        // they are bytes.
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: 4 * w), line = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { ring.deallocate(); line.deallocate() }
        var held = (-1, -1, -1, -1)
        cx.withUnsafeBufferPointer { cx in
            wx.withUnsafeBufferPointer { wx in
                f.withUnsafeBytes { p in
                    // Source row j filtered across, in its slot of the ring.
                    func across(_ j: Int) -> UnsafePointer<Float> {
                        let a = ring + (j & 3) &* w
                        let wasHeld: Int
                        switch j & 3 {
                        case 0: wasHeld = held.0; held.0 = j
                        case 1: wasHeld = held.1; held.1 = j
                        case 2: wasHeld = held.2; held.2 = j
                        default: wasHeld = held.3; held.3 = j
                        }
                        guard wasHeld != j else { return UnsafePointer(a) }
                        let row = j &* f.stride
                        for x in 0..<w {
                            let t = 4 &* x
                            a[x] = wx[t] * Float(p[row &+ cx[t]]) + wx[t &+ 1] * Float(p[row &+ cx[t &+ 1]])
                                + wx[t &+ 2] * Float(p[row &+ cx[t &+ 2]]) + wx[t &+ 3] * Float(p[row &+ cx[t &+ 3]])
                        }
                        return UnsafePointer(a)
                    }
                    out.withUnsafeMutableBufferPointer { o in
                        for y in 0..<h {
                            let t = 4 * y
                            let a0 = across(cy[t]), a1 = across(cy[t + 1]), a2 = across(cy[t + 2]), a3 = across(cy[t + 3])
                            let k0 = wy[t], k1 = wy[t + 1], k2 = wy[t + 2], k3 = wy[t + 3]
                            let row = o.baseAddress! + y &* w
                            var x = 0
                            while x &+ Lanes.count <= w {
                                (k0 * Lanes.load(a0 + x) + k1 * Lanes.load(a1 + x) + k2 * Lanes.load(a2 + x) + k3 * Lanes.load(a3 + x)).store(line + x)
                                x &+= Lanes.count
                            }
                            for x in 0..<x { row[x] = UInt8(max(0, min(255, line[x] + 0.5))) }
                            while x < w {
                                let v = k0 * a0[x] + k1 * a1[x] + k2 * a2[x] + k3 * a3[x]
                                row[x] = UInt8(max(0, min(255, v + 0.5)))
                                x &+= 1
                            }
                        }
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
