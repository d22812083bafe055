import ScanHardware

/// What the simulated outputs did, in order: `torch active`, `buzzer inactive`, ... Keeps the
/// newest `capacity` entries, so that a long demo or soak run does not grow without bound.
public final class Trace: Sendable {
    private let entries = Locked<[String]>([])
    public let capacity: Int
    private let now: (@Sendable () -> Duration)?
    private let timed = Locked<[String]>([])

    /// With `now`, every entry is also kept with its time in `timeline`.
    public init(capacity: Int = 100_000, now: (@Sendable () -> Duration)? = nil) {
        self.capacity = max(1, capacity)
        self.now = now
    }

    public func record(_ entry: String) {
        entries.withLock {
            if $0.count >= capacity { $0.removeFirst($0.count - capacity + 1) }
            $0.append(entry)
        }
        if let now {
            let ms = now() / .milliseconds(1)
            timed.withLock {
                if $0.count >= capacity { $0.removeFirst($0.count - capacity + 1) }
                $0.append("\(Int(ms.rounded())) \(entry)")
            }
        }
    }

    /// Every entry with its time in milliseconds (`120 torch active`), when made with `now`.
    public var timeline: [String] { timed.withLock { $0 } }
    /// Every entry so far.
    public var all: [String] { entries.withLock { $0 } }
    /// The entries of one device (`torch`, `buzzer`, `status_led`), without the device name.
    public func of(_ device: String) -> [String] {
        all.compactMap { $0.hasPrefix(device + " ") ? String($0.dropFirst(device.count + 1)) : nil }
    }
    public func clear() {
        entries.withLock { $0.removeAll() }
        timed.withLock { $0.removeAll() }
    }
}
