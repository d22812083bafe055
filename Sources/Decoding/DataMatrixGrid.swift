import Glibc
import ScanHardware

/// A DataMatrix code drawn again from its finder, module by module, on a clean grid.
///
/// zxing 1.4's DataMatrix detector traces the code's edges on a binarized image; small modules
/// (under 3 pixels), sensor noise, a blur or a slant break the trace and nothing is read. Here the
/// code is found as one connected part of ink (pixels darker than their neighbourhood, or lighter
/// for a light-on-dark code) bridged over gaps of about a module; its smallest enclosing
/// rectangle gives the four sides, and along each side a line fitted through the middle of the
/// outer row of modules. The two sides that are nearly all ink are the L-shaped finder, the two
/// that alternate are the clock tracks, whose ink counts give the number of rows and columns
/// (snapped to the sizes DataMatrix has). The lines' crossings are the corner modules' centres;
/// a projective map through them carries every module's centre to the image, where it is
/// sampled (a few points averaged, against the noise) and drawn as a square of hard-edged
/// pixels. The engine then reads a code that looks printed; its error correction takes the
/// modules that were sampled wrong.
enum DataMatrixGrid {
    /// A code drawn again: one pixel per module inside a light border of `quiet` modules, and
    /// the map from drawing pixels (module units, drawing's origin) to frame points.
    struct Drawing {
        var modules: GrayFrame
        var map: @Sendable (Double, Double) -> (Double, Double)
    }

    static let quiet = 2

    /// Square sizes, then rectangular (rows x columns), that DataMatrix ECC 200 has.
    static let squares = [10, 12, 14, 16, 18, 20, 22, 24, 26, 32, 36, 40, 44, 48, 52, 64, 72, 80, 88, 96, 104, 120, 132, 144]
    static let rectangles: [(Int, Int)] = [(8, 18), (8, 32), (12, 26), (12, 36), (16, 36), (16, 48)]

    /// The code in `rect` of `f` drawn again, for each reading of its size that fits (none when
    /// no finder is found); `readings`: dark ink on light (false), light on dark (true);
    /// `shift`: added to both coordinates of the drawings' map (`f` a bordered frame).
    static func redrawn(_ f: GrayFrame, in rect: PixelRect, lightInk readings: [Bool] = [false, true], shift: Int = 0) -> [Drawing] {
        let r = rect.clamped(width: f.width, height: f.height)
        guard r.width >= 24, r.height >= 24, r.width * r.height <= 1_500_000 else { return [] }
        let crop = f.cropped(to: r)
        let smooth = IntegralImage(crop)
        let radius = max(8, min(crop.width, crop.height) / 8)
        var drawings: [Drawing] = []
        for lightInk in readings {
            var ink = [Bool](repeating: false, count: crop.width * crop.height)
            var inkCount = 0
            for y in 0..<crop.height {
                for x in 0..<crop.width {
                    let v = smooth.mean(x: x, y: y, radius: 1), around = smooth.mean(x: x, y: y, radius: radius)
                    let isInk = lightInk ? v > around + 6 : v < around - 6
                    if isInk { ink[y * crop.width + x] = true; inkCount += 1 }
                }
            }
            guard inkCount >= 64, let module = moduleSize(ink, crop.width, crop.height) else { continue }
            guard let quad = finderQuad(ink, crop.width, crop.height, module: module) else { continue }
            // Both readings of the ink are drawn: a dark-on-light reading of a light-on-dark
            // code can find an L too (its ground's edge), and only the engine tells them apart.
            // Each size drawn from the corners as fitted, then moved to where the finder and
            // clock tracks show best.
            drawings += sizes(quad, ink, crop, module: module, lightInk: lightInk).flatMap { size in
                let better = refined(crop, quad, rows: size.rows, columns: size.columns, lightInk: lightInk, module: module)
                return [quad, better].compactMap {
                    draw(crop, quad: $0, rows: size.rows, columns: size.columns, lightInk: lightInk, origin: (Double(r.x + shift), Double(r.y + shift)))
                }
            }
        }
        return drawings
    }

