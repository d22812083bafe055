import ScanCore
import ScanHardware

/// Aztec runes (ISO/IEC 24778, Annex A): an 11x11 compact Aztec core that carries one value,
/// 0 to 255, in its mode message ring and has no data layers. zxing 1.4 does not read them
/// (zxing-cpp does since 2.0). They are read here from the bullseye's grid (`AztecGrid.Grid`):
/// the 28 modules of the ring around the bullseye, in each of the eight ways the code can lie
/// (four turns, mirrored or not), against the 256 runes' codewords. A rune's codeword is its
/// value as two 4-bit words and five Reed-Solomon check words over GF(16) (x^4 + x + 1), its
/// even bits inverted (which a compact code's mode message is not); at most one wrong word is
/// taken (the code's distance is 6), and the orientation marks at the corners must agree.
/// The text is the value in three digits ("064"), as zxing-cpp gives it.
public struct AztecRuneReader: BarcodeDecoder {
    public let name = "aztec-rune"
    public var supportedSymbologies: Set<Symbology> { [.aztec] }

    public init() {}

    public func decode(_ frame: GrayFrame, viewport: Viewport) -> [Symbol] {
        let roi = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        guard roi.width >= 32, roi.height >= 32 else { return [] }
        let region = frame.cropped(to: PixelRect(x: roi.x, y: roi.y, width: roi.width, height: roi.height))
        var out: [Symbol] = []
        for b in RegionFinder.bullseyes(in: region, limit: 8) {
            for grid in AztecGrid.Grid.fit(region, x: Double(b.x), y: Double(b.y), module: b.module) {
                guard let (value, corners) = Self.read(region, grid) else { continue }
                let placed = corners.map { PixelPoint(x: Int($0.0.rounded()) + roi.x, y: Int($0.1.rounded()) + roi.y) }
                let text = String(value / 100) + String(value / 10 % 10) + String(value % 10)
                let symbol = Symbol(symbology: .aztec, bytes: Array(text.utf8), corners: placed, aimIdentifier: "]zC")
                if !out.contains(where: { $0.bytes == symbol.bytes }) { out.append(symbol) }
                break
            }
        }
        return out
    }

    /// The rune's value and its corners (image points, the top-left corner first), or nil when
    /// the grid does not carry a rune.
    static func read(_ f: GrayFrame, _ grid: AztecGrid.Grid) -> (Int, [(Double, Double)])? {
        // Ink (the centre's colour) or not, for each module of the 11x11 core; centre at 5,5.
        var ink = [Bool](repeating: false, count: 121)
        let ok = f.withUnsafeBytes { p -> Bool in
            for j in -5...5 {
                for i in -5...5 {
                    let (x, y) = grid.map(Double(i), Double(j))
                    guard let v = AztecGrid.sample(p, f, x, y) else { return false }
                    ink[(j + 5) * 11 + i + 5] = abs(v - grid.dark) < abs(v - grid.light)
                }
            }
            return true
        }
        guard ok else { return nil }
        // The bullseye: ink at even distances from the centre, up to 4.
        var wrong = 0
        for j in -4...4 { for i in -4...4 where ink[(j + 5) * 11 + i + 5] != (max(abs(i), abs(j)) % 2 == 0) { wrong += 1 } }
        guard wrong <= 4 else { return nil }
        var best: (value: Int, errors: Int, variant: Int)?
        var tie = false
        for variant in 0..<8 {
            let at = { (row: Int, col: Int) -> Bool in
                let (i, j) = Self.module(row: row, col: col, variant: variant)
                return ink[(j + 5) * 11 + i + 5]
            }
            let markErrors = Self.marks.filter { at($0.row, $0.col) != $0.ink }.count
            guard markErrors <= 1 else { continue }
            var words = [UInt8](repeating: 0, count: 7)
            for (k, position) in Self.ring.enumerated() where at(position.row, position.col) != (k % 2 == 0) {
                words[k / 4] |= UInt8(8 >> (k % 4))
            }
            for (value, codeword) in Self.codewords.enumerated() {
                let errors = zip(words, codeword).filter { $0 != $1 }.count
                guard errors <= 1 else { continue }
                if let b = best, b.value != value, b.errors == errors + markErrors { tie = true }
                if best == nil || errors + markErrors < best!.errors { best = (value, errors + markErrors, variant); tie = false }
            }
        }
        guard let best, !tie else { return nil }
        let corners = [(-0.5, -0.5), (-0.5, 10.5), (10.5, 10.5), (10.5, -0.5)].map { rc -> (Double, Double) in
            // Corner points of the layout (row, col) through the same turn as the modules.
            let (i, j) = Self.point(row: rc.0, col: rc.1, variant: best.variant)
            return grid.map(i, j)
        }
        return (best.value, [corners[0], corners[1], corners[2], corners[3]])
    }

