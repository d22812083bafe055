import ScanHardware

/// Summed-area table of a gray frame: the mean of any box in constant time (local thresholds,
/// box blurs).
struct IntegralImage {
    let width: Int, height: Int
    private var sums: [Int]

    init(_ f: GrayFrame) {
        width = f.width
        height = f.height
        var sums = [Int](repeating: 0, count: (f.width + 1) * (f.height + 1))
        let w = f.width
        f.withUnsafeBytes { p in
            for y in 0..<f.height {
                var rowSum = 0
                for x in 0..<w {
                    rowSum += Int(p[y * f.stride + x])
                    sums[(y + 1) * (w + 1) + x + 1] = sums[y * (w + 1) + x + 1] + rowSum
                }
            }
        }
        self.sums = sums
    }

    /// The mean of the box of radius `r` around (x, y), clipped to the frame.
    @inline(__always)
    func mean(x: Int, y: Int, radius r: Int) -> Int {
        let ya = max(0, y - r), yb = min(height, y + r + 1), xa = max(0, x - r), xb = min(width, x + r + 1)
        let w1 = width + 1
        let sum = sums[yb * w1 + xb] - sums[ya * w1 + xb] - sums[yb * w1 + xa] + sums[ya * w1 + xa]
        return sum / ((yb - ya) * (xb - xa))
    }
}
