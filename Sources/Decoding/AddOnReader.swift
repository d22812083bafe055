import Glibc
import ScanCore
import ScanHardware

/// An EAN-2/EAN-5 add-on read from the image where the main code's geometry puts it: a second
/// look at an add-on that does not go through zxing's edge measurements.
///
/// The main code's read (its corners: the start and end guards' lines, the rows read) gives the
/// direction of the bars, the module width and where the add-on starts (7-12 modules past the
/// end guard). Rows parallel to the code there are sampled along the bars' slant (a skewed code's
/// bars stay apart), the rows that cross bars are found, and the profile averaged over a band of
/// them is fitted with the add-on's layout (a 1011 guard, 7-module digits each starting light
/// and ending dark, 01 between them) at every start and module width near the main code's,
/// the digits' bars blurred into their neighbours as print under a camera blurs them. Each digit
/// is the pattern (10 digits, two parities) that fits its place best; a read is given only when
/// the parities give the add-on's own check (an EAN-2's value modulo 4, an EAN-5's weighted sum),
/// the layout fits closely (`largestError`) and every digit beats its best rival by
/// `agreeingMargin`. Blur can still turn a digit into another with a valid check (9753's blurred
/// EAN-2 `18` fits as `19` on one band): `DecodePipeline.withAddOnsChecked` takes a read only
/// where another look agrees.
///
/// Blurred add-ons are where zxing fails: it measures each bar's width along one row, and a
/// blurred 1-module space between bars is no longer there; matching whole digit patterns on a
/// profile averaged over many rows still tells them apart.
enum AddOnReader {
    /// The least a digit's pattern must beat its best rival by (squared module darkness over the
    /// digit's 7 modules) for a read that a zxing look read alike (`Read.margin`), and for one
    /// that no zxing look read.
    static let agreeingMargin = 0.04, margin = 0.12
    /// The most a read's layout may miss the profile by (mean squared module darkness): add-ons
    /// read right fit within 0.027 on the generated sets; a layout forced onto other bars, 0.037.
    static let largestError = 0.03

    /// An add-on read from one band of rows: its digits, and by how much its least clear digit
    /// beat that digit's best rival.
    struct Read: Equatable {
        let digits: String
        let margin: Double
    }
    /// Samples of the profile per module.
    static let perModule = 4.0
    /// How far past a code's end an add-on may end, in modules: a 12-module gap, an EAN-5's
    /// 47 and 7 of quiet zone.
    static let farthestEnd = 66

    /// The add-ons read beside `s`, one per band of rows (the whole band, its upper and its
    /// lower half: disjoint pixels), where the band gives one; empty when the geometry or the
    /// image gives nothing to read.
    /// `across`: the direction across the bars (radians, `ImagePass.barAngle`) where the
    /// rows read are too close together to show it.
    static func reads(beside s: Symbol, in frame: GrayFrame, across: Double?) -> [Read?] {
        guard let geometry = Geometry(s, across: across), let rows = Rows(geometry, frame: frame),
              let band = rows.barBand(sharing: codeRows(geometry, rows, in: frame)) else { return [] }
        let half = (band.upperBound - band.lowerBound) / 2
        let bands = [band, band.lowerBound..<(band.lowerBound + half), (band.lowerBound + half)..<band.upperBound]
        return bands.map { b -> Read? in b.count >= 2 ? decode(rows.profile(over: b), nominal: perModule) : nil }
    }

