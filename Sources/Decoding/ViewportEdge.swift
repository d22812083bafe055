import Glibc
import ScanCore
import ScanHardware

extension DecodePipeline {
    /// The codes a part of another can pass for (Interleaved 2 of 5, Code 39, Codabar, UPC-E,
    /// EAN-8): cut by the viewport's edge, the part is a valid read of its own.
    static let cutKinds: Set<Symbology> = [.itf, .itf14, .code39, .codabar, .upcE, .ean8]

    /// Reads in a viewport (a region of the frame) whose quiet zone runs past the region's
    /// edge into bars of the frame are dropped: the code goes on where the engines did not
    /// look, and the read is a part of it. An EAN-13 whose right end lies just past the
    /// viewport read as the UPC-E of its left half; an ITF cut by it read as its first digits.
    /// Only the frame past an edge that is not the frame's own is looked at; a code whose
    /// quiet zone reaches past the viewport into a plain background stays.
    static func withoutCutReads(_ found: [Symbol], in region: GrayFrame, _ doubts: Doubts) -> [Symbol] {
        guard let (frame, origin) = doubts.view else { return found }
        return found.filter { s in
            guard cutKinds.contains(s.symbology), let (p, q) = JoinedHalves.readLine(s) else { return true }
            let length = hypot(q.x - p.x, q.y - p.y)
            guard length >= 16 else { return true }
            let ux = (q.x - p.x) / length, uy = (q.y - p.y) / length
            // The code's own dark and light along the read.
            let along = samples(frame, from: (p.x + Double(origin.x), p.y + Double(origin.y)), step: (ux, uy), count: Int(length))
            let sorted = along.sorted()
            guard sorted.count >= 16 else { return true }
            let dark = sorted[sorted.count / 10], light = sorted[sorted.count * 9 / 10]
            guard light - dark >= 24 else { return true }
            // Each end's quiet zone (a sixth of the code's length: ten modules of the shortest
            // of these codes and more) past the region: bars there mean the code goes on.
            let reach = max(8, length / 6)
            for (end, sx, sy) in [(q, ux, uy), (p, -ux, -uy)] {
                let far = (x: end.x + sx * reach, y: end.y + sy * reach)
                let inside = far.x >= 0 && far.y >= 0 && far.x <= Double(region.width - 1) && far.y <= Double(region.height - 1)
                guard !inside else { continue }
                let beyond = samples(frame, from: (end.x + Double(origin.x), end.y + Double(origin.y)), step: (sx, sy), count: Int(reach))
                if barCount(beyond, dark: dark, light: light) >= 2 { return false }
            }
            return true
        }
    }

    /// Levels along a line in the frame, one a pixel, as far as the frame goes.
    static func samples(_ frame: GrayFrame, from start: (x: Double, y: Double), step: (Double, Double), count: Int) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            let x = Int((start.x + step.0 * Double(i)).rounded()), y = Int((start.y + step.1 * Double(i)).rounded())
            guard x >= 0, y >= 0, x < frame.width, y < frame.height else { break }
            out.append(Double(frame[x, y]))
        }
        return out
    }

    /// Dark runs along `levels` between `dark` and `light`, each entered below a third of the
    /// way up and left above two thirds (a bar and the space after it; noise does not count).
    static func barCount(_ levels: [Double], dark: Double, light: Double) -> Int {
        let low = dark + (light - dark) / 3, high = dark + 2 * (light - dark) / 3
        var bars = 0, inBar = false
        for v in levels {
            if !inBar, v <= low { inBar = true; bars += 1 } else if inBar, v >= high { inBar = false }
        }
        return bars
    }
}
