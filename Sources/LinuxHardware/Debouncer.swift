import ScanHardware

/// Software debouncing of a button's edges, leading-edge style: the first edge that changes the
/// level is reported at once (no added latency); edges in the following `period` are bounces and
/// ignored; when the period has passed, the line's real level is read back (`settle`) and a
/// change that the bounces hid is reported then.
struct Debouncer {
    let periodNanos: UInt64
    /// The level last reported (true = pressed).
    private(set) var pressed = false
    /// Until when edges are ignored, or nil when quiet.
    private(set) var lockedUntil: UInt64?

    init(period: Duration, initiallyPressed: Bool = false) {
        let c = period.components
        periodNanos = UInt64(max(0, c.seconds)) * 1_000_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000)
        pressed = initiallyPressed
    }

    /// An edge from the kernel: `toPressed` is the new logical level, `at` its timestamp.
    mutating func edge(toPressed: Bool, at nanos: UInt64) -> ButtonEvent? {
        if let until = lockedUntil, nanos < until { return nil }
        lockedUntil = nil
        guard toPressed != pressed else { return nil }
        pressed = toPressed
        if periodNanos > 0 { lockedUntil = nanos + periodNanos }
        return ButtonEvent(toPressed ? .pressed : .released, timestampNanos: nanos)
    }

    /// How long to wait before `settle` is due, from `now`, or nil when nothing is pending.
    func settleDelay(now: UInt64) -> UInt64? {
        guard let until = lockedUntil else { return nil }
        return until > now ? until - now : 0
    }

    /// The quiet period is over: `levelPressed` is the line's level read now.
    mutating func settle(levelPressed: Bool, at nanos: UInt64) -> ButtonEvent? {
        lockedUntil = nil
        guard levelPressed != pressed else { return nil }
        pressed = levelPressed
        if periodNanos > 0 { lockedUntil = nanos + periodNanos }
        return ButtonEvent(levelPressed ? .pressed : .released, timestampNanos: nanos)
    }
}