    /// Whether the bars where `s`'s add-on would be read lie in line with `s`'s own bars rather
    /// than off to one side: of the rows that cross bars past the code's end (`Rows.barRows`),
    /// six, or half where there are fewer, and a third in all, are rows that cross the code's
    /// last modules. A lone add-on printed past a code's end but a code's height higher or lower,
    /// sharing a few of its rows, was attached (bench/make-addon-traps.py R4 and R5); a code's
    /// own add-on has a half or more of its rows in line on the generated add-on sets. A book's
    /// price printed over its ISBN, the ISBN stacked over a plain EAN-13 and turned, lies past
    /// the EAN-13's end a code's height to one side, and a slanted scan line crosses both: zxing
    /// reads the EAN-13 with the price in every look at it (a tryout's image, turned 66° and
    /// 246°). Nil where the image does not tell (no geometry, nothing that varies past the code,
    /// or no bars across its end, or too few rows of them).
    /// The add-on's own bars (the run of rows crossing bars that shares the most rows with the
    /// code's) must also lie mostly in line: more than half of them (a code's own add-on: 0.64
    /// and more on the generated add-on sets; a lone one a code's height off, 0.35-0.47).
    /// Where the add-on's run of rows goes on past the rows sampled (`widen`: their window
    /// around the rows read, as a multiple of the fitted look's), it is looked at again in a
    /// window twice as wide.
    static func liesBeside(_ s: Symbol, in frame: GrayFrame, across: Double?, widen: Double = 1) -> Bool? {
        guard let g = Geometry(s, across: across), let rows = Rows(g, frame: frame, widen: widen), let barry = rows.barRows() else { return nil }
        guard let (low, high) = codeRows(g, rows, in: frame).map({ ($0.lowerBound, $0.upperBound) }) else { return nil }
        // A code's bars are many rows tall: a few rows say the geometry is not the code's (a
        // read given as its bounding box, whose sides are not its guards).
        guard high - low >= 8 else { return nil }
        let inLine = barry[low...high].filter { $0 }.count, all = barry.filter { $0 }.count
        // The run of bar rows (gaps of up to 2 rows bridged) that shares the most rows with the
        // code's: the add-on's own bars, and how many of them lie in line.
        var runs: [ClosedRange<Int>] = []
        for t in barry.indices where barry[t] {
            if let last = runs.last, t - last.upperBound <= 3 { runs[runs.count - 1] = last.lowerBound...t } else { runs.append(t...t) }
        }
        let shared = runs.map { $0.overlaps(low...high) ? $0.clamped(to: low...high).count : 0 }
        let best = shared.indices.max { shared[$0] < shared[$1] }
        // A run the window cuts (at the last row that can cross bars, or the first) may go on
        // beyond it, and its share in line be smaller than the window shows: a lone EAN-2 90 px
        // below an EAN-8 read on its top rows seemed 0.61 in line, 0.36 where the window holds
        // it whole (with `require`, a deep pass sent it). So may the code's own rows: an EAN-8's
        // rows and a lone EAN-2's, both cut by the window's edge, turned 150°, seemed all in line.
        if widen == 1, let best, runs[best].upperBound >= barry.count - 3 || runs[best].lowerBound == 0 {
            return liesBeside(s, in: frame, across: across, widen: 2)
        }
        let own = best.map { Double(shared[$0]) / Double(runs[$0].count) } ?? 1
        return inLine >= min(6, (all + 1) / 2) && 3 * inLine >= all && own > 0.55
    }

    /// The rows of `rows` (by index) that cross `g`'s code's own bars at its end: the run of
    /// rows nearest the rows read that vary over its last 12 modules, up to another code's
    /// (`ownRows`). Nil where nothing varies there.
    static func codeRows(_ g: Geometry, _ rows: Rows, in frame: GrayFrame) -> ClosedRange<Int>? {
        // The code's own rows over its last 12 modules (its last digit and end guard), sampled
        // two to a module on the same rows as the add-on's place: from the end back along the
        // rows, where a read at a slant and a skewed code's bars both stay close to those rows.
        // Sampled from `sameBack` modules back: the rows' whole length tells codes apart.
        let reach = (rows.values.count - 1) / 2
        let back = 12.0, count = Int(2 * back), span = 2 * Int(sameBack)
        let code = endRows(g, rows, in: frame)
        let spread = Rows.spreads(code, over: (span - count)..<span)
        guard let top = spread.max(), top >= 12 else { return nil }
        // The run of rows across the code's bars nearest the rows read (the middle, row `reach`).
        let crossing = { (t: Int) in code.indices.contains(t) && spread[t] >= 0.4 * top }
        guard let d = (0...reach).first(where: { crossing(reach - $0) || crossing(reach + $0) }) else { return nil }
        var low = crossing(reach - d) ? reach - d : reach + d, high = low
        while low > 0, crossing(low - 1) { low -= 1 }
        while high + 1 < spread.count, crossing(high + 1) { high += 1 }
        return ownRows(code, low...high, from: reach, tallest: Int(20 * g.module))
    }

