import ScanHardware

/// Finds where codes may be in a frame: blocks dense in strong edges, grouped into regions.
/// A decoder that looks from the frame's centre (zxing's Aztec detector) or that needs more
/// pixels per module (small codes) reads a region it would miss in the whole frame.
public enum RegionFinder {
    /// How many regions `candidates` gives at most, unless told.
    public static let candidateLimit = 6

    /// Candidate regions, largest first, in frame pixels.
    public static func candidates(in f: GrayFrame, limit: Int = candidateLimit) -> [PixelRect] {
        // Only strong transitions count: noise and soft shading do not.
        guard let cells = EdgeCells(f, minimumCells: 4, stepsAbove: 24) else { return [] }
        let high = cells.rank(97)
        guard high > 0 else { return [] }
        let threshold = max(high / 4, cells.rank(50) * 3 + 1)
        return cells.regions(atLeast: threshold, limit: limit) { part in
            let w = part.width, h = part.height
            // A code fills a good part of its box, upright or along its own axes (a code turned
            // by 30-60° fills a fifth of its upright box), and is not a thin line.
            let axes = part.axes
            guard part.cells >= 4, min(w, h) >= 2,
                  part.cells * 10 >= w * h * 3 || (axes.short >= 2 && Double(part.cells) * 10 >= axes.long * axes.short * 3) else { return nil }
            return cells.pixels(of: part, margin: max(1, max(w, h) / 5))
        }
    }
}

extension RegionFinder {
    /// Centres of Aztec bullseyes (rings of one module each, alternating dark and light, either
    /// way round: nine runs through the centre, across and down, see `ringRuns`), as squares
    /// around each centre big enough for a code of up to about 60 modules, with the centre and
    /// the module size in pixels.
    public static func bullseyes(in f: GrayFrame, limit: Int = 4) -> [(rect: PixelRect, module: Double, x: Int, y: Int)] {
        guard f.width >= 32, f.height >= 32 else { return [] }
        let dark = binarize(f)
        var found: [(x: Int, y: Int, module: Double, spread: Double)] = []
        for y in 0..<f.height {
            let runs = Self.runs(count: f.width) { dark[y * f.width + $0] }
            guard runs.count >= 9 else { continue }
            // Dark rings on light, or light on dark (an inverted code).
            for i in 0...(runs.count - 9) {
                guard let module = ringRuns({ runs[i + $0].length }) else { continue }
                let lengths = runs[i..<(i + 9)].map(\.length)
                let centre = runs[i + 4]
                let cx = centre.start + centre.length / 2
                // The same rings down the column through the centre.
                guard let cy = verticalRings(dark, f, x: cx, y: y, module: module, dark: centre.dark) else { continue }
                // How unequal the runs are: the true centre row has the most equal rings.
                let spread = lengths[1...7].map { abs(Double($0) - module) }.reduce(0, +) / module
                if let i = found.firstIndex(where: { abs($0.x - cx) < Int(module * 6) && abs($0.y - cy) < Int(module * 6) }) {
                    if spread < found[i].spread { found[i] = (cx, cy, module, spread) }
                } else {
                    found.append((cx, cy, module, spread))
                }
            }
            if found.count >= 64 { break }
        }
        return found.sorted { $0.spread < $1.spread }.prefix(limit).map { c in
            let half = Int(c.module * 32)
            return (PixelRect(x: c.x - half, y: c.y - half, width: 2 * half, height: 2 * half).clamped(width: f.width, height: f.height), c.module, c.x, c.y)
        }
    }

    struct Run { var dark: Bool; var start: Int; var length: Int }

    static func runs(count: Int, _ isDark: (Int) -> Bool) -> [Run] {
        var out: [Run] = []
        var start = 0
        var current = isDark(0)
        for i in 1..<count {
            let d = isDark(i)
            if d != current { out.append(Run(dark: current, start: start, length: i - start)); start = i; current = d }
        }
        out.append(Run(dark: current, start: start, length: count - start))
        return out
    }

    /// Nine runs through a bullseye: the inner seven one module each, the outer two at least
    /// most of a module (they may merge with modules beyond). A blur or ink spread thins one
    /// colour and widens the other, so it is each dark and light pair that must span two
    /// modules (within 30 %), and no run may vanish. The module size, or nil.
    static func ringRuns(_ lengths: [Int]) -> Double? {
        guard lengths.count == 9 else { return nil }
        return ringRuns { lengths[$0] }
    }

    /// `ringRuns` of the nine lengths `length(0) ... length(8)`, without an array (it runs for
    /// every run of every row of a frame).
    @inline(__always)
    static func ringRuns(_ length: (Int) -> Int) -> Double? {
        var total = 0
        for k in 1...7 { total += length(k) }
        let module = Double(total) / 7
        guard module >= 1.5 else { return nil }
        var previous = Double(length(1))
        guard previous >= module * 0.3 else { return nil }
        for k in 2...7 {
            let current = Double(length(k))
            guard current >= module * 0.3, abs(previous + current - 2 * module) <= 0.6 * module else { return nil }
            previous = current
        }
        return Double(length(0)) >= module * 0.6 && Double(length(8)) >= module * 0.6 ? module : nil
    }

    /// The mean length when all runs are within 40 % of it (and at least 2 pixels), else nil.
    static func equalRuns(_ lengths: [Int]) -> Double? {
        let mean = Double(lengths.reduce(0, +)) / Double(lengths.count)
        guard mean >= 2 else { return nil }
        return lengths.allSatisfy({ abs(Double($0) - mean) <= mean * 0.4 }) ? mean : nil
    }

    /// The centre's row when the column through `x` shows the same rings, else nil.
    static func verticalRings(_ dark: [Bool], _ f: GrayFrame, x: Int, y: Int, module: Double, dark centreDark: Bool = true) -> Int? {
        let reach = Int(module * 6)
        let y0 = max(0, y - reach), y1 = min(f.height, y + reach)
        guard y1 - y0 > 8 else { return nil }
        let column = runs(count: y1 - y0) { dark[(y0 + $0) * f.width + x] }
        guard let centre = column.firstIndex(where: { $0.start + y0 <= y && y < $0.start + y0 + $0.length }),
              centre >= 4, centre + 4 < column.count, column[centre].dark == centreDark,
              let m = ringRuns(column[(centre - 4)...(centre + 4)].map(\.length)), abs(m - module) <= module * 0.4 else { return nil }
        return y0 + column[centre].start + column[centre].length / 2
    }

    /// Dark where a pixel is below the mean of its 33x33 neighbourhood (uneven light allowed).
    static func binarize(_ f: GrayFrame) -> [Bool] {
        IntegralImage.darkerThanMean(f, radius: 16, by: 4)
    }
}
