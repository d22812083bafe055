import ScanHardware
import Synchronization

/// Copies of camera frames for whoever waits for one (a snapshot, the setup page's preview),
/// taken from the capture child without slowing it: with nobody waiting, a frame costs one
/// atomic load; with somebody, one copy of its pixels, shared by all waiting.
public final class FrameTap: Sendable {
    private struct State {
        var waiters: [Int: CheckedContinuation<GrayFrame?, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }
    private let state = Locked(State())
    private let waiting = Atomic<Int>(0)

    public init() {}

    /// Whether anybody waits for a frame.
    public var isWanted: Bool { waiting.load(ordering: .relaxed) > 0 }

    /// Hands `frame` (copied: the camera's buffer goes back to the driver) to everybody waiting.
    public func offer(_ frame: GrayFrame) {
        guard isWanted else { return }
        let copy = GrayFrame(width: frame.width, height: frame.height, pixels: frame.packedPixels(), timestampNanos: frame.timestampNanos)
        let waiters = state.withLock { s -> [CheckedContinuation<GrayFrame?, Never>] in
            defer { s.waiters = [:]; waiting.store(0, ordering: .relaxed) }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume(returning: copy) }
    }

    /// The next frame the camera delivers; nil when cancelled.
    public func next() async -> GrayFrame? {
        let id = state.withLock { s -> Int in s.nextID += 1; return s.nextID }
        // A cancellation that came after the frame leaves no mark behind.
        defer { state.withLock { _ = $0.cancelled.remove(id) } }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<GrayFrame?, Never>) in
                let cancelled = state.withLock { s -> Bool in
                    if s.cancelled.remove(id) != nil { return true }
                    s.waiters[id] = c
                    waiting.store(s.waiters.count, ordering: .relaxed)
                    return false
                }
                if cancelled { c.resume(returning: nil) }
            }
        } onCancel: {
            let w = state.withLock { s -> CheckedContinuation<GrayFrame?, Never>? in
                guard let w = s.waiters.removeValue(forKey: id) else { s.cancelled.insert(id); return nil }
                waiting.store(s.waiters.count, ordering: .relaxed)
                return w
            }
            w?.resume(returning: nil)
        }
    }

    /// The next frame, or nil when none comes within `timeout` on `clock`.
    public func next(within timeout: Duration, on clock: any Clock<Duration> = ContinuousClock()) async -> GrayFrame? {
        await withTaskGroup(of: GrayFrame?.self) { group in
            group.addTask { await self.next() }
            group.addTask { try? await clock.sleep(for: timeout); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