    /// `g`'s code's last `sameBack` modules sampled two to a module on `rows`' rows (the same
    /// offsets along the bars as the add-on's place).
    static func endRows(_ g: Geometry, _ rows: Rows, in frame: GrayFrame) -> [[Double]] {
        let origin = (x: g.end.x - sameBack * g.module * g.along.x, y: g.end.y - sameBack * g.module * g.along.y)
        return Rows.sampled(frame, from: origin, along: g.along, step: g.module / 2, count: 2 * Int(sameBack), bars: g.bars, rows: (rows.values.count - 1) / 2)
    }

    /// The rows of `run` (rows crossing bars at a code's end) that are the code's own: where
    /// the run also holds another code, two codes printed touching (one's digits on the other's
    /// bars, or bar on bar), the rows up to it. Their add-on beside the other code lay in line
    /// with the run and was given to the code (a tryout: a plain EAN-13 under a book's ISBN took
    /// its price). A code's rows are found from the row nearest `middle` inside its bars
    /// (varying along the whole of `code`'s rows, alike the rows `sameStep` each side) as long
    /// as each row is alike the row `sameStep` nearer; another code is `sameStep` * 3 rows or
    /// more inside bars past where they end. Where the bars fade (a skewed or perspective code
    /// sampled off its bars) no other code is found and the run stands, and where the rows found
    /// are no taller than `band` (20 modules: a band of digits is 9 or so).
    static func ownRows(_ code: [[Double]], _ run: ClosedRange<Int>, from middle: Int, tallest band: Int) -> ClosedRange<Int> {
        guard let width = code.first?.count, width > 8 else { return run }
        let whole = 0..<width
        let spread = Rows.spreads(code, over: whole), top = spread.max() ?? 0
        let varies = { (t: Int) in run.contains(t) && spread[t] >= 0.6 * top }
        let follows = { (t: Int, u: Int) in varies(t) && varies(u) && Rows.correlation(code[t], code[u], whole) > sameRows }
        let inside = { (t: Int) in follows(t - sameStep, t) && follows(t + sameStep, t) }
        let reach = max(middle - run.lowerBound, run.upperBound - middle)
        guard let d = (0...reach).first(where: { inside(middle - $0) || inside(middle + $0) }) else { return run }
        let anchor = inside(middle - d) ? middle - d : middle + d
        var low = anchor, high = anchor
        while low > run.lowerBound, follows(low - 1, min(low - 1 + sameStep, anchor)) { low -= 1 }
        while high < run.upperBound, follows(high + 1, max(high + 1 - sameStep, anchor)) { high += 1 }
        // Rows no taller than a band of digits may be one (the rows read along a UPC-A's long
        // bars through its digits), and the bars past it the code's own.
        guard high - low > band else { return run }
        // Another code past an end: a stretch of rows inside bars unlike the code's row at that
        // end, whichever way one is shifted along the other by up to two modules (a perspective
        // code's rows drift along its bars, and a row where the drift breaks the run goes on as
        // the same code).
        let other = { (rows: [Int], edge: Int) -> Bool in
            var stretch = 0
            for t in rows {
                stretch = inside(t) ? stretch + 1 : 0
                if stretch >= 3 * sameStep, (-4...4).allSatisfy({ Self.correlation(code[t], code[edge], shift: $0) < otherRows }) { return true }
            }
            return false
        }
        return (other(Array((run.lowerBound..<low).reversed()), low) ? low : run.lowerBound)...(other(Array((high + 1)..<(run.upperBound + 1)), high) ? high : run.upperBound)
    }

