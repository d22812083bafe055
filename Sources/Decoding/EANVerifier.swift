import ScanCore
import ScanHardware

/// A second opinion on an EAN/UPC read that only one engine made: the bars its digits stand for
/// must be what the image shows. The rows through the code are averaged into one profile, the
/// read's module pattern is fitted to it (start, module width, direction), and then every digit
/// must fit its place better than any other digit could. An engine's misread of a blurred code
/// (a few scan lines that measured wrong widths) fails here; a real code, even blurred, passes,
/// because matching a whole known pattern is more robust than measuring edges.
enum EANVerifier {
    enum Verdict: Equatable {
        /// Every digit fits its place better than any rival.
        case fits
        /// Some rival digit fits better, by this much (in squared module darkness).
        case misfit(Double)
        /// No layout for this read, or the image gives too little to judge.
        case cannotTell
    }

    static func verify(_ s: Symbol, in frame: GrayFrame) -> Verdict {
        guard let layout = Layout(s), s.corners.count >= 2 else { return .cannotTell }
        let b = s.bounds
        if isPlacedAlongItsLength(b, layout) {
            return check(layout, frame, horizontal: b.width >= b.height, x0: b.x, x1: b.x + b.width, y0: b.y, y1: b.y + b.height, placed: true)
        }
        let verdicts = unplaced(s, layout, in: frame).map(\.verdict)
        if verdicts.contains(.fits) { return .fits }
        let misfits = verdicts.compactMap { v -> Double? in if case .misfit(let by) = v { return by } else { return nil } }
        return misfits.min().map { .misfit($0) } ?? .cannotTell
    }

    /// Where a read runs that its engine placed at one end of it (zbar, read on a few lines: its
    /// corners a few pixels apart): along the row or the column through that place where its
    /// whole pattern fits, from its start to its end. Nil where the read is placed along its
    /// length already, or its pattern fits neither way.
    static func fittedLine(_ s: Symbol, in frame: GrayFrame) -> (start: (x: Double, y: Double), end: (x: Double, y: Double))? {
        guard let layout = Layout(s), s.corners.count >= 2 else { return nil }
        guard !isPlacedAlongItsLength(s.bounds, layout) else { return nil }
        return unplaced(s, layout, in: frame, coarse: true).first { $0.verdict == .fits }?.line
    }

    /// Whether an engine placed a read along its length: the longer side of its bounds at least a
    /// pixel a module (zbar places a code it read on few lines a few pixels across).
    static func isPlacedAlongItsLength(_ b: PixelRect, _ layout: Layout) -> Bool {
        max(b.width, b.height) >= layout.modules
    }

    /// zbar places a code it read on few lines at one end of it only: the pattern looked for
    /// along the row and the column through that place, both ways, as far as a code of up to six
    /// pixels per module reaches. `coarse`: as `fit` takes it.
    static func unplaced(_ s: Symbol, _ layout: Layout, in frame: GrayFrame, coarse: Bool = false) -> [Fit] {
        let b = s.bounds
        let x0 = b.x, x1 = b.x + b.width, y0 = b.y, y1 = b.y + b.height
        let reach = 6 * layout.modules
        return [
            fit(layout, frame, horizontal: true, x0: max(0, x0 - reach), x1: min(frame.width - 1, x1 + reach), y0: y0, y1: y1, placed: false, coarse: coarse),
            fit(layout, frame, horizontal: false, x0: x0, x1: x1, y0: max(0, y0 - reach), y1: min(frame.height - 1, y1 + reach), placed: false, coarse: coarse),
        ]
    }

    /// A verdict, and where the pattern fitted best: the code's start and end on the band's
    /// middle line (nil where nothing was fitted).
    struct Fit {
        let verdict: Verdict
        var line: (start: (x: Double, y: Double), end: (x: Double, y: Double))? = nil
    }

