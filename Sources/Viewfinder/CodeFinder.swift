import Decoding
import ScanHardware

/// Where a code may be in a frame the decoders could not read: cells whose mean gradient stands
/// well above the frame's usual texture (soft edges count, so a blurred or tiny code is found),
/// joined into regions. Looser than the decoding pipeline's `RegionFinder`, which wants strong
/// edges to spend its passes on.
enum CodeFinder {
    /// Code-like regions of `f`, largest first, in `f`'s pixels.
    static func regions(in f: GrayFrame, limit: Int = 3) -> [PixelRect] {
        let cell = max(8, min(f.width, f.height) / 60)
        let cols = f.width / cell, rows = f.height / cell
        guard cols >= 3, rows >= 3 else { return [] }
        var energy = [Int](repeating: 0, count: cols * rows)
        f.withUnsafeBytes { p in
            for r in 0..<rows {
                for c in 0..<cols {
                    var sum = 0, n = 0
                    var y = r * cell
                    while y < (r + 1) * cell - 1 {
                        let row = y * f.stride
                        var x = c * cell
                        while x < (c + 1) * cell - 1 {
                            let v = Int(p[row + x])
                            sum += abs(v - Int(p[row + x + 1])) + abs(v - Int(p[row + f.stride + x]))
                            n += 1
                            x += 2
                        }
                        y += 2
                    }
                    energy[r * cols + c] = n == 0 ? 0 : sum / n
                }
            }
        }
        let median = energy.sorted()[energy.count / 2]
        let threshold = max(6, median * 3)
        // Closed over one-cell gaps (a quiet module, a blown-out patch's edge).
        let marked = CellGrid.closingGaps(energy.map { $0 >= threshold }, columns: cols, rows: rows)
        var found: [(rect: PixelRect, cells: Int)] = []
        for part in CellGrid.components(marked, columns: cols, rows: rows) {
            // A code has some extent: at least 2x2 cells.
            guard part.maxColumn > part.minColumn, part.maxRow > part.minRow, part.cells >= 4 else { continue }
            found.append((PixelRect(x: part.minColumn * cell, y: part.minRow * cell, width: (part.maxColumn - part.minColumn + 1) * cell,
                                    height: (part.maxRow - part.minRow + 1) * cell), part.cells))
        }
        return found.sorted { $0.cells > $1.cells }.prefix(limit).map(\.rect)
    }
}
