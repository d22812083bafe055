import CV4L2
@testable import LinuxHardware
import ScanHardware
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A scripted V4L2 capture device behind the Syscalls seam: canned format lists, S_FMT answers,
/// an mmap buffer ring and frames the test pushes; errno injection per call.
final class FakeV4L2: @unchecked Sendable {
    struct State {
        var offered: [UInt32] = [scand_V4L2_PIX_FMT_YUYV, scand_V4L2_PIX_FMT_MJPEG]
        var capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
        /// The format S_FMT settles on (nil: what was asked).
        var forcedFormat: UInt32?
        var width = 0, height = 0, pixelformat: UInt32 = 0, bytesPerLine = 0
        var buffers: [UnsafeMutableRawBufferPointer] = []
        var queued: [Int] = []
        var ready: [(index: Int, used: Int)] = []
        var pending: [[UInt8]] = []
        var streaming = false
        var failures: [String: Int32] = [:]
        var calls: [String] = []
        var qbufCount = 0
        /// VIDIOC_DQBUF calls answered EAGAIN: libv4l2 logs an error line at each.
        var dequeuedNothing = 0
        var closed = false
        var openFlags: Int32 = 0
        var controls: [UInt32: Int32] = [:]
        /// Controls VIDIOC_QUERYCTRL answers EINVAL for (the camera lacks them).
        var missingControls: Set<UInt32> = []
        /// Every VIDIOC_S_CTRL, in order: `id=value`.
        var controlLog: [String] = []
        /// Frame rate: whether G_PARM says TIMEPERFRAME, the rate set, and uvcvideo's EBUSY while streaming.
        var rateControl = true
        var fps: UInt32 = 0
        var rateBusyWhileStreaming = false
        var lastErrno: Int32 = 0
        /// Buffers mapped and not yet unmapped: vb2 refuses new buffers (EBUSY) while any are.
        var mapped = 0
    }
    let state = Locked(State())
    let wake: (read: Int32, write: Int32)

    init() { wake = makeWakePipe()! }
    deinit {
        state.withLock { for b in $0.buffers { b.deallocate() } }
        close(wake.read); close(wake.write)
    }

    /// Makes the next frame available: its bytes go into a free queued buffer.
    func push(_ bytes: [UInt8]) {
        state.withLock { s in
            s.pending.append(bytes)
            Self.fill(&s)
        }
        _ = write(wake.write, "x", 1)
    }