    /// About one module: a low quantile of the lengths of ink runs along rows and columns (most
    /// runs in a DataMatrix are one module long).
    static func moduleSize(_ ink: [Bool], _ w: Int, _ h: Int) -> Double? {
        guard w >= 2, h >= 2 else { return nil }
        // Every second row and column; a run that reaches the crop's edge is cut, not counted.
        let rows = stride(from: 0, to: h, by: 2).flatMap { y in RegionFinder.runs(count: w) { ink[y * w + $0] }.filter { $0.start + $0.length < w } }
        let columns = stride(from: 0, to: w, by: 2).flatMap { x in RegionFinder.runs(count: h) { ink[$0 * w + x] }.filter { $0.start + $0.length < h } }
        var lengths = (rows + columns).filter { $0.dark && $0.length >= 2 }.map(\.length)
        guard lengths.count >= 16 else { return nil }
        lengths.sort()
        return Double(lengths[lengths.count * 3 / 10])
    }

    /// The four sides of the code: lines through the middle of its outer modules, as corner
    /// module centres (clockwise from the first side found) with which sides are finder (all
    /// ink) and which clock track.
    struct Quad {
        /// Corner module centres, clockwise.
        var corners: [(Double, Double)]
        /// For each side i (corners i to i+1), how much of it is ink (finder ~1, clock ~0.5).
        var inkShare: [Double]
    }

    static func finderQuad(_ ink: [Bool], _ w: Int, _ h: Int, module m: Double) -> Quad? {
        for points in largestParts(ink, w, h, gap: max(1, min(4, Int(m.rounded())))) {
            if let q = finderQuad(points, ink, w, h, module: m) { return q }
        }
        return nil
    }

    static func finderQuad(_ points: [(Int, Int)], _ ink: [Bool], _ w: Int, _ h: Int, module m: Double) -> Quad? {
        let hull = convexHull(points)
        guard hull.count >= 4, let box = minimumRectangle(hull) else { return nil }
        // Each side: the ink within a module of it, a line fitted, then again nearer the line.
        var lines: [(px: Double, py: Double, dx: Double, dy: Double)] = []
        let cx = box.map(\.0).reduce(0, +) / 4, cy = box.map(\.1).reduce(0, +) / 4
        for i in 0..<4 {
            let a = box[i], b = box[(i + 1) % 4]
            let len = hypot(b.0 - a.0, b.1 - a.1)
            guard len > 4 * m else { return nil }
            let dir = ((b.0 - a.0) / len, (b.1 - a.1) / len)
            // Inward normal: towards the box's centre.
            var normal = (-dir.1, dir.0)
            if (cx - a.0) * normal.0 + (cy - a.1) * normal.1 < 0 { normal = (-normal.0, -normal.1) }
            var near = points.filter { p in
                let d = (Double(p.0) - a.0) * normal.0 + (Double(p.1) - a.1) * normal.1
                return d >= -0.5 && d < 0.9 * m
            }
            guard near.count >= 8, var line = fitLine(near) else { return nil }
            // Once more, with the points within half a module of that line's middle.
            near = points.filter { p in abs((Double(p.0) - line.px) * -line.dy + (Double(p.1) - line.py) * line.dx) < 0.6 * m }
            if near.count >= 8, let again = fitLine(near) { line = again }
            if line.dx * dir.0 + line.dy * dir.1 < 0 { line.dx = -line.dx; line.dy = -line.dy }
            lines.append(line)
        }
        var corners: [(Double, Double)] = []
        for i in 0..<4 {
            // Nearly parallel lines (a part that is no rectangle) cross far away: no code.
            guard let c = intersect(lines[(i + 3) % 4], lines[i]),
                  c.0 > -2 * m, c.1 > -2 * m, c.0 < Double(w) + 2 * m, c.1 < Double(h) + 2 * m else { return nil }
            corners.append(c)
        }
        // How much of each side (between its corner modules) is ink.
        let shares = (0..<4).map { i -> Double in
            let a = corners[i], b = corners[(i + 1) % 4]
            let inks = inkAlong(ink, w, h, from: a, to: b, count: max(8, Int(hypot(b.0 - a.0, b.1 - a.1))))
            return Double(inks.filter { $0 }.count) / Double(inks.count)
        }
        // The finder: two neighbouring sides nearly all ink; the clock tracks much less.
        let quad = Quad(corners: corners, inkShare: shares)
        guard let f = finderSide(quad) else { return nil }
        let finder = min(shares[f], shares[(f + 1) % 4]), clock = (shares[(f + 2) % 4] + shares[(f + 3) % 4]) / 2
        guard finder >= 0.8, clock <= 0.85, clock <= finder - 0.08 else { return nil }
        return quad
    }