    /// The module (centre 0,0) at `row`, `col` of the upright 11x11 layout, turned and mirrored
    /// as `variant` (0...7) says.
    static func module(row: Int, col: Int, variant: Int) -> (Int, Int) {
        let p = point(row: Double(row), col: Double(col), variant: variant)
        return (Int(p.0.rounded()), Int(p.1.rounded()))
    }

    static func point(row: Double, col: Double, variant: Int) -> (Double, Double) {
        var (i, j) = (col - 5, row - 5)
        if variant >= 4 { (i, j) = (j, i) }
        for _ in 0..<(variant % 4) { (i, j) = (-j, i) }
        return (i, j)
    }

    /// The orientation marks: three ink modules at the top-left corner, two at the top-right,
    /// one at the bottom-right, none at the bottom-left.
    static let marks: [(row: Int, col: Int, ink: Bool)] = [
        (0, 0, true), (0, 1, true), (1, 0, true), (0, 9, false), (0, 10, true), (1, 10, true),
        (9, 10, true), (10, 10, false), (10, 9, false), (9, 0, false), (10, 0, false), (10, 1, false),
    ]

    /// The ring's 28 modules in the order of the codeword's bits: the top row left to right,
    /// the right column down, the bottom row right to left, the left column up.
    static let ring: [(row: Int, col: Int)] = (2...8).map { (0, $0) } + (2...8).map { ($0, 10) }
        + (2...8).reversed().map { (10, $0) } + (2...8).reversed().map { ($0, 0) }

    /// Each value's seven 4-bit words: the value's two, then five Reed-Solomon check words.
    static let codewords: [[UInt8]] = (0..<256).map { v in
        let data: [UInt8] = [UInt8(v >> 4), UInt8(v & 15)]
        return data + GF16.checkWords(data, count: 5)
    }

    /// GF(16) with x^4 + x + 1, for the runes' check words.
    enum GF16 {
        static let exp: [UInt8] = {
            var e = [UInt8](repeating: 0, count: 30)
            var x = 1
            for i in 0..<30 { e[i] = UInt8(x); x <<= 1; if x & 16 != 0 { x ^= 0x13 } }
            return e
        }()
        static let log: [Int] = {
            var l = [Int](repeating: 0, count: 16)
            for i in 0..<15 { l[Int(exp[i])] = i }
            return l
        }()

        static func mul(_ a: UInt8, _ b: UInt8) -> UInt8 {
            a == 0 || b == 0 ? 0 : exp[log[Int(a)] + log[Int(b)]]
        }

        /// The check words of `data` (highest degree first) for the generator with roots
        /// a^1 ... a^count: the remainder of data(x) x^count divided by it.
        static func checkWords(_ data: [UInt8], count: Int) -> [UInt8] {
            var g: [UInt8] = [1] // highest degree first
            for i in 1...count {
                var next = [UInt8](repeating: 0, count: g.count + 1)
                for (k, c) in g.enumerated() { next[k] ^= c; next[k + 1] ^= mul(c, exp[i]) }
                g = next
            }
            var r = data + [UInt8](repeating: 0, count: count)
            for k in 0..<data.count where r[k] != 0 {
                let c = r[k]
                for (m, gc) in g.enumerated() { r[k + m] ^= mul(c, gc) }
            }
            return Array(r.suffix(count))
        }
    }
}
