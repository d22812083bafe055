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
                // Sums of at most 2^8 x 2^30 pixels: no overflow to check.
                for y in 0..<f.height {
                    var rowSum = 0
                    let src = y &* f.stride, above = y &* (w &+ 1) &+ 1, here = above &+ w &+ 1
                    for x in 0..<w {
                        rowSum &+= Int(p[src &+ x])
                        s[here &+ x] = s[above &+ x] &+ rowSum
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
                    // Boxes clipped at the left and right edges, and the full ones between, whose
                    // corners are a fixed step apart.
                    let lo = min(r, width), hi = max(lo, width - r)
                    for y in 0..<height {
                        let ya = max(0, y - r), yb = min(height, y + r + 1), top = ya * w1, bottom = yb * w1
                        let src = y * f.stride, row = y * width
                        func darker(_ x: Int) -> Bool {
                            let xa = max(0, x - r), xb = min(width, x + r + 1)
                            let sum = s[bottom + xb] - s[top + xb] - s[bottom + xa] + s[top + xa]
                            return (Int(p[src + x]) + offset + 1) * ((yb - ya) * (xb - xa)) <= sum
                        }
                        for x in 0..<lo { o[row + x] = darker(x) }
                        let area = (yb - ya) &* (2 &* r &+ 1), near = offset &+ 1
                        for x in lo..<hi {
                            let xa = x &- r, xb = x &+ r &+ 1
                            let sum = s[bottom &+ xb] &- s[top &+ xb] &- s[bottom &+ xa] &+ s[top &+ xa]
                            o[row &+ x] = (Int(p[src &+ x]) &+ near) &* area <= sum
                        }
                        for x in hi..<width { o[row + x] = darker(x) }
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