    /// The correlation of `a` moved `shift` samples on with `b`, over the samples of `b` they
    /// share (those of `span`, where given).
    static func correlation(_ a: [Double], _ b: [Double], shift: Int, over span: Range<Int>? = nil) -> Double {
        let lo = max(0, -shift, span?.lowerBound ?? 0), hi = min(b.count, a.count - shift, span?.upperBound ?? b.count)
        guard hi - lo > 8 else { return 0 }
        let n = Double(hi - lo)
        var ma = 0.0, mb = 0.0
        for j in lo..<hi { ma += a[j + shift]; mb += b[j] }
        ma /= n; mb /= n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for j in lo..<hi { let x = a[j + shift] - ma, y = b[j] - mb; sab += x * y; saa += x * x; sbb += y * y }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
    }

    /// How far back from a code's end its rows are compared (modules: the end guard and the
    /// last three digits and a half), how closely (correlation) a row must follow the row
    /// `sameStep` rows nearer the rows read there to be the code's own (`liesBeside`).
    static let sameBack = 30.0, sameRows = 0.8, sameStep = 3
    /// Under how much correlation (at every small shift) rows are another code's (`ownRows`).
    static let otherRows = 0.6

    /// The main code as a line: its end, the direction along it and along its bars, its module.
    struct Geometry {
        /// The start and end guards' middles, in pixels.
        let start: (x: Double, y: Double), end: (x: Double, y: Double)
        /// Unit vectors: along the code (start to end) and along its bars.
        let along: (x: Double, y: Double), bars: (x: Double, y: Double)
        /// The module width in pixels, and the code's length along `along`.
        let module: Double, length: Double
        /// How far the rows read reach along the bars each side of the middle.
        let readHalfHeight: Double

        /// The modules a read of `modules` with `addOn` is placed over: zxing places a code it
        /// read with its add-on over both (and the gap, about 9 modules, between them).
        static func span(_ modules: Double, addOn: String?) -> Double {
            modules + (addOn.map { Double($0.count == 2 ? 20 : 47) + 9 } ?? 0)
        }

        init?(_ s: Symbol, across: Double?) {
            guard let count = EANVerifier.Layout.modules(of: s.symbology), let (start, far) = s.readEnds else { return nil }
            let modules = Double(count)
            let span = Self.span(modules, addOn: s.addOn)
            let c = s.corners.map { (x: Double($0.x), y: Double($0.y)) }
            let c0 = c[0], c1 = c[1], c2 = c.count >= 4 ? c[2] : c[1], c3 = c.count >= 4 ? c[3] : c[0]
            self.start = start
            let rx = far.x - start.x, ry = far.y - start.y
            guard (rx * rx + ry * ry).squareRoot() >= modules else { return nil }
            // The bars' direction from the guards' lines where the rows read are apart enough to
            // show it; otherwise square to `across`, or to the rows read.
            var bx = (c3.x - c0.x) + (c2.x - c1.x), by = (c3.y - c0.y) + (c2.y - c1.y)
            var bl = (bx * bx + by * by).squareRoot()
            readHalfHeight = bl / 4
            if bl < 8 {
                (bx, by) = across.map { (-sin($0), cos($0)) } ?? (-ry, rx)
                bl = (bx * bx + by * by).squareRoot()
            }
            bars = (bx / bl, by / bl)
            // Along the code: square to the bars, pointing from start to end.
            var a = (x: bars.y, y: -bars.x)
            if a.x * rx + a.y * ry < 0 { a = (-a.x, -a.y) }
            along = a
            module = (a.x * rx + a.y * ry) / span
            length = module * modules
            end = (start.x + rx * modules / span, start.y + ry * modules / span)
            guard module >= 0.8 else { return nil }
        }
    }

    /// The image sampled in the add-on's place: rows along the code, each a profile from a
    /// couple of modules past the main code to where the longest add-on's quiet zone ends.
    struct Rows {
        /// Samples along each row (`perModule` per module), rows one pixel apart along the bars.
        let values: [[Double]]
        /// How far along the row the add-on may start, in samples: its nearest and farthest start.
        let firstStart: Double, lastStart: Double

