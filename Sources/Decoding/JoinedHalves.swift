import Glibc
import ScanCore
import ScanHardware

/// An EAN/UPC read made of two codes: a scan line slanted across two codes printed one over the
/// other (a label over a label, a shelf strip over a pack) leaves the first code through the
/// ends of its bars and goes on in the second, where their guards stand in line, and the
/// digits it met can make a valid code, one time in ten by its check digit, that neither code
/// holds (a tryout of stop 57: an EAN-13 stacked over a UPC-A, turned 210°, read as
/// 3024153619817). Every straight line square to the bars between the read line's ends crosses
/// the whole code when the read is one code's: its digits fit together on such a line. A
/// joined read's first digits fit on lines through one code and its last on lines through the
/// other, never all together. A read square to the bars (the upright pass's) has no such lines
/// between its ends: lines a few modules each side of it show where two codes' overlapping
/// bars end and each code goes on alone.
enum JoinedHalves {
    /// Which of a read's digits (in the order of its pattern) fit their place, on each line
    /// square to the bars through the read's place (`JoinedHalves.seen`).
    struct Seen: Equatable {
        var lines: [[Bool]]
        /// Whether the read ran square to the bars: its lines lie each side of it, not between
        /// its ends.
        var square = false

        /// Whether the read is two codes': no line fits all its digits but one, while one line
        /// fits its first digits (two or more) and another its last (two or more), together all
        /// of them but one (where the codes' bars overlap, fitting neither), and at most three
        /// twice (digits the codes share by chance). Windows that slide along the lines (bars
        /// fanning out in a steep perspective) overlap by more. Or, where blur or print spread
        /// cost a digit within each half, the same with one miss allowed in each line's half
        /// (`side`), the two lines different, overlapping as the first form's may, and no line
        /// fitting all digits but three: the only form asked of a read square to the bars, whose
        /// lines each side of it may all lose the same digits to a blur (a prefix from one such
        /// line and a suffix from another are one code's).
        var joined: Bool {
            guard let n = lines.first?.count, n >= 6 else { return false }
            if lines.contains(where: { Self.fits($0) >= n - 1 }) { return false }
            let prefix = lines.map { $0.firstIndex(of: false) ?? n }.max() ?? 0
            let suffix = lines.map { line in line.lastIndex(of: false).map { n - 1 - $0 } ?? n }.max() ?? 0
            if !square && prefix >= 2 && suffix >= 2 && prefix + suffix >= n - 1 && prefix + suffix <= n + 2 { return true }
            // Blur or print spread can cost a digit within each code's half: one line fits the
            // first digits but one and few past them, another the last digits but one and few
            // before them. Not where a line fits all digits but three: one code's, read through a
            // blur or a perspective whose bars fan out across the lines (make-retail-layouts.py
            // 60 8181, lowres-0039: its lines lose the first digits on one side, the last on the
            // other).
            guard lines.allSatisfy({ Self.fits($0) <= n - 4 }) else { return false }
            let sides = lines.map { Self.side($0) }
            for (i, left) in sides.enumerated() where left.prefix >= 3 {
                for (j, right) in sides.enumerated() where j != i && right.suffix >= 3 {
                    let both = left.prefix + right.suffix
                    if both >= n - 1 && both <= n + 2 { return true }
                }
            }
            return false
        }

        /// A line's first digits that fit but one (ending on a fit, three fits at least) where
        /// it fits at most a third of the digits past them, and likewise its last digits; 0
        /// where the line fits more on the other side (one code's line, not a half's).
        static func side(_ line: [Bool]) -> (prefix: Int, suffix: Int) {
            func run(_ digits: [Bool]) -> Int {
                var misses = 0, length = 0
                for (i, fit) in digits.enumerated() {
                    if fit { length = i + 1 } else { misses += 1; if misses > 1 { break } }
                }
                let rest = digits[length...]
                guard digits[..<length].filter({ $0 }).count >= 3 else { return 0 }
                return rest.filter { $0 }.count * 3 <= rest.count ? length : 0
            }
            return (run(line), run(line.reversed()))
        }

