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
        var marked = energy.map { $0 >= threshold }
        // Close one-cell gaps (a quiet module, a blown-out patch's edge).
        var closed = marked
        for r in 0..<rows {
            for c in 0..<cols where !marked[r * cols + c] {
                let h = c > 0 && c < cols - 1 && marked[r * cols + c - 1] && marked[r * cols + c + 1]
                let v = r > 0 && r < rows - 1 && marked[(r - 1) * cols + c] && marked[(r + 1) * cols + c]
                if h || v { closed[r * cols + c] = true }
            }
        }
        marked = closed
        var seen = [Bool](repeating: false, count: cols * rows)
        var found: [(rect: PixelRect, cells: Int)] = []
        for start in 0..<(cols * rows) where marked[start] && !seen[start] {
            var stack = [start]
            seen[start] = true
            var minC = cols, maxC = 0, minR = rows, maxR = 0, count = 0
            while let i = stack.popLast() {
                let r = i / cols, c = i % cols
                count += 1
                minC = min(minC, c); maxC = max(maxC, c); minR = min(minR, r); maxR = max(maxR, r)
                for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let rr = r + dr, cc = c + dc
                    guard rr >= 0, rr < rows, cc >= 0, cc < cols else { continue }
                    let j = rr * cols + cc
                    if marked[j] && !seen[j] { seen[j] = true; stack.append(j) }
                }
            }
            // A code has some extent: at least 2x2 cells.
            guard maxC > minC, maxR > minR, count >= 4 else { continue }
            found.append((PixelRect(x: minC * cell, y: minR * cell, width: (maxC - minC + 1) * cell, height: (maxR - minR + 1) * cell), count))
        }
        return found.sorted { $0.cells > $1.cells }.prefix(limit).map(\.rect)
    }
}
