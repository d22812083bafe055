import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// One streaming session: `Camera::start`, a reader thread on the shim's eventfd, `Camera::stop`.
final class LibcameraStream: @unchecked Sendable {
    typealias Entry = LibcameraCompletion
    private let device: any LibcameraDevice
    private let format: LibcameraCamera.Negotiated
    private let name: String
    private let sys: Syscalls
    private let stallTimeoutMs: Int32
    private let pool: GrayPool
    private let handoff = NewestFrameHandoff<Entry>()
    private let wake: (read: Int32, write: Int32)
    /// Written by the reader thread as it ends: `stop()` waits for it before `Camera::stop`.
    private let ended: (read: Int32, write: Int32)
    /// True until the stream stopped: frames are copied and requests queued only while true.
    private let live = Locked(true)
    private let errorFor: @Sendable (LibcameraShimError) -> HardwareError

    init(camera: LibcameraCamera, device: any LibcameraDevice, format: LibcameraCamera.Negotiated, sys: Syscalls,
         stallTimeoutMs: Int32) throws(HardwareError) {
        self.device = device
        self.format = format
        self.name = camera.name
        self.sys = sys
        self.stallTimeoutMs = stallTimeoutMs
        self.errorFor = { [weak camera, name = camera.name] e in
            camera?.hardwareError(e) ?? HardwareError(HardwareError.kind(forErrno: e.errno), operation: e.call, device: name, errno: e.errno)
        }
        pool = GrayPool(size: max(1, format.width * format.height))
        guard let wake = makeWakePipe() else { throw HardwareError(.other, operation: "pipe", device: camera.name, errno: errno) }
        guard let ended = makeWakePipe() else {
            Glibc.close(wake.read); Glibc.close(wake.write)
            throw HardwareError(.other, operation: "pipe", device: camera.name, errno: errno)
        }
        self.wake = wake
        self.ended = ended
        do { try device.start() } catch {
            closePipes()
            throw camera.hardwareError(error)
        }
        guard spawnThread({ [self] in self.readLoop() }) else {
            device.stop()
            closePipes()
            throw HardwareError(.other, operation: "pthread_create", device: camera.name, hint: "the system refused a thread")
        }
    }

    deinit { closePipes() }

    private func closePipes() {
        for fd in [wake.read, wake.write, ended.read, ended.write] { Glibc.close(fd) }
    }

    var dropped: Int { handoff.dropped }
    var isAwaited: Bool { handoff.hasWaiter }

    /// Ends the reader thread (a waiting `next()` gets a CancellationError), waits for it, then
    /// stops the camera (`Camera::stop`: pending requests come back cancelled and are dropped).
    func stop() {
        if handoff.stop() { wakeUp(wake.write) }
        var fd = pollfd(fd: ended.read, events: Int16(POLLIN), revents: 0)
        // The reader wakes on the pipe at once; the bound only guards against a stuck library call.
        _ = sys.poll(&fd, 1, 2000)
        live.withLock { alive in
            if alive { device.stop() }
            alive = false
        }
    }

    /// The newest frame, waiting for one if none is ready.
    func next() async throws -> GrayFrame {
        try await handoff.next { entry in
            guard live.withLock({ $0 }) else { throw CancellationError() }
            return try frame(entry)
        }
    }

    /// How long the reader waits for a frame before it asks whether the camera is still there:
    /// a camera whose driver was unbound just stops giving frames.
    static let presenceCheckMs: Int32 = 1000

    /// The reader thread: poll the eventfd and the wake pipe; take every completed request, keep
    /// the newest, queue the rest back. A second without a frame asks the shim whether the
    /// camera is gone (`.disconnected`); `stallTimeoutMs` without one is `.timedOut`.
    private func readLoop() {
        defer { wakeUp(ended.write) }
        let step = min(stallTimeoutMs, Self.presenceCheckMs)
        var quietMs: Int32 = 0
        while true {
            var fds = [pollfd(fd: device.eventFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let n = fds.withUnsafeMutableBufferPointer { sys.poll($0.baseAddress, 2, step) }
            if handoff.isStopped { return }
            if n < 0 {
                let code = sys.errno()
                if code == EINTR { continue }
                handoff.fail(HardwareError(HardwareError.kind(forErrno: code), operation: "poll", device: name, errno: code)); return
            }
            if n == 0 {
                do throws(LibcameraShimError) { try device.check() } catch {
                    handoff.fail(errorFor(error)); return
                }
                quietMs += step
                guard quietMs >= stallTimeoutMs else { continue }
                handoff.fail(HardwareError(.timedOut, operation: "poll", device: name, errno: ETIMEDOUT, hint: "no frame for \(stallTimeoutMs) ms"))
                return
            }
            quietMs = 0
            do { try drain() } catch {
                handoff.fail(error); return
            }
        }
    }

    /// Takes every completed request: a failed one is counted and queued back; of the good ones
    /// the newest is kept (or made into a frame for a waiting consumer), older ones queued back.
    private func drain() throws(HardwareError) {
        while true {
            let taken: LibcameraCompletion?
            do { taken = try device.takeCompleted() } catch { throw errorFor(error) }
            guard let completion = taken else { return }
            switch completion.status {
            case .cancelled: continue // the camera is stopping; its requests are not queued again
            case .failed:
                handoff.countDrop()
                try requeue(completion.index)
                continue
            case .complete: break
            }
            if handoff.hasWaiter {
                guard let frame = try frame(completion) else { handoff.countDrop(); continue }
                handoff.handOver(frame)
                continue
            }
            if let older = handoff.keep(completion) { try requeue(older.index) }
        }
    }

    private func requeue(_ index: Int) throws(HardwareError) {
        try live.withLock { (alive: inout Bool) throws(HardwareError) in
            guard alive else { return }
            do throws(LibcameraShimError) { try device.requeue(index) } catch { throw errorFor(error) }
        }
    }

    /// The frame of a completed request: its luma copied into a pooled buffer, the request
    /// queued back at once. Nil for a frame too short for the size (counted as dropped).
    private func frame(_ c: LibcameraCompletion) throws(HardwareError) -> GrayFrame? {
        let f = format
        let gray = pool.take()
        let copied = live.withLock { alive -> Bool in
            guard alive, let plane = device.plane(c.index) else { return false }
            return LibcameraFrames.copyLuma(plane, layout: f.layout, width: f.width, height: f.height, stride: f.stride, into: gray.buffer)
        }
        try requeue(c.index)
        guard copied else { return nil }
        return GrayFrame(width: f.width, height: f.height, stride: f.width, borrowing: UnsafeRawBufferPointer(gray.buffer),
                         owner: gray, timestampNanos: c.timestampNanos)
    }
}
