import Glibc
import ScanCore
import ScanHardware

/// Whether an add-on stands square to its code: one printed with the code does (its bars
/// parallel to the code's, or fanned out as far as a perspective fans out the code's own bars);
/// one on a label torn over another code, laid in line with it, stands turned as the label was
/// laid (a label is seldom laid square to another).
extension AddOnReader {
    /// The least turn, in degrees, between an add-on's bars and the code's (carried on to the
    /// add-on) that makes it another label's. The add-ons read beside their own codes on the
    /// generated retail and tornjoin sets stand 0.3° off at most where the code's bars lean
    /// alike along it; those read beside another label's code, 0.6-1.4°.
    static let turnedDegrees = 0.3
    /// The most a lean's standard error (its slope's, pixels per pixel) and the fewest rows that
    /// leave it measured: an add-on crossed by clutter or read on a few rows is not judged.
    static let leanError = 0.0005, leanRows = 30

    /// Whether the add-on `addOn` read past `s`'s end stands turned against `s`'s bars: its lean
    /// differs by `turnedDegrees` from the code's lean at its end, and from the code's lean
    /// carried on to it from the code's two ends (`leanOff`) by that and by more than the code's
    /// lean changes from its end to the add-on (with three standard errors of that change: a
    /// perspective that the code's ends measure wrongly, a line or another label over its start,
    /// is given the benefit). False where the leans cannot be measured, or the code's ends lean
    /// as no perspective leans a code (another label over one of them).
    static func standsTurned(_ s: Symbol, addOn: String, in frame: GrayFrame, across: Double?) -> Bool {
        guard let g = Geometry(s, across: across), let rows = Rows(g, frame: frame),
              let own = codeRows(g, rows, in: frame), own.count >= 8,
              let l = leanOff(g, rows, code: own, addOn: addOn.count == 2 ? 20 : 47, in: frame),
              l.addOn.rows >= leanRows, l.addOn.error <= leanError, l.end.rows >= leanRows, l.end.error <= leanError else { return false }
        let degree = Double.pi / 180, least = turnedDegrees * degree
        let start = atan(l.start.slope), end = atan(l.end.slope), fromEnd = atan(l.addOn.slope) - end
        // The code's ends lean alike, or as a perspective leans them, by at most `fannedDegrees`:
        // a label laid 11° over a code's end leaned its own way there, 14° off the code's start
        // (make-retail-layouts.py tiltstack). (Their leans against the read's bars tell nothing:
        // the read's guards' lines can be 2° off both.)
        guard abs(end - start) <= fannedDegrees * degree else { return false }
        return abs(fromEnd) > least && abs(l.off) > max(least, abs(l.change) + 3 * l.changeError)
    }

    /// The most the code's leans at its two ends may differ, in degrees, for its add-on to be
    /// judged: a stronger fan is a perspective too strong to carry on (or no perspective).
    static let fannedDegrees = 5.0

    /// A lean: the slope of bars against the rows they were sampled on (pixels along the code per
    /// pixel along the bars), the slope's standard error, and the rows that measured it.
    struct Lean {
        let slope: Double, error: Double, rows: Int
    }