        init?(_ g: Geometry, frame: GrayFrame, widen: Double = 1) {
            let step = g.module / perModule
            // From 3 modules past the code to 15 (a 12-module gap, some slack), then the 47 of an
            // EAN-5 and 9 of quiet zone.
            let near = 3.0, far = 15.0 + 47 + 9
            let count = Int((far - near) * perModule)
            let dir = g.along, origin = g.end
            let reach = (max(g.readHalfHeight, 0) + 0.6 * g.length) * widen
            let rows = Int(reach)
            guard rows >= 4, frame.width > 2, frame.height > 2 else { return nil }
            let first = (x: origin.x + near * g.module * dir.x, y: origin.y + near * g.module * dir.y)
            values = Self.sampled(frame, from: first, along: dir, step: step, count: count, bars: g.bars, rows: rows)
            firstStart = (4 - near) * perModule
            lastStart = (15 - near) * perModule
        }

        /// Which rows cross bars (see `barBand`); nil where no row varies.
        func barRows() -> [Bool]? {
            let end = min(Int(lastStart + 47 * perModule), values.first { !$0.isEmpty }?.count ?? 0)
            guard end > Int(firstStart) + 8 else { return nil }
            let span = Int(firstStart)..<end
            let spread = Self.spreads(values, over: span)
            guard let top = spread.max(), top >= 12 else { return nil }
            return values.indices.map { t -> Bool in
                guard spread[t] >= 0.4 * top, t + 2 < values.count, !values[t + 2].isEmpty else { return false }
                return Self.correlation(values[t], values[t + 2], span) > 0.8
            }
        }

        /// The rows that cross bars: those that vary along the add-on's place and agree with the
        /// rows two pixels away (bars run across rows; clutter seldom does), the run of them
        /// (6 rows or more) nearest the code's middle row, the longer of two as near, as row
        /// indices. The longest run was taken before: a lone EAN-5 printed past a book's price
        /// along its bars was as long and was read as the price (bench/make-addon-traps.py R6).
        /// Where the code's own rows are known (`code`), a run that shares none of them comes
        /// last: a neighbour's price nearer the rows read than the code's own EAN-2 was read
        /// for it, while `liesBeside` judged the EAN-2 in line (make-addon-stacks.py --gap 8).
        func barBand(sharing code: ClosedRange<Int>? = nil) -> Range<Int>? {
            guard let barry = barRows() else { return nil }
            var runs: [Range<Int>] = [], runStart: Int? = nil
            for t in 0...barry.count {
                if t < barry.count && barry[t] { if runStart == nil { runStart = t }; continue }
                if let a = runStart, t - a >= 6 { runs.append(a..<t) }
                runStart = nil
            }
            let middle = values.count / 2
            let distance = { (r: Range<Int>) in r.contains(middle) ? 0 : min(abs(r.lowerBound - middle), abs(r.upperBound - 1 - middle)) }
            let apart = { (r: Range<Int>) in code.map { !r.overlaps($0.lowerBound..<($0.upperBound + 1)) } == true ? 1 : 0 }
            guard let run = runs.min(by: { (apart($0), distance($0), -$0.count) < (apart($1), distance($1), -$1.count) }) else { return nil }
            // The run's ends meet the bars' ends at a slant: leave a tenth each side.
            let trim = run.count / 10
            return (run.lowerBound + trim)..<(run.upperBound - trim)
        }

        /// Rows `-rows...rows` pixels from `origin` along `bars`, each `count` samples `step`
        /// apart along `dir` (bilinear; past the frame's edge, its edge pixels: the quiet zone
        /// past a code at the edge).
        static func sampled(_ frame: GrayFrame, from origin: (x: Double, y: Double), along dir: (x: Double, y: Double), step: Double,
                            count: Int, bars: (x: Double, y: Double), rows: Int) -> [[Double]] {
            var values: [[Double]] = []
            values.reserveCapacity(2 * rows + 1)
            frame.withUnsafeBytes { p in
                let w = frame.width, h = frame.height, stride = frame.stride
                for t in -rows...rows {
                    let ox = origin.x + Double(t) * bars.x, oy = origin.y + Double(t) * bars.y
                    var row = [Double](repeating: 0, count: count)
                    for i in 0..<count {
                        let x = min(max(ox + Double(i) * step * dir.x, 0), Double(w) - 1.001)
                        let y = min(max(oy + Double(i) * step * dir.y, 0), Double(h) - 1.001)
                        let xi = Int(x), yi = Int(y), fx = x - Double(xi), fy = y - Double(yi)
                        let o = yi * stride + xi
                        let top = Double(p[o]) * (1 - fx) + Double(p[o + 1]) * fx
                        let bottom = Double(p[o + stride]) * (1 - fx) + Double(p[o + stride + 1]) * fx
                        row[i] = top * (1 - fy) + bottom * fy
                    }
                    values.append(row)
                }
            }
            return values
        }

