import Decoding
import ScanCore
import ScanHardware

/// Guidance for a frame whose decoding found nothing. How each hint is decided:
/// - **too dark**: the viewport's mean level is below `darkLevel` (50 of 255).
/// - The rest look at the largest code-like region in the viewport (`CodeFinder`: cells whose
///   mean gradient stands well above the frame's usual texture), and say nothing when there is none:
///   - **partly outside**: the region touches the viewport's edge (within one finder cell);
///   - **too small**: along the region's middle row and column, thresholded halfway between its
///     dark and light levels, the first quartile of the runs (about a module or a narrow bar)
///     is under 2 pixels;
///   - **blurred**: edges are soft: across the region's inner part, the steepest tenth of the steps between
///     neighbouring pixels rise less than a quarter of the region's contrast per pixel;
///   - **glare**: an inner part of the region (of a 5x5 split, not on its rim) has no dark
///     pixel and is mostly (80 %) blown out at 250 or more: a code has dark modules all through.
public enum Guidance {
    public static let darkLevel = 50.0

    /// Hints for `viewport` of `frame` (its decoding found nothing), most important first, and
    /// the code-like regions seen there (frame pixels, largest first).
    public static func assess(_ frame: GrayFrame, viewport: Viewport, torchOn: Bool) -> (advice: [Advice], regions: [PixelRect]) {
        let v = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        let area = PixelRect(x: v.x, y: v.y, width: v.width, height: v.height)
        var advice: [Advice] = []
        let measures = FrameMeasures.measure(frame, area)
        if measures.brightness < darkLevel {
            advice.append(Advice(.tooDark, torchOn ? "too dark even with the torch: more light is needed"
                                                   : "too dark: light the torch (TORCH ON) or the scene"))
        }
        let crop = frame.cropped(to: area)
        let regions = CodeFinder.regions(in: crop).map {
            PixelRect(x: $0.x + area.x, y: $0.y + area.y, width: $0.width, height: $0.height)
        }
        guard let region = regions.first else { return (advice, []) }
        if touchesEdge(crop, PixelRect(x: region.x - area.x, y: region.y - area.y, width: region.width, height: region.height)) {
            advice.append(Advice(.partlyOutside, "code partly outside the viewport: move it to the middle", region: region))
        }
        let look = RegionLook(frame.cropped(to: region))
        if look.contrast >= 40 {
            if let run = look.finestRun, run < 2 {
                advice.append(Advice(.tooSmall, "code too small: move it closer (its finest marks are \(Int(run)) px wide)", region: region))
            } else if look.steepness < 0.25 {
                advice.append(Advice(.blurred, "code blurred: hold it still, or fix the focus", region: region))
            }
            if look.blownOutPart {
                advice.append(Advice(.glare, "glare on the code: tilt it or move the light", region: region))
            }
        }
        return (advice, regions)
    }
}

extension Guidance {
    /// Whether the code in `region` (of `crop`, the viewport) runs into the viewport's edge: its
    /// code-like cells reach an edge over at least 3 cells. A region can reach an edge through a
    /// thin line of clutter it joined (the shared corpus's blurred EAN-13 label and the rule below
    /// it); a code cut by the edge meets it with its whole extent.
    static func touchesEdge(_ crop: GrayFrame, _ region: PixelRect) -> Bool {
        guard let cells = EdgeCells(crop, minimumCells: 3) else { return false }
        let threshold = max(6, cells.rank(50) / cells.samplesPerCell * 3) * cells.samplesPerCell
        let marked = CellGrid.closingGaps(cells.energy.map { $0 >= threshold }, columns: cells.columns, rows: cells.rows)
        let c0 = max(0, region.x / cells.cell), c1 = min(cells.columns - 1, (region.x + region.width) / cells.cell - 1)
        let r0 = max(0, region.y / cells.cell), r1 = min(cells.rows - 1, (region.y + region.height) / cells.cell - 1)
        guard c0 <= c1, r0 <= r1 else { return false }
        func along(row r: Int) -> Int { (c0...c1).filter { marked[r * cells.columns + $0] }.count }
        func along(column c: Int) -> Int { (r0...r1).filter { marked[$0 * cells.columns + c] }.count }
        return (r0 == 0 && along(row: 0) >= 3) || (r1 == cells.rows - 1 && along(row: r1) >= 3)
            || (c0 == 0 && along(column: 0) >= 3) || (c1 == cells.columns - 1 && along(column: c1) >= 3)
    }
}