    /// The pattern fitted along a band of lines: near the engine's place for it (`placed`), or
    /// anywhere along the band, at any module width.
    static func check(_ layout: Layout, _ frame: GrayFrame, horizontal: Bool, x0: Int, x1: Int, y0: Int, y1: Int,
                      placed: Bool) -> Verdict {
        fit(layout, frame, horizontal: horizontal, x0: x0, x1: x1, y0: y0, y1: y1, placed: placed).verdict
    }

    /// `check`, with where the pattern fitted. `coarse`: a search anywhere along the band in
    /// half as many steps of start and of module, then a fine one near the best of them (a
    /// quarter of the work, where a read is placed rather than judged).
    static func fit(_ layout: Layout, _ frame: GrayFrame, horizontal: Bool, x0: Int, x1: Int, y0: Int, y1: Int,
                    placed: Bool, coarse: Bool = false) -> Fit {
        let length = horizontal ? x1 - x0 : y1 - y0
        guard length >= layout.modules else { return Fit(verdict: .cannotTell) }
        // The profile along the code, averaged over a band of lines across it.
        let pad = placed ? length / 4 + 4 : 0
        let (uLow, uHigh) = horizontal ? (max(0, x0 - pad), min(frame.width - 1, x1 + pad)) : (max(0, y0 - pad), min(frame.height - 1, y1 + pad))
        let (vMid, vSpan) = horizontal ? ((y0 + y1) / 2, y1 - y0) : ((x0 + x1) / 2, x1 - x0)
        let half = max(1, min(3, vSpan / 2))
        let vLimit = horizontal ? frame.height - 1 : frame.width - 1
        let vs = Array(max(0, vMid - half)...min(vLimit, vMid + half))
        guard uHigh - uLow > layout.modules, !vs.isEmpty else { return Fit(verdict: .cannotTell) }
        var profile = [Double](repeating: 0, count: uHigh - uLow + 1)
        for u in uLow...uHigh {
            var sum = 0
            for v in vs { sum += Int(horizontal ? frame[u, v] : frame[v, u]) }
            profile[u - uLow] = Double(sum) / Double(vs.count)
        }
        // Darkness 0...1 between the light and dark levels inside the code.
        let inner = profile[max(0, (horizontal ? x0 : y0) - uLow)...min(profile.count - 1, (horizontal ? x1 : y1) - uLow)].sorted()
        guard inner.count > 4 else { return Fit(verdict: .cannotTell) }
        let dark = inner[inner.count / 20], light = inner[inner.count - 1 - inner.count / 20]
        guard light - dark > 8 else { return Fit(verdict: .cannotTell) }
        // Levels from a window of a few modules around each point (glare, shadow), never
        // narrower than half the code's own range (so a quiet zone stays light).
        let window = placed ? max(2, Int((Double(length) / Double(layout.modules) * 5).rounded())) : 12
        let darkness = BarRun.darkness(profile, window: window, floor: (light - dark) / 2)

        let nominal = Double(length) / Double(layout.modules)
        let forwardStart = Double((horizontal ? x0 : y0) - uLow)
        let backwardStart = Double(profile.count - 1 - ((horizontal ? x1 : y1) - uLow))
        guard var best = bestFit(layout, darkness, near: placed ? (forwardStart, backwardStart) : nil, nominal: nominal, coarse: coarse && !placed),
              best.score > 0.3 else { return Fit(verdict: .misfit(.infinity)) }
        if coarse && !placed,
           let fine = bestFit(layout, darkness, near: (best.start, best.start), nominal: best.width, reach: 1, widthStep: 0.01, way: best.reversed),
           fine.score >= best.score {
            best = fine
        }
        let worst = misfits(layout, darkness, best).max() ?? 0
        // The code's start and end along the band's middle line (a fit on the profile reversed
        // starts from its far end).
        let span = best.width * Double(layout.pattern.count)
        let from = Double(uLow) + (best.reversed ? Double(profile.count - 1) - best.start : best.start)
        let to = from + (best.reversed ? -span : span)
        let v = Double(vMid)
        return Fit(verdict: worst <= 0 ? .fits : .misfit(worst), line: horizontal ? ((from, v), (to, v)) : ((v, from), (v, to)))
    }

