import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// What the libcamera camera should deliver. Size and rate are requests; libcamera may adjust them.
public struct LibcameraSettings: Sendable, Equatable {
    /// libcamera's camera id (`camera.id`); "" for the first camera it lists.
    public var id: String
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Controls by config name (see `LibcameraControlMapping`), applied when the camera opens.
    public var controls: [String: Int] = [:]
    /// Buffers (and requests) in the stream: 3 or more.
    public var buffers = 4
    /// A stream that gives no frame this long is reported as timed out.
    public var stallTimeoutMs: Int32 = 5000

    public init(id: String, width: Int, height: Int, fps: Int) {
        self.id = id
        self.width = width
        self.height = height
        self.fps = fps
    }
}

/// A camera through libcamera (a Raspberry Pi CSI camera module, say): one stream of the asked
/// size in a gray or YUV format, a reader thread that waits on the shim's eventfd and keeps only
/// the newest frame (the shared `NewestFrameHandoff`), every other request queued straight back.
/// Frames are copied out of the buffer (the luma plane only), so the buffer's request goes back
/// to libcamera at once and no frame outlives the camera's memory.
public final class LibcameraCamera: FrameSource, Sendable {
    public let settings: LibcameraSettings
    private let shim: any LibcameraShim
    private let sys: Syscalls

    /// What `open()` configured.
    public struct Negotiated: Sendable, Equatable {
        public var id: String
        /// Where the frames' luma is.
        public var layout: LibcameraFrames.Layout
        /// scand's name for the format; nil for RGB.
        public var format: CameraFormat? {
            if case .yuv(let format) = layout { return format }
            return nil
        }
        public var libcameraFormat: String
        public var width: Int
        public var height: Int
        public var stride: Int
        public var buffers: Int
        /// Controls that could not be set, with the reason.
        public var controlProblems: [String]
    }

    private struct State {
        var device: (any LibcameraDevice)?
        var negotiated: Negotiated?
        var stream: LibcameraStream?
        /// Values set since the camera opened, by libcamera's name (libcamera reads none back).
        var values: [String: Double] = [:]
        /// Controls set while running (the setup page, a host's SET), by config name: kept
        /// over a close, and set again at every open with the config's (a camera unplugged
        /// or unbound and back is a new device that knows none of them).
        var setWhileRunning: [String: Int] = [:]
        var dropped = 0
        /// The lens mode the kiosk set since the camera opened, asked again at every start.
        var focus: FocusMode?
        /// An autofocus cycle asked for while not streaming: started with the stream.
        var autofocusDue = false
    }
    private let state = Locked(State())

    /// `syscalls` polls the shim's eventfd (tests give a scripted shim and the real poll).
    public init(settings: LibcameraSettings, shim: any LibcameraShim = SystemLibcamera(), syscalls: Syscalls = .system) {
        self.settings = settings
        self.shim = shim
        self.sys = syscalls
    }

    deinit { close() }

    /// `libcamera <id>` once open (the id libcamera gave), else the configured id or "first camera".
    public var name: String {
        let id = state.withLock { $0.negotiated?.id } ?? settings.id
        return id.isEmpty ? "libcamera (first camera)" : "libcamera \(id)"
    }

    /// The format, size and buffers in use, and the controls that could not be set.
    public var summary: String {
        guard let n = negotiated else { return "not open" }
        return "libcamera \(n.libcameraFormat) \(n.width)x\(n.height), \(n.buffers) buffers"
            + (n.controlProblems.isEmpty ? "" : "; controls not set: " + n.controlProblems.joined(separator: "; "))
    }

    /// The stream as configured, once open.
    public var negotiated: Negotiated? { state.withLock { $0.negotiated } }

    /// Frames replaced by a newer one or failed by libcamera, since the camera opened.
    public var droppedFrames: Int { state.withLock { $0.dropped + ($0.stream?.dropped ?? 0) } }

    /// The error for a shim failure, on this camera.
    func hardwareError(_ e: LibcameraShimError) -> HardwareError {
        HardwareError(HardwareError.kind(forErrno: e.errno), operation: e.call, device: name, errno: e.errno,
                      summary: e.message.isEmpty ? nil : "\(name): \(e.message)", hint: Hints.libcamera(e.errno))
    }

    // MARK: Open and configure