    /// The leans of `g`'s code at its start and end (its first and last `sameBack` modules, on
    /// its rows `own`) and of its add-on past it (`length` modules: 20 or 47), and where the
    /// code's bars would lean at the add-on's middle: the code's lean carried on along it (a
    /// perspective fans bars out evenly along a line). `off`: the add-on's lean less that, and
    /// `change`: that less the code's lean at its end, with its standard error, in radians. Nil
    /// where a lean cannot be measured.
    static func leanOff(_ g: Geometry, _ rows: Rows, code own: ClosedRange<Int>, addOn length: Int, in frame: GrayFrame)
        -> (off: Double, change: Double, changeError: Double, start: Lean, end: Lean, addOn: Lean)? {
        guard let band = rows.barBand(sharing: own), band.count >= 8 else { return nil }
        let reach = (rows.values.count - 1) / 2
        let span = 2 * Int(sameBack)
        let atEnd = endRows(g, rows, in: frame)
        let atStart = Rows.sampled(frame, from: g.start, along: g.along, step: g.module / 2, count: span, bars: g.bars, rows: reach)
        // The add-on's place: from its first bar (the profile's first sample past the code as
        // dark as halfway from the quiet zone to the darkest bar) on for its length; past it may
        // lie another code's bars.
        let profile = rows.profile(over: band)
        let searched = Int(rows.firstStart)..<min(Int(rows.lastStart + 47 * perModule), profile.count)
        guard searched.count > 8, let light = profile[searched].max(), let dark = profile[searched].min(), light - dark > 20,
              let first = searched.first(where: { profile[$0] < (light + dark) / 2 }) else { return nil }
        let place = max(0, first - Int(perModule))..<min(profile.count, first + Int((Double(length) + 1) * perModule))
        guard let b = lean(atStart, rows: own, span: 0..<span, step: g.module / 2),
              let e = lean(atEnd, rows: own, span: 0..<span, step: g.module / 2),
              let a = lean(rows.values, rows: band.lowerBound...(band.upperBound - 1), span: place, step: g.module / perModule) else { return nil }
        // The add-on's middle: where its profile's edges are, on average. In modules from the
        // code's start, as the windows' middles.
        var weight = 0.0, moment = 0.0
        for i in place.dropLast() { let edge = abs(profile[i + 1] - profile[i]); weight += edge; moment += edge * (Double(i) + 0.5) }
        guard weight > 0 else { return nil }
        let modules = g.length / g.module
        let addOnMiddle = modules + 3 + moment / weight / perModule
        let startMiddle = sameBack / 2, endMiddle = modules - sameBack / 2
        let ahead = (addOnMiddle - endMiddle) / (endMiddle - startMiddle)
        let expected = e.slope + (e.slope - b.slope) * ahead
        let changeError = ahead * (e.error * e.error + b.error * b.error).squareRoot()
        return (atan(a.slope) - atan(expected), atan(expected) - atan(e.slope), changeError, b, e, a)
    }

    /// The lean of the bars that `values` (rows one pixel apart, samples `step` pixels apart)
    /// cross on `band`'s rows over `span`: each row's shift against the middle rows' profile
    /// (correlation, to a fraction of a sample; followed out from the middle row by row, so
    /// that bars leaning far off the rows are followed too), fitted by a straight line.
    static func lean(_ values: [[Double]], rows band: ClosedRange<Int>, span: Range<Int>, step: Double) -> Lean? {
        guard band.count >= 8, band.upperBound < values.count, span.count > 16 else { return nil }
        let mid = (band.lowerBound + band.upperBound) / 2
        var reference = [Double](repeating: 0, count: values[mid].count)
        for t in max(band.lowerBound, mid - 2)...min(band.upperBound, mid + 2) {
            for i in reference.indices { reference[i] += values[t][i] }
        }
        var points: [(x: Double, y: Double)] = []
        for way in [-1, 1] {
            var last = 0.0
            for t in stride(from: way < 0 ? mid : mid + 1, through: way < 0 ? band.lowerBound : band.upperBound, by: way) {
                let guess = Int(last.rounded())
                let score = { (k: Int) in Self.correlation(values[t], reference, shift: k, over: span) }
                var best = (k: guess, c: -2.0)
                for k in (guess - 2)...(guess + 2) { let c = score(k); if c > best.c { best = (k, c) } }
                guard best.c > 0.8, abs(best.k - guess) < 2 else { continue }
                let a = score(best.k - 1), b = score(best.k + 1), bend = a - 2 * best.c + b
                last = Double(best.k) + (bend < 0 ? 0.5 * (a - b) / bend : 0)
                points.append((Double(t), last * step))
            }
        }
        guard points.count >= 8, let fit = JoinedHalves.straightFit(points) else { return nil }
        let mean = points.reduce(0) { $0 + $1.x } / Double(points.count)
        let spread = points.reduce(0) { $0 + ($1.x - mean) * ($1.x - mean) }
        return Lean(slope: fit.slope, error: fit.scatter / spread.squareRoot(), rows: points.count)
    }
}