    /// Where the whole pattern fits a darkness profile best: its start (in profile points, on
    /// the profile reversed where `reversed`), module width and correlation. `near`: the code's
    /// start either way round (within `reach` modules), the module about `nominal` (within 15 %);
    /// nil: anywhere, at any module width up to 6 (`coarse`: in steps twice as long). `way`: the
    /// profile only as it is (false) or only reversed (true); nil: both.
    static func bestFit(_ layout: Layout, _ darkness: [Double], near: (forward: Double, backward: Double)?, nominal: Double,
                        reach: Double = 4, widthStep: Double = 0.01, coarse: Bool = false,
                        way: Bool? = nil) -> (score: Double, start: Double, width: Double, reversed: Bool)? {
        let pattern = layout.pattern
        let whole = Pattern(pattern)
        // One buffer for every fit's module means (thousands per read).
        var means = [Double](repeating: 0, count: pattern.count)
        var best = (score: -2.0, start: 0.0, width: 0.0, reversed: false)
        let placed = near != nil
        for reversed in way.map({ [$0] }) ?? [false, true] {
            let d = Profile(reversed ? Array(darkness.reversed()) : darkness)
            let approxStart = near.map { reversed ? $0.backward : $0.forward } ?? 0
            var w = placed ? nominal * 0.85 : 1.0
            while w <= (placed ? nominal * 1.15 : min(6, nominal)) {
                var start = placed ? approxStart - reach * nominal : 0
                let last = placed ? approxStart + reach * nominal : Double(d.values.count) - w * Double(pattern.count)
                while start <= last {
                    if moduleMeans(d, start: start, width: w, count: pattern.count, into: &means) {
                        let c = correlation(means, whole, count: pattern.count)
                        if c > best.score { best = (c, start, w, reversed) }
                    }
                    start += (placed ? nominal : w) / (coarse ? 2 : 4)
                }
                w *= placed ? 1 + widthStep * nominal / w : coarse ? 1.04 : 1.02
            }
        }
        return best.score > -2 ? best : nil
    }

    /// How much better than its own pattern the best rival digit fits each digit's place
    /// (`Layout.slots`, in order; at most 0 where the digit fits), the pattern fitted at `best`
    /// and each half on its own fit near it (a code seen at an angle has wider modules at its
    /// near end).
    static func misfits(_ layout: Layout, _ darkness: [Double], _ best: (score: Double, start: Double, width: Double, reversed: Bool)) -> [Double] {
        let d = Profile(best.reversed ? Array(darkness.reversed()) : darkness)
        return misfits(layout, d, halves: halfFits(layout, d, near: (best.start, best.width), shift: 2))
    }

    /// Each half of the pattern (`Layout.halves`) fitted on its own, with the whole pattern
    /// starting within `shift` modules of `near` (in steps of `step` modules) and each half's
    /// module within `spread` of its width (in steps of `spread` / 6): where the half starts as if
    /// the whole pattern had its module, the module, and the fit.
    static func halfFits(_ layout: Layout, _ d: Profile, near: (start: Double, width: Double), shift reach: Double,
                         step: Double = 0.125, spread: Double = 0.06) -> [(start: Double, width: Double, score: Double)] {
        let pattern = layout.pattern
        var means = [Double](repeating: 0, count: pattern.count)
        return layout.halves.map { range -> (start: Double, width: Double, score: Double) in
            let part = Pattern(Array(pattern[range]))
            var fit = (start: near.start, width: near.width, score: -2.0)
            var w = near.width * (1 - spread)
            while w <= near.width * (1 + spread) + 1e-9 {
                var shift = -reach
                while shift <= reach {
                    let start = near.start + Double(range.lowerBound) * (near.width - w) + shift * near.width
                    if moduleMeans(d, start: start + Double(range.lowerBound) * w, width: w, count: part.bits.count, into: &means) {
                        let c = correlation(means, part, count: part.bits.count)
                        if c > fit.score { fit = (start, w, c) }
                    }
                    shift += step
                }
                w += near.width * spread / 6
            }
            return fit
        }
    }

