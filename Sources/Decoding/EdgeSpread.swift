import Glibc
import ScanHardware

/// How far a frame's edges are spread: the Gaussian blur (sigma, pixels) that its strong, lone
/// edges show, measured cheaply before the deep passes so that a frame out of focus is
/// deconvolved first instead of last (`FrameCondition`).
///
/// Along about 120 rows and 120 columns, each steepest point of a step between two flat levels
/// gives one estimate: for a step of height `h` blurred by a Gaussian of `sigma`, the steepest
/// slope is `h / (sigma * sqrt(2 pi))`. A step counts only where both sides are flat for a few
/// pixels (a lone edge: a label's border, a quiet zone, a wide bar, a scene's clutter), since the
/// slopes inside a run of thin bars tell their width, not the blur. The frame's figure is the
/// median of its steps' estimates; nil when it has too few.
public enum EdgeSpread {
    /// The least step height counted, in levels: well above the sensor's noise.
    static let minimumStep = 40
    /// The least central difference (twice the slope) looked at: `minimumStep` blurred by a
    /// Gaussian of 2.5 pixels still has it at its steepest point.
    static let minimumSlope = 2 * minimumStep * 10 / 63
    /// The fewest steps a frame's figure is taken from.
    static let minimumSteps = 24

    /// The frame's blur sigma in pixels (nil: too few lone edges to tell).
    public static func sigma(of frame: GrayFrame) -> Double? {
        var estimates: [Double] = []
        // Slopes looked at: in a noisy frame nearly every pixel's, and hardly a step is lone.
        // Once they outnumber the steps found by far, the frame cannot tell (and is not read
        // through to the end: 13-17 ms for a noisy 1080p frame).
        var examined = 0
        frame.withUnsafeBytes { p in
            let s = frame.stride
            // Rows, then columns: each a line of pixels read through `at`; about 120 of each
            // (every fourth of a 640x480 frame, every ninth of a 1080p one).
            let rowStep = max(4, frame.height / 120), columnStep = max(4, frame.width / 120)
            for y in Swift.stride(from: 8, to: frame.height - 8, by: rowStep) where examined <= budget(estimates.count) {
                examined += scan(count: frame.width, into: &estimates) { Int(p[y * s + $0]) }
            }
            for x in Swift.stride(from: 8, to: frame.width - 8, by: columnStep) where examined <= budget(estimates.count) {
                examined += scan(count: frame.height, into: &estimates) { Int(p[$0 * s + x]) }
            }
        }
        guard estimates.count >= minimumSteps, examined <= budget(estimates.count) else { return nil }
        estimates.sort()
        return estimates[estimates.count / 2]
    }

    /// How many slopes may be looked at for `steps` lone steps found.
    static func budget(_ steps: Int) -> Int { 200 * (steps + 50) }

    /// The estimates of one line's lone steps; gives how many slopes it looked at.
    @inline(__always)
    static func scan(count: Int, into estimates: inout [Double], _ at: (Int) -> Int) -> Int {
        // A step is looked for within `reach` pixels of its steepest point; flat means within
        // a tenth of the step over `flat` pixels beyond that.
        let reach = 8, flat = 3
        guard count > 2 * (reach + flat) + 2 else { return 0 }
        var examined = 0
        var x = reach + flat
        while x < count - reach - flat - 1 {
            let slope = at(x + 1) - at(x - 1)
            // A quick test first: a slope as steep as the least step blurred by 2.5 pixels
            // (most pixels have none).
            guard abs(slope) >= minimumSlope else { x += 1; continue }
            examined += 1
            // The steepest point of the whole step (one estimate per edge): no slope the same
            // way within reach is steeper (nor as steep before it).
            let rising = slope > 0
            var steepest = true
            for k in 1...reach {
                let l = at(x - k + 1) - at(x - k - 1), r = at(x + k + 1) - at(x + k - 1)
                if rising ? (l >= slope || r > slope) : (l <= slope || r < slope) { steepest = false; break }
            }
            guard steepest else { x += 1; continue }
            // The step's two levels: the extremes within reach on either side.
            var low = at(x), high = at(x)
            for k in 1...reach {
                let l = at(x - k), r = at(x + k)
                if rising { low = min(low, l); high = max(high, r) } else { high = max(high, l); low = min(low, r) }
            }
            let h = high - low
            guard h >= minimumStep else { x += 1; continue }
            // Lone: flat just beyond the reach on both sides.
            let tolerance = max(4, h / 10)
            let leftLevel = rising ? low : high, rightLevel = rising ? high : low
            var lone = true
            for k in (reach + 1)...(reach + flat) where abs(at(x - k) - leftLevel) > tolerance || abs(at(x + k) - rightLevel) > tolerance {
                lone = false
                break
            }
            if lone {
                // Central difference: slope / 2 levels per pixel.
                estimates.append(Double(h) / (Double(abs(slope)) / 2 * (2 * Double.pi).squareRoot()))
                x += reach
            } else {
                x += 1
            }
        }
        return examined
    }
}
