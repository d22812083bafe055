import Glibc
import ScanHardware

/// An Aztec code drawn again from its bullseye, module by module, on a clean grid.
///
/// zxing 1.4's Aztec detector reads a code drawn with hard module edges but misses the same code
/// once it was resampled (scaled by a camera or a printer, blurred, turned a few degrees): it
/// extrapolates the whole grid from the bullseye's corners, and a pixel off there is half a
/// module off at the code's edge. Here the grid comes from many points instead: along rays from
/// the bullseye's centre (its rings are one module each) the edges between rings, where a
/// profile crosses the middle of its dark and light levels, at known module positions; a
/// projective map fitted to them (least squares) carries module centres to the image, which
/// also covers perspective. Each module is sampled at its centre and drawn as a square of
/// pixels; an inverted code (light centre) is drawn dark on light. The engine then reads a
/// code that looks printed.
enum AztecGrid {
    /// Light modules around the sampled grid.
    static let quietModules = 3

    /// A code drawn again: one pixel per module (centre module at the middle), and the grid
    /// that carries module coordinates (centre 0,0) to the frame.
    struct Drawing {
        var modules: GrayFrame
        var grid: Grid
        /// Modules from the drawing's edge to the centre module.
        var offset: Int
    }

    /// The code around the bullseye at (`x`, `y`) with modules of about `module` pixels, drawn
    /// again out to `radius` modules from the centre: thresholded at the rings' middle level, and
    /// as sampled (stretched from the dark to the light level), for each grid the rings give
    /// (none when they do not give a consistent one).
    static func redrawn(_ f: GrayFrame, x: Double, y: Double, module: Double, radius: Int = 20) -> [Drawing] {
        guard module >= 1.2, module < 1000, radius >= 1, x >= 0, y >= 0, x < Double(f.width), y < Double(f.height) else { return [] }
        return Grid.fit(f, x: x, y: y, module: module).flatMap { drawn(f, $0, radius: radius) }
    }

    static func drawn(_ f: GrayFrame, _ grid: Grid, radius: Int) -> [Drawing] {
        let side = 2 * (radius + quietModules) + 1
        var samples = [Double](repeating: grid.light, count: side * side)
        f.withUnsafeBytes { p in
            for j in -radius...radius {
                for i in -radius...radius {
                    let (px, py) = grid.map(Double(i), Double(j))
                    guard let v = sample(p, f, px, py) else { continue }
                    samples[(j + radius + quietModules) * side + i + radius + quietModules] = v
                }
            }
        }
        let mid = (grid.dark + grid.light) / 2, inverted = grid.dark > grid.light
        let grey = samples.map { v -> UInt8 in
            let t = (v - grid.dark) / (grid.light - grid.dark)
            return UInt8(max(0, min(255, (t * 255).rounded())))
        }
        let binary = samples.map { v -> UInt8 in (v < mid) != inverted ? 0 : 255 }
        return [binary, grey].map { Drawing(modules: GrayFrame(width: side, height: side, pixels: $0), grid: grid, offset: radius + quietModules) }
    }

    /// The code around the bullseye seen square-on: the image warped through each grid the
    /// rings give (out to each of `radii` modules, `ppm` pixels a module, bilinear, light outside
    /// the frame), so that the engine's own detector, which copes with a little skew but not with
    /// a steep slant, finds the code. With the map from warped pixels to frame points. A window
    /// that cuts a large code's edge loses it; one far wider than a small code takes in the
    /// grid's error where the code is not: so more than one.
    static func rectified(_ f: GrayFrame, x: Double, y: Double, module: Double, radii: [Int] = [20, 32], ppm: Int = 5)
        -> [(frame: GrayFrame, map: @Sendable (Double, Double) -> (Double, Double))] {
        guard module >= 1.2, module < 1000, radii.allSatisfy({ (1...64).contains($0) }), (1...16).contains(ppm),
              x >= 0, y >= 0, x < Double(f.width), y < Double(f.height) else { return [] }
        let grids = Grid.fit(f, x: x, y: y, module: module)
        // Only the projective grid where there is one: the affine one is what the frame is.
        return grids.suffix(1).flatMap { grid in radii.map { radius in (grid, radius) } }.map { grid, radius in
            let side = (2 * (radius + quietModules) + 1) * ppm
            let offset = Double(radius + quietModules) + 0.5, scale = Double(ppm)
            var out = [UInt8](repeating: UInt8(max(0, min(255, grid.light.rounded()))), count: side * side)
            f.withUnsafeBytes { p in
                for v in 0..<side {
                    for u in 0..<side {
                        let (px, py) = grid.map((Double(u) + 0.5) / scale - offset, (Double(v) + 0.5) / scale - offset)
                        if let s = sample(p, f, px, py) { out[v * side + u] = UInt8(max(0, min(255, s.rounded()))) }
                    }
                }
            }
            return (GrayFrame(width: side, height: side, pixels: out), { u, v in grid.map(u / scale - offset, v / scale - offset) })
        }
    }

