import ScanHardware

/// Software debouncing of a button's edges, leading-edge style: the first edge that changes the
/// level is reported at once (no added latency); edges in the following `period` are bounces and
/// ignored; when the period has passed, the line's real level is read back (`settle`) and a
/// change that the bounces hid is reported then.
///
/// With a period, an edge is a change whichever way the kernel says it went: for both edges,
/// Linux reads the line's level when its interrupt thread runs, so a short press seen late (a
/// loaded machine) comes as two rising edges, and the press was lost. The level read back after
/// the period puts right an edge taken the wrong way.
struct Debouncer {
    let periodNanos: UInt64
    /// The level last reported (true = pressed).
    private(set) var pressed = false
    /// Until when edges are ignored, or nil when quiet.
    private(set) var lockedUntil: UInt64?
    /// When the level was last read back: an edge stamped before it is already counted in it.
    private(set) var settledAt: UInt64 = 0

    init(period: Duration, initiallyPressed: Bool = false) {
        let c = period.components
        periodNanos = UInt64(max(0, c.seconds)) * 1_000_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000)
        pressed = initiallyPressed
    }

    /// An edge from the kernel: `toPressed` is the new logical level, `at` its timestamp.
    mutating func edge(toPressed: Bool, at nanos: UInt64) -> ButtonEvent? {
        if let until = lockedUntil, nanos < until { return nil }
        lockedUntil = nil
        if periodNanos > 0 {
            guard nanos > settledAt else { return nil }
        } else {
            guard toPressed != pressed else { return nil }
        }
        pressed.toggle()
        if periodNanos > 0 { lockedUntil = nanos + periodNanos }
        return ButtonEvent(pressed ? .pressed : .released, timestampNanos: nanos)
    }

    /// How long to wait before `settle` is due, from `now`, or nil when nothing is pending.
    func settleDelay(now: UInt64) -> UInt64? {
        guard let until = lockedUntil else { return nil }
        return until > now ? until - now : 0
    }

    /// The quiet period is over: `levelPressed` is the line's level read now.
    mutating func settle(levelPressed: Bool, at nanos: UInt64) -> ButtonEvent? {
        lockedUntil = nil
        settledAt = nanos
        guard levelPressed != pressed else { return nil }
        pressed = levelPressed
        if periodNanos > 0 { lockedUntil = nanos + periodNanos }
        return ButtonEvent(levelPressed ? .pressed : .released, timestampNanos: nanos)
    }
}