/// Measurements of one code-like region.
struct RegionLook {
    var dark = 0, light = 0
    var contrast: Int { light - dark }
    /// The first quartile of the runs along the middle row and column: about a module or a
    /// narrow bar (nil: too few runs to tell).
    var finestRun: Double?
    /// The steepest tenth of neighbour steps, as a share of the contrast per pixel.
    var steepness = 0.0
    var blownOutPart = false

    init(_ f: GrayFrame) {
        guard f.width >= 8, f.height >= 8 else { return }
        var histogram = [Int](repeating: 0, count: 256)
        f.withUnsafeBytes { p in
            for y in 0..<f.height { for x in 0..<f.width { histogram[Int(p[y * f.stride + x])] += 1 } }
        }
        let total = f.width * f.height
        dark = Self.percentile(histogram, total * 5 / 100)
        light = Self.percentile(histogram, total * 95 / 100)
        guard contrast > 0 else { return }
        let mid = (dark + light) / 2
        var runs: [Int] = []
        var steps = [Int](repeating: 0, count: 256)
        var stepCount = 0
        // Runs and steps inside the region's inner part (its rim may hold a sticker's edge).
        let inX = f.width / 8, inY = f.height / 8
        f.withUnsafeBytes { p in
            Self.runs(count: f.width - 2 * inX, mid: mid, into: &runs) { Int(p[(f.height / 2) * f.stride + inX + $0]) }
            Self.runs(count: f.height - 2 * inY, mid: mid, into: &runs) { Int(p[(inY + $0) * f.stride + f.width / 2]) }
            for y in inY..<(f.height - inY) {
                let row = y * f.stride
                for x in inX..<(f.width - inX - 1) {
                    let d = abs(Int(p[row + x + 1]) - Int(p[row + x]))
                    if d * 8 > contrast { steps[d] += 1; stepCount += 1 }
                }
            }
            // In a 5x5 split, an inner part without a dark pixel and mostly blown out (a code
            // has dark modules all through its inside).
            let darkLimit = dark + contrast / 4
            for part in 0..<25 where part % 5 != 0 && part % 5 != 4 && part / 5 != 0 && part / 5 != 4 {
                let x0 = (part % 5) * f.width / 5, x1 = (part % 5 + 1) * f.width / 5
                let y0 = (part / 5) * f.height / 5, y1 = (part / 5 + 1) * f.height / 5
                var blown = 0, darkPixels = 0, n = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let v = Int(p[y * f.stride + x])
                        if v >= 250 { blown += 1 }
                        if v <= darkLimit { darkPixels += 1 }
                        n += 1
                    }
                }
                if n > 0, darkPixels == 0, blown * 5 >= n * 4 { blownOutPart = true }
            }
        }
        if runs.count >= 8 {
            runs.sort()
            finestRun = Double(runs[runs.count / 4])
        }
        if stepCount > 0 {
            steepness = Double(Self.percentile(steps, stepCount * 9 / 10)) / Double(contrast)
        }
    }

    /// The level at which `rank` samples lie below.
    static func percentile(_ histogram: [Int], _ rank: Int) -> Int {
        var seen = 0
        for (level, n) in histogram.enumerated() {
            seen += n
            if seen > rank { return level }
        }
        return histogram.count - 1
    }

    /// Appends the lengths of the inner runs (not touching either end) of `count` samples.
    static func runs(count: Int, mid: Int, into runs: inout [Int], _ sample: (Int) -> Int) {
        var start = 0
        var dark = sample(0) < mid
        for i in 1..<count {
            let d = sample(i) < mid
            if d != dark {
                if start > 0 { runs.append(i - start) }
                start = i
                dark = d
            }
        }
    }
}
