/// Holds back a code that is still in view (boxed scanners' "same symbol timeout"): a code is
/// reported again only after it has been out of view for at least `window` since its last
/// sighting, as frames without it show (a looked-at frame without it, `window` or more after
/// it was last seen). A code left on the scanner is reported once whatever the window, 0
/// included. Time is an input.
public struct SameSymbolFilter: Sendable {
    public var window: Duration
    private typealias Code = CodeIdentity
    /// When a code was last seen, and the latest frame since that showed it out of view.
    private struct Sighting {
        var at: Duration
        var absent: Duration?
        /// Whether a frame without the code came `window` or more after it was last seen.
        func away(for window: Duration) -> Bool { absent.map { $0 - at >= window } ?? false }
    }
    private var recent: [Code: Sighting] = [:]
    /// Codes remembered at most (several codes in view at once, `scan.multiple`).
    static let capacity = 32

    public init(window: Duration) { self.window = window }

    /// Forgets every code: the next ones are reported whatever they are (a press).
    public mutating func forget() { recent = [:] }

    /// A frame was looked at and showed `codes` at `now`: those are sighted again (or, out of
    /// view long enough before, forgotten: `admit` reports them), the others are out of view
    /// (forgotten once that has lasted the window). The time out of view is what frames without
    /// the code show, not when it is read again: a code only the deep passes read is read a
    /// deep pass late (counted so, a UPC-A out of view 0.27 s was sent again with a 500 ms window).
    public mutating func frame(showing codes: [Symbol], at now: Duration) {
        let shown = Set(codes.map(Code.init))
        for (code, sighting) in recent {
            if shown.contains(code) {
                recent[code] = sighting.away(for: window) ? nil : Sighting(at: now, absent: nil)
            } else {
                absent(code, at: now)
            }
        }
    }

    /// `codes` are out of view at `now`, as a frame without them would show: a scene held still,
    /// whose frames were not all read through, showed something else where they were.
    public mutating func leftView(_ codes: [CodeIdentity], at now: Duration) {
        for code in codes where recent[code] != nil { absent(code, at: now) }
    }

    private mutating func absent(_ code: Code, at now: Duration) {
        guard let sighting = recent[code] else { return }
        recent[code] = now - sighting.at >= window ? nil : Sighting(at: sighting.at, absent: now)
    }

    /// Whether `symbol`, read at `now` (any monotonic time), is reported; either way it is
    /// sighted now.
    public mutating func admit(_ symbol: Symbol, at now: Duration) -> Bool {
        let code = Code(symbol)
        let previous = recent[code]
        recent[code] = Sighting(at: now, absent: nil)
        if recent.count > Self.capacity, let oldest = recent.min(by: { $0.value.at < $1.value.at })?.key, oldest != code {
            recent[oldest] = nil
        }
        guard let previous else { return true }
        return previous.away(for: window)
    }
}
