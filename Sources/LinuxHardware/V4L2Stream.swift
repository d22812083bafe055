import CV4L2
import ScanHardware
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The mmap'ed buffers of one stream. Unmapped when the stream and every frame borrowing from
/// it are gone.
final class BufferRing: @unchecked Sendable {
    let sys: Syscalls
    let fd: Int32
    let device: String
    private(set) var buffers: [UnsafeMutableRawBufferPointer] = []
    /// False once streaming stopped: returned buffers are then not queued again.
    let live = Atomic<Bool>(true)

    init(fd: Int32, sys: Syscalls, device: String, count: Int) throws(HardwareError) {
        self.sys = sys
        self.fd = fd
        self.device = device
        var req = v4l2_requestbuffers()
        req.count = UInt32(count)
        req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try sys.check("VIDIOC_REQBUFS", device: device, hint: Hints.camera) { sys.ioctl(fd, scand_VIDIOC_REQBUFS, &req) }
        guard req.count >= 2 else {
            throw HardwareError(.other, operation: "VIDIOC_REQBUFS", device: device, errno: ENOMEM, hint: "the driver gave \(req.count) buffers")
        }
        for index in 0..<Int(req.count) {
            var buf = Self.buffer(index)
            try sys.check("VIDIOC_QUERYBUF", device: device) { sys.ioctl(fd, scand_VIDIOC_QUERYBUF, &buf) }
            guard let base = sys.mmap(fd, Int(buf.length), Int(buf.m.offset)) else {
                let code = sys.errno()
                throw HardwareError(HardwareError.kind(forErrno: code), operation: "mmap", device: device, errno: code)
            }
            buffers.append(UnsafeMutableRawBufferPointer(start: base, count: Int(buf.length)))
        }
    }

    deinit {
        for b in buffers { _ = sys.munmap(b.baseAddress!, b.count) }
    }

    static func buffer(_ index: Int) -> v4l2_buffer {
        var buf = v4l2_buffer()
        buf.index = UInt32(index)
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buf.memory = V4L2_MEMORY_MMAP.rawValue
        return buf
    }

    /// Gives buffer `index` back to the driver (`VIDIOC_QBUF`).
    func queue(_ index: Int) throws(HardwareError) {
        guard live.load(ordering: .acquiring) else { return }
        var buf = Self.buffer(index)
        try sys.check("VIDIOC_QBUF", device: device) { sys.ioctl(fd, scand_VIDIOC_QBUF, &buf) }
    }
}

/// A dequeued buffer on loan to a frame; queued back when the frame is gone.
final class BufferLease: @unchecked Sendable {
    let ring: BufferRing
    let index: Int
    init(ring: BufferRing, index: Int) { self.ring = ring; self.index = index }
    deinit { try? ring.queue(index) }
}

/// Reusable gray buffers for converted frames (YUYV, MJPEG): no allocation per frame.
final class GrayPool: @unchecked Sendable {
    let size: Int
    private let free = Locked<[UnsafeMutableRawBufferPointer]>([])
    init(size: Int) { self.size = size }
    deinit { free.withLock { for b in $0 { b.deallocate() } } }

    func take() -> GrayLease {
        let buffer = free.withLock { $0.popLast() } ?? UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        return GrayLease(pool: self, buffer: buffer)
    }
    fileprivate func give(_ b: UnsafeMutableRawBufferPointer) { free.withLock { $0.append(b) } }
}

final class GrayLease: @unchecked Sendable {
    let pool: GrayPool
    let buffer: UnsafeMutableRawBufferPointer
    init(pool: GrayPool, buffer: UnsafeMutableRawBufferPointer) { self.pool = pool; self.buffer = buffer }
    deinit { pool.give(buffer) }
}