    /// Acquires the camera (`Camera::acquire`), configures its stream (`Camera::configure`,
    /// `FrameBufferAllocator::allocate`) and sets the config's controls.
    public func open() throws(HardwareError) {
        close()
        let device: any LibcameraDevice
        do { device = try shim.acquire(id: settings.id) } catch { throw hardwareError(error) }
        do throws(HardwareError) {
            let info: LibcameraStreamInfo
            do { info = try device.configure(width: settings.width, height: settings.height, buffers: max(3, settings.buffers)) } catch {
                throw hardwareError(error)
            }
            guard let layout = LibcameraFrames.layout(named: info.format), info.width > 0, info.height > 0, info.bufferCount >= 2 else {
                throw HardwareError(.invalidFormat, operation: "Camera::configure", device: name,
                                    hint: "libcamera configured \(info.format) \(info.width)x\(info.height) with \(info.bufferCount) buffers; "
                                        + "scand takes R8, NV12, NV21, YUV420, YUYV, UYVY, RGB888, BGR888")
            }
            var problems: [String] = []
            var values: [String: Double] = [:]
            _ = try? device.setFrameRate(settings.fps) // a camera without a frame duration control keeps its own rate
            let setWhileRunning = state.withLock { $0.setWhileRunning }
            for (name, value) in settings.controls.merging(setWhileRunning, uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
                guard let mapping = LibcameraControlMapping.forConfig(name) else { problems.append("\(name): libcamera has no such control"); continue }
                guard let wanted = mapping.libcameraValue(value) else { problems.append("\(name)=\(value): not a value of \(mapping.libcameraName)"); continue }
                do { values[mapping.libcameraName] = try device.setControl(mapping.libcameraName, to: wanted) } catch {
                    problems.append("\(name)=\(value): \(mapping.libcameraName): \(error.message)")
                }
            }
            let negotiated = Negotiated(id: device.id, layout: layout, libcameraFormat: info.format, width: info.width, height: info.height,
                                        stride: info.stride, buffers: info.bufferCount, controlProblems: problems)
            state.withLock { $0.device = device; $0.negotiated = negotiated; $0.values = values }
        } catch {
            device.release()
            throw error
        }
    }

    /// Asks for `fps` (0: `settings.fps`) from the next requests (FrameDurationLimits; libcamera
    /// takes it while streaming) and returns the rate in effect, clamped to the sensor's limits.
    public func setFrameRate(_ fps: Int) throws(HardwareError) -> Int {
        guard let device = state.withLock({ $0.device }) else {
            throw HardwareError(.disconnected, operation: "FrameDurationLimits", device: name, errno: EBADF, hint: "the camera is not open")
        }
        do { return try device.setFrameRate(fps > 0 ? fps : settings.fps) } catch {
            if error.errno == ENOTSUP { throw .noFrameRateControl(operation: "FrameDurationLimits", device: name) }
            throw hardwareError(error)
        }
    }

    /// Stops streaming and releases the camera (`Camera::release`).
    public func close() {
        let (device, stream) = state.withLock { s -> ((any LibcameraDevice)?, LibcameraStream?) in
            defer { s.dropped += s.stream?.dropped ?? 0; s.stream = nil; s.device = nil; s.focus = nil; s.autofocusDue = false }
            return (s.device, s.stream)
        }
        stream?.stop()
        device?.release()
    }

    /// Whether libcamera still has the camera (its `disconnected` signal): `.disconnected` once gone.
    public func check() throws(HardwareError) {
        guard let device = state.withLock({ $0.device }) else {
            throw HardwareError(.disconnected, operation: "Camera::acquire", device: name, errno: EBADF, hint: "the camera is not open")
        }
        do { try device.check() } catch { throw hardwareError(error) }
    }

    // MARK: Streaming

    /// Starts the camera (`Camera::start`) and its reader thread.
    public func startCapture() throws(HardwareError) {
        stopCapture()
        guard let (device, negotiated) = state.withLock({ s in s.device.flatMap { d in s.negotiated.map { (d, $0) } } }) else {
            throw HardwareError(.disconnected, operation: "Camera::start", device: name, errno: EBADF, hint: "the camera is not open")
        }
        // The lens mode goes with the start's controls; a cycle asked for before the start goes
        // with the first request queued back, once the camera runs (libcamera's AF algorithm
        // takes its trigger on a running camera).
        let (focus, cycle) = state.withLock { s in defer { s.autofocusDue = false }; return (s.focus, s.autofocusDue) }
        if let focus { try? device.setFocus(focus) }
        let stream = try LibcameraStream(camera: self, device: device, format: negotiated, sys: sys, stallTimeoutMs: settings.stallTimeoutMs)
        state.withLock { $0.stream = stream }
        if cycle { try? device.autofocus() }
    }

    // MARK: Focus

    /// Puts the lens in `mode` (`AfMode`, and `LensPosition` for `.manual`) from the next
    /// requests, and again at every start. Throws `noFocusControl` when the camera has no
    /// autofocus (or lens position control), or libcamera is older than 0.0.4.
    public func setFocus(_ mode: FocusMode) throws(HardwareError) {
        let operation = if case .manual = mode { "LensPosition" } else { "AfMode" }
        guard let device = state.withLock({ $0.device }) else {
            throw HardwareError(.disconnected, operation: operation, device: name, errno: EBADF, hint: "the camera is not open")
        }
        do { try device.setFocus(mode) } catch { throw focusError(error, mode, operation: operation) }
        state.withLock { $0.focus = mode }
    }

