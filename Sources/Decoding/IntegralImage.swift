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
        sums.withUnsafeMutableBufferPointer { s in
            f.withUnsafeBytes { p in
                for y in 0..<f.height {
                    var rowSum = 0
                    for x in 0..<w {
                        rowSum += Int(p[y * f.stride + x])
                        s[(y + 1) * (w + 1) + x + 1] = s[y * (w + 1) + x + 1] + rowSum
                    }
                }
            }
        }
        self.sums = sums
    }

    /// Per pixel of `f` (the frame this was made from), whether it is darker than the mean of
    /// the box of radius `r` around it (clipped to the frame) by more than `by`: the same as
    /// `p < mean(x:y:radius:) - by`, without a division per pixel (p + by + 1 <= floor(sum /
    /// area) exactly when (p + by + 1) * area <= sum).
    func darkerThanMean(_ f: GrayFrame, radius r: Int, by offset: Int) -> [Bool] {
        precondition(f.width == width && f.height == height)
        var out = [Bool](repeating: false, count: width * height)
        let w1 = width + 1
        sums.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                f.withUnsafeBytes { p in
                    for y in 0..<height {
                        let ya = max(0, y - r), yb = min(height, y + r + 1)
                        for x in 0..<width {
                            let xa = max(0, x - r), xb = min(width, x + r + 1)
                            let sum = s[yb * w1 + xb] - s[ya * w1 + xb] - s[yb * w1 + xa] + s[ya * w1 + xa]
                            o[y * width + x] = (Int(p[y * f.stride + x]) + offset + 1) * ((yb - ya) * (xb - xa)) <= sum
                        }
                    }
                }
            }
        }
        return out
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