        /// The spread (standard deviation) of each row over `span`.
        static func spreads(_ values: [[Double]], over span: Range<Int>) -> [Double] {
            values.map { row -> Double in
                guard !row.isEmpty else { return 0 }
                let part = row[span]
                let mean = part.reduce(0, +) / Double(part.count)
                return (part.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(part.count)).squareRoot()
            }
        }

        /// The rows of `band` averaged.
        func profile(over band: Range<Int>) -> [Double] {
            var sum = [Double](repeating: 0, count: values[band.lowerBound].count)
            for t in band { for i in sum.indices { sum[i] += values[t][i] } }
            return sum.map { $0 / Double(band.count) }
        }

        static func correlation(_ a: [Double], _ b: [Double], _ span: Range<Int>) -> Double {
            let n = Double(span.count)
            let ma = a[span].reduce(0, +) / n, mb = b[span].reduce(0, +) / n
            var sab = 0.0, saa = 0.0, sbb = 0.0
            for i in span { let x = a[i] - ma, y = b[i] - mb; sab += x * y; saa += x * x; sbb += y * y }
            return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
        }
    }

    /// The add-on's digits fitted to a profile whose modules are about `nominal` samples wide
    /// and whose add-on starts between `Rows.firstStart` and `lastStart`; nil when no layout
    /// fits closely with a valid check and digits clear by `agreeingMargin`.
    static func decode(_ profile: [Double], nominal: Double) -> Read? {
        let sorted = profile.sorted()
        guard sorted.count > 20 else { return nil }
        let dark = sorted[sorted.count / 20], light = sorted[sorted.count - 1 - sorted.count / 20]
        guard light - dark > 16 else { return nil }
        let window = Int(nominal * 5)
        let d = EANVerifier.Profile(BarRun.darkness(profile, window: window, floor: (light - dark) / 2))
        let firstStart = (4 - 3) * nominal, lastStart = (15 - 3) * nominal
        var best: Fit? = nil
        for layout in Layout.all {
            var means = [Double](repeating: 0, count: layout.known.count)
            var w = nominal * 0.88
            while w <= nominal * 1.12 {
                var start = firstStart
                while start <= lastStart {
                    // The layout's modules start `quiet` modules before the guard.
                    if EANVerifier.moduleMeans(d, start: start - Double(Layout.quiet) * w, width: w, count: layout.known.count, into: &means) {
                        for blur in Layout.blurs.indices {
                            let fit = layout.fit(means, blur: blur)
                            if fit.error < (best?.error ?? .infinity) { best = Fit(fit, start: start, width: w) }
                        }
                    }
                    start += w / 4
                }
                w += nominal * 0.015
            }
        }
        guard let best, best.margin >= agreeingMargin, best.error <= largestError, best.layout.checks(best.digits) else { return nil }
        return Read(digits: best.digits.map { String($0.digit) }.joined(), margin: best.margin)
    }

    /// The best layout at one place: its error per module, its digits, the least margin.
    struct Fit {
        var layout: Layout
        var error: Double
        var digits: [(digit: Int, g: Bool)]
        var margin: Double
        var start = 0.0, width = 0.0
        init(layout: Layout, error: Double, digits: [(digit: Int, g: Bool)], margin: Double) {
            self.layout = layout; self.error = error; self.digits = digits; self.margin = margin
        }
        init(_ f: Fit, start: Double, width: Double) { self = f; self.start = start; self.width = width }
    }

