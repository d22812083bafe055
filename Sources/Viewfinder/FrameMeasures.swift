import ScanCore
import ScanHardware

/// What a frame's viewport looks like to the pipeline, measured cheaply: its mean level, a
/// focus measure and the share of blown-out pixels. Shown on snapshots and the setup page.
public struct FrameMeasures: Sendable, Equatable {
    /// Mean gray level inside the viewport, 0...255.
    public var brightness: Double
    /// Variance of the 4-neighbour Laplacian inside the viewport (sharper images give higher
    /// values; compare readings of one scene, not scenes).
    public var focus: Double
    /// Share of viewport pixels at 250 or more (blown out by glare or overexposure), 0...1.
    public var saturated: Double

    public init(brightness: Double, focus: Double, saturated: Double) {
        self.brightness = brightness
        self.focus = focus
        self.saturated = saturated
    }

    /// Measures `viewport` of `frame` on every second pixel of every second row.
    public init(frame: GrayFrame, viewport: Viewport) {
        let v = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        self = Self.measure(frame, PixelRect(x: v.x, y: v.y, width: v.width, height: v.height))
    }

    /// Measures `rect` of `frame` (clamped to it).
    static func measure(_ frame: GrayFrame, _ rect: PixelRect) -> FrameMeasures {
        let r = rect.clamped(width: frame.width, height: frame.height)
        // The Laplacian needs a pixel on each side.
        let x0 = max(1, r.x), y0 = max(1, r.y)
        let x1 = min(frame.width - 1, r.x + r.width), y1 = min(frame.height - 1, r.y + r.height)
        guard x1 > x0, y1 > y0 else { return FrameMeasures(brightness: 0, focus: 0, saturated: 0) }
        return frame.withUnsafeBytes { p in
            var sum = 0, count = 0, saturated = 0
            var lapSum = 0.0, lapSquares = 0.0
            let s = frame.stride
            var y = y0
            while y < y1 {
                let row = y * s
                var x = x0
                while x < x1 {
                    let c = Int(p[row + x])
                    sum += c
                    if c >= 250 { saturated += 1 }
                    let lap = Double(Int(p[row + x - 1]) + Int(p[row + x + 1]) + Int(p[row - s + x]) + Int(p[row + s + x]) - 4 * c)
                    lapSum += lap
                    lapSquares += lap * lap
                    count += 1
                    x += 2
                }
                y += 2
            }
            let n = Double(max(1, count))
            let mean = lapSum / n
            return FrameMeasures(brightness: Double(sum) / n, focus: max(0, lapSquares / n - mean * mean),
                                 saturated: Double(saturated) / n)
        }
    }

    /// `brightness 142, focus 830, glare 0.4 %` for a snapshot's status line.
    public var summary: String {
        "brightness \(Int(brightness.rounded())), focus \(Int(focus.rounded())), blown out \(Self.percent(saturated))"
    }

    /// The measures as JSON fields (without braces).
    public var jsonFields: String {
        "\"brightness\":\(JSONText.number(brightness, decimals: 1)),\"focus\":\(JSONText.number(focus, decimals: 1)),"
            + "\"saturated\":\(JSONText.number(saturated, decimals: 4))"
    }

    static func percent(_ share: Double) -> String {
        let tenths = Int((share * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10) %"
    }
}
