import Glibc
import ScanCore
import ScanHardware

/// The bars an image shows along a code's axis, to tell a whole read from a part of a longer
/// code: a dark stroke drawn across an ITF code (a pen line, a fold, a cable in the frame) can
/// make an engine start a read at the stroke and return the digits on one side of it, a valid ITF
/// of its own. The bars that run on, without a quiet zone, past the read's end show it.
enum BarRun {
    /// The number of bars in the run through `centre` along `angle` (the code's axis: across its
    /// bars), up to a gap of a quiet zone on either side, looked for as far as `reach` pixels
    /// each way; nil when the image cannot tell (too little contrast, or the run reaches the
    /// frame's edge or the end of the reach). `atLeast`: a run that reaches them is counted as
    /// far as it is in view (at least that many bars).
    static func bars(in frame: GrayFrame, centre: (x: Double, y: Double), angle: Double, reach: Int, atLeast: Bool = false) -> Int? {
        guard (16...1 << 14).contains(reach), let profile = profile(in: frame, centre: centre, angle: angle, reach: reach),
              let (inFrame, first) = inFrame(profile, round: reach) else { return nil }
        return count(inFrame, at: reach - first, atLeast: atLeast)
    }

    /// The stretch of `profile` round point `centre` that lies in the frame, and the index it
    /// starts at; nil when the centre itself is outside.
    static func inFrame(_ profile: [Double?], round centre: Int) -> (values: [Double], first: Int)? {
        guard profile.indices.contains(centre), profile[centre] != nil else { return nil }
        var a = centre, b = centre
        while a > 0, profile[a - 1] != nil { a -= 1 }
        while b < profile.count - 1, profile[b + 1] != nil { b += 1 }
        return (profile[a...b].map { $0! }, a)
    }

    /// The profile through `centre` along `angle`, `reach` pixels each way (2 `reach` + 1
    /// points a pixel apart, the centre in the middle), each point the mean of the five nearest
    /// pixels across it; nil outside the frame. Nil for a frame too small or a centre not finite.
    static func profile(in frame: GrayFrame, centre: (x: Double, y: Double), angle: Double, reach: Int) -> [Double?]? {
        guard frame.width >= 4, frame.height >= 4, (1...1 << 14).contains(reach), centre.x.isFinite, centre.y.isFinite else { return nil }
        let c = cos(angle), s = sin(angle)
        let w = 2 * reach + 1
        var profile = [Double?](repeating: nil, count: w)
        frame.withUnsafeBytes { p in
            for i in 0..<w {
                let t = Double(i - reach)
                var sum = 0.0, n = 0
                for k in -2...2 {
                    let x = centre.x + t * c - Double(k) * s, y = centre.y + t * s + Double(k) * c
                    guard x > -0.5, y > -0.5, x < Double(frame.width) - 0.5, y < Double(frame.height) - 0.5 else { continue }
                    sum += Double(p[Int(y.rounded()) * frame.stride + Int(x.rounded())])
                    n += 1
                }
                if n == 5 { profile[i] = sum / 5 }
            }
        }
        return profile
    }

    /// The bars of the run through point `at` of `profile` (see `bars(in:centre:angle:reach:)`);
    /// nil when the run reaches either end of the profile (its end is not in view), unless
    /// `atLeast` (the bars in view then).
    static func count(_ profile: [Double], at centre: Int, atLeast: Bool = false) -> Int? {
        let w = profile.count
        guard w >= 32, profile.indices.contains(centre) else { return nil }
        let sorted = profile.sorted()
        let dark = sorted[sorted.count / 20], light = sorted[sorted.count - 1 - sorted.count / 20]
        guard light - dark > 24 else { return nil }
        // Dark or light against the levels of a window round each point (shade, glare); a window
        // whose range is under half the profile's (a quiet zone, a wide bar) against the
        // profile's own levels, so that its noise does not split it into bars.
        let isDark = Self.darkness(profile, window: max(8, w / 40), floor: (light - dark) / 2, flat: (dark, light)).map { $0 > 0.5 }
        // Runs of one colour: (dark, start, length).
        var runs: [(dark: Bool, start: Int, length: Int)] = []
        for x in 0..<w {
            if let last = runs.last, last.dark == isDark[x] { runs[runs.count - 1].length += 1 } else { runs.append((isDark[x], x, 1)) }
        }
        guard let middle = runs.firstIndex(where: { $0.start + $0.length > centre }) else { return nil }
        // The narrow element's width: a low quantile of the element widths round the middle.
        let near = runs[max(0, middle - 20)...min(runs.count - 1, middle + 20)].map(\.length).sorted()
        guard near.count >= 8 else { return nil }
        let narrow = max(1, near[near.count / 4])
        let quiet = 6 * narrow
        // From the middle outwards, as far as a light gap of a quiet zone.
        var first = middle, last = middle
        while first > 0, runs[first - 1].dark || runs[first - 1].length < quiet { first -= 1 }
        while last < runs.count - 1, runs[last + 1].dark || runs[last + 1].length < quiet { last += 1 }
        // The run reaches the profile's end: its end is not in view.
        guard atLeast || (first > 0 && last < runs.count - 1) else { return nil }
        return runs[first...last].filter(\.dark).count
    }