        /// Per line that does not fit all digits but one, the valid code its best-fitting digits
        /// spell, where they spell one (EAN-13 and UPC-A as 13 digits, EAN-8).
        var spelled: [String?] = []

        /// Whether the lines show another code in the read's place: two lines or more (and most
        /// of them, for a read square to the bars) spell the same valid code, not the read, and
        /// the best line fits four of an EAN-13's or UPC-A's digits or more but not all of them
        /// but one. A read
        /// that mixes one code's digits with bars where two codes overlap fits no line whole,
        /// and the lines through the code spell it (a tryout: `982739720100` where the lines
        /// spell `988339720199`); a blurred code's lines spell a valid code seldom, and two alike
        /// more seldom still.
        func contradicts(_ text: String) -> Bool {
            // An EAN-13 or UPC-A whose lines show its place (four of its digits fit on some line:
            // not a code of the other polarity, whose lines spell one wrong code alike; an EAN-8's
            // eight digits spell a valid code too often that way), none of them whole.
            guard lines.first?.count == 12, let most = lines.map(Self.fits).max(), most >= 4, most < 11 else { return false }
            let own = text.count == 12 ? "0" + text : text
            var counts: [String: Int] = [:]
            for case let code? in spelled where code != own { counts[code, default: 0] += 1 }
            // Each side of a read square to the bars, most lines: a real code's lines that run
            // into a neighbour there (a label pasted beside it, in perspective) spell it on a few.
            return counts.values.contains { $0 >= 2 && (!square || 2 * $0 > spelled.count) }
        }

        static func fits(_ line: [Bool]) -> Int { line.filter { $0 }.count }
    }

    /// The code a line's best-fitting digit patterns spell (`Layout.slots`' rivals: L then G
    /// patterns on an EAN-13's left, R on its right; L and R on an EAN-8), where it is a valid
    /// EAN-13 (its first digit from the left's parities) or EAN-8; nil otherwise (UPC-E).
    static func spelled(_ best: [Int], layout: EANVerifier.Layout) -> String? {
        let digits: [Int]
        switch best.count {
        case 12:
            let parity = best.prefix(6).map { $0 >= 10 }
            guard let first = EANVerifier.Layout.ean13Parity.firstIndex(of: parity) else { return nil }
            digits = [first] + best.map { $0 % 10 }
        case 8 where layout.modules == 67:
            digits = best.map { $0 % 10 }
        default: return nil
        }
        let text = digits.map(String.init).joined()
        return UPC.hasValidCheckDigit(text) ? text : nil
    }

    /// How far each side of a read square to the bars its lines go, in modules.
    static let squareBand = 10.0

    /// Whether `s` was read across two codes (false where the image cannot tell).
    static func joinsTwoCodes(_ s: Symbol, in frame: GrayFrame) -> Bool {
        seen(s, in: frame, whole: true)?.joined == true
    }

    /// The digits' fits along lines square to the bars between the read's ends (at most 7
    /// lines, two pixels apart or more), or for a read that runs square to the bars, up to
    /// `squareBand` modules each side of it; nil for codes that are not EAN/UPC or where the
    /// bars show no direction. `whole`: the middle and the two outermost lines first, and none
    /// after a line that fits all digits but one (the verdict is then known).
    static func seen(_ s: Symbol, in frame: GrayFrame, whole: Bool = false) -> Seen? {
        guard let (layout, place, n, b) = placed(s, in: frame) else { return nil }
        // A read square to the bars (the upright pass's): lines a few modules each side of it,
        // where a read out of two codes' overlapping bars leaves the overlap for each code alone.
        let square = abs(place.drift) < 2
        let half = square ? squareBand * place.module : abs(place.drift) / 2, step = max(2, 2 * half / 6)
        var offsets = Array(stride(from: -half, through: half, by: step))
        if whole, offsets.count > 2 {
            // The middle line first (one code's read fits there), then the outermost (through
            // each code where two are joined); the verdict does not hang on the order.
            let middle = offsets.count / 2
            offsets = [offsets[middle], offsets.first!, offsets.last!] + offsets.indices.filter { ![0, middle, offsets.count - 1].contains($0) }.map { offsets[$0] }
        }
        var seen = Seen(lines: [], square: square)
        for t in offsets {
            guard case .sampled(let d, let halves, let misfits) = line(t, layout, place, n, b, in: frame) else { continue }
            seen.lines.append(misfits.map { $0 <= 0 })
            if Seen.fits(seen.lines.last!) >= layout.slots.count - 1 {
                if whole { break }
                continue
            }
            // What the line shows in each digit's place: the best-fitting pattern there.
            var means = [Double](repeating: 0, count: layout.pattern.count)
            let best = layout.slots.map { slot -> Int in
                let h = halves[layout.halves.firstIndex { $0.contains(slot.offset) } ?? 0]
                var top = (fit: -Double.infinity, index: 0)
                for (i, rival) in slot.rivals.enumerated() {
                    let f = EANVerifier.localFit(d, h.start, h.width, slot.offset, rival, in: layout.pattern, buffer: &means)
                    if f > top.fit { top = (f, i) }
                }
                return top.index
            }
            seen.spelled.append(Self.spelled(best, layout: layout))
        }
        return seen.lines.isEmpty ? nil : seen
    }