    /// `misfits` with the halves fitted (`halfFits`).
    static func misfits(_ layout: Layout, _ d: Profile, halves: [(start: Double, width: Double, score: Double)]) -> [Double] {
        let pattern = layout.pattern
        var means = [Double](repeating: 0, count: pattern.count)
        // Each digit in its place, against every digit that could stand there; each may sit a
        // little off its half's fit (uneven print), rivals get the same slack.
        return layout.slots.map { slot in
            let h = halves[layout.halves.firstIndex { $0.contains(slot.offset) } ?? 0]
            let expected = Array(pattern[slot.offset..<(slot.offset + 7)])
            let own = localFit(d, h.start, h.width, slot.offset, expected, in: pattern, buffer: &means)
            var worst = -Double.infinity
            for rival in slot.rivals where rival != expected {
                worst = max(worst, localFit(d, h.start, h.width, slot.offset, rival, in: pattern, buffer: &means) - own)
            }
            return worst
        }
    }

    /// A darkness profile with its running sum: the mean over any span in constant time.
    struct Profile {
        let values: [Double]
        let sums: [Double]
        init(_ values: [Double]) {
            self.values = values
            var sums = [0.0]
            sums.reserveCapacity(values.count + 1)
            for v in values { sums.append(sums.last! + v) }
            self.sums = sums
        }
        /// The integral of the profile (each pixel constant over its width) from 0 to x.
        func integral(_ x: Double) -> Double {
            let i = Int(x)
            return sums[i] + (x - Double(i)) * values[i]
        }
    }

    /// Mean darkness of each of `count` modules into `out` (at least `count` long); false when
    /// the pattern would leave the profile.
    static func moduleMeans(_ d: Profile, start: Double, width: Double, count: Int, into out: inout [Double]) -> Bool {
        guard start >= 0, start + width * Double(count) < Double(d.values.count - 1) else { return false }
        var previous = d.integral(start)
        for j in 0..<count {
            let next = d.integral(start + Double(j + 1) * width)
            out[j] = (next - previous) / width
            previous = next
        }
        return true
    }

    /// A module pattern with what its correlation needs of it worked out once.
    struct Pattern {
        let bits: [Bool]
        /// The share of dark modules.
        let mean: Double
        /// The sum of squared deviations from `mean`.
        let spread: Double
        init(_ bits: [Bool]) {
            self.bits = bits
            let n = Double(bits.count)
            mean = Double(bits.filter { $0 }.count) / n
            var syy = 0.0
            for b in bits { let y = (b ? 1.0 : 0.0) - mean; syy += y * y }
            spread = syy
        }
    }

    /// Pearson's correlation of the first `count` module means with the pattern.
    static func correlation(_ m: [Double], _ p: Pattern, count: Int) -> Double {
        let n = Double(count)
        var total = 0.0
        for j in 0..<count { total += m[j] }
        let mm = total / n
        var sxy = 0.0, sxx = 0.0
        for j in 0..<count {
            let x = m[j] - mm, y = (p.bits[j] ? 1.0 : 0.0) - p.mean
            sxy += x * y; sxx += x * x
        }
        return sxx > 0 && p.spread > 0 ? sxy / (sxx * p.spread).squareRoot() : 0
    }

    /// The best fit of a digit's pattern near its place, with one known module either side (a
    /// rival that only fits shifted clashes with its neighbours).
    static func localFit(_ d: Profile, _ start: Double, _ width: Double, _ offset: Int, _ p: [Bool],
                         in pattern: [Bool], buffer m: inout [Double]) -> Double {
        let ideal = nineModules(offset, p, in: pattern)
        var best = -Double.infinity
        for shift in stride(from: -0.5, through: 0.5, by: 0.25) {
            for i in 0..<3 {
                let w = width * (i == 0 ? 0.95 : i == 1 ? 1.0 : 1.05)
                let a = start + (Double(offset) + shift) * width + (width - w) * 3.5 - w
                guard moduleMeans(d, start: a, width: w, count: 9, into: &m) else { continue }
                var e = 0.0
                for k in 0..<9 { let x = m[k] - Double((ideal >> k) & 1); e += x * x }
                best = max(best, -e)
            }
        }
        return best
    }

