import ScanCore

/// Results sent and not yet acknowledged, one window for every output that waits for an
/// acknowledgement (the serial host's `ACK n`, the MQTT broker's PUBACK). Pure: the output
/// says what it sent and what came back; `tick()`, once a second, says what is due again.
///
/// A result leaves the window when it is acknowledged (then it may leave the outbox) or when it
/// is due again (then the output sends it again, which puts it back with a fresh age).
public struct AckWindow: Sendable, Equatable {
    /// Ticks (seconds) without an acknowledgement before a result is sent again.
    public let resendAfter: Int
    /// Sequence number -> ticks since it was sent.
    private var ages: [Int: Int] = [:]
    /// A transport's own id for a send (an MQTT message id) -> sequence number.
    private var tokens: [Int32: Int] = [:]

    public init(resendAfter: Int) { self.resendAfter = max(1, resendAfter) }

    /// Results waiting for an acknowledgement.
    public var count: Int { ages.count }
    public var isEmpty: Bool { ages.isEmpty }

    /// Whether result `seq` was sent and waits for its acknowledgement.
    public func isWaiting(_ seq: Int) -> Bool { ages[seq] != nil }

    /// Result `seq` was sent (again), under the transport's `token` if it has one.
    public mutating func sent(_ seq: Int, token: Int32? = nil) {
        ages[seq] = 0
        if let token { tokens[token] = seq }
    }

    /// The host acknowledged `seq`: whether it was waiting (then it is done).
    public mutating func acknowledge(_ seq: Int) -> Bool {
        guard ages.removeValue(forKey: seq) != nil else { return false }
        tokens = tokens.filter { $0.value != seq }
        return true
    }

    /// The transport acknowledged the send with `token`: its result, if it was waiting.
    public mutating func acknowledge(token: Int32) -> Int? {
        guard let seq = tokens.removeValue(forKey: token), ages.removeValue(forKey: seq) != nil else { return nil }
        return seq
    }

    /// A second passed: the results due to be sent again, oldest first; they leave the window
    /// until they are sent again.
    public mutating func tick() -> [Int] {
        for seq in ages.keys { ages[seq]! += 1 }
        let due = ages.filter { $0.value >= resendAfter }.keys.sorted()
        for seq in due { ages[seq] = nil }
        if !due.isEmpty { tokens = tokens.filter { !due.contains($0.value) } }
        return due
    }

    /// The connection is gone: nothing in flight (all is sent again, in order, when it is back).
    public mutating func forgetAll() {
        ages = [:]
        tokens = [:]
    }
}
