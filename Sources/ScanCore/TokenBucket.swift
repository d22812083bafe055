/// A token bucket: up to `burst` at once, then `perSecond` a second; time is an input (a
/// `Duration` on any clock, never going back). It starts full. Used for MQTT commands: 10 a
/// second, 20 at once.
public struct TokenBucket: Sendable, Equatable {
    public let perSecond: Int
    public let burst: Int
    /// Credit in nanoseconds of refill: one token costs `cost`, the bucket holds `burst * cost`.
    private var credit: Int64
    private var last: Duration?
    private let cost: Int64

    public init(perSecond: Int, burst: Int) {
        self.perSecond = max(1, perSecond)
        self.burst = max(1, burst)
        cost = 1_000_000_000 / Int64(self.perSecond)
        credit = Int64(self.burst) * cost
    }

    /// Takes one token at `now`; false when the bucket is empty (nothing is taken then).
    public mutating func take(at now: Duration) -> Bool {
        if let last, now > last {
            let c = (now - last).components
            let elapsed = c.seconds >= Int64.max / 2_000_000_000 ? Int64.max / 2 : c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000
            credit = min(Int64(burst) * cost, credit + elapsed)
        }
        if last.map({ now > $0 }) ?? true { last = now }
        guard credit >= cost else { return false }
        credit -= cost
        return true
    }
}