    /// The nine modules from the one before a digit at `offset` to the one after it, the digit's
    /// being `p`, as bits (called for every rival of every digit on every line: no arrays).
    static func nineModules(_ offset: Int, _ p: some Collection<Bool>, in pattern: [Bool]) -> UInt16 {
        let at = { (i: Int) -> Bool in i >= 0 && i < pattern.count ? pattern[i] : false }
        var ideal: UInt16 = (at(offset - 1) ? 1 : 0) | (at(offset + 7) ? 1 << 8 : 0)
        for (k, bar) in p.prefix(7).enumerated() where bar { ideal |= 1 << (k + 1) }
        return ideal
    }

    /// The module layout of an EAN/UPC read: the whole pattern and each digit's place with the
    /// patterns that could stand there.
    struct Layout {
        var modules: Int { pattern.count }
        /// The modules of an EAN/UPC symbol from its start guard to its end guard; nil for
        /// other symbologies.
        static func modules(of symbology: Symbology) -> Int? {
            switch symbology {
            case .ean13, .isbn13, .upcA: return 95
            case .ean8: return 67
            case .upcE: return 51
            default: return nil
            }
        }
        var pattern: [Bool] = []
        var slots: [(offset: Int, rivals: [[Bool]])] = []
        /// The module ranges fitted on their own: each half with its guards.
        var halves: [Range<Int>] {
            let mid = pattern.count == 51 ? 27 : (pattern.count - 5) / 2
            return [0..<(mid + 5), mid..<pattern.count]
        }

        init?(_ s: Symbol) {
            let digits = s.text.compactMap(\.wholeNumberValue)
            guard digits.count == s.text.count else { return nil }
            switch (s.symbology, digits.count) {
            case (.ean13, 13), (.isbn13, 13), (.upcA, 12), (.upcA, 13):
                let d = digits.count == 12 ? [0] + digits : digits
                let parity = Self.ean13Parity[d[0]]
                add(guardPattern: "101")
                for i in 1...6 { addDigit(parity[i - 1] ? Self.g[d[i]] : Self.l[d[i]], rivals: Self.l + Self.g) }
                add(guardPattern: "01010")
                for i in 7...12 { addDigit(Self.r[d[i]], rivals: Self.r) }
                add(guardPattern: "101")
            case (.ean8, 8):
                add(guardPattern: "101")
                for i in 0...3 { addDigit(Self.l[digits[i]], rivals: Self.l) }
                add(guardPattern: "01010")
                for i in 4...7 { addDigit(Self.r[digits[i]], rivals: Self.r) }
                add(guardPattern: "101")
            case (.upcE, 8):
                guard digits[0] <= 1 else { return nil }
                // The check digit and number system choose each digit's parity (even = G).
                let even = Self.upceEven[digits[7]].map { digits[0] == 0 ? $0 : !$0 }
                add(guardPattern: "101")
                for i in 1...6 { addDigit(even[i - 1] ? Self.g[digits[i]] : Self.l[digits[i]], rivals: Self.l + Self.g) }
                add(guardPattern: "010101")
            default: return nil
            }
        }

        private mutating func add(guardPattern: String) { pattern += guardPattern.map { $0 == "1" } }
        private mutating func addDigit(_ p: [Bool], rivals: [[Bool]]) {
            slots.append((pattern.count, rivals))
            pattern += p
        }

        static func bits(_ s: String) -> [Bool] { s.map { $0 == "1" } }
        static let l = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"].map(bits)
        static let r = l.map { $0.map { !$0 } }
        static let g = r.map { Array($0.reversed()) }
        /// EAN-13: the first digit picks which of digits 2–7 use the G set.
        static let ean13Parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]
            .map { $0.map { $0 == "G" } }
        /// UPC-E, number system 0: which of the six digits are even (G) for each check digit.
        static let upceEven = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"]
            .map { $0.map { $0 == "E" } }
    }
}
