import ScanHardware

/// The newest-frame hand-off between a camera driver's reader thread and its one consumer
/// (`nextFrame()`), shared by the V4L2 and the libcamera streams.
///
/// The reader offers every good frame it dequeues, as the driver's own `Entry` (a buffer index,
/// its size and time): one a consumer waits for is handed over at once; otherwise it is kept,
/// and the entry it replaces comes back to the reader to recycle, counted as dropped. A
/// consumer takes the kept entry (the driver turns it into a frame) or waits for the next one.
/// A failure (the device went away) or `stop()` ends every wait.
final class NewestFrameHandoff<Entry: Sendable>: @unchecked Sendable {
    /// What a waiting consumer is given: a frame the reader made, or the entry that was kept
    /// while nobody waited.
    enum Delivery: Sendable { case frame(GrayFrame), kept(Entry) }

    private struct Shared {
        var latest: Entry?
        var waiter: CheckedContinuation<Delivery, Error>?
        var failure: HardwareError?
        var stopped = false
        var dropped = 0
    }
    private let shared = Locked(Shared())

    init() {}

    /// Frames dropped: replaced by a newer one, corrupt, or undecodable.
    var dropped: Int { shared.withLock { $0.dropped } }
    /// Whether `stop()` was called.
    var isStopped: Bool { shared.withLock { $0.stopped } }
    /// Whether a consumer waits now (the reader then makes the frame itself and hands it over).
    var hasWaiter: Bool { shared.withLock { $0.waiter != nil } }

    /// Counts a frame the driver could not use.
    func countDrop() { shared.withLock { $0.dropped += 1 } }

    /// Ends the hand-off: a waiting consumer gets a CancellationError. True for the call that
    /// stopped it (the driver then wakes its reader).
    @discardableResult
    func stop() -> Bool {
        let (first, waiter) = shared.withLock { s -> (Bool, CheckedContinuation<Delivery, Error>?) in
            guard !s.stopped else { return (false, nil) }
            s.stopped = true
            defer { s.waiter = nil }
            return (true, s.waiter)
        }
        waiter?.resume(throwing: CancellationError())
        return first
    }

    /// Ends the hand-off with `error`: the waiting consumer and every later `next` get it.
    func fail(_ error: HardwareError) {
        let waiter = shared.withLock { s -> CheckedContinuation<Delivery, Error>? in
            s.failure = error
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(throwing: error)
    }

    /// Hands `frame` to the waiting consumer; a consumer cancelled meanwhile leaves it to be
    /// released (its buffer goes back with it).
    func handOver(_ frame: GrayFrame) {
        let waiter = shared.withLock { s -> CheckedContinuation<Delivery, Error>? in defer { s.waiter = nil }; return s.waiter }
        waiter?.resume(returning: .frame(frame))
    }

    /// Keeps `entry` as the newest (or hands it as it is to a consumer that began waiting
    /// meanwhile). Returns the entry it replaced, counted as dropped, for the reader to recycle.
    func keep(_ entry: Entry) -> Entry? {
        let (older, waiter) = shared.withLock { s -> (Entry?, CheckedContinuation<Delivery, Error>?) in
            if let waiter = s.waiter { s.waiter = nil; return (nil, waiter) }
            let older = s.latest
            if older != nil { s.dropped += 1 }
            s.latest = entry
            return (older, nil)
        }
        waiter?.resume(returning: .kept(entry))
        return older
    }

    /// Takes the kept entry, if any (a stopping driver recycles it).
    func takeKept() -> Entry? { shared.withLock { s in defer { s.latest = nil }; return s.latest } }

    /// The newest frame, waiting for one if none is kept. `make` turns a kept entry into a
    /// frame (nil: undecodable, counted as dropped, and the wait goes on); it is never called
    /// under the hand-off's lock.
    func next(_ make: (Entry) throws -> GrayFrame?) async throws -> GrayFrame {
        while true {
            // A kept entry is taken under the same lock that registers the waiter: one that
            // arrives between a look and the wait is not left lying there.
            let delivery = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (c: CheckedContinuation<Delivery, Error>) in
                    let early: Result<Delivery, Error>? = shared.withLock { s in
                        if let failure = s.failure { return .failure(failure) }
                        // Cancelled before the wait began: the handler found no waiter to resume.
                        if s.stopped || Task.isCancelled { return .failure(CancellationError()) }
                        if let latest = s.latest { s.latest = nil; return .success(.kept(latest)) }
                        s.waiter = c
                        return nil
                    }
                    if let early { c.resume(with: early) }
                }
            } onCancel: {
                let waiter = shared.withLock { s -> CheckedContinuation<Delivery, Error>? in defer { s.waiter = nil }; return s.waiter }
                waiter?.resume(throwing: CancellationError())
            }
            switch delivery {
            case .frame(let frame):
                // The reader made this frame, then took this lock to find the waiter: taking it
                // here too orders the frame's making before its use where ThreadSanitizer can
                // see it. It does not see the continuation's resume (the concurrency runtime is
                // not instrumented), and reported the frame's fields as racing (a rehearsal's
                // V4L2CameraTests, one run in several).
                shared.withLock { _ in }
                return frame
            case .kept(let entry):
                if let frame = try make(entry) { return frame }
                countDrop()
            }
        }
    }
}
