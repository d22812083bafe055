import CLibcamera
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A failure the libcamera shim reported: the libcamera call, its errno and libcamera's words.
public struct LibcameraShimError: Error, Sendable, Equatable {
    /// The libcamera call, e.g. `Camera::acquire`, `Camera::configure`, `Camera::queueRequest`.
    public var call: String
    /// The errno (positive): ENOENT no such camera, EBUSY held by another process, ENODEV gone.
    public var errno: Int32
    /// What the shim said, e.g. `camera /base/.../imx708@1a is in use by another process`.
    public var message: String

    public init(call: String, errno: Int32, message: String) {
        self.call = call
        self.errno = errno
        self.message = message
    }
}

/// One camera as libcamera lists it (`scand probe`).
public struct LibcameraCameraInfo: Sendable, Equatable {
    /// libcamera's camera id (`camera.id`).
    public var id: String
    public var model: String
    /// Pixel formats with their size ranges, e.g. `NV12 64x64-1920x1080`.
    public var formats: [String]
    public var controls: [LibcameraControlInfo]

    public init(id: String, model: String, formats: [String], controls: [LibcameraControlInfo]) {
        self.id = id
        self.model = model
        self.formats = formats
        self.controls = controls
    }
}

/// A control a libcamera camera offers, by libcamera's name, with its range.
public struct LibcameraControlInfo: Sendable, Equatable {
    public var name: String
    public var minimum: Double
    public var maximum: Double
    public var defaultValue: Double

    public init(name: String, minimum: Double, maximum: Double, defaultValue: Double) {
        self.name = name
        self.minimum = minimum
        self.maximum = maximum
        self.defaultValue = defaultValue
    }
}

/// The one stream as libcamera configured it.
public struct LibcameraStreamInfo: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Bytes per row of the first (luma) plane.
    public var stride: Int
    /// libcamera's pixel format name: `R8`, `NV12`, `YUV420`, `YUYV`, ...
    public var format: String
    public var bufferCount: Int

    public init(width: Int, height: Int, stride: Int, format: String, bufferCount: Int) {
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        self.bufferCount = bufferCount
    }
}

/// A completed request: its buffer, how it ended, when the frame was taken.
public struct LibcameraCompletion: Sendable, Equatable {
    /// How the request ended: with a frame, cancelled by `Camera::stop`, or with a frame error.
    public enum Status: Sendable, Equatable { case complete, cancelled, failed }
    public var index: Int
    public var status: Status
    public var timestampNanos: UInt64
    /// Bytes of the first plane the frame filled.
    public var bytesUsed: Int

    public init(index: Int, status: Status = .complete, timestampNanos: UInt64 = 0, bytesUsed: Int) {
        self.index = index
        self.status = status
        self.timestampNanos = timestampNanos
        self.bytesUsed = bytesUsed
    }
}

/// The seam between the libcamera backend and libcamera: the real shim (`SystemLibcamera`) or,
/// in tests, a scripted one that injects faults (no camera, busy, gone mid-stream, request
/// errors). Like `Syscalls`, the only way from the backend to the library.
public protocol LibcameraShim: Sendable {
    /// The cameras libcamera finds, with formats and controls (`CameraManager::cameras`).
    func cameras() throws(LibcameraShimError) -> [LibcameraCameraInfo]
    /// Acquires camera `id` ("" the first) for this process (`Camera::acquire`).
    func acquire(id: String) throws(LibcameraShimError) -> any LibcameraDevice
}

/// An acquired libcamera camera. Released by `release()` (and when the value goes).
public protocol LibcameraDevice: AnyObject, Sendable {
    /// The camera's libcamera id.
    var id: String { get }
    /// Configures one stream of about `width` x `height` and allocates `buffers` buffers.
    func configure(width: Int, height: Int, buffers: Int) throws(LibcameraShimError) -> LibcameraStreamInfo
    /// The mapped first plane of buffer `index` (valid until the next `configure` or `release`).
    func plane(_ index: Int) -> UnsafeRawBufferPointer?
    /// Starts the camera and queues every buffer's request (`Camera::start`).
    func start() throws(LibcameraShimError)
    /// Stops the camera; safe when stopped (`Camera::stop`).
    func stop()
    /// Readable while completed requests wait or the camera went away.
    var eventFD: Int32 { get }
    /// The oldest completed request, or nil when none waits; throws ENODEV once the camera is gone.
    func takeCompleted() throws(LibcameraShimError) -> LibcameraCompletion?
    /// Queues request `index` again (`Camera::queueRequest`).
    func requeue(_ index: Int) throws(LibcameraShimError)
    /// The controls the camera offers.
    func controls() throws(LibcameraShimError) -> [LibcameraControlInfo]
    /// Sets a control by libcamera's name for the next requests; returns the value after clamping.
    func setControl(_ name: String, to value: Double) throws(LibcameraShimError) -> Double
    /// Asks for `fps` frames per second from the next requests (FrameDurationLimits); returns the
    /// rate in effect. Throws ENOTSUP when the camera has no frame duration control.
    func setFrameRate(_ fps: Int) throws(LibcameraShimError) -> Int
    /// Puts the lens in `mode` from the next requests (and the start): `AfMode` Auto (on
    /// request) or Continuous, or Manual with `LensPosition` (clamped to its range). Throws
    /// ENOTSUP when the camera, or a libcamera before 0.0.4, has no such control.
    func setFocus(_ mode: FocusMode) throws(LibcameraShimError)
    /// Starts one autofocus cycle with the next request (`AfMode` Auto, `AfTrigger` Start).
    /// Throws ENOTSUP as `setFocus` does.
    func autofocus() throws(LibcameraShimError)
    /// Throws ENODEV once libcamera reported the camera disconnected, or once a device node
    /// libcamera holds for it was removed (which libcamera 0.0.3 reports only for UVC cameras).
    func check() throws(LibcameraShimError)
    /// Releases the camera (`Camera::release`); calls after it fail with EBADF.
    func release()
}

