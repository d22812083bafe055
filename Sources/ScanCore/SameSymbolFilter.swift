/// Holds back a code that is still in view (boxed scanners' "same symbol timeout"): a code is
/// reported again only after it has been out of view (a looked-at frame without it) for at
/// least `window` since its last sighting, so a code left on the scanner is reported once
/// whatever the window, 0 included. Time is an input.
public struct SameSymbolFilter: Sendable {
    public var window: Duration
    private typealias Code = CodeIdentity
    private struct Sighting { var at: Duration; var outOfView: Bool }
    private var recent: [Code: Sighting] = [:]
    /// Codes remembered at most (several codes in view at once, `scan.multiple`).
    static let capacity = 32

    public init(window: Duration) { self.window = window }

    /// Forgets every code: the next ones are reported whatever they are (a press).
    public mutating func forget() { recent = [:] }

    /// A frame was looked at and showed `codes` at `now`: those are sighted again (forgotten if
    /// they were out of view longer than the window, so that they are reported), the others are
    /// out of view from their last sighting. Codes out of view longer than the window are
    /// forgotten.
    public mutating func frame(showing codes: [Symbol], at now: Duration) {
        let shown = Set(codes.map(Code.init))
        for (code, sighting) in recent {
            let away = sighting.outOfView && now - sighting.at >= window
            if shown.contains(code) {
                // Back after the window: a new sighting, which `admit` reports.
                recent[code] = away ? nil : Sighting(at: now, outOfView: false)
            } else if away {
                recent[code] = nil
            } else {
                recent[code]?.outOfView = true
            }
        }
    }

    /// `codes` are out of view at `now` (a frame not read through showed something else where
    /// they were); the others are left as they are.
    public mutating func leftView(_ codes: [CodeIdentity], at now: Duration) {
        for code in codes {
            guard let sighting = recent[code] else { continue }
            if sighting.outOfView && now - sighting.at >= window { recent[code] = nil } else { recent[code]?.outOfView = true }
        }
    }

    /// Whether `symbol`, read at `now` (any monotonic time), is reported; either way it is
    /// sighted now.
    public mutating func admit(_ symbol: Symbol, at now: Duration) -> Bool {
        let code = Code(symbol)
        let previous = recent[code]
        recent[code] = Sighting(at: now, outOfView: false)
        if recent.count > Self.capacity, let oldest = recent.min(by: { $0.value.at < $1.value.at })?.key, oldest != code {
            recent[oldest] = nil
        }
        guard let previous else { return true }
        return previous.outOfView && now - previous.at >= window
    }
}