    /// The read's layout and place, with the unit vectors square to its bars (`n`, the way the
    /// read ran) and along them (`b`); nil for codes that are not EAN/UPC or where the bars
    /// show no direction.
    static func placed(_ s: Symbol, in frame: GrayFrame)
        -> (layout: EANVerifier.Layout, place: Place, n: (x: Double, y: Double), b: (x: Double, y: Double))? {
        guard let layout = EANVerifier.Layout(s), let (p, q) = readLine(s) else { return nil }
        let rect = DecodePipeline.area(around: s, in: frame, sides: 4)
        guard rect.width > 16, rect.height > 16, let theta = ImagePass.barAngle(frame.cropped(to: rect)) else { return nil }
        let rx = q.x - p.x, ry = q.y - p.y
        var n = (x: cos(theta), y: sin(theta))
        if n.x * rx + n.y * ry < 0 { n = (-n.x, -n.y) }
        let b = (x: -n.y, y: n.x)
        // The main code's share of the read: zxing places a code read with its add-on over both,
        // a read whose add-on came from another look is placed over the code alone. The share
        // whose pattern fits the read line better.
        let modules = Double(layout.modules)
        let shares = [1.0] + (s.addOn == nil ? [] : [modules / AddOnReader.Geometry.span(modules, addOn: s.addOn)])
        let places = shares.compactMap { share -> Place? in
            let length = (n.x * rx + n.y * ry) * share, drift = (b.x * rx + b.y * ry) * share
            guard length / modules >= 0.8 else { return nil }
            return Place(layout, frame, centre: (p.x + rx * share / 2, p.y + ry * share / 2), length: length, drift: drift, n: n, b: b)
        }
        guard let place = places.max(by: { $0.score < $1.score }) else { return nil }
        return (layout, place, n, b)
    }

    /// What a line square to the bars shows of a read (`line`).
    enum Line {
        /// It leaves the frame within the code's span (it would see the frame's edge).
        case outside
        /// Too little contrast to fit digits.
        case flat
        /// Its darkness (the read's way), each half fitted on its own near the read's place (two
        /// codes whose guards a read joins stand in line) and how far each digit misfits its
        /// place (`EANVerifier.misfits`: it fits at 0 or below).
        case sampled(EANVerifier.Profile, halves: [(start: Double, width: Double, score: Double)], misfits: [Double])
    }