/// The real libcamera, through the CLibcamera shim.
public struct SystemLibcamera: LibcameraShim {
    /// The process's libcamera (the shim starts its one camera manager when first asked).
    public init() {}

    /// libcamera's version scand was built with, e.g. `0.0.3`.
    public static var version: String { String(cString: scand_lc_version()) }

    public func cameras() throws(LibcameraShimError) -> [LibcameraCameraInfo] {
        var list: UnsafeMutablePointer<scand_lc_camera_info>?
        var err = ShimMessage()
        let n = err.call { scand_lc_list(&list, $0, $1) }
        defer { free(list) }
        guard n >= 0 else { throw err.error("CameraManager::cameras", n) }
        var out: [LibcameraCameraInfo] = []
        for i in 0..<Int(n) {
            let info = list![i]
            let formats = cString(info.formats).split(separator: "\n").map(String.init)
            let controls = withUnsafeBytes(of: info.controls) { raw in
                Array(raw.bindMemory(to: scand_lc_control_info.self).prefix(Int(info.control_count))).map(controlInfo)
            }
            out.append(LibcameraCameraInfo(id: cString(info.id), model: cString(info.model), formats: formats, controls: controls))
        }
        return out
    }

    public func acquire(id: String) throws(LibcameraShimError) -> any LibcameraDevice {
        var camera: OpaquePointer?
        var err = ShimMessage()
        let rc = err.call { scand_lc_acquire(id, &camera, $0, $1) }
        guard rc == 0, let camera else { throw err.error("Camera::acquire", rc) }
        return SystemLibcameraDevice(camera)
    }
}

/// An acquired camera of the real libcamera; owns the shim's handle and releases it.
final class SystemLibcameraDevice: LibcameraDevice, @unchecked Sendable {
    private let handle: Locked<OpaquePointer?>
    let id: String
    let eventFD: Int32

    init(_ camera: OpaquePointer) {
        handle = Locked(camera)
        id = String(cString: scand_lc_camera_id(camera))
        eventFD = scand_lc_event_fd(camera)
    }

    deinit { release() }

    /// Runs `body` with the live handle, under the lock that `release` takes.
    private func with<R>(_ call: String, _ body: (OpaquePointer) throws(LibcameraShimError) -> R) throws(LibcameraShimError) -> R {
        try handle.withLock { (h: inout OpaquePointer?) throws(LibcameraShimError) -> R in
            guard let camera = h else { throw LibcameraShimError(call: call, errno: EBADF, message: "the camera was released") }
            return try body(camera)
        }
    }

    func configure(width: Int, height: Int, buffers: Int) throws(LibcameraShimError) -> LibcameraStreamInfo {
        try with("Camera::configure") { camera throws(LibcameraShimError) in
            var info = scand_lc_stream_info()
            var err = ShimMessage()
            let rc = err.call { scand_lc_configure(camera, Int32(width), Int32(height), Int32(buffers), &info, $0, $1) }
            guard rc == 0 else { throw err.error("Camera::configure", rc) }
            return LibcameraStreamInfo(width: Int(info.width), height: Int(info.height), stride: Int(info.stride),
                                       format: cString(info.format), bufferCount: Int(info.buffer_count))
        }
    }

    func plane(_ index: Int) -> UnsafeRawBufferPointer? {
        try? with("scand_lc_buffer") { camera in
            var data: UnsafePointer<UInt8>?
            var length = 0
            guard scand_lc_buffer(camera, Int32(index), &data, &length) == 0, let data else { return nil }
            return UnsafeRawBufferPointer(start: data, count: length)
        }
    }

    func start() throws(LibcameraShimError) {
        try with("Camera::start") { camera throws(LibcameraShimError) in
            var err = ShimMessage()
            let rc = err.call { scand_lc_start(camera, $0, $1) }
            guard rc == 0 else { throw err.error("Camera::start", rc) }
        }
    }