    /// The grey level at an image point (bilinear), nil outside the image.
    static func sample(_ p: UnsafeRawBufferPointer, _ f: GrayFrame, _ x: Double, _ y: Double) -> Double? {
        guard f.width >= 2, f.height >= 2, x >= 0, y >= 0, x <= Double(f.width - 1), y <= Double(f.height - 1) else { return nil }
        let x0 = min(f.width - 2, Int(x)), y0 = min(f.height - 2, Int(y))
        let fx = x - Double(x0), fy = y - Double(y0)
        let a = Double(p[y0 * f.stride + x0]), b = Double(p[y0 * f.stride + x0 + 1])
        let c = Double(p[(y0 + 1) * f.stride + x0]), d = Double(p[(y0 + 1) * f.stride + x0 + 1])
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }

    /// Module coordinates (centre 0,0; one unit a module) to image points: a projective map.
    struct Grid: Sendable {
        var h: [Double] // h11 h12 h13 h21 h22 h23 h31 h32 (h33 = 1)
        var dark: Double, light: Double

        func map(_ i: Double, _ j: Double) -> (Double, Double) {
            let w = h[6] * i + h[7] * j + 1
            return ((h[0] * i + h[1] * j + h[2]) / w, (h[3] * i + h[4] * j + h[5]) / w)
        }

        /// The grid from the bullseye's ring edges, or nil when they do not fit one.
        static func fit(_ f: GrayFrame, x cx: Double, y cy: Double, module m: Double) -> [Grid] {
            guard f.width >= 16, f.height >= 16 else { return [] }
            return f.withUnsafeBytes { p -> [Grid] in
                let angle = ringAngle(p, f, cx, cy, m)
                let u = (cos(angle), sin(angle)), v = (-sin(angle), cos(angle))
                // Dark and light levels: the centre module and the first ring.
                guard let centre = sample(p, f, cx, cy) else { return [] }
                var ringLevel = 0.0, n = 0.0
                for k in 0..<8 {
                    let a = Double(k) * .pi / 4
                    if let s = sample(p, f, cx + m * cos(a), cy + m * sin(a)) { ringLevel += s; n += 1 }
                }
                guard n > 0 else { return [] }
                ringLevel /= n
                guard abs(ringLevel - centre) >= 12 else { return [] }
                let mid = (centre + ringLevel) / 2
                // Ring centres: along each axis from the centre (and one module beside it), the
                // crossings of the middle level, and half-way between two crossings the middle of
                // a ring (ink spread or a blur moves edges, not the middles of rings).
                var from: [(Double, Double)] = [], to: [(Double, Double)] = []
                var firstEdges: [Double] = []
                for (dx, dy, sx, sy) in [(u.0, u.1, 1.0, 0.0), (-u.0, -u.1, -1.0, 0.0), (v.0, v.1, 0.0, 1.0), (-v.0, -v.1, 0.0, -1.0)] {
                    // Along the axis: edges at 0.5 ... 3.5 modules; the scale measured here
                    // (between edges of the same kind) places the offset rays' rings.
                    let edges = Array(Self.crossings(p, f, cx, cy, dx, dy, mid, reach: 4.2 * m).prefix(4))
                    guard edges.count == 4 else { return [] }
                    let step = (edges[3] - edges[1]) / 2
                    guard step > 0.5 * m, step < 1.6 * m, edges[0] < step else { return [] }
                    firstEdges.append(edges[0])
                    for k in 1...3 {
                        let d = (edges[k - 1] + edges[k]) / 2
                        from.append((sx * Double(k), sy * Double(k))); to.append((cx + dx * d, cy + dy * d))
                    }
                    // One module to each side (in the first light ring): edges at 1.5, 2.5, 3.5.
                    for side in [-1.0, 1.0] {
                        let ox = cx - dy * side * step, oy = cy + dx * side * step
                        let c = Self.crossings(p, f, ox, oy, dx, dy, mid, reach: 4.2 * step)
                        let found = (1...3).map { k -> Double? in
                            let want = (Double(k) + 0.5) * step
                            guard let d = c.min(by: { abs($0 - want) < abs($1 - want) }), abs(d - want) < 0.4 * step else { return nil }
                            return d
                        }
                        for k in 2...3 {
                            guard let a = found[k - 2], let b = found[k - 1] else { continue }
                            let d = (a + b) / 2
                            from.append((sx * Double(k) - sy * side, sy * Double(k) + sx * side))
                            to.append((ox + dx * d, oy + dy * d))
                        }
                    }
                }
                // The centre module's middle, from its edges on both sides of each axis.
                from.append((0, 0))
                to.append((cx + (u.0 * (firstEdges[0] - firstEdges[1]) + v.0 * (firstEdges[2] - firstEdges[3])) / 2,
                           cy + (u.1 * (firstEdges[0] - firstEdges[1]) + v.1 * (firstEdges[2] - firstEdges[3])) / 2))
                // Affine first; projective too where the code is seen at a slant (the rings give
                // little to tell the two apart, so both are drawn).
                return [false, true].compactMap { perspective -> Grid? in
                    guard let h = homography(from, to, perspective: perspective) else { return nil }
                    let grid = Grid(h: h, dark: centre, light: ringLevel)
                    // The fit must explain the rings to within a third of a module.
                    let err = zip(from, to).map { a, b -> Double in
                        let (x, y) = grid.map(a.0, a.1)
                        return (x - b.0) * (x - b.0) + (y - b.1) * (y - b.1)
                    }
                    return (err.reduce(0, +) / Double(err.count)).squareRoot() < m / 3 ? grid : nil
                }
            }
        }