    /// The line square to the bars `t` pixels along them from the read's middle, the mean of
    /// three rows a pixel apart; its halves fitted within 4 modules of the read's place, or
    /// within `near.reach` of `near.start` (a line beside it that fitted).
    static func line(_ t: Double, _ layout: EANVerifier.Layout, _ place: Place, _ n: (x: Double, y: Double), _ b: (x: Double, y: Double),
                     in frame: GrayFrame, near: (start: Double, reach: Double)? = nil) -> Line {
        let inFrame = { (x: Double, y: Double) in x >= 0 && y >= 0 && x <= Double(frame.width - 1) && y <= Double(frame.height - 1) }
        let (origin, pad, count) = (place.origin, place.pad, place.count)
        let first = (x: origin.x + t * b.x + pad * n.x, y: origin.y + t * b.y + pad * n.y)
        guard inFrame(first.x, first.y), inFrame(first.x + place.length * n.x, first.y + place.length * n.y) else { return .outside }
        let rows = AddOnReader.Rows.sampled(frame, from: (origin.x + t * b.x, origin.y + t * b.y), along: n, step: 1, count: count,
                                            bars: b, rows: 1)
        let profile = (0..<count).map { i in (rows[0][i] + rows[1][i] + rows[2][i]) / 3 }
        guard let darkness = darkness(profile, pad: pad, module: place.module) else { return .flat }
        let d = EANVerifier.Profile(place.reversed ? Array(darkness.reversed()) : darkness)
        let halves = EANVerifier.halfFits(layout, d, near: (near?.start ?? (place.reversed ? place.far : pad), place.module),
                                          shift: near?.reach ?? 4, step: 0.25, spread: 0.1)
        return .sampled(d, halves: halves, misfits: EANVerifier.misfits(layout, d, halves: halves))
    }

    /// Where the main code of a read lies, square to its bars: its middle, length and drift
    /// along the bars (pixels), its module, the lines' start (`pad` before the code) and
    /// samples, where the code starts on a line read backwards (`far`), and which way its
    /// pattern runs with how well it fits along the read line itself.
    struct Place {
        let length: Double, drift: Double, module: Double, pad: Double
        let origin: (x: Double, y: Double)
        let count: Int, far: Double
        let reversed: Bool, score: Double

        init?(_ layout: EANVerifier.Layout, _ frame: GrayFrame, centre: (x: Double, y: Double), length: Double, drift: Double,
              n: (x: Double, y: Double), b: (x: Double, y: Double)) {
            (self.length, self.drift) = (length, drift)
            module = length / Double(layout.modules)
            // Past the code's ends each way: where the other code's guards lie when the two are
            // not in line.
            pad = 14 * module
            origin = (centre.x - (length / 2 + pad) * n.x, centre.y - (length / 2 + pad) * n.y)
            count = Int(length + 2 * pad)
            far = Double(count) - 1 - pad - length
            let back = drift / 2 + pad * drift / length
            let read = AddOnReader.Rows.sampled(frame, from: (origin.x - back * b.x, origin.y - back * b.y),
                                                along: (n.x + drift / length * b.x, n.y + drift / length * b.y), step: 1, count: count,
                                                bars: b, rows: 0)[0]
            guard let darkness = JoinedHalves.darkness(read, pad: pad, module: module),
                  let fit = EANVerifier.bestFit(layout, darkness, near: (pad, far), nominal: module, widthStep: 0.02) else { return nil }
            (reversed, score) = (fit.reversed, fit.score)
        }
    }

    /// The line a read ran along: `Symbol.readEnds`, or for a box whose start and end sides are
    /// its long ones (zbar's box around the columns it read a code on), the middles of its
    /// short sides.
    static func readLine(_ s: Symbol) -> (start: (x: Double, y: Double), end: (x: Double, y: Double))? {
        guard let ends = s.readEnds else { return nil }
        guard s.corners.count >= 4 else { return ends }
        let c = s.corners.map { (x: Double($0.x), y: Double($0.y)) }
        let start: (x: Double, y: Double) = ((c[0].x + c[1].x) / 2, (c[0].y + c[1].y) / 2)
        let end: (x: Double, y: Double) = ((c[3].x + c[2].x) / 2, (c[3].y + c[2].y) / 2)
        let along = hypot(ends.end.x - ends.start.x, ends.end.y - ends.start.y)
        return hypot(end.x - start.x, end.y - start.y) > 2 * along ? (start, end) : ends
    }

    /// Darkness 0...1 along a line (`EANVerifier`'s levels), nil where it has too little
    /// contrast between its ends' `pad`.
    static func darkness(_ profile: [Double], pad: Double, module: Double) -> [Double]? {
        let inner = profile[Int(pad)..<(profile.count - Int(pad))].sorted()
        guard inner.count > 4 else { return nil }
        let dark = inner[inner.count / 20], light = inner[inner.count - 1 - inner.count / 20]
        guard light - dark > 8 else { return nil }
        return BarRun.darkness(profile, window: max(2, Int((module * 5).rounded())), floor: (light - dark) / 2)
    }
}