/// One streaming session: STREAMON at start, a reader thread, STREAMOFF at stop.
final class Stream: @unchecked Sendable {
    /// The buffers, until the reader thread has stopped streaming: then only borrowed frames
    /// keep them mapped (not a `next()` still returning), so a new stream can have its own.
    private let buffers: Locked<BufferRing?>
    private let format: V4L2Camera.Negotiated
    private let pool: GrayPool
    private let wake: (read: Int32, write: Int32)
    private let stallTimeoutMs: Int32

    /// The newest frame between the reader thread and `next()`.
    private let handoff = NewestFrameHandoff<Entry>()

    init(fd: Int32, sys: Syscalls, device: String, format: V4L2Camera.Negotiated, buffers: Int, stallTimeoutMs: Int32) throws(HardwareError) {
        let ring = try BufferRing(fd: fd, sys: sys, device: device, count: buffers)
        self.buffers = Locked(ring)
        self.format = format
        self.stallTimeoutMs = stallTimeoutMs
        pool = GrayPool(size: max(1, format.width * format.height))
        for i in 0..<ring.buffers.count { try ring.queue(i) }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try sys.check("VIDIOC_STREAMON", device: device, hint: Hints.camera) { sys.ioctl(fd, scand_VIDIOC_STREAMON, &type) }
        guard let pipe = makeWakePipe() else {
            _ = sys.ioctl(fd, scand_VIDIOC_STREAMOFF, &type)
            throw HardwareError(.other, operation: "pipe", device: device, errno: errno)
        }
        wake = pipe
        spawnThread { [self] in self.readLoop(ring) }
    }

    deinit { Glibc.close(wake.write) }

    /// The buffers while streaming (nil once the reader thread has stopped).
    var ring: BufferRing? { buffers.withLock { $0 } }

    var dropped: Int { handoff.dropped }

    /// Stops the reader thread and streaming; a waiting `next()` gets a CancellationError.
    func stop() {
        if handoff.stop() { wakeUp(wake.write) }
    }

    /// A dequeued buffer: its index, the bytes it holds and its time.
    typealias Entry = (index: Int, bytesUsed: Int, nanos: UInt64)

    /// The newest frame, waiting for one if none is ready.
    func next() async throws -> GrayFrame {
        try await handoff.next { entry in
            guard let ring = buffers.withLock({ $0 }) else { throw CancellationError() }
            return convert(entry, ring)
        }
    }

