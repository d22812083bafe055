import ScanHardware

/// A frame cut into square cells, each with the edge energy inside it, and the marked cells
/// grouped into regions: what the finders of code-like regions share (`RegionFinder.candidates`
/// for the decoding passes, the viewfinder's `CodeFinder` for guidance). Each finder picks its
/// own steps, threshold and test of a region.
public struct EdgeCells: Sendable {
    /// A cell's side in pixels (see `cellSize`).
    public let cell: Int
    public let columns: Int, rows: Int
    /// The frame's size in pixels (its last cells may stop short of its right and lower edges).
    public let width: Int, height: Int
    /// Per cell, row by row: the sum of the steps from each sampled pixel to its right and lower
    /// neighbours, counting only steps above the `stepsAbove` floor. Every second pixel of every
    /// second row is sampled (`samplesPerCell` of them), all inside the cell.
    public let energy: [Int]
    /// `energy` sorted, for thresholds at a rank.
    public let ranked: [Int]

    /// A 60th of the frame's shorter side, at least 8 pixels.
    public static func cellSize(width: Int, height: Int) -> Int {
        max(8, min(width, height) / 60)
    }

    /// Pixels sampled in each cell.
    public var samplesPerCell: Int { (cell / 2) * (cell / 2) }

    /// The cells of `f`, or nil when it has fewer than `minimumCells` across or down. A step
    /// of `floor` or less adds nothing (0: every step counts).
    public init?(_ f: GrayFrame, minimumCells: Int, stepsAbove floor: Int = 0) {
        let cell = Self.cellSize(width: f.width, height: f.height)
        let cols = f.width / cell, rows = f.height / cell
        guard cols >= minimumCells, rows >= minimumCells else { return nil }
        var energy = [Int](repeating: 0, count: cols * rows)
        // Steps of bytes, a cell's sum at most 2 x 255 per sample: nothing to overflow, and no
        // branch per pixel.
        f.withUnsafeBytes { p in
            energy.withUnsafeMutableBufferPointer { energy in
                for r in 0..<rows {
                    for c in 0..<cols {
                        var sum = 0
                        let y0 = r &* cell, x0 = c &* cell
                        for y in stride(from: y0, to: y0 &+ cell &- 1, by: 2) {
                            let row = y &* f.stride, below = row &+ f.stride
                            for x in stride(from: x0, to: x0 &+ cell &- 1, by: 2) {
                                let v = Int(p[row &+ x])
                                let dx = abs(v &- Int(p[row &+ x &+ 1])), dy = abs(v &- Int(p[below &+ x]))
                                sum &+= (dx > floor ? dx : 0) &+ (dy > floor ? dy : 0)
                            }
                        }
                        energy[r &* cols &+ c] = sum
                    }
                }
            }
        }
        self.cell = cell
        columns = cols
        self.rows = rows
        width = f.width
        height = f.height
        self.energy = energy
        ranked = energy.sorted()
    }

    /// The energy `percent` of the way up the cells' energies (50: the median).
    public func rank(_ percent: Int) -> Int {
        ranked[ranked.count * percent / 100]
    }

    /// The connected parts of the cells with `threshold` or more energy, closed over one-cell
    /// gaps (a quiet module inside a code), in the order their first cell comes.
    public func parts(atLeast threshold: Int) -> [CellGrid.Component] {
        let marked = CellGrid.closingGaps(energy.map { $0 >= threshold }, columns: columns, rows: rows)
        return CellGrid.components(marked, columns: columns, rows: rows)
    }

    /// The pixels of `part`'s box of cells, widened by `margin` cells on each side and kept
    /// inside the frame.
    public func pixels(of part: CellGrid.Component, margin: Int = 0) -> PixelRect {
        PixelRect(x: (part.minColumn - margin) * cell, y: (part.minRow - margin) * cell,
                  width: (part.width + 2 * margin) * cell, height: (part.height + 2 * margin) * cell)
            .clamped(width: width, height: height)
    }