extension DecodePipeline {
    /// EAN/UPC reads made of two codes' halves, or that the lines through them show to be another
    /// code, or read across a label torn over another (`JoinedHalves`), are dropped: asked of every
    /// EAN/UPC read a look keeps, in the region's pixels (a pass's image may have lost the
    /// lines that tell). A line or two fit for a read of one code.
    static func withoutJoinedHalves(_ symbols: [Symbol], in frame: GrayFrame, _ doubts: Doubts? = nil) -> [Symbol] {
        symbols.filter { s in
            guard s.symbology.isEANFamily, let seen = JoinedHalves.seen(s, in: frame, whole: true) else { return true }
            guard !seen.joined else { return false }
            // Under glare the lines spell what the lifted bars read as, and misfit a digit on
            // every line (`withoutGlareMisreads` weighs those reads).
            if underGlare(frame, around: s) { return true }
            guard !seen.contradicts(s.text) else { return false }
            // Each pass weighs the frame's reads so far: a code's lines are walked once.
            let key = Doubts.Read(s)
            if let torn = doubts?.torn[key] { return !torn }
            let torn = JoinedHalves.tornInLine(s, in: frame)
            doubts?.torn[key] = torn
            return !torn
        }
    }
}

extension JoinedHalves {
    /// A read across a label torn over another printed in line with it: the upper label's left
    /// part (or right) beside the lower one's right (or left) shows one code's layout, and the
    /// digits can make a valid code that neither label holds (a tryout of stop 59:
    /// `make-retail-layouts.py` `tornjoin`, 20 of 300 images so answered; zxing-cpp 3.1 alone
    /// answers 12). Most lines through the two fit the read's digits but the one at the tear,
    /// or all of them, so the lines between the read's ends cannot tell (`Seen`). Lines along
    /// the whole bars can: the digit at the tear stands where two codes' bars meet, fits on none
    /// of them and misfits far on many, where a code's own digit misfits a little at most (a
    /// print spread that favours a rival pattern). The first and last digits are not asked: what
    /// lies past the guards (a price label over the quiet zone) misfits them on every line; nor
    /// is a read under glare, which can misfit a digit on every line (`withoutJoinedHalves`).
    struct Ends {
        /// How far each digit misfits its place (in the order of the read's pattern,
        /// `EANVerifier.misfits`) on lines square to the bars that fit all digits but one, at
        /// `t` pixels along them from the read's middle.
        var lines: [(t: Double, misfit: [Double])]
        /// On those lines, how far (modules) the right half stands from where the left half's
        /// modules put it, at the middle guard both share.
        var halvesApart: [Double] = []
        /// On those lines of an EAN-13 or UPC-A, where each digit's bars stand along the line
        /// (pixels, `JoinedHalves.digitPlace`; nil where the line does not show them), for
        /// `leansApart`.
        var places: [(t: Double, at: [Double?])] = []
        /// Per digit, on how many of those lines it misfits.
        var misfitting: [Int] = []
        /// Each digit's middle, in modules from the start guard.
        var middles: [Double] = []

        /// Whether an inner digit misfits on every line and far (`tearMisfit`) on two in five or
        /// more, of six lines or more. Glare or a stroke across a code's bars misfits a digit
        /// far where it lies and less and less away from it: the digit fits on the lines past it.
        /// Or where the two labels meet at the middle guard: each half fits whole, and on every
        /// line the halves stand `apart` or more out of one code's step. Or where the bars lean
        /// apart at a digit (`leansApart`).
        var torn: Bool {
            if !halvesApart.isEmpty, halvesApart.allSatisfy({ abs($0) >= Self.apart }) { return true }
            if leansApart { return true }
            guard let digits = lines.first?.misfit.count, digits >= 8, lines.count >= 6 else { return false }
            return (1..<(digits - 1)).contains { digit in
                let misfits = lines.map { $0.misfit[digit] }.sorted()
                return misfits[0] > 0 && misfits[misfits.count * 3 / 5] > Self.tearMisfit
            }
        }

