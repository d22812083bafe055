import ScanHardware

/// Summed-area table of a gray frame: the mean of any box in constant time (local thresholds,
/// box blurs). Where every pixel's box is asked in turn, `darkerThanMean` gets the same sums a
/// row at a time without the table.
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

    /// Per pixel of `f`, whether it is darker than the mean of the box of radius `r` around it
    /// (clipped to the frame) by more than `by`: the same as `p < mean(x:y:radius:) - by` of
    /// `f`'s table, without the table or a division per pixel (p + by + 1 <= floor(sum / area)
    /// exactly when (p + by + 1) * area <= sum). The box's sums come a row at a time: each
    /// column's sum over the box's rows, kept as the box moves down, then summed across.
    static func darkerThanMean(_ f: GrayFrame, radius r: Int, by offset: Int) -> [Bool] {
        let width = f.width, height = f.height
        var out = [Bool](repeating: false, count: width * height)
        guard width > 0, height > 0 else { return out }
        var columns = [Int](repeating: 0, count: width)
        var across = [Int](repeating: 0, count: width + 1)
        f.withUnsafeBytes { p in
            columns.withUnsafeMutableBufferPointer { c in
                across.withUnsafeMutableBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        for y in 0..<min(height, r) {
                            let row = y &* f.stride
                            for x in 0..<width { c[x] &+= Int(p[row &+ x]) }
                        }
                        // Boxes clipped at the left and right edges, and the full ones between.
                        let lo = min(r, width), hi = max(lo, width - r), near = offset &+ 1
                        for y in 0..<height {
                            // The box's rows go from y - r to y + r: one row comes in, one leaves.
                            let incoming = y &+ r < height ? (y &+ r) &* f.stride : -1
                            let leaving = y &- r &- 1 >= 0 ? (y &- r &- 1) &* f.stride : -1
                            if incoming >= 0 && leaving >= 0 {
                                for x in 0..<width { c[x] = c[x] &+ Int(p[incoming &+ x]) &- Int(p[leaving &+ x]) }
                            } else if incoming >= 0 {
                                for x in 0..<width { c[x] &+= Int(p[incoming &+ x]) }
                            } else if leaving >= 0 {
                                for x in 0..<width { c[x] &-= Int(p[leaving &+ x]) }
                            }
                            for x in 0..<width { s[x &+ 1] = s[x] &+ c[x] }
                            let rows = min(height, y &+ r &+ 1) &- max(0, y &- r)
                            let src = y &* f.stride, line = y &* width
                            func darker(_ x: Int) -> Bool {
                                let xa = max(0, x - r), xb = min(width, x + r + 1)
                                return (Int(p[src + x]) + near) * (rows * (xb - xa)) <= s[xb] - s[xa]
                            }
                            for x in 0..<lo { o[line + x] = darker(x) }
                            let area = rows &* (2 &* r &+ 1)
                            for x in lo..<hi {
                                o[line &+ x] = (Int(p[src &+ x]) &+ near) &* area <= s[x &+ r &+ 1] &- s[x &- r]
                            }
                            for x in hi..<width { o[line + x] = darker(x) }
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