    /// Starts one autofocus cycle (`AfTrigger` Start in `AfMode` Auto) with the next request;
    /// asked while not streaming, with the stream's start.
    public func startAutofocus() throws(HardwareError) {
        guard let (device, streaming) = state.withLock({ s in s.device.map { ($0, s.stream != nil) } }) else {
            throw HardwareError(.disconnected, operation: "AfTrigger", device: name, errno: EBADF, hint: "the camera is not open")
        }
        guard streaming else {
            // The shim answers ENOTSUP without the controls: asked now, carried out at the start.
            do { try device.setFocus(.onRequest) } catch { throw focusError(error, .onRequest, operation: "AfTrigger") }
            state.withLock { $0.autofocusDue = true }
            return
        }
        do { try device.autofocus() } catch { throw focusError(error, .onRequest, operation: "AfTrigger") }
    }

    /// The shim's ENOTSUP (no such control, or a libcamera before 0.0.4) as `noFocusControl`,
    /// with the shim's words; any other failure as the device's.
    private func focusError(_ error: LibcameraShimError, _ mode: FocusMode, operation: String) -> HardwareError {
        guard error.errno == ENOTSUP else { return hardwareError(error) }
        var e = HardwareError.noFocusControl(mode, operation: operation, device: name, errno: ENOTSUP)
        if !error.message.isEmpty { e.hint = "\(error.message); it keeps its lens where it is" }
        return e
    }

    /// Stops the camera (`Camera::stop`) after its reader thread has ended.
    public func stopCapture() {
        let stream = state.withLock { s -> LibcameraStream? in
            defer { s.dropped += s.stream?.dropped ?? 0; s.stream = nil }
            return s.stream
        }
        stream?.stop()
    }

    /// Whether a `nextFrame()` waits for a frame now.
    var isAwaitingFrame: Bool { state.withLock { $0.stream }?.isAwaited ?? false }

    /// The newest frame (waiting for one): its luma, copied out of the completed request's
    /// buffer. Throws `.disconnected` once the camera went away, `.timedOut` after
    /// `stallTimeoutMs` without a frame, CancellationError when the stream stops.
    public func nextFrame() async throws -> GrayFrame {
        guard let stream = state.withLock({ $0.stream }) else {
            throw HardwareError(.disconnected, operation: "Camera::requestCompleted", device: name, errno: ENODEV, hint: "not streaming")
        }
        return try await stream.next()
    }

    // MARK: Controls

    /// The config-named controls the open camera offers (those `LibcameraControlMapping` knows),
    /// with their ranges in config units; the value is the last one set, or libcamera's default.
    public func controlSettings() throws(HardwareError) -> [CameraControlSetting] {
        guard let (device, values) = state.withLock({ s in s.device.map { ($0, s.values) } }) else {
            throw HardwareError(.notFound, operation: "Camera::controls", device: name, hint: "the camera is not open")
        }
        let offered: [LibcameraControlInfo]
        do { offered = try device.controls() } catch { throw hardwareError(error) }
        var seen: Set<String> = []
        return LibcameraControlMapping.all.compactMap { mapping in
            // One slider per libcamera control: the first config name for it.
            guard !seen.contains(mapping.libcameraName), let info = offered.first(where: { $0.name == mapping.libcameraName }) else { return nil }
            seen.insert(mapping.libcameraName)
            return mapping.setting(info, value: values[mapping.libcameraName])
        }
    }

    /// Sets a control by its config name for the next requests and returns the value libcamera
    /// takes (clamped to the control's range), in config units.
    @discardableResult
    public func setControl(_ name: String, to value: Int) throws(HardwareError) -> Int {
        guard let mapping = LibcameraControlMapping.forConfig(name) else {
            throw .noSuchControl(name, operation: "ControlList::set", device: self.name, known: LibcameraControlMapping.all.map(\.configName))
        }
        guard let device = state.withLock({ $0.device }) else {
            throw HardwareError(.notFound, operation: "ControlList::set", device: self.name, hint: "the camera is not open")
        }
        guard let wanted = mapping.libcameraValue(value) else {
            throw HardwareError(.invalidFormat, operation: "ControlList::set", device: self.name, summary: "\(value) is not a value of \(name)")
        }
        let taken: Double
        do { taken = try device.setControl(mapping.libcameraName, to: wanted) } catch {
            if error.errno == ENOENT {
                let known = ((try? controlSettings()) ?? []).map(\.name)
                throw .noSuchControl(name, operation: "ControlList::set", device: self.name, known: known)
            }
            throw hardwareError(error)
        }
        state.withLock {
            $0.values[mapping.libcameraName] = taken
            $0.setWhileRunning[mapping.configName] = mapping.configValue(taken)
        }
        return mapping.configValue(taken)
    }
}