    /// The regions `region` makes of the parts at `threshold` (nil: not code-like), the
    /// `limit` with the most cells first.
    public func regions(atLeast threshold: Int, limit: Int, _ region: (CellGrid.Component) -> PixelRect?) -> [PixelRect] {
        var found: [(rect: PixelRect, cells: Int)] = []
        for part in parts(atLeast: threshold) {
            if let rect = region(part) { found.append((rect, part.cells)) }
        }
        return found.sorted { $0.cells > $1.cells }.prefix(limit).map(\.rect)
    }
}

/// A grid of marked cells (a frame cut into cells, each marked or not): its gaps closed and its
/// connected parts, for the finders of code-like regions.
public enum CellGrid {
    /// `marked` with each unmarked cell between two marked ones (across or down) marked too.
    public static func closingGaps(_ marked: [Bool], columns cols: Int, rows: Int) -> [Bool] {
        var closed = marked
        for r in 0..<rows {
            for c in 0..<cols where !marked[r * cols + c] {
                let h = c > 0 && c < cols - 1 && marked[r * cols + c - 1] && marked[r * cols + c + 1]
                let v = r > 0 && r < rows - 1 && marked[(r - 1) * cols + c] && marked[(r + 1) * cols + c]
                if h || v { closed[r * cols + c] = true }
            }
        }
        return closed
    }

    /// One connected part of the marked cells (neighbours in eight directions).
    public struct Component: Sendable {
        public var minColumn: Int, maxColumn: Int, minRow: Int, maxRow: Int
        /// Marked cells in it.
        public var cells: Int
        /// Its box's width and height in cells.
        public var width: Int { maxColumn - minColumn + 1 }
        public var height: Int { maxRow - minRow + 1 }
        /// Sums of the cells' columns and rows, their squares and products: the part's moments.
        var sums = (c: 0.0, r: 0.0, cc: 0.0, rr: 0.0, cr: 0.0)

        /// The part's extent in cells along its long and short axes (the principal axes of its
        /// cells): a filled rectangle of n x m cells at any angle gives (n, m). A code turned
        /// by 30-60° fills little of its upright box, but most of this one.
        public var axes: (long: Double, short: Double) {
            guard cells > 0 else { return (0, 0) }
            let n = Double(cells)
            let mc = sums.c / n, mr = sums.r / n
            let vc = sums.cc / n - mc * mc, vr = sums.rr / n - mr * mr, vcr = sums.cr / n - mc * mr
            let mid = (vc + vr) / 2, half = (((vc - vr) / 2) * ((vc - vr) / 2) + vcr * vcr).squareRoot()
            // A uniform run of n cells has a variance of (n² - 1) / 12.
            return ((12 * (mid + half) + 1).squareRoot(), (12 * max(0, mid - half) + 1).squareRoot())
        }
    }

    /// The connected parts of the marked cells, in the order their first cell comes.
    public static func components(_ marked: [Bool], columns cols: Int, rows: Int) -> [Component] {
        var seen = [Bool](repeating: false, count: cols * rows)
        var parts: [Component] = []
        for start in 0..<(cols * rows) where marked[start] && !seen[start] {
            var stack = [start]
            seen[start] = true
            var part = Component(minColumn: cols, maxColumn: 0, minRow: rows, maxRow: 0, cells: 0)
            while let i = stack.popLast() {
                let r = i / cols, c = i % cols
                part.cells += 1
                let dc = Double(c), dr = Double(r)
                part.sums.c += dc; part.sums.r += dr; part.sums.cc += dc * dc; part.sums.rr += dr * dr; part.sums.cr += dc * dr
                part.minColumn = min(part.minColumn, c); part.maxColumn = max(part.maxColumn, c)
                part.minRow = min(part.minRow, r); part.maxRow = max(part.maxRow, r)
                for dr in -1...1 {
                    for dc in -1...1 {
                        let nr = r + dr, nc = c + dc
                        guard nr >= 0, nr < rows, nc >= 0, nc < cols else { continue }
                        let j = nr * cols + nc
                        if marked[j] && !seen[j] { seen[j] = true; stack.append(j) }
                    }
                }
            }
            parts.append(part)
        }
        return parts
    }
}
