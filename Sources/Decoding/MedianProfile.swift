import Glibc
import ScanCore
import ScanHardware

/// A linear code's bars as the median of every line across its height: a thin line drawn across
/// the code (a crease, a pen stroke, a clutter line) darkens each place along it on a few lines
/// only, and the median of the lines leaves it out. A code without a check character read
/// through such a line can spell another valid text on every line the read took (a steep line
/// across one character of a Code 39 `L5YPU` turns it into `L5.PU` on each of them); read again
/// from the median, it spells what it is.
enum MedianProfile {
    /// Samples per pixel along the code: the median is read enlarged twice.
    static let density = 2.0

    /// An image of the median of the lines parallel to `s`'s read line that cross the same bars
    /// (found by their likeness to the read line), each of its rows that median, with a quiet
    /// zone of an eighth of the code's length each side. Nil when the read is too short, or too
    /// few lines cross its bars to take a median (a thin code: the read stands as it is).
    static func image(of s: Symbol, in frame: GrayFrame, rows: Int = 12) -> GrayFrame? {
        guard let (p, q) = JoinedHalves.readLine(s) else { return nil }
        let length = hypot(q.x - p.x, q.y - p.y)
        guard length >= 24, length <= 4096 else { return nil }
        let dx = (q.x - p.x) / length, dy = (q.y - p.y) / length
        let margin = length / 8
        let count = Int(((length + 2 * margin) * density).rounded())
        let codeStart = Int((margin * density).rounded()), codeEnd = min(count, codeStart + Int((length * density).rounded()))
        return frame.withUnsafeBytes { pixels -> GrayFrame? in
            // The line `t` pixels across from the read line, shifted `shift` pixels along it,
            // sampled bilinearly (clamped at the frame's edges); `samples`: only those.
            func line(_ t: Double, _ shift: Double = 0, _ samples: Range<Int> = 0..<count) -> [Double] {
                let ox = p.x - dy * t - dx * (margin - shift), oy = p.y + dx * t - dy * (margin - shift)
                return samples.map { i in
                    let u = Double(i) / density
                    let x = min(max(ox + dx * u, 0), Double(frame.width - 1)), y = min(max(oy + dy * u, 0), Double(frame.height - 1))
                    let x0 = Int(x), y0 = Int(y), x1 = min(x0 + 1, frame.width - 1), y1 = min(y0 + 1, frame.height - 1)
                    return Double(ImagePass.bilinear(pixels, frame.stride, x0, x1, y0, y1, x - Double(x0), y - Double(y0)))
                }
            }
            let code = codeStart..<codeEnd
            let read = line(0, 0, code)[...]
            // The shift (within a quarter pixel either way of `near`'s) at which a line is most
            // like the read line: an engine reports the line it read along, and the bars may lean
            // across it (a turned or slanted code), a little more on each line outwards.
            func bestShift(_ t: Double, near: Double) -> (shift: Double, likeness: Double) {
                var best = (shift: near, likeness: -1.0)
                for q in -1...1 {
                    let shift = near + Double(q) / 4
                    let c = correlation(line(t, shift, code)[...], read)
                    if c > best.likeness { best = (shift, c) }
                }
                return best
            }
            // Outwards both ways while the lines look like the read line (two unlike lines in a
            // row end the code's bars), at most half the code's length each way, in at most 32
            // steps.
            let step = max(1, (length / 64).rounded())
            var found: [(t: Double, shift: Double)] = [(0, 0)]
            for side in [-1.0, 1.0] {
                var unlike = 0, shift = 0.0, lean = 0.0
                for k in 1...max(1, Int(length / 2 / step)) {
                    let t = side * Double(k) * step
                    // Near where the lean so far puts it.
                    let best = bestShift(t, near: shift + lean)
                    if best.likeness >= 0.5 {
                        found.append((t, best.shift)); lean = best.shift - shift; shift = best.shift; unlike = 0
                    } else {
                        unlike += 1
                        if unlike == 2 { break }
                    }
                }
            }
            guard found.count >= 7 else { return nil }
            // The bars' lean: the shifts' straight line through the read line (a least-squares
            // slope), so that one line's chance best does not bend the code.
            let stt = found.reduce(0) { $0 + $1.t * $1.t }, sts = found.reduce(0) { $0 + $1.t * $1.shift }
            let lean = stt > 0 ? sts / stt : 0
            let lines = found.map { line($0.t, lean * $0.t) }
            var median = [UInt8](repeating: 0, count: count)
            var column = [Double](repeating: 0, count: lines.count)
            for i in 0..<count {
                for j in lines.indices { column[j] = lines[j][i] }
                column.sort()
                median[i] = UInt8(column[column.count / 2].rounded())
            }
            return GrayFrame(width: count, height: rows, pixels: Array((0..<rows).map { _ in median }.joined()))
        }
    }

    /// Pearson's correlation of two equal-length runs of levels (0 where either is flat).
    static func correlation(_ a: ArraySlice<Double>, _ b: ArraySlice<Double>) -> Double {
        let n = Double(a.count)
        guard n > 1 else { return 0 }
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) { sab += (x - ma) * (y - mb); saa += (x - ma) * (x - ma); sbb += (y - mb) * (y - mb) }
        guard saa > 0, sbb > 0 else { return 0 }
        return sab / (saa * sbb).squareRoot()
    }
}

extension DecodePipeline {
    /// Reads of a code without a check character (Code 39, Codabar, Interleaved 2 of 5) or with
    /// a short one's single check digit (UPC-E, EAN-8) that the median of the lines across the
    /// code (`MedianProfile`) reads as another text of its kind are dropped: a line drawn
    /// across the code made them. A median that reads nothing, or no median (a thin code),
    /// leaves the read as it is. Not asked of a UPC-E or EAN-8 under glare, whose lifted bars
    /// the median keeps (the full-length EAN/UPC codes, checked in other ways, are left out:
    /// there a glared UPC-A's real read was lost, and the median cost 1.08x on zxing-cpp's
    /// EAN-13 and UPC-A photos).
    func withoutCrossedMisreads(_ found: [Symbol], in frame: GrayFrame) -> [Symbol] {
        found.filter { s in
            guard [.code39, .codabar, .itf, .upcE, .ean8].contains(s.symbology),
                  !s.symbology.isEANFamily || !Self.underGlare(frame, around: s),
                  let image = MedianProfile.image(of: s, in: frame) else { return true }
            var other = false
            for engine in engines {
                let reads = engine.decode(image).filter { $0.symbology == s.symbology || ($0.symbology.isEANFamily && s.symbology.isEANFamily) }
                if reads.contains(where: { Self.same($0, s) }) { return true }
                if !reads.isEmpty { other = true }
            }
            return !other
        }
    }
}
