import ScanHardware

/// What the deep look is told about a frame before its passes, measured in about a
/// millisecond: whether it is out of focus and whether it is dark. Each moves up the passes
/// that read such frames (`ImagePass.passes(for:condition:)`), which otherwise wait for every
/// pass before them: a blurred code read by `deblurred`, a dark full-HD frame read by
/// `downscale`, had ten passes' reads before theirs.
public struct FrameCondition: Equatable, Sendable {
    /// The frame's lens blur, sigma in pixels (`EdgeSpread`; nil: too few lone edges to tell).
    public var blur: Double?
    /// The level the brightest hundredth of the frame reaches (0...255): the paper's level in a
    /// frame with a code.
    public var brightLevel: Int

    /// The edge spread from which a frame counts as out of focus. A frame in focus measures
    /// about 0.85 (a step from one pixel to the next); nine in ten blurred scenes of 12
    /// generated sets (1.1-3 pixels of lens blur) 1.36 or more.
    public static let outOfFocusBlur = 1.2
    /// The bright level under which a frame counts as dark: the 169 dark scenes of the 12
    /// generated sets and the shared scenes (the light cut to a tenth or a fifth) reach 25-77;
    /// of the other 2,636 images of those sets, the crossed sets and the zxing-cpp corpus, 3
    /// (of the zxing-cpp corpus) are under 96.
    public static let darkBelow = 96

    public init(blur: Double?, brightLevel: Int) {
        self.blur = blur
        self.brightLevel = brightLevel
    }

    /// `frame`'s condition.
    public init(of frame: GrayFrame) {
        self.init(blur: EdgeSpread.sigma(of: frame), brightLevel: Self.brightLevel(of: frame))
    }

    public var isOutOfFocus: Bool { (blur ?? 0) >= Self.outOfFocusBlur }

    /// The lens blur to deconvolve this frame for besides fixed ones up to `largestFixed`
    /// (`ImagePass.lensBlurs`), where it is out of focus by more than they undo: its blur
    /// rounded up to a quarter pixel (nil: none). Six blurred linear codes of the generated
    /// sets (measured 2.3-3.0 px) that deconvolving for 1.5 and 2 px left unread are read so.
    public func fittedLensBlur(beyond largestFixed: Double) -> Double? {
        guard isOutOfFocus, let blur else { return nil }
        let sigma = (blur * 4).rounded(.up) / 4
        return sigma > largestFixed ? min(sigma, Self.largestLensBlur) : nil
    }

    /// The largest lens blur deconvolved for (the taps grow with it; no frame of the sets
    /// measures over 3.1 px).
    static let largestLensBlur = 4.0
    public var isDark: Bool { brightLevel < Self.darkBelow }

    /// The level that a hundredth of the pixels reach or pass, from every fourth pixel of every
    /// fourth row.
    static func brightLevel(of frame: GrayFrame) -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        frame.withUnsafeBytes { p in
            for y in Swift.stride(from: 0, to: frame.height, by: 4) {
                let row = y * frame.stride
                for x in Swift.stride(from: 0, to: frame.width, by: 4) {
                    histogram[Int(p[row + x])] += 1
                    count += 1
                }
            }
        }
        guard count > 0 else { return 0 }
        var above = 0
        for level in (0...255).reversed() {
            above += histogram[level]
            if above * 100 >= count { return level }
        }
        return 0
    }
}
