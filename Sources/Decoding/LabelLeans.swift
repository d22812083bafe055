import ScanCore

/// The digits' leans along the bars: two labels laid in line but turned a little apart
/// (`JoinedHalves.Ends.leansApart`).
extension JoinedHalves.Ends {
    /// Whether the bars lean one way up to a digit and another way from it on: two labels
    /// laid in line but turned a little apart (a tryout's torn labels: 0.5-1.5°), where the
    /// tear digit fits on some lines and every other digit on all of them. Each digit's lean
    /// is the slope of its place over the lines (pixels along the line per pixel along the
    /// bars); one code's leans change evenly along it (a perspective fans its bars out), so
    /// they are fitted as a straight line over the digits' middles with a step between two
    /// digits (two or more each side), the digit each side of the step left out or not (the
    /// tear digit shows both labels' bars, its lean between theirs). A read leans apart where
    /// some step is `leanScore` times its fit's scatter (at least `leanFloor`), and a digit
    /// at the step misfits on two lines or more (the tear; 2-14 lines on the joined reads
    /// of the sets). On 889 reads of 12 digits (tornjoin 6060 and 9292, retail 5959 and
    /// 8181, zxing-cpp's and the scenes' EAN/UPC photos) the 12 joined reads' steps scored
    /// 17-50, the real ones' 13 at most; a real read beside a label pasted over it at a
    /// slant (`make-stacked-labels.py` 9393, 0193) scored 16, and none of its lines misfits.
    var leansApart: Bool {
        guard middles.count == 12, places.count >= 5 else { return false }
        let fits = middles.indices.map { digit in
            JoinedHalves.straightFit(places.compactMap { p in p.at[digit].map { (x: p.t, y: $0) } })
        }
        // A digit whose places scatter off a straight line is not one label's all along its
        // bars: the tear digit, or a real code's digits that a torn label covers on some lines
        // (their places bend where its edge crosses them; make-retail-layouts.py OUT 100 1357
        // tornjoin, 0005: 0.35-0.38 px where the code's other digits scatter 0.06-0.20). Each
        // label's own digits scatter alike.
        let scatters = fits.compactMap { $0?.scatter }.sorted()
        guard !scatters.isEmpty else { return false }
        let most = min(Self.placeScatter, max(Self.placeScatter / 2, 2 * scatters[scatters.count / 2]))
        let kept = middles.indices.compactMap { digit -> (middle: Double, lean: Double, digit: Int)? in
            guard let fit = fits[digit], fit.scatter < most else { return nil }
            return (middles[digit], fit.slope, digit)
        }
        guard kept.count >= 7 else { return false }
        for split in 2...(middles.count - 2) {
            for left in [nil, split - 1, split] {
                let used = kept.filter { $0.digit != left }
                let after = used.map { $0.digit >= split ? 1.0 : 0.0 }
                let count = after.reduce(0, +)
                guard count >= 2, count <= Double(used.count - 2),
                      let fit = JoinedHalves.leastSquares([used.map { _ in 1.0 }, used.map(\.middle), after], used.map(\.lean)) else { continue }
                let scatter = (fit.rss / Double(used.count - 3)).squareRoot()
                // The two parts meet at a tear: a digit there misfits on some lines.
                let tear = max(0, split - 2)...min(middles.count - 1, split + 1)
                if abs(fit.coefficients[2]) >= Self.leanScore * max(scatter, Self.leanFloor),
                   tear.contains(where: { misfitting.indices.contains($0) && misfitting[$0] >= 2 }) { return true }
            }
        }
        return false
    }

    /// The most a digit's places may scatter off a straight line, in pixels; less (twice the
    /// median digit's scatter, down to half of this) where the code's digits scatter less.
    static let placeScatter = 0.4
    /// How many times its fit's scatter a step in lean must be.
    static let leanScore = 15.0
    /// The least scatter of leans `leansApart` counts with (the finest the lines measure):
    /// a step of 0.0075 (0.43°) at least.
    static let leanFloor = 0.0005
}

extension JoinedHalves {
    /// Where `pattern` (a digit's, with the modules either side of it from the code's
    /// `whole` pattern) best fits a line near its place, `offset` modules past `start` at
    /// `width` pixels a module: the digit's middle in pixels along the line, to a tenth of a
    /// pixel or better (the best of steps a twentieth of a module apart, within three quarters
    /// of a module, refined on a parabola through it and its neighbours).
    static func digitPlace(_ d: EANVerifier.Profile, start: Double, width: Double, offset: Int, _ pattern: ArraySlice<Bool>,
                           in whole: [Bool], buffer m: inout [Double]) -> Double? {
        // Asked for every digit on every line: no arrays.
        let ideal = EANVerifier.nineModules(offset, pattern, in: whole)
        func error(_ step: Int) -> Double? {
            let shift = Double(step) * 0.05
            guard EANVerifier.moduleMeans(d, start: start + (Double(offset) + shift - 1) * width, width: width, count: 9, into: &m) else { return nil }
            var e = 0.0
            for k in 0..<9 { let x = m[k] - Double((ideal >> k) & 1); e += x * x }
            return e
        }
        var best: (step: Int, error: Double)? = nil
        for step in -15...15 {
            if let e = error(step), e < (best?.error ?? .infinity) { best = (step, e) }
        }
        guard let best else { return nil }
        var shift = Double(best.step) * 0.05
        if abs(best.step) < 15, let a = error(best.step - 1), let c = error(best.step + 1), a - 2 * best.error + c > 0 {
            shift += 0.05 * 0.5 * (a - c) / (a - 2 * best.error + c)
        }
        return start + (Double(offset) + shift + 3.5) * width
    }

    /// The straight line through `points` (least squares): its slope and the root mean square
    /// of the points' distances from it (in y); nil for fewer than three points or one x.
    static func straightFit(_ points: [(x: Double, y: Double)]) -> (slope: Double, scatter: Double)? {
        guard points.count >= 3, let fit = leastSquares([points.map { _ in 1.0 }, points.map(\.x)], points.map(\.y)) else { return nil }
        return (fit.coefficients[1], (fit.rss / Double(points.count)).squareRoot())
    }

    /// The least-squares fit of `y` by the `columns` (each as long as `y`): the coefficients
    /// and the residual sum of squares; nil where the columns do not tell the coefficients apart.
    static func leastSquares(_ columns: [[Double]], _ y: [Double]) -> (coefficients: [Double], rss: Double)? {
        let k = columns.count
        guard k > 0, y.count >= k else { return nil }
        // The normal equations, solved by elimination with partial pivoting.
        var a = (0..<k).map { i in (0..<k).map { j in zip(columns[i], columns[j]).reduce(0) { $0 + $1.0 * $1.1 } } + [zip(columns[i], y).reduce(0) { $0 + $1.0 * $1.1 }] }
        for col in 0..<k {
            guard let pivot = (col..<k).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-12 else { return nil }
            a.swapAt(col, pivot)
            for row in 0..<k where row != col {
                let f = a[row][col] / a[col][col]
                for j in col...k { a[row][j] -= f * a[col][j] }
            }
        }
        let c = (0..<k).map { a[$0][k] / a[$0][$0] }
        var rss = 0.0
        for (i, value) in y.enumerated() {
            var e = value
            for j in 0..<k { e -= c[j] * columns[j][i] }
            rss += e * e
        }
        return (c, rss)
    }
}
