import ScanCore
import ScanHardware

// The runtime's hand-offs between its children: the capture child's work, a wake-up call that
// is never lost, and a one-value slot for the deep looks.

/// What the capture child does; it waits here while there is nothing to do.
final class CaptureControl: Sendable {
    private struct State {
        var work = CaptureWork.none
        var waiter: CheckedContinuation<CaptureWork?, Never>?
        var waitingAfter: CaptureWork?
        var closed = false
    }
    private let state = Locked(State())

    var current: CaptureWork { state.withLock { $0.work } }

    func serve(_ work: CaptureWork) {
        let resume: (CheckedContinuation<CaptureWork?, Never>, CaptureWork)? = state.withLock { s in
            s.work = work
            guard work != .none, work != s.waitingAfter, let w = s.waiter else { return nil }
            s.waiter = nil
            return (w, work)
        }
        if let (w, work) = resume { w.resume(returning: work) }
    }

    /// The work to do, other than `failed` (work whose frame failed waits for a change); nil
    /// when the task is cancelled.
    func next(after failed: CaptureWork?) async -> CaptureWork? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<CaptureWork?, Never>) in
                let now: CaptureWork?? = state.withLock { s in
                    if Task.isCancelled || s.closed { return .some(nil) }
                    if s.work != .none, s.work != failed { return .some(s.work) }
                    s.waiter = c
                    s.waitingAfter = failed
                    return .none
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            let w = state.withLock { s -> CheckedContinuation<CaptureWork?, Never>? in
                s.closed = true
                defer { s.waiter = nil }
                return s.waiter
            }
            w?.resume(returning: nil)
        }
    }
}

/// A wake-up call that is never lost: `fire()` before `wait` makes the next `wait` return at once.
final class Wakeup: Sendable {
    private struct State { var pending = false; var waiter: CheckedContinuation<Void, Never>? }
    private let state = Locked(State())

    func fire() {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else { s.pending = true; return nil }
            s.waiter = nil
            return w
        }
        w?.resume()
    }

    /// Waits for `fire()` or cancellation.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.pending || Task.isCancelled { s.pending = false; return true }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let w = state.withLock { s -> CheckedContinuation<Void, Never>? in defer { s.waiter = nil }; return s.waiter }
            w?.resume()
        }
    }

    /// Waits for `fire()`, cancellation, or `timeout` on `clock` (nil: no timeout).
    func wait(for timeout: Duration?, on clock: any Clock<Duration>) async {
        guard let timeout else { return await wait() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask { try? await clock.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }
}

/// One slot holding the newest value offered (an older one not yet taken is replaced); one
/// consumer waits in `take`.
final class LatestSlot<Value: Sendable>: Sendable {
    private struct State { var value: Value?; var waiter: CheckedContinuation<Value?, Never>?; var closed = false }
    private let state = Locked(State())

    func offer(_ value: Value) {
        let waiter = state.withLock { s -> CheckedContinuation<Value?, Never>? in
            guard let w = s.waiter else { s.value = value; return nil }
            s.waiter = nil
            return w
        }
        waiter?.resume(returning: value)
    }

    /// The newest value (waiting for one); nil when the task is cancelled.
    func take() async -> Value? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Value?, Never>) in
                let now: Value?? = state.withLock { s in
                    if Task.isCancelled || s.closed { return .some(nil) }
                    if let v = s.value { s.value = nil; return .some(v) }
                    s.waiter = c
                    return .none
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            let w = state.withLock { s -> CheckedContinuation<Value?, Never>? in
                s.closed = true
                defer { s.waiter = nil }
                return s.waiter
            }
            w?.resume(returning: nil)
        }
    }
}
