/// The automatic torch's judgement of the scene: the viewport's brightness averaged over the
/// last frames, dark below `darkBelow`. Once it lights the torch, the torch stays on for the
/// rest of the session (the light it adds would otherwise switch it off again: flicker); the
/// next session measures afresh.
struct AmbientLight: Sendable {
    /// Mean level (0...255) under which the scene counts as dark.
    static let darkBelow = 60.0
    /// Frames averaged (an exponential mean with this span).
    static let span = 4.0
    private var mean: Double?
    private var frames = 0

    /// Takes one frame's brightness; whether the scene is now dark. Needs a few frames first,
    /// so that one dark frame (a hand passing) does not light it.
    mutating func isDark(after brightness: Double) -> Bool {
        frames += 1
        let alpha = 2 / (Self.span + 1)
        mean = mean.map { $0 + alpha * (brightness - $0) } ?? brightness
        return frames >= 3 && (mean ?? 255) < Self.darkBelow
    }
}
