@testable import LinuxHardware
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A scripted libcamera behind the shim seam: cameras to list, faults to inject (acquire
/// refused, configure to an unusable format, requests that fail or cannot be queued, the
/// camera unplugged mid-stream), and a trace of what the backend asked of it.
final class FakeLibcamera: LibcameraShim, @unchecked Sendable {
    struct Script {
        var cameras: [LibcameraCameraInfo] = [
            LibcameraCameraInfo(id: "/base/soc/i2c0mux/i2c@1/imx708@1a", model: "imx708", formats: ["NV12 64x64-4608x2592"], controls: []),
        ]
        /// errno `acquire` fails with (EBUSY, EACCES, ...).
        var acquireErrno: Int32?
        /// The format and stride libcamera configures (stride 0: the width rounded up to 32).
        var format = "NV12"
        var stride = 0
        var controls: [LibcameraControlInfo] = [
            LibcameraControlInfo(name: "AnalogueGain", minimum: 1, maximum: 16, defaultValue: 1),
            LibcameraControlInfo(name: "ExposureTime", minimum: 26, maximum: 220_000, defaultValue: 20_000),
            LibcameraControlInfo(name: "Brightness", minimum: -1, maximum: 1, defaultValue: 0),
            LibcameraControlInfo(name: "AfMode", minimum: 0, maximum: 2, defaultValue: 0),
            LibcameraControlInfo(name: "LensPosition", minimum: 0, maximum: 32, defaultValue: 1),
        ]
        /// The frame duration limits in µs, or nil for a camera without them.
        var frameDurationLimits: ClosedRange<Int>? = 33_333...1_000_000
        /// errno `requeue` fails with.
        var requeueErrno: Int32?
        /// Whether the camera has AfMode and AfTrigger (the Pi's Camera Module 3 does), and
        /// whether this libcamera knows them (0.0.4 and later): false answers ENOTSUP.
        var autofocus = true
        var trace: [String] = []
        var device: FakeLibcameraDevice?
    }
    let state = Locked(Script())

    func cameras() throws(LibcameraShimError) -> [LibcameraCameraInfo] { state.withLock { $0.cameras } }

    func acquire(id: String) throws(LibcameraShimError) -> any LibcameraDevice {
        try state.withLock { (s: inout Script) throws(LibcameraShimError) -> any LibcameraDevice in
            s.trace.append("acquire \(id.isEmpty ? "(first)" : id)")
            guard let camera = id.isEmpty ? s.cameras.first : s.cameras.first(where: { $0.id == id }) else {
                throw LibcameraShimError(call: "Camera::acquire", errno: ENOENT, message: "libcamera finds no camera" + (id.isEmpty ? "" : " \(id)"))
            }
            if let code = s.acquireErrno {
                throw LibcameraShimError(call: "Camera::acquire", errno: code, message: "camera \(camera.id) cannot be acquired")
            }
            let device = FakeLibcameraDevice(shim: self, id: camera.id)
            s.device = device
            return device
        }
    }

    var trace: [String] { state.withLock { $0.trace } }
    var device: FakeLibcameraDevice? { state.withLock { $0.device } }
    func record(_ line: String) { state.withLock { $0.trace.append(line) } }
}

/// An acquired fake camera: buffers in memory, completions through a real wake pipe, so the
/// backend's reader thread polls it as it polls libcamera's eventfd.
final class FakeLibcameraDevice: LibcameraDevice, @unchecked Sendable {
    let id: String
    unowned let shim: FakeLibcamera
    private let pipe: (read: Int32, write: Int32)
    var eventFD: Int32 { pipe.read }

    struct Inner {
        var buffers: [UnsafeMutableRawBufferPointer] = []
        var info: LibcameraStreamInfo?
        var completed: [LibcameraCompletion] = []
        var disconnected = false
        /// A device node of the camera removed (a driver unbound): no signal, frames just stop.
        var nodeRemoved = false
        var released = false
        var running = false
        /// Every request queued back, in order.
        var requeueLog: [Int] = []
        /// Those no `requeued(_:)` has waited for yet.
        var requeued: [Int] = []
        var requeueWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
        var controls: [String: Double] = [:]
    }
    let inner = Locked(Inner())

    init(shim: FakeLibcamera, id: String) {
        self.shim = shim
        self.id = id
        pipe = makeWakePipe()!
    }

    deinit {
        Glibc.close(pipe.read)
        Glibc.close(pipe.write)
        inner.withLock { for b in $0.buffers { b.deallocate() } }
    }

    func configure(width: Int, height: Int, buffers: Int) throws(LibcameraShimError) -> LibcameraStreamInfo {
        let (format, stride) = shim.state.withLock { ($0.format, $0.stride) }
        let packed = format == "YUYV" || format == "UYVY"
        let rowBytes = format == "RGB888" || format == "BGR888" ? width * 3 : packed ? width * 2 : width
        let lineBytes = stride > 0 ? stride : (rowBytes + 31) / 32 * 32
        let info = LibcameraStreamInfo(width: width, height: height, stride: lineBytes, format: format, bufferCount: buffers)
        inner.withLock { s in
            for b in s.buffers { b.deallocate() }
            // The first plane only: luma rows (and, for packed YUV, the chroma between them).
            s.buffers = (0..<buffers).map { _ in
                let b = UnsafeMutableRawBufferPointer.allocate(byteCount: lineBytes * height, alignment: 16)
                b.initializeMemory(as: UInt8.self, repeating: 0)
                return b
            }
            s.info = info
        }
        shim.record("configure \(width)x\(height) \(buffers) buffers")
        return info
    }

    func plane(_ index: Int) -> UnsafeRawBufferPointer? {
        inner.withLock { s in s.buffers.indices.contains(index) ? UnsafeRawBufferPointer(s.buffers[index]) : nil }
    }

    func start() throws(LibcameraShimError) {
        inner.withLock { $0.running = true }
        shim.record("start")
    }

    func stop() {
        let was = inner.withLock { s in defer { s.running = false; s.completed = [] }; return s.running }
        if was { shim.record("stop") }
    }

    func takeCompleted() throws(LibcameraShimError) -> LibcameraCompletion? {
        try inner.withLock { (s: inout Inner) throws(LibcameraShimError) -> LibcameraCompletion? in
            if !s.completed.isEmpty { return s.completed.removeFirst() }
            if s.disconnected { throw LibcameraShimError(call: "Camera::requestCompleted", errno: ENODEV, message: "the camera was disconnected") }
            var bytes = [UInt8](repeating: 0, count: 64)
            while recv(pipe.read, &bytes, bytes.count, Int32(MSG_DONTWAIT)) > 0 {}
            return nil
        }
    }

    func requeue(_ index: Int) throws(LibcameraShimError) {
        if let code = shim.state.withLock({ $0.requeueErrno }) {
            throw LibcameraShimError(call: "Camera::queueRequest", errno: code, message: "Camera::queueRequest: \(ErrnoName.name(code))")
        }
        let waiter = inner.withLock { s -> CheckedContinuation<Void, Never>? in
            s.requeueLog.append(index)
            if let at = s.requeueWaiters.firstIndex(where: { $0.0 == index }) { return s.requeueWaiters.remove(at: at).1 }
            s.requeued.append(index)
            return nil
        }
        waiter?.resume()
    }

    func controls() throws(LibcameraShimError) -> [LibcameraControlInfo] { shim.state.withLock { $0.controls } }

    func setControl(_ name: String, to value: Double) throws(LibcameraShimError) -> Double {
        guard let info = shim.state.withLock({ $0.controls.first { $0.name == name } }) else {
            throw LibcameraShimError(call: "ControlList::set", errno: ENOENT, message: "the camera has no control \(name)")
        }
        let taken = min(max(value, info.minimum), info.maximum)
        inner.withLock { $0.controls[name] = taken }
        shim.record("set \(name) \(taken)")
        return taken
    }

    func setFrameRate(_ fps: Int) throws(LibcameraShimError) -> Int {
        guard let limits = shim.state.withLock({ $0.frameDurationLimits }) else {
            throw LibcameraShimError(call: "FrameDurationLimits", errno: ENOTSUP, message: "the camera has no FrameDurationLimits")
        }
        let duration = min(max(1_000_000 / max(1, fps), limits.lowerBound), limits.upperBound)
        shim.record("frame duration \(duration)")
        return Int((1e6 / Double(duration)).rounded())
    }

    func setFocus(_ mode: FocusMode) throws(LibcameraShimError) {
        guard shim.state.withLock({ $0.autofocus }) else {
            throw LibcameraShimError(call: "AfMode", errno: ENOTSUP, message: "the camera has no autofocus (AfMode)")
        }
        switch mode {
        case .onRequest: shim.record("set AfMode Auto")
        case .continuous: shim.record("set AfMode Continuous")
        case .manual(let d): shim.record("set AfMode Manual, LensPosition \(min(max(d, 0), 32))")
        }
    }

    func autofocus() throws(LibcameraShimError) {
        guard shim.state.withLock({ $0.autofocus }) else {
            throw LibcameraShimError(call: "AfTrigger", errno: ENOTSUP, message: "the camera has no autofocus (AfMode)")
        }
        shim.record("set AfMode Auto, AfTrigger Start" + (inner.withLock { $0.running } ? "" : " (not running)"))
    }

    func check() throws(LibcameraShimError) {
        let (disconnected, removed) = inner.withLock { ($0.disconnected, $0.nodeRemoved) }
        if disconnected {
            throw LibcameraShimError(call: "Camera::disconnected", errno: ENODEV, message: "the camera was disconnected")
        }
        if removed {
            throw LibcameraShimError(call: "Camera::disconnected", errno: ENODEV,
                                     message: "its device node /dev/video3 was removed (driver unbound or unplugged)")
        }
    }

    func release() {
        inner.withLock { $0.released = true }
        shim.record("release")
    }

    // MARK: Injected input

    /// Completes request `index`: its buffer's luma rows hold `luma(x, y)`, the stride padding
    /// and (packed formats) the chroma bytes hold 0x80; RGB pixels are gray (R = G = B).
    func complete(_ index: Int, status: LibcameraCompletion.Status = .complete, nanos: UInt64 = 0,
                  luma: (Int, Int) -> UInt8 = { _, _ in 0 }) {
        inner.withLock { s in
            let info = s.info!
            let packed = info.format == "YUYV" || info.format == "UYVY"
            let rgb = info.format == "RGB888" || info.format == "BGR888"
            let b = s.buffers[index]
            b.initializeMemory(as: UInt8.self, repeating: 0x80)
            for y in 0..<info.height {
                for x in 0..<info.width {
                    if rgb { for c in 0..<3 { b[y * info.stride + 3 * x + c] = luma(x, y) }; continue }
                    let at = y * info.stride + (packed ? 2 * x + (info.format == "UYVY" ? 1 : 0) : x)
                    b[at] = luma(x, y)
                }
            }
            s.completed.append(LibcameraCompletion(index: index, status: status, timestampNanos: nanos,
                                                   bytesUsed: info.stride * info.height))
        }
        wakeUp(pipe.write)
    }

    /// The camera goes away: libcamera's `disconnected` signal.
    func unplug() {
        inner.withLock { $0.disconnected = true }
        wakeUp(pipe.write)
    }

    /// The driver unbound under libcamera 0.0.3: no signal, no completion, the node gone.
    func unbind() {
        inner.withLock { $0.nodeRemoved = true }
    }

    /// Returns once request `index` was queued back (at once when it already was).
    func requeued(_ index: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = inner.withLock { s -> Bool in
                if let at = s.requeued.firstIndex(of: index) { s.requeued.remove(at: at); return true }
                s.requeueWaiters.append((index, c))
                return false
            }
            if done { c.resume() }
        }
    }

    var released: Bool { inner.withLock { $0.released } }
    var requeueLog: [Int] { inner.withLock { $0.requeueLog } }
    var controlValues: [String: Double] { inner.withLock { $0.controls } }
}
