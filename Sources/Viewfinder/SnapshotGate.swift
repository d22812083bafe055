import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Snapshots for many viewers at the cost of one: one decode at a time, shared by every request
/// that arrives while it runs (single flight), at low priority, with a bounded wait.
///
/// A request that finds no decode running starts one; requests that arrive while it runs get
/// its snapshot too. At most `limit` requests are in the gate (the one that started the decode
/// and those waiting for it); one more is refused at once with `Busy` (the setup page answers
/// 503). The decode runs in a task of its own, so a request that gives up leaves it to the
/// others; `make` decides where the work runs (`atLowPriority` for the decode).
public final class SnapshotGate: Sendable {
    /// Requests in the gate at most.
    public let limit: Int
    private let make: @Sendable () async throws -> Snapshot
    private let state = Locked(State())

    private struct State {
        var running = false
        var waiting: [CheckedContinuation<Snapshot, any Error>] = []
        var decodes = 0
        var refused = 0
    }

    /// Refused: `limit` requests already wait for the snapshot being made.
    public struct Busy: Error, CustomStringConvertible, Sendable {
        public let limit: Int
        public var description: String { "busy: \(limit) snapshot requests wait for the one being made; try again in a moment" }
    }

    public init(limit: Int = 8, make: @escaping @Sendable () async throws -> Snapshot) {
        self.limit = max(1, limit)
        self.make = make
    }

    /// Snapshots made (each shared by the requests that waited for it), and requests refused.
    public var decodes: Int { state.withLock { $0.decodes } }
    public var refused: Int { state.withLock { $0.refused } }
    /// Requests in the gate now.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// The snapshot being made, or a new one; `Busy` when `limit` requests already wait, or
    /// what `make` threw (to every request that waited for it).
    public func snapshot() async throws -> Snapshot {
        try await withCheckedThrowingContinuation { c in
            enum Role { case start, wait, refuse }
            let role = state.withLock { s -> Role in
                if s.waiting.count >= limit { s.refused += 1; return .refuse }
                s.waiting.append(c)
                if s.running { return .wait }
                s.running = true
                return .start
            }
            switch role {
            case .refuse: c.resume(throwing: Busy(limit: limit))
            case .wait: break
            case .start: Task(priority: .background) { await self.run() }
            }
        }
    }

    private func run() async {
        var outcome: Result<Snapshot, any Error>
        do { outcome = .success(try await make()) } catch { outcome = .failure(error) }
        let waiting = state.withLock { s in
            defer { s.waiting = []; s.running = false }
            if case .success = outcome { s.decodes += 1 }
            if case .success(var snapshot) = outcome { snapshot.decode = s.decodes; outcome = .success(snapshot) }
            return s.waiting
        }
        for c in waiting { c.resume(with: outcome) }
    }

    /// `body` on a thread of its own at the lowest scheduling priority (nice 19: it gets the
    /// CPU the kiosk's threads leave), never on the cooperative pool. Throws when the system
    /// refuses a thread.
    public static func atLowPriority<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            let started = spawnThread {
                // Linux: nice is per thread, and `who` 0 is the calling thread (the kernel's
                // `current`), not the whole process.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                c.resume(returning: body())
            }
            if !started {
                c.resume(throwing: HardwareError(.other, operation: "pthread_create", device: "snapshot", errno: errno, hint: "no thread for the snapshot decode"))
            }
        }
    }
}