    /// The rows and columns the clock tracks show, and the neighbouring DataMatrix sizes.
    static func sizes(_ q: Quad, _ ink: [Bool], _ crop: GrayFrame, module m: Double, lightInk: Bool = false) -> [(rows: Int, columns: Int)] {
        // Modules along a side: ink runs along a clock track, twice (a run is one dark module,
        // the light between is another).
        func count(_ i: Int) -> Int {
            let a = q.corners[i], b = q.corners[(i + 1) % 4]
            let inks = inkAlong(ink, crop.width, crop.height, from: a, to: b, count: max(16, Int(4 * hypot(b.0 - a.0, b.1 - a.1))))
            return 2 * RegionFinder.runs(count: inks.count) { inks[$0] }.filter(\.dark).count
        }
        // The same from the grey levels along the track (a blur that merges ink runs in the
        // thresholded image still leaves a dip at each ink module): dips below the middle of
        // the track's range, with a hysteresis of a tenth of it.
        func dips(_ i: Int) -> Int {
            let a = q.corners[i], b = q.corners[(i + 1) % 4]
            let points = along(a, b, count: max(16, Int(4 * hypot(b.0 - a.0, b.1 - a.1))))
            let profile = crop.withUnsafeBytes { p in
                points.compactMap { AztecGrid.sample(p, crop, $0.0, $0.1).map { lightInk ? -$0 : $0 } }
            }
            guard let lo = profile.min(), let hi = profile.max(), hi - lo >= 8 else { return 0 }
            let mid = (lo + hi) / 2, band = (hi - lo) / 10
            var runs = 0, inside = false
            for v in profile {
                if !inside && v < mid - band { inside = true; runs += 1 } else if inside && v > mid + band { inside = false }
            }
            return 2 * runs
        }
        // Corners run clockwise as seen; for a code not seen mirrored the finder's sides are,
        // in that order, its bottom row (corner `finder` to `finder + 1`, the L's corner) and
        // its left column; the clock tracks are the top row (`finder + 2`) and the right
        // column (`finder + 3`).
        guard let finder = finderSide(q) else { return [] }
        let top = (finder + 2) % 4, right = (finder + 3) % 4
        func length(_ i: Int) -> Double { hypot(q.corners[i].0 - q.corners[(i + 1) % 4].0, q.corners[i].1 - q.corners[(i + 1) % 4].1) }
        // Where a run was lost or split: the size from the length and the module size too.
        let counted = (rows: count(right), columns: count(top))
        let dipped = (rows: dips(right), columns: dips(top))
        let guessed = (rows: Int((length(right) / m).rounded()) + 1, columns: Int((length(top) / m).rounded()) + 1)
        // The sizes DataMatrix has, nearest a reading first (within four modules in all).
        let all = squares.map { ($0, $0) } + rectangles
        let scored = all.map { size -> (rows: Int, columns: Int, score: Int) in
            let score = [counted, dipped, guessed].map { abs($0.rows - size.0) + abs($0.columns - size.1) }.min()!
            return (size.0, size.1, score)
        }.sorted { $0.score < $1.score }
        // The nearest four (a wrong size gives a drawing the engine's error correction
        // refuses, at a fraction of a millisecond each).
        return scored.filter { $0.score <= 4 }.prefix(4).map { ($0.rows, $0.columns) }
    }

