import Dispatch
import ImageLoading
import ScanHardware

/// The setup page's live preview: JPEG frames at most `fps` a second, encoded on a thread of
/// their own, and only while at least one page watches (the camera is asked for frames only
/// then). Each watcher gets the newest JPEG; a slow one skips frames, never holds others up.
/// At most `maxViewers` watch through `watchIfRoom`.
public final class Preview: Sendable {
    /// Pages that may watch at once (the setup page answers 503 to more).
    public static let maxViewers = 8
    public let fps: Int
    private let frames: @Sendable () async -> GrayFrame?
    private let view: @Sendable (Bool) async -> Void
    private let clock: any Clock<Duration>
    private let encoder = DispatchQueue(label: "scand.preview", qos: .utility)
    private struct State {
        var watchers: [Int: AsyncStream<[UInt8]>.Continuation] = [:]
        var nextID = 0
        var task: Task<Void, Never>?
        var encoded = 0
    }
    private let state = Locked(State())

    /// `frames` waits for the camera's next frame; `view` tells the kiosk that a viewer starts
    /// or stops wanting frames; `clock` paces the frames (a test's manual clock).
    public init(fps: Int = 5, clock: any Clock<Duration> = ContinuousClock(),
                frames: @escaping @Sendable () async -> GrayFrame?, view: @escaping @Sendable (Bool) async -> Void) {
        self.fps = max(1, min(fps, 5))
        self.clock = clock
        self.frames = frames
        self.view = view
    }

    /// JPEG frames encoded so far (all watchers together).
    public var encodedCount: Int { state.withLock { $0.encoded } }
    public var watcherCount: Int { state.withLock { $0.watchers.count } }

    /// JPEG frames from now on, until the consumer stops iterating (only the newest one waits
    /// for a consumer that is slow).
    public func watch() -> AsyncStream<[UInt8]> { watch(limit: nil)! }

    /// As `watch()`, or nil when `maxViewers` already watch.
    public func watchIfRoom() -> AsyncStream<[UInt8]>? { watch(limit: Self.maxViewers) }

    private func watch(limit: Int?) -> AsyncStream<[UInt8]>? {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(1))
        let joined = state.withLock { s -> (Int, Bool)? in
            if let limit, s.watchers.count >= limit { return nil }
            s.nextID += 1
            s.watchers[s.nextID] = continuation
            return (s.nextID, s.task == nil)
        }
        guard let (id, start) = joined else { return nil }
        continuation.onTermination = { [weak self] _ in self?.leave(id) }
        if start { startEncoding() }
        return stream
    }

    private func leave(_ id: Int) {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.watchers[id] = nil
            guard s.watchers.isEmpty else { return nil }
            defer { s.task = nil }
            return s.task
        }
        task?.cancel()
    }

    private func startEncoding() {
        let task = Task { [view, clock] in
            await view(true)
            await self.encode(on: clock)
            await view(false)
        }
        state.withLock { s in
            if s.task == nil && !s.watchers.isEmpty { s.task = task } else { task.cancel() }
        }
    }

    /// Encodes at most `fps` frames a second of `clock` until cancelled.
    private func encode<C: Clock<Duration>>(on clock: C) async {
        let period = Duration.milliseconds(1000 / fps)
        while !Task.isCancelled {
            let started = clock.now
            guard let frame = await frames() else {
                try? await clock.sleep(for: period)
                continue
            }
            let jpeg: [UInt8]? = await withCheckedContinuation { c in
                encoder.async { c.resume(returning: try? ImageEncoding.jpeg(frame, quality: 70)) }
            }
            if let jpeg { send(jpeg) }
            try? await clock.sleep(until: started.advanced(by: period), tolerance: nil)
        }
    }

    private func send(_ jpeg: [UInt8]) {
        let watchers = state.withLock { s -> [AsyncStream<[UInt8]>.Continuation] in
            s.encoded += 1
            return Array(s.watchers.values)
        }
        for w in watchers { w.yield(jpeg) }
    }
}
