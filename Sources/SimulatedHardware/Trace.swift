import Synchronization

/// What the simulated outputs did, in order: `torch active`, `buzzer inactive`, ... Keeps the
/// newest `capacity` entries, so that a long demo or soak run does not grow without bound.
public final class Trace: Sendable {
    private let entries = Mutex<[String]>([])
    public let capacity: Int
    public init(capacity: Int = 100_000) { self.capacity = max(1, capacity) }
    public func record(_ entry: String) {
        entries.withLock {
            if $0.count >= capacity { $0.removeFirst($0.count - capacity + 1) }
            $0.append(entry)
        }
    }
    /// Every entry so far.
    public var all: [String] { entries.withLock { $0 } }
    /// The entries of one device (`torch`, `buzzer`, `status_led`), without the device name.
    public func of(_ device: String) -> [String] {
        all.compactMap { $0.hasPrefix(device + " ") ? String($0.dropFirst(device.count + 1)) : nil }
    }
    public func clear() { entries.withLock { $0.removeAll() } }
}