    /// `count` + 1 points evenly from `a` to `b`, both included.
    static func along(_ a: (Double, Double), _ b: (Double, Double), count n: Int) -> [(Double, Double)] {
        (0...n).map { k in
            let t = Double(k) / Double(n)
            return (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
        }
    }

    /// Whether each of `count` + 1 points from `a` to `b` is ink (nearest pixel; outside the
    /// crop is not).
    static func inkAlong(_ ink: [Bool], _ w: Int, _ h: Int, from a: (Double, Double), to b: (Double, Double), count n: Int) -> [Bool] {
        along(a, b, count: n).map { p in
            let x = Int(p.0.rounded()), y = Int(p.1.rounded())
            return x >= 0 && y >= 0 && x < w && y < h && ink[y * w + x]
        }
    }

    /// The side where the finder's bottom row starts: it and the next side nearly all ink.
    static func finderSide(_ q: Quad) -> Int? {
        (0..<4).max { q.inkShare[$0] + q.inkShare[($0 + 1) % 4] < q.inkShare[$1] + q.inkShare[($1 + 1) % 4] }
    }

    /// The code sampled and drawn: `columns` modules along the side from corner `finder + 2`,
    /// one pixel each, with the map back to frame points.
    /// The map from module (column, row) centres to the crop for a code of `rows` x `columns`
    /// whose corner modules' centres are `q`'s corners.
    static func grid(_ q: Quad, rows: Int, columns: Int) -> AztecGrid.Grid? {
        guard let finder = finderSide(q) else { return nil }
        // Module (column, row) centres at the corners: the finder's bottom-right end, its
        // corner (bottom left), its top end, and the clock tracks' corner (top right).
        let last = (Double(columns - 1), Double(rows - 1))
        let from: [(Double, Double)] = [(last.0, last.1), (0, last.1), (0, 0), (last.0, 0)]
        let to = (0..<4).map { q.corners[(finder + $0) % 4] }
        guard let h = AztecGrid.Grid.homography(from + [(last.0 / 2, last.1 / 2)], to + [centre(to)], perspective: true) else { return nil }
        return AztecGrid.Grid(h: h, dark: 0, light: 255)
    }

    /// How well the finder and the clock tracks show at the module centres `q` gives: the mean
    /// of their light modules less the mean of their ink modules (the other way round for light
    /// ink); nil when a centre falls outside the crop.
    static func edgeContrast(_ crop: GrayFrame, _ q: Quad, rows: Int, columns: Int, lightInk: Bool) -> Double? {
        guard let grid = grid(q, rows: rows, columns: columns) else { return nil }
        return crop.withUnsafeBytes { p -> Double? in
            var ink = 0.0, inkN = 0.0, paper = 0.0, paperN = 0.0
            func add(_ i: Int, _ j: Int, isInk: Bool) -> Bool {
                let (x, y) = grid.map(Double(i), Double(j))
                guard let v = AztecGrid.sample(p, crop, x, y) else { return false }
                if isInk { ink += v; inkN += 1 } else { paper += v; paperN += 1 }
                return true
            }
            for j in 0..<rows {
                guard add(0, j, isInk: true), add(columns - 1, rows - 1 - j, isInk: j % 2 == 0) else { return nil }
            }
            for i in 1..<columns {
                guard add(i, rows - 1, isInk: true), add(i, 0, isInk: i % 2 == 0) else { return nil }
            }
            // A large code's data regions have finders and clock tracks of their own, inside it.
            let (down, across) = regions(rows: rows, columns: columns)
            for k in 1..<max(1, down) {
                let edge = k * rows / down
                for i in 0..<columns {
                    guard add(i, edge - 1, isInk: true), add(i, edge, isInk: i % 2 == 0) else { return nil }
                }
            }
            for k in 1..<max(1, across) {
                let edge = k * columns / across
                for j in 0..<rows {
                    guard add(edge, j, isInk: true), add(edge - 1, rows - 1 - j, isInk: j % 2 == 0) else { return nil }
                }
            }
            guard inkN > 0, paperN > 0 else { return nil }
            let contrast = paper / paperN - ink / inkN
            return lightInk ? -contrast : contrast
        }
    }

    /// How many data regions a DataMatrix of `rows` x `columns` has down and across.
    static func regions(rows: Int, columns: Int) -> (down: Int, across: Int) {
        func split(_ n: Int) -> Int { n <= 26 ? 1 : n <= 56 ? 2 : n <= 104 ? 4 : 6 }
        return rows == columns ? (split(rows), split(columns)) : (1, columns >= 32 ? 2 : 1)
    }

    /// `q` with each corner moved to where the finder and clock tracks show best
    /// (`edgeContrast`): steps of half a module, then a quarter, then an eighth, each corner in
    /// turn. A corner line fitted a little off the modules' centres (ink spread, a blur, a
    /// printed code's uneven modules) shifts the whole grid by the time it reaches the far side
    /// of a large code.
    static func refined(_ crop: GrayFrame, _ q: Quad, rows: Int, columns: Int, lightInk: Bool, module m: Double) -> Quad {
        guard var bestScore = edgeContrast(crop, q, rows: rows, columns: columns, lightInk: lightInk) else { return q }
        var best = q
        for step in [0.5, 0.25, 0.125] {
            for k in 0..<4 {
                let base = best.corners[k]
                var chosen = best
                for dy in [-step, 0, step] {
                    for dx in [-step, 0, step] where dx != 0 || dy != 0 {
                        var trial = best
                        trial.corners[k] = (base.0 + dx * m, base.1 + dy * m)
                        if let score = edgeContrast(crop, trial, rows: rows, columns: columns, lightInk: lightInk), score > bestScore {
                            bestScore = score
                            chosen = trial
                        }
                    }
                }
                best = chosen
            }
        }
        return best
    }

    static func draw(_ crop: GrayFrame, quad q: Quad, rows: Int, columns: Int, lightInk: Bool, origin: (Double, Double)) -> Drawing? {
        guard let grid = grid(q, rows: rows, columns: columns) else { return nil }
        var samples = [Double](repeating: 0, count: rows * columns)
        let ok = crop.withUnsafeBytes { p -> Bool in
            for j in 0..<rows {
                for i in 0..<columns {
                    var sum = 0.0, n = 0.0
                    for (di, dj) in [(0.0, 0.0), (-0.2, -0.2), (0.2, -0.2), (-0.2, 0.2), (0.2, 0.2)] {
                        let (x, y) = grid.map(Double(i) + di, Double(j) + dj)
                        guard let v = AztecGrid.sample(p, crop, x, y) else { continue }
                        sum += v; n += 1
                    }
                    guard n > 0 else { return false }
                    samples[j * columns + i] = sum / n
                }
            }
            return true
        }
        guard ok else { return nil }
        // The threshold between the finder's ink and the clock track's light modules.
        var inkLevel = 0.0, inkN = 0.0
        for j in 0..<rows { inkLevel += samples[j * columns]; inkN += 1 }
        for i in 0..<columns { inkLevel += samples[(rows - 1) * columns + i]; inkN += 1 }
        var paperLevel = 0.0, paperN = 0.0
        for i in stride(from: 1, to: columns, by: 2) { paperLevel += samples[i]; paperN += 1 }
        for j in stride(from: 1, to: rows, by: 2) { paperLevel += samples[(rows - 1 - j) * columns + columns - 1]; paperN += 1 }
        let mid = (inkLevel / inkN + paperLevel / paperN) / 2
        guard abs(inkLevel / inkN - paperLevel / paperN) >= 10 else { return nil }
        let side = (columns + 2 * quiet, rows + 2 * quiet)
        var pixels = [UInt8](repeating: 255, count: side.0 * side.1)
        for j in 0..<rows {
            for i in 0..<columns where (samples[j * columns + i] < mid) != lightInk {
                pixels[(j + quiet) * side.0 + i + quiet] = 0
            }
        }
        let ox = origin.0, oy = origin.1
        return Drawing(modules: GrayFrame(width: side.0, height: side.1, pixels: pixels)) { u, v in
            let (x, y) = grid.map(u - Double(quiet) - 0.5, v - Double(quiet) - 0.5)
            return (x + ox, y + oy)
        }
    }
}