    private static func fill(_ s: inout State) {
        while !s.pending.isEmpty, !s.queued.isEmpty {
            let index = s.queued.removeFirst()
            let bytes = s.pending.removeFirst()
            let dst = s.buffers[index]
            bytes.withUnsafeBytes { dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<min($0.count, dst.count)])) }
            s.ready.append((index, min(bytes.count, dst.count)))
        }
    }

    static func controlName(_ id: UInt32) -> String {
        switch id {
        case scand_V4L2_CID_FOCUS_AUTO: return "FOCUS_AUTO"
        case scand_V4L2_CID_AUTO_FOCUS_START: return "AUTO_FOCUS_START"
        case scand_V4L2_CID_FOCUS_ABSOLUTE: return "FOCUS_ABSOLUTE"
        default: return "\(id)"
        }
    }

    func fail(_ call: String, with code: Int32) { state.withLock { $0.failures[call] = code } }
    var calls: [String] { state.withLock { $0.calls } }

    private func name(_ request: UInt) -> String {
        switch request {
        case scand_VIDIOC_QUERYCAP: return "VIDIOC_QUERYCAP"
        case scand_VIDIOC_ENUM_FMT: return "VIDIOC_ENUM_FMT"
        case scand_VIDIOC_S_FMT: return "VIDIOC_S_FMT"
        case scand_VIDIOC_S_PARM: return "VIDIOC_S_PARM"
        case scand_VIDIOC_G_PARM: return "VIDIOC_G_PARM"
        case scand_VIDIOC_S_CTRL: return "VIDIOC_S_CTRL"
        case scand_VIDIOC_QUERYCTRL: return "VIDIOC_QUERYCTRL"
        case scand_VIDIOC_REQBUFS: return "VIDIOC_REQBUFS"
        case scand_VIDIOC_QUERYBUF: return "VIDIOC_QUERYBUF"
        case scand_VIDIOC_QBUF: return "VIDIOC_QBUF"
        case scand_VIDIOC_DQBUF: return "VIDIOC_DQBUF"
        case scand_VIDIOC_STREAMON: return "VIDIOC_STREAMON"
        case scand_VIDIOC_STREAMOFF: return "VIDIOC_STREAMOFF"
        default: return "ioctl \(request)"
        }
    }

    private func failIfScripted(_ call: String, _ s: inout State) -> Bool {
        s.calls.append(call)
        if let code = s.failures[call] { s.lastErrno = code; return true }
        return false
    }

    func ioctl(_ fd: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer?) -> Int32 {
        let call = name(request)
        return state.withLock { s -> Int32 in
            if failIfScripted(call, &s) { return -1 }
            switch request {
            case scand_VIDIOC_QUERYCAP:
                let cap = arg!.assumingMemoryBound(to: v4l2_capability.self)
                cap.pointee.capabilities = s.capabilities
            case scand_VIDIOC_ENUM_FMT:
                let d = arg!.assumingMemoryBound(to: v4l2_fmtdesc.self)
                guard Int(d.pointee.index) < s.offered.count else { s.lastErrno = EINVAL; return -1 }
                d.pointee.pixelformat = s.offered[Int(d.pointee.index)]
            case scand_VIDIOC_S_FMT:
                let f = arg!.assumingMemoryBound(to: v4l2_format.self)
                let format = s.forcedFormat ?? f.pointee.fmt.pix.pixelformat
                s.pixelformat = format
                s.width = Int(f.pointee.fmt.pix.width)
                s.height = Int(f.pointee.fmt.pix.height)
                s.bytesPerLine = format == scand_V4L2_PIX_FMT_YUYV ? s.width * 2 : (format == scand_V4L2_PIX_FMT_MJPEG ? 0 : s.width)
                f.pointee.fmt.pix.pixelformat = format
                f.pointee.fmt.pix.bytesperline = UInt32(s.bytesPerLine)
                f.pointee.fmt.pix.sizeimage = UInt32(format == scand_V4L2_PIX_FMT_NV12 ? s.width * s.height * 3 / 2 : max(s.bytesPerLine, s.width) * s.height)
            case scand_VIDIOC_G_PARM:
                let p = arg!.assumingMemoryBound(to: v4l2_streamparm.self)
                p.pointee.parm.capture.capability = s.rateControl ? UInt32(V4L2_CAP_TIMEPERFRAME) : 0
                p.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: max(1, s.fps))
            case scand_VIDIOC_S_PARM:
                guard s.rateControl else { return 0 } // a driver without rate control keeps its own
                if s.rateBusyWhileStreaming && s.streaming { s.lastErrno = EBUSY; return -1 }
                let p = arg!.assumingMemoryBound(to: v4l2_streamparm.self)
                let t = p.pointee.parm.capture.timeperframe
                s.fps = t.numerator > 0 ? min(t.denominator / t.numerator, 25) : 25 // this sensor tops out at 25 fps
                p.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: s.fps)
            case scand_VIDIOC_QUERYCTRL:
                let q = arg!.assumingMemoryBound(to: v4l2_queryctrl.self)
                if s.missingControls.contains(q.pointee.id) { s.lastErrno = EINVAL; return -1 }
                if q.pointee.id == scand_V4L2_CID_FOCUS_ABSOLUTE { q.pointee.minimum = 0; q.pointee.maximum = 250; q.pointee.step = 5 }
            case scand_VIDIOC_S_CTRL:
                let c = arg!.assumingMemoryBound(to: v4l2_control.self)
                if s.missingControls.contains(c.pointee.id) { s.lastErrno = EINVAL; return -1 }
                s.controlLog.append(Self.controlName(c.pointee.id) + "=\(c.pointee.value)")
                // Like uvcvideo, brightness is clamped to its range (-64...64 here).
                s.controls[c.pointee.id] = c.pointee.id == scand_V4L2_CID_BRIGHTNESS ? min(64, max(-64, c.pointee.value)) : c.pointee.value
            case scand_VIDIOC_G_CTRL:
                let c = arg!.assumingMemoryBound(to: v4l2_control.self)
                c.pointee.value = s.controls[c.pointee.id] ?? 0
            case scand_VIDIOC_REQBUFS:
                let r = arg!.assumingMemoryBound(to: v4l2_requestbuffers.self)
                if s.mapped > 0 { s.lastErrno = EBUSY; return -1 }
                let size = max(s.bytesPerLine, s.width) * s.height * 2
                s.buffers = (0..<Int(r.pointee.count)).map { _ in
                    let b = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 64), alignment: 16)
                    b.initializeMemory(as: UInt8.self, repeating: 0)
                    return b
                }
            case scand_VIDIOC_QUERYBUF:
                let b = arg!.assumingMemoryBound(to: v4l2_buffer.self)
                b.pointee.length = UInt32(s.buffers[Int(b.pointee.index)].count)
                b.pointee.m.offset = b.pointee.index * 4096
            case scand_VIDIOC_QBUF:
                let b = arg!.assumingMemoryBound(to: v4l2_buffer.self)
                s.qbufCount += 1
                s.queued.append(Int(b.pointee.index))
                Self.fill(&s)
            case scand_VIDIOC_DQBUF:
                guard s.streaming else { s.lastErrno = EINVAL; return -1 }
                guard !s.ready.isEmpty else { s.dequeuedNothing += 1; s.lastErrno = EAGAIN; return -1 }
                let (index, used) = s.ready.removeFirst()
                let b = arg!.assumingMemoryBound(to: v4l2_buffer.self)
                b.pointee.index = UInt32(index)
                b.pointee.bytesused = UInt32(used)
            case scand_VIDIOC_STREAMON: s.streaming = true
            case scand_VIDIOC_STREAMOFF: s.streaming = false; s.queued.removeAll(); s.ready.removeAll()
            default: break
            }
            return 0
        }
    }

    var syscalls: Syscalls {
        Syscalls(
            open: { [self] _, flags in state.withLock { s in
                if failIfScripted("open", &s) { return -1 }
                s.openFlags = flags
                return 42 } },
            close: { [self] _ in state.withLock { $0.closed = true }; return 0 },
            ioctl: { [self] in ioctl($0, $1, $2) },
            read: { _, _, _ in -1 },
            write: { _, _, _ in -1 },
            poll: { [self] fds, count, timeout in
                // The device (fd 42) is readable when a frame is ready; other fds are real.
                guard let fds else { return 0 }
                var spent: Int32 = 0
                while true {
                    if fds[0].fd == 42, state.withLock({ !$0.ready.isEmpty }) { fds[0].revents = Int16(POLLIN); return 1 }
                    var real = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)] + (1..<count).map { fds[$0] }
                    let step: Int32 = timeout < 0 ? 100 : min(100, timeout - spent)
                    let n = real.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), step) }
                    if n < 0 { return n }
                    if real[0].revents != 0 { var drain = [UInt8](repeating: 0, count: 64); _ = read(wake.read, &drain, 64) }
                    let others = (1..<count).filter { real[$0].revents != 0 }
                    if !others.isEmpty {
                        for i in 1..<count { fds[i].revents = real[i].revents }
                        return Int32(others.count)
                    }
                    spent += step
                    if timeout >= 0 && spent >= timeout { return 0 }
                }
            },
            mmap: { [self] _, _, offset in state.withLock { s in
                if failIfScripted("mmap", &s) { return nil }
                s.mapped += 1
                return s.buffers[offset / 4096].baseAddress } },
            munmap: { [self] _, _ in state.withLock { $0.mapped -= 1 }; return 0 },
            errno: { [self] in state.withLock { $0.lastErrno } }
        )
    }
}