        /// How far a digit at a tear misfits on most lines (a tryout's torn labels: 0.6-2.1; a
        /// code's own digit that a print spread misfits: 0.5 at most on the sets, zxing-cpp's
        /// ean13-1/15.png its last by 0.3-0.5).
        static let tearMisfit = 0.6

        /// Modules between the halves of a read across two labels meeting at the middle guard
        /// (a tryout's torn labels: 1.5-2.25; one code's halves, in 1,900 reads of 27 sets and
        /// zxing-cpp's photos, 1.0 at most, `ean13-1/15.png`'s print spread).
        static let apart = 1.5
    }

    /// Whether `s` was read across a label torn over another in line (`Ends`); false for codes
    /// that are not EAN/UPC or where the bars show no direction.
    static func tornInLine(_ s: Symbol, in frame: GrayFrame) -> Bool {
        ends(s, in: frame)?.torn == true
    }

    /// How far the digits misfit on lines square to the bars through the read's middle that fit
    /// all digits but one, every 3 modules each way until two lines in a row do not (past the
    /// code's body) or a line leaves the frame, at most 1.5 code lengths, or (an EAN-8) until
    /// every inner digit has fit on one; each line's halves fitted near the last one's. The
    /// misfits are kept up to that line, and on every line an EAN-13's or UPC-A's digits'
    /// places. Nil for UPC-E: six digits are too few to tell.
    static func ends(_ s: Symbol, in frame: GrayFrame) -> Ends? {
        guard let (layout, place, n, b) = placed(s, in: frame) else { return nil }
        let digits = layout.slots.count
        guard digits >= 8 else { return nil }
        let step = max(2, 3 * place.module), reach = 1.5 * place.length
        var ends = Ends(lines: [])
        // An EAN-13's or UPC-A's lines go along the whole bars, for the digits' leans
        // (`Ends.leansApart`). An EAN-8's end once every inner digit has fit on a line: the read
        // is then no torn one's (`Ends.torn`), and a code's read usually fits whole on its
        // first line.
        let leans = digits == 12
        if leans {
            ends.middles = layout.slots.map { Double($0.offset) + 3.5 }
            ends.misfitting = Array(repeating: 0, count: digits)
        }
        var means = [Double](repeating: 0, count: layout.pattern.count)
        var unfit = Set(1..<(digits - 1))
        for direction in [-1.0, 1.0] where leans || !unfit.isEmpty {
            var (t, misses) = (direction < 0 ? 0 : step, 0)
            var near: (start: Double, reach: Double)? = nil
            while abs(t) <= reach, misses < 2 {
                let sampled = line(t, layout, place, n, b, in: frame, near: near)
                if case .outside = sampled { break }
                if case .sampled(let d, let halves, let misfits) = sampled, misfits.filter({ $0 <= 0 }).count >= digits - 1 {
                    // The misfits and the halves' step are weighed on the lines up to the one
                    // where every inner digit has fit.
                    if !unfit.isEmpty {
                        ends.lines.append((t, misfits))
                        if halves.count == 2 {
                            let middle = Double(layout.halves[1].lowerBound)
                            ends.halvesApart.append(((halves[1].start + middle * halves[1].width) - (halves[0].start + middle * halves[0].width)) / place.module)
                        }
                        unfit = unfit.filter { misfits[$0] > 0 }
                    }
                    if leans {
                        for (digit, misfit) in misfits.enumerated() where misfit > 0 { ends.misfitting[digit] += 1 }
                        ends.places.append((t, layout.slots.map { slot in
                            let h = halves[layout.halves.firstIndex { $0.contains(slot.offset) } ?? 0]
                            return digitPlace(d, start: h.start, width: h.width, offset: slot.offset,
                                              layout.pattern[slot.offset..<(slot.offset + 7)], in: layout.pattern, buffer: &means)
                        }))
                    }
                    if unfit.isEmpty && !leans { break }
                    near = (halves.map(\.start).reduce(0, +) / Double(halves.count), 1.5)
                    misses = 0
                } else {
                    near = nil
                    misses += 1
                }
                t += direction * step
            }
        }
        return ends
    }
}