        /// Distances along a ray where the profile crosses `level` (sub-pixel), nearest first.
        static func crossings(_ p: UnsafeRawBufferPointer, _ f: GrayFrame, _ x: Double, _ y: Double,
                              _ dx: Double, _ dy: Double, _ level: Double, reach: Double) -> [Double] {
            var out: [Double] = []
            let step = 0.25
            guard var previous = sample(p, f, x, y) else { return [] }
            // A sample exactly at the level (a hard edge met half-way) counts as above it, so
            // the crossing is still seen.
            let side = { (v: Double) -> Double in v == level ? 1e-9 : v - level }
            var t = step
            while t <= reach {
                guard let v = sample(p, f, x + dx * t, y + dy * t) else { break }
                if side(previous) * side(v) < 0 {
                    out.append(t - step + step * (previous - level) / (previous - v))
                }
                previous = v
                t += step
            }
            return out
        }

        /// The turn of the rings' edges, modulo a right angle: the gradients' directions taken
        /// four times round (so the four sides of a square agree), weighted by strength.
        static func ringAngle(_ p: UnsafeRawBufferPointer, _ f: GrayFrame, _ cx: Double, _ cy: Double, _ m: Double) -> Double {
            let r = Int((4 * m).rounded())
            var c4 = 0.0, s4 = 0.0
            for y in max(1, Int(cy) - r)...min(f.height - 2, Int(cy) + r) {
                for x in max(1, Int(cx) - r)...min(f.width - 2, Int(cx) + r) {
                    let gx = Double(p[y * f.stride + x + 1]) - Double(p[y * f.stride + x - 1])
                    let gy = Double(p[(y + 1) * f.stride + x]) - Double(p[(y - 1) * f.stride + x])
                    let r2 = gx * gx + gy * gy
                    guard r2 > 0 else { continue }
                    let gx2 = gx * gx, gy2 = gy * gy
                    c4 += (gx2 * gx2 - 6 * gx2 * gy2 + gy2 * gy2) / r2
                    s4 += 4 * gx * gy * (gx2 - gy2) / r2
                }
            }
            return atan2(s4, c4) / 4
        }

        /// The map taking each `from` point to its `to` point (least squares): affine, or with
        /// `perspective` projective; nil when the points do not determine it.
        static func homography(_ from: [(Double, Double)], _ to: [(Double, Double)], perspective: Bool) -> [Double]? {
            guard from.count >= (perspective ? 4 : 3) else { return nil }
            let n = perspective ? 8 : 6
            // Image points relative to the last (the centre), for conditioning.
            let ox = to[to.count - 1].0, oy = to[to.count - 1].1
            var ata = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
            var atb = [Double](repeating: 0, count: n)
            for (a, b) in zip(from, to) {
                let (x, y) = a, X = b.0 - ox, Y = b.1 - oy
                for (row, rhs) in [([x, y, 1, 0, 0, 0, -X * x, -X * y], X), ([0, 0, 0, x, y, 1, -Y * x, -Y * y], Y)] {
                    for i in 0..<n {
                        atb[i] += row[i] * rhs
                        for j in 0..<n { ata[i][j] += row[i] * row[j] }
                    }
                }
            }
            guard var h = solve(ata, atb) else { return nil }
            if !perspective { h += [0, 0] }
            // Shift back: X + ox = (h1 x + h2 y + h3 + ox w) / w.
            for k in 0..<3 { h[k] += ox * [h[6], h[7], 1][k]; h[3 + k] += oy * [h[6], h[7], 1][k] }
            return h
        }

        /// Gaussian elimination with partial pivoting; nil for a singular system.
        static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
            var a = a, b = b
            let n = b.count
            for c in 0..<n {
                guard let p = (c..<n).max(by: { abs(a[$0][c]) < abs(a[$1][c]) }), abs(a[p][c]) > 1e-9 else { return nil }
                a.swapAt(c, p); b.swapAt(c, p)
                for r in (c + 1)..<n {
                    let k = a[r][c] / a[c][c]
                    guard k != 0 else { continue }
                    for j in c..<n { a[r][j] -= k * a[c][j] }
                    b[r] -= k * b[c]
                }
            }
            var x = [Double](repeating: 0, count: n)
            for r in stride(from: n - 1, through: 0, by: -1) {
                x[r] = (b[r] - ((r + 1)..<n).reduce(0) { $0 + a[r][$1] * x[$1] }) / a[r][r]
            }
            return x.allSatisfy(\.isFinite) ? x : nil
        }
    }
}
