import Glibc
import ScanHardware

/// The plane geometry `DataMatrixGrid` finds a code with: the ink's connected parts, their
/// convex hull and smallest enclosing rectangle, lines fitted through points and where they cross.
extension DataMatrixGrid {
    static func centre(_ p: [(Double, Double)]) -> (Double, Double) {
        // The diagonals' crossing: the middle of a quadrilateral under perspective.
        intersect((p[0].0, p[0].1, p[2].0 - p[0].0, p[2].1 - p[0].1), (p[1].0, p[1].1, p[3].0 - p[1].0, p[3].1 - p[1].1))
            ?? ((p[0].0 + p[2].0) / 2, (p[0].1 + p[2].1) / 2)
    }

    /// The ink pixels of the three largest connected parts (of 64 pixels or more), gaps of up
    /// to `gap` pixels bridged: those that do not touch the crop's edge first (the ground
    /// around a label, lighter or darker than it, does).
    static func largestParts(_ ink: [Bool], _ w: Int, _ h: Int, gap: Int) -> [[(Int, Int)]] {
        var label = [Bool](repeating: false, count: w * h)
        var parts: [(points: [(Int, Int)], touches: Bool)] = []
        for start in 0..<(w * h) where ink[start] && !label[start] {
            var part: [(Int, Int)] = []
            var touches = false
            var stack = [start]
            label[start] = true
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                part.append((x, y))
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 { touches = true }
                for ny in max(0, y - gap)...min(h - 1, y + gap) {
                    for nx in max(0, x - gap)...min(w - 1, x + gap) {
                        let j = ny * w + nx
                        if ink[j] && !label[j] { label[j] = true; stack.append(j) }
                    }
                }
            }
            if part.count >= 64 { parts.append((part, touches)) }
        }
        return parts.sorted { a, b in a.touches != b.touches ? !a.touches : a.points.count > b.points.count }.prefix(3).map(\.points)
    }

    /// The convex hull (monotone chain), counter-clockwise in image coordinates.
    static func convexHull(_ points: [(Int, Int)]) -> [(Double, Double)] {
        // Only each row's leftmost and rightmost point can be on the hull: a large part's
        // hull from a few hundred points, not all its pixels.
        var ends: [Int: (Int, Int)] = [:]
        for (x, y) in points {
            if let e = ends[y] { ends[y] = (min(e.0, x), max(e.1, x)) } else { ends[y] = (x, x) }
        }
        var p: [(Int, Int)] = []
        for (y, e) in ends {
            p.append((e.0, y))
            if e.1 != e.0 { p.append((e.1, y)) }
        }
        p.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        guard p.count >= 3 else { return p.map { (Double($0.0), Double($0.1)) } }
        func cross(_ o: (Int, Int), _ a: (Int, Int), _ b: (Int, Int)) -> Int { (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0) }
        var lower: [(Int, Int)] = [], upper: [(Int, Int)] = []
        for q in p {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], q) <= 0 { lower.removeLast() }
            lower.append(q)
        }
        for q in p.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], q) <= 0 { upper.removeLast() }
            upper.append(q)
        }
        return (lower.dropLast() + upper.dropLast()).map { (Double($0.0), Double($0.1)) }
    }

    /// The smallest rectangle around a convex hull (one side lies along a hull edge), as its
    /// corners in order.
    static func minimumRectangle(_ hull: [(Double, Double)]) -> [(Double, Double)]? {
        var best: (area: Double, corners: [(Double, Double)])?
        for k in 0..<hull.count {
            let a = hull[k], b = hull[(k + 1) % hull.count]
            let len = hypot(b.0 - a.0, b.1 - a.1)
            guard len > 0 else { continue }
            let u = ((b.0 - a.0) / len, (b.1 - a.1) / len), v = (-u.1, u.0)
            var minU = Double.infinity, maxU = -Double.infinity, minV = Double.infinity, maxV = -Double.infinity
            for p in hull {
                let pu = p.0 * u.0 + p.1 * u.1, pv = p.0 * v.0 + p.1 * v.1
                minU = min(minU, pu); maxU = max(maxU, pu); minV = min(minV, pv); maxV = max(maxV, pv)
            }
            let area = (maxU - minU) * (maxV - minV)
            if best == nil || area < best!.area {
                let corner = { (s: Double, t: Double) -> (Double, Double) in (s * u.0 + t * v.0, s * u.1 + t * v.1) }
                best = (area, [corner(minU, minV), corner(maxU, minV), corner(maxU, maxV), corner(minU, maxV)])
            }
        }
        return best?.corners
    }

    /// The line through points (total least squares): a point on it and its direction.
    static func fitLine(_ points: [(Int, Int)]) -> (px: Double, py: Double, dx: Double, dy: Double)? {
        let n = Double(points.count)
        let mx = points.reduce(0.0) { $0 + Double($1.0) } / n, my = points.reduce(0.0) { $0 + Double($1.1) } / n
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for p in points {
            let dx = Double(p.0) - mx, dy = Double(p.1) - my
            sxx += dx * dx; syy += dy * dy; sxy += dx * dy
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        guard angle.isFinite else { return nil }
        return (mx, my, cos(angle), sin(angle))
    }

    static func intersect(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> (Double, Double)? {
        let det = a.2 * b.3 - a.3 * b.2
        guard abs(det) > 1e-9 else { return nil }
        let t = ((b.0 - a.0) * b.3 - (b.1 - a.1) * b.2) / det
        return (a.0 + a.2 * t, a.1 + a.3 * t)
    }
}

extension PixelRect {
    /// How much of the smaller of two rectangles the other covers (0 to 1).
    func overlapShare(_ o: PixelRect) -> Double {
        let w = min(x + width, o.x + o.width) - max(x, o.x), h = min(y + height, o.y + o.height) - max(y, o.y)
        guard w > 0, h > 0 else { return 0 }
        return Double(w * h) / Double(max(1, min(width * height, o.width * o.height)))
    }
}