    /// An add-on's modules with its quiet zones: which are known (quiet, guard, separators and
    /// each digit's light first and dark last module) and where the digits are.
    struct Layout {
        /// Modules of quiet zone fitted before the guard (of the 7 or more between the code and
        /// its add-on) and after the last digit (an EAN-2 fitted to the first digits of an EAN-5
        /// meets the third's bars there).
        static let quiet = 3, quietAfter = 7
        /// How much of each neighbouring module's darkness a module's mean takes (print and
        /// lens blur).
        static let blurs = [0.0, 0.1, 0.2, 0.3]
        let digitCount: Int
        /// Every module: its ideal darkness (nil inside a digit).
        let known: [Bool?]
        let slots: [Int]
        /// Per blur, the 20 digit patterns (L then G) as each module's expected darkness, with
        /// the dark module before a digit and the light one after it.
        let expected: [[[Double]]]

        init(digits: Int) {
            digitCount = digits
            var known: [Bool?] = Array(repeating: false, count: Self.quiet) + [true, false, true, true]
            var slots: [Int] = []
            for i in 0..<digits {
                if i > 0 { known += [false, true] }
                slots.append(known.count)
                known += Array(repeating: nil, count: 7)
            }
            known += Array(repeating: false, count: Self.quietAfter)
            self.known = known
            self.slots = slots
            let patterns = EANVerifier.Layout.l + EANVerifier.Layout.g
            expected = Self.blurs.map { b in
                patterns.map { p in
                    let ctx = [true] + p + [false]
                    return (1...7).map { j in
                        b * (ctx[j - 1] ? 1 : 0) + (1 - 2 * b) * (ctx[j] ? 1 : 0) + b * (ctx[j + 1] ? 1 : 0)
                    }
                }
            }
        }

        static let all = [Layout(digits: 2), Layout(digits: 5)]

        /// The layout fitted to module means: the known modules' error plus each digit's best
        /// pattern's, per module.
        func fit(_ m: [Double], blur: Int) -> Fit {
            let b = Self.blurs[blur]
            var error = 0.0
            for (j, k) in known.enumerated() {
                guard let k else { continue }
                let left = j > 0 ? (known[j - 1] ?? !k) : false, right = j + 1 < known.count ? (known[j + 1] ?? !k) : false
                let e = b * (left ? 1 : 0) + (1 - 2 * b) * (k ? 1 : 0) + b * (right ? 1 : 0)
                error += (m[j] - e) * (m[j] - e)
            }
            var digits: [(digit: Int, g: Bool)] = []
            var margin = Double.infinity
            for slot in slots {
                var first = (e: Double.infinity, i: 0), second = Double.infinity
                for (i, p) in expected[blur].enumerated() {
                    var e = 0.0
                    for j in 0..<7 { let x = m[slot + j] - p[j]; e += x * x }
                    if e < first.e { second = first.e; first = (e, i) } else if e < second { second = e }
                }
                error += first.e
                margin = min(margin, second - first.e)
                digits.append((first.i % 10, first.i >= 10))
            }
            return Fit(layout: self, error: error / Double(known.count), digits: digits, margin: margin)
        }

        /// Whether the digits' parities are the add-on's check: an EAN-2's value modulo 4, an
        /// EAN-5's weighted sum (3 x odd places + 9 x even places) modulo 10.
        func checks(_ digits: [(digit: Int, g: Bool)]) -> Bool {
            let parity = digits.map(\.g)
            if digitCount == 2 {
                let value = digits[0].digit * 10 + digits[1].digit
                return parity == Self.ean2Parity[value % 4]
            }
            let sum = 3 * (digits[0].digit + digits[2].digit + digits[4].digit) + 9 * (digits[1].digit + digits[3].digit)
            return parity == Self.ean5Parity[sum % 10]
        }

        static let ean2Parity = ["LL", "LG", "GL", "GG"].map { $0.map { $0 == "G" } }
        static let ean5Parity = ["GGLLL", "GLGLL", "GLLGL", "GLLLG", "LGGLL", "LLGGL", "LLLGG", "LGLGL", "LGLLG", "LLGLG"]
            .map { $0.map { $0 == "G" } }
    }
}