    func stop() { try? with("Camera::stop") { scand_lc_stop($0) } }

    func takeCompleted() throws(LibcameraShimError) -> LibcameraCompletion? {
        try with("Camera::requestCompleted") { camera throws(LibcameraShimError) in
            var c = scand_lc_completion()
            let rc = scand_lc_take_completed(camera, &c)
            if rc < 0 { throw LibcameraShimError(call: "Camera::requestCompleted", errno: -rc, message: "the camera was disconnected") }
            guard rc == 1 else { return nil }
            let status: LibcameraCompletion.Status = c.status == 0 ? .complete : c.status == 1 ? .cancelled : .failed
            return LibcameraCompletion(index: Int(c.index), status: status, timestampNanos: c.timestamp_ns, bytesUsed: c.bytes_used)
        }
    }

    func requeue(_ index: Int) throws(LibcameraShimError) {
        try with("Camera::queueRequest") { camera throws(LibcameraShimError) in
            var err = ShimMessage()
            let rc = err.call { scand_lc_requeue(camera, Int32(index), $0, $1) }
            guard rc == 0 else { throw err.error("Camera::queueRequest", rc) }
        }
    }

    func controls() throws(LibcameraShimError) -> [LibcameraControlInfo] {
        try with("Camera::controls") { camera throws(LibcameraShimError) in
            var list: UnsafeMutablePointer<scand_lc_control_info>?
            var err = ShimMessage()
            let n = err.call { scand_lc_controls(camera, &list, $0, $1) }
            defer { free(list) }
            guard n >= 0 else { throw err.error("Camera::controls", n) }
            return (0..<Int(n)).map { controlInfo(list![$0]) }
        }
    }

    func setControl(_ name: String, to value: Double) throws(LibcameraShimError) -> Double {
        try with("ControlList::set") { camera throws(LibcameraShimError) in
            var taken = value
            var err = ShimMessage()
            let rc = err.call { scand_lc_set_control(camera, name, value, &taken, $0, $1) }
            guard rc == 0 else { throw err.error("ControlList::set", rc) }
            return taken
        }
    }

    func setFrameRate(_ fps: Int) throws(LibcameraShimError) -> Int {
        try with("FrameDurationLimits") { camera throws(LibcameraShimError) in
            var taken: Int32 = 0
            var err = ShimMessage()
            let rc = err.call { scand_lc_set_frame_rate(camera, Int32(clamping: fps), &taken, $0, $1) }
            guard rc == 0 else { throw err.error("FrameDurationLimits", rc) }
            return Int(taken)
        }
    }

    func setFocus(_ mode: FocusMode) throws(LibcameraShimError) {
        let (code, dioptres): (Int32, Double) = switch mode {
        case .onRequest: (Int32(SCAND_LC_FOCUS_ON_REQUEST), 0)
        case .continuous: (Int32(SCAND_LC_FOCUS_CONTINUOUS), 0)
        case .manual(let d): (Int32(SCAND_LC_FOCUS_MANUAL), d)
        }
        try with("AfMode") { camera throws(LibcameraShimError) in
            var taken = dioptres
            var err = ShimMessage()
            let rc = err.call { scand_lc_set_focus(camera, code, dioptres, &taken, $0, $1) }
            guard rc == 0 else { throw err.error("AfMode", rc) }
        }
    }

    func autofocus() throws(LibcameraShimError) {
        try with("AfTrigger") { camera throws(LibcameraShimError) in
            var err = ShimMessage()
            let rc = err.call { scand_lc_autofocus(camera, $0, $1) }
            guard rc == 0 else { throw err.error("AfTrigger", rc) }
        }
    }

    func check() throws(LibcameraShimError) {
        try with("Camera::disconnected") { camera throws(LibcameraShimError) in
            var err = ShimMessage()
            let rc = err.call { scand_lc_check(camera, $0, $1) }
            if rc < 0 { throw err.error("Camera::disconnected", rc) }
        }
    }

    func release() {
        let camera = handle.withLock { h -> OpaquePointer? in defer { h = nil }; return h }
        if let camera { scand_lc_release(camera) }
    }
}

/// The shim's message buffer: what a failed call said.
private struct ShimMessage {
    var bytes = [CChar](repeating: 0, count: 512)

    mutating func call(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> Int32 {
        let count = bytes.count
        return bytes.withUnsafeMutableBufferPointer { body($0.baseAddress!, count) }
    }

    func error(_ call: String, _ rc: Int32) -> LibcameraShimError {
        LibcameraShimError(call: call, errno: rc < 0 ? -rc : EIO, message: bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
}

private func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

private func controlInfo(_ c: scand_lc_control_info) -> LibcameraControlInfo {
    LibcameraControlInfo(name: cString(c.name), minimum: c.minimum, maximum: c.maximum, defaultValue: c.default_value)
}