    /// The thread: poll the device and the wake pipe; dequeue every ready buffer, keep the newest.
    private func readLoop(_ ring: BufferRing) {
        let sys = ring.sys, fd = ring.fd
        defer {
            ring.live.store(false, ordering: .releasing)
            buffers.withLock { $0 = nil }
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = sys.ioctl(fd, scand_VIDIOC_STREAMOFF, &type)
            Glibc.close(wake.read) // the write end is the stream's, closed in deinit
        }
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let n = fds.withUnsafeMutableBufferPointer { sys.poll($0.baseAddress, 2, stallTimeoutMs) }
            if handoff.isStopped { return }
            if n < 0 {
                let code = sys.errno()
                if code == EINTR { continue }
                fail(HardwareError(HardwareError.kind(forErrno: code), operation: "poll", device: ring.device, errno: code)); return
            }
            if n == 0 {
                fail(HardwareError(.timedOut, operation: "poll", device: ring.device, errno: ETIMEDOUT,
                                   hint: "no frame for \(stallTimeoutMs) ms")); return
            }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && fds[0].revents & Int16(POLLIN) == 0 {
                fail(HardwareError(.disconnected, operation: "poll", device: ring.device, errno: ENODEV)); return
            }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            do {
                try drain(ring)
            } catch {
                fail(error); return
            }
        }
    }

    /// Dequeues every ready buffer: the newest is kept (or handed to a waiter), older are requeued.
    /// It asks the device whether another is ready before dequeuing it rather than dequeuing until
    /// EAGAIN: libv4l2 writes "error dequeuing buf" to stderr, the journal, at every EAGAIN.
    private func drain(_ ring: BufferRing) throws(HardwareError) {
        let sys = ring.sys, fd = ring.fd
        repeat {
            var buf = BufferRing.buffer(0)
            if sys.ioctl(fd, scand_VIDIOC_DQBUF, &buf) < 0 {
                let code = sys.errno()
                if code == EAGAIN { return }
                if code == EINTR { continue }
                throw HardwareError(HardwareError.kind(forErrno: code) == .invalidFormat ? .disconnected : HardwareError.kind(forErrno: code),
                                    operation: "VIDIOC_DQBUF", device: ring.device, errno: code)
            }
            let nanos = UInt64(max(0, buf.timestamp.tv_sec)) * 1_000_000_000 + UInt64(max(0, buf.timestamp.tv_usec)) * 1000
            if buf.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 || buf.bytesused == 0 {
                try ring.queue(Int(buf.index)) // a corrupt frame: give it back, count it
                handoff.countDrop()
                continue
            }
            let entry = (index: Int(buf.index), bytesUsed: Int(buf.bytesused), nanos: nanos)
            if handoff.hasWaiter {
                // Someone waits: convert (outside the lock) and hand it over.
                guard let frame = convert(entry, ring) else { handoff.countDrop(); continue }
                handoff.handOver(frame)
                continue
            }
            // Kept for the next `next()`; or handed over as it is if one began waiting meanwhile.
            if let older = handoff.keep(entry) { try ring.queue(older.index) }
        } while Self.hasFrame(fd, sys)
    }

    /// Whether the device has a buffer ready now (poll without waiting).
    private static func hasFrame(_ fd: Int32, _ sys: Syscalls) -> Bool {
        var device = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return sys.poll(&device, 1, 0) == 1 && device.revents & Int16(POLLIN) != 0
    }

    private func fail(_ error: HardwareError) { handoff.fail(error) }

    /// The gray frame for a dequeued buffer: borrowed for GREY/planar YUV, converted into a pooled
    /// buffer for YUYV/UYVY/MJPEG (the V4L2 buffer is then queued back at once). Nil for a frame
    /// that does not decode (the caller counts it as dropped). Never called under the hand-off's lock.
    private func convert(_ entry: Entry, _ ring: BufferRing) -> GrayFrame? {
        let bytes = UnsafeRawBufferPointer(ring.buffers[entry.index])
        let f = format
        if f.format.borrowsLuma {
            let lease = BufferLease(ring: ring, index: entry.index)
            let needed = f.bytesPerLine * (f.height - 1) + f.width
            guard bytes.count >= needed else { return nil }
            return GrayFrame(width: f.width, height: f.height, stride: f.bytesPerLine, borrowing: bytes, owner: lease,
                             timestampNanos: entry.nanos)
        }
        let gray = pool.take()
        defer { try? ring.queue(entry.index) }
        switch f.format {
        case .yuyv, .uyvy:
            guard bytes.count >= f.bytesPerLine * (f.height - 1) + f.width * 2 else { return nil }
            GrayConversion.lumaOfPacked422(bytes, width: f.width, height: f.height, bytesPerLine: f.bytesPerLine,
                                           lumaOffset: f.format == .yuyv ? 0 : 1, into: gray.buffer)
            return GrayFrame(width: f.width, height: f.height, stride: f.width, borrowing: UnsafeRawBufferPointer(gray.buffer),
                             owner: gray, timestampNanos: entry.nanos)
        default:
            let used = UnsafeRawBufferPointer(rebasing: bytes[0..<min(entry.bytesUsed, bytes.count)])
            guard let size = try? GrayConversion.jpeg(used, into: gray.buffer, stride: f.width),
                  size.width == f.width, size.height == f.height else { return nil }
            return GrayFrame(width: f.width, height: f.height, stride: f.width, borrowing: UnsafeRawBufferPointer(gray.buffer),
                             owner: gray, timestampNanos: entry.nanos)
        }
    }
}
