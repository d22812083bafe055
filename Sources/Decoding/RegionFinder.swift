import ScanHardware

/// Finds where codes may be in a frame: blocks dense in strong edges, grouped into regions.
/// A decoder that looks from the frame's centre (zxing's Aztec detector) or that needs more
/// pixels per module (small codes) reads a region it would miss in the whole frame.
public enum RegionFinder {
    /// Candidate regions, largest first, in frame pixels.
    public static func candidates(in f: GrayFrame, limit: Int = 6) -> [PixelRect] {
        let cell = max(8, min(f.width, f.height) / 60)
        let cols = f.width / cell, rows = f.height / cell
        guard cols >= 4, rows >= 4 else { return [] }
        var energy = [Int](repeating: 0, count: cols * rows)
        f.withUnsafeBytes { p in
            for r in 0..<rows {
                for c in 0..<cols {
                    var sum = 0
                    let y0 = r * cell, x0 = c * cell
                    var y = y0
                    while y < y0 + cell - 1 {
                        let row = y * f.stride
                        var x = x0
                        while x < x0 + cell - 1 {
                            let v = Int(p[row + x])
                            let dx = abs(v - Int(p[row + x + 1])), dy = abs(v - Int(p[row + f.stride + x]))
                            // Only strong transitions count: noise and soft shading do not.
                            if dx > 24 { sum += dx }
                            if dy > 24 { sum += dy }
                            x += 2
                        }
                        y += 2
                    }
                    energy[r * cols + c] = sum
                }
            }
        }
        let sorted = energy.sorted()
        let high = sorted[sorted.count * 97 / 100]
        guard high > 0 else { return [] }
        let threshold = max(high / 4, sorted[sorted.count / 2] * 3 + 1)
        var marked = energy.map { $0 >= threshold }
        // Close one-cell gaps (quiet modules inside a code).
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
        var regions: [(rect: PixelRect, cells: Int)] = []
        for start in 0..<(cols * rows) where marked[start] && !seen[start] {
            var stack = [start]
            seen[start] = true
            var minC = cols, maxC = 0, minR = rows, maxR = 0, count = 0
            while let i = stack.popLast() {
                let r = i / cols, c = i % cols
                count += 1
                minC = min(minC, c); maxC = max(maxC, c); minR = min(minR, r); maxR = max(maxR, r)
                for dr in -1...1 {
                    for dc in -1...1 {
                        let nr = r + dr, nc = c + dc
                        guard nr >= 0, nr < rows, nc >= 0, nc < cols else { continue }
                        let j = nr * cols + nc
                        if marked[j] && !seen[j] { seen[j] = true; stack.append(j) }
                    }
                }
            }
            let w = maxC - minC + 1, h = maxR - minR + 1
            // A code fills a good part of its box and is not a thin line.
            guard count >= 4, count * 10 >= w * h * 3, min(w, h) >= 2 else { continue }
            let margin = max(1, max(w, h) / 5)
            let rect = PixelRect(x: (minC - margin) * cell, y: (minR - margin) * cell,
                                 width: (w + 2 * margin) * cell, height: (h + 2 * margin) * cell)
                .clamped(width: f.width, height: f.height)
            regions.append((rect, count))
        }
        return regions.sorted { $0.cells > $1.cells }.prefix(limit).map(\.rect)
    }
}