    /// Each point's darkness along a profile across bars: 0 at the lightest and 1 at the darkest
    /// level within `window` points of it (clamped to -0.5 ... 1.5). A window whose range is under
    /// `floor` (a quiet zone or a wide bar alone in it) is measured against `flat`, the profile's
    /// own dark and light, and keeps its colour; without `flat`, against its own middle widened
    /// to `floor`, where its noise lies about half way.
    static func darkness(_ profile: [Double], window: Int, floor: Double, flat: (dark: Double, light: Double)? = nil) -> [Double] {
        profile.indices.map { i -> Double in
            let part = profile[max(0, i - window)...min(profile.count - 1, i + window)]
            var lo = part.min()!, hi = part.max()!
            if hi - lo < floor, let flat { lo = flat.dark; hi = flat.light }
            if hi - lo < floor { let mid = (hi + lo) / 2; lo = min(lo, mid - floor / 2); hi = max(hi, mid + floor / 2) }
            return min(1.5, max(-0.5, (hi - profile[i]) / (hi - lo)))
        }
    }

    /// Whether a read of an EAN/UPC code of `modules` modules has a quiet zone past each end, as
    /// a whole code has: a light gap of 5 modules or more that starts within 6 modules of the
    /// end (a printed add-on sits 7-12 modules away). A part of a longer code read as a short
    /// one (an EAN-13's left half and centre guard as a UPC-E) has the longer code's next bars
    /// there instead. `centre`: a point among the bars; `angle`: the code's axis (across its
    /// bars); `ends`: where the read starts and ends along that axis, in pixels from `centre`.
    /// False only where the image shows bars past an end; true where it cannot tell (the
    /// frame's edge comes first, too little contrast, a read too short to measure).
    static func hasQuietEnds(in frame: GrayFrame, centre: (x: Double, y: Double), angle: Double,
                             ends: (start: Double, end: Double), modules: Int) -> Bool {
        let module = (ends.end - ends.start) / Double(modules)
        guard module >= 0.8, module < 64 else { return true }
        let gap = 5 * module, within = 6 * module
        let reach = Int((max(-ends.start, ends.end) + within + gap).rounded(.up)) + 2
        guard let profile = profile(in: frame, centre: centre, angle: angle, reach: reach),
              let (inFrame, a) = inFrame(profile, round: reach) else { return true }
        // The read's own light and dark.
        let i0 = reach + Int(ends.start.rounded()) - a, i1 = reach + Int(ends.end.rounded()) - a
        guard i0 >= 0, i1 < inFrame.count else { return true }
        let inner = inFrame[i0...i1].sorted()
        let dark = inner[inner.count / 20], light = inner[inner.count - 1 - inner.count / 20]
        guard light - dark > 24 else { return true }
        let isDark = darkness(inFrame, window: max(4, Int(3 * module)), floor: (light - dark) / 2, flat: (dark, light)).map { $0 > 0.5 }
        // From a little inside each end (its corners may lie a bar or two off) outwards: a light
        // run of `gap` that starts within `within` of the end.
        func quiet(from end: Int, step: Int) -> Bool {
            var i = end - step * Int((2 * module).rounded()), runStart: Int? = nil
            while true {
                guard i >= 0, i < inFrame.count else { return true }
                let past = Double(step * (i - end))
                if isDark[i] {
                    runStart = nil
                    if past > within { return false }
                } else {
                    if runStart == nil { runStart = i }
                    if Double(abs(i - runStart!) + 1) >= gap { return true }
                }
                i += step
            }
        }
        return quiet(from: i0, step: -1) && quiet(from: i1, step: 1)
    }

    /// The bars an ITF code of `digits` digits has: two in its start, five a pair of digits, two
    /// in its end.
    static func itfBars(digits: Int) -> Int { 4 + 5 * (digits / 2) }

    /// The most bars a read of a code without a check character can stand for: ITF's
    /// (`itfBars`); Codabar's four a character with its start and stop (added where the engine
    /// gave the text without them); Code 39's five a character with its start, stop and a check
    /// character the engine may have taken off. Nil for other codes.
    static func mostBars(of s: Symbol) -> Int? {
        switch s.symbology {
        case .itf, .itf14: return itfBars(digits: s.text.count)
        case .codabar:
            let ends = Set("ABCDTN*E"), text = s.text.uppercased()
            let framed = text.count >= 2 && ends.contains(text.first!) && ends.contains(text.last!)
            return 4 * (text.count + (framed ? 0 : 2))
        case .code39: return 5 * (s.text.count + 3)
        default: return nil
        }
    }
}
