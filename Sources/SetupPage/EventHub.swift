import ScanHardware

/// The kiosk's events (one JSON object a line, as on the event socket) for the setup page: a
/// server-sent-events stream per watching page, and the last results. A page that does not keep
/// up is cut off, never waited for.
public final class EventHub: Sendable {
    /// Events a subscriber may fall behind by before it is cut off.
    public static let backlog = 256
    /// Results kept for `GET /api/results`.
    public static let keptResults = 20
    /// Pages that may watch the events at once (`subscribeIfRoom`).
    public static let maxSubscribers = 16

    private struct State {
        var subscribers: [Int: AsyncStream<String>.Continuation] = [:]
        var nextID = 0
        var results: [String] = []
    }
    private let state = Locked(State())

    public init() {}

    /// Sends `line` (one JSON event) to every subscriber; a result is kept.
    public func publish(_ line: String) {
        let subscribers = state.withLock { s -> [(Int, AsyncStream<String>.Continuation)] in
            // Events are built with their type first (`KioskCore`).
            if line.hasPrefix("{\"event\":\"result\"") {
                s.results.append(line)
                if s.results.count > Self.keptResults { s.results.removeFirst(s.results.count - Self.keptResults) }
            }
            return Array(s.subscribers)
        }
        for (id, continuation) in subscribers {
            if case .dropped = continuation.yield(line) {
                continuation.finish() // fell behind: cut off
                _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        }
    }

    /// The last results, oldest first, as JSON event objects.
    public var results: [String] { state.withLock { $0.results } }

    /// Subscribers now.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Events from now on, until the consumer stops iterating or falls `backlog` behind.
    public func subscribe() -> AsyncStream<String> { subscribe(limit: nil)! }

    /// As `subscribe()`, or nil when `maxSubscribers` pages already watch.
    public func subscribeIfRoom() -> AsyncStream<String>? { subscribe(limit: Self.maxSubscribers) }

    private func subscribe(limit: Int?) -> AsyncStream<String>? {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(Self.backlog))
        let id = state.withLock { s -> Int? in
            if let limit, s.subscribers.count >= limit { return nil }
            s.nextID += 1
            s.subscribers[s.nextID] = continuation
            return s.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }
}
