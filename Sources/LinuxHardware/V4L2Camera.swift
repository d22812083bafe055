import CV4L2
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// What the camera should deliver. Width, height and rate are requests; the driver may adjust them.
public struct CameraSettings: Sendable, Equatable {
    /// Device path or stable name (`/dev/v4l/by-id/...`).
    public var device: String
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Formats to try, in order; the first the camera offers wins.
    public var formats: [CaptureFormat] = CaptureFormat.preference
    /// When the camera offers none of `formats`: let libv4l2 convert to planar YUV.
    public var allowConversion = true
    /// Controls by name (see `CameraControl`), applied after the format is set.
    public var controls: [String: Int] = [:]
    /// mmap buffers in the ring (3 or more: one may be held by the decoder).
    public var buffers = 4
    /// A stream that gives no frame this long is reported as timed out.
    public var stallTimeoutMs: Int32 = 5000

    public init(device: String, width: Int, height: Int, fps: Int) {
        self.device = device
        self.width = width
        self.height = height
        self.fps = fps
    }
}

/// The camera controls scand sets by name.
public enum CameraControl {
    public static let ids: [String: UInt32] = [
        "brightness": scand_V4L2_CID_BRIGHTNESS, "contrast": scand_V4L2_CID_CONTRAST, "gain": scand_V4L2_CID_GAIN,
        "sharpness": scand_V4L2_CID_SHARPNESS, "power_line_frequency": scand_V4L2_CID_POWER_LINE_FREQUENCY,
        "white_balance_auto": scand_V4L2_CID_AUTO_WHITE_BALANCE, "exposure_auto": scand_V4L2_CID_EXPOSURE_AUTO,
        "exposure_absolute": scand_V4L2_CID_EXPOSURE_ABSOLUTE, "focus_auto": scand_V4L2_CID_FOCUS_AUTO,
        "focus_absolute": scand_V4L2_CID_FOCUS_ABSOLUTE,
    ]
}

/// A V4L2 capture device: format negotiation, mmap streaming from a small buffer ring, and a
/// reader thread that blocks in poll(2) and keeps only the newest frame (older ones are requeued
/// and counted as dropped). GREY and planar YUV frames reach the decoder without a copy; their
/// buffer goes back to the driver when the last copy of the frame is gone.
public final class V4L2Camera: FrameSource, Sendable {
    public var name: String { settings.device }
    public let settings: CameraSettings
    private let direct: Syscalls
    private let converting: Syscalls

    /// What `open()` negotiated.
    public struct Negotiated: Sendable, Equatable {
        public var format: CaptureFormat
        public var width: Int
        public var height: Int
        public var bytesPerLine: Int
        public var sizeImage: Int
        /// Whether libv4l2 converts the camera's format.
        public var converted: Bool
        /// Controls that could not be set, with the reason.
        public var controlProblems: [String]
    }

    private struct State {
        var fd: Int32 = -1
        var sys: Syscalls
        var negotiated: Negotiated?
        var stream: Stream?
        /// The last stopped stream's buffers while anything still maps them.
        weak var stoppedRing: BufferRing?
        var dropped = 0
        /// How a press focuses, once `setFocus(.onRequest)` took: one cycle
        /// (`V4L2_CID_AUTO_FOCUS_START`) or, emulated, continuous autofocus restarted.
        var cycle: FocusCycle?
    }

    enum FocusCycle { case oneShot, restartContinuous }
    private let state: Locked<State>

    /// `converting` is the call set used when the camera offers none of `settings.formats`
    /// (libv4l2, which converts; tests give a scripted one).
    public init(settings: CameraSettings, syscalls: Syscalls = .system, converting: Syscalls = .libv4l2) {
        self.settings = settings
        self.direct = syscalls
        self.converting = converting
        self.state = Locked(State(sys: syscalls))
    }

    deinit { close() }

    public var summary: String {
        guard let n = negotiated else { return "not open" }
        return "\(n.format.rawValue) \(n.width)x\(n.height) at \(settings.fps) fps"
            + (n.converted ? ", converted by libv4l2 (the camera offers none of camera.formats)" : "")
            + (n.controlProblems.isEmpty ? "" : "; controls not set: " + n.controlProblems.joined(separator: "; "))
    }

    /// The format and size in use, once open.
    public var negotiated: Negotiated? { state.withLock { $0.negotiated } }

    public var droppedFrames: Int { state.withLock { $0.dropped + ($0.stream?.dropped ?? 0) } }

    // MARK: Open and negotiate

    public func open() throws(HardwareError) {
        close()
        let (fd, sys, negotiated) = try openAndNegotiate()
        state.withLock { $0.fd = fd; $0.sys = sys; $0.negotiated = negotiated }
    }

    private func openAndNegotiate() throws(HardwareError) -> (Int32, Syscalls, Negotiated) {
        let device = settings.device
        var sys = direct
        var fd = try sys.check("open", device: device, hint: Hints.camera) { sys.open(device, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        do throws(HardwareError) {
            try checkCapabilities(fd, sys)
            let offered = try enumerateFormats(fd, sys)
            var converted = false
            var choice = settings.formats.first { offered.contains($0.fourcc) }
            if choice == nil {
                guard settings.allowConversion else {
                    throw HardwareError(.invalidFormat, operation: "VIDIOC_ENUM_FMT", device: device,
                                        hint: "the camera offers \(offered.map(fourccString).joined(separator: ", ")); scand takes \(settings.formats.map(\.rawValue).joined(separator: ", "))")
                }
                _ = sys.close(fd)
                sys = converting
                let libv4l2 = sys
                fd = try sys.check("v4l2_open", device: device, hint: Hints.camera) { libv4l2.open(device, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
                choice = .yu12
                converted = true
            }
            var negotiated = try setFormat(fd, sys, choice!)
            negotiated.converted = converted
            setFrameRate(fd, sys)
            negotiated.controlProblems = applyControls(fd, sys)
            return (fd, sys, negotiated)
        } catch {
            _ = sys.close(fd)
            throw error
        }
    }

    private func checkCapabilities(_ fd: Int32, _ sys: Syscalls) throws(HardwareError) {
        var cap = v4l2_capability()
        try sys.check("VIDIOC_QUERYCAP", device: settings.device, hint: Hints.camera) { sys.ioctl(fd, scand_VIDIOC_QUERYCAP, &cap) }
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            throw HardwareError(.invalidFormat, operation: "VIDIOC_QUERYCAP", device: settings.device,
                                hint: "not a video capture device (a metadata or output node?); `scand probe` lists cameras")
        }
        guard caps & UInt32(V4L2_CAP_STREAMING) != 0 else {
            throw HardwareError(.invalidFormat, operation: "VIDIOC_QUERYCAP", device: settings.device, hint: "the device cannot stream (no mmap I/O)")
        }
    }

    private func enumerateFormats(_ fd: Int32, _ sys: Syscalls) throws(HardwareError) -> [UInt32] {
        var out: [UInt32] = []
        for index in 0..<64 {
            var desc = v4l2_fmtdesc()
            desc.index = UInt32(index)
            desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            if sys.ioctl(fd, scand_VIDIOC_ENUM_FMT, &desc) < 0 {
                let code = sys.errno()
                if code == EINVAL { break }
                if code == EINTR { continue }
                throw HardwareError(HardwareError.kind(forErrno: code), operation: "VIDIOC_ENUM_FMT", device: settings.device, errno: code)
            }
            out.append(desc.pixelformat)
        }
        return out
    }

    private func setFormat(_ fd: Int32, _ sys: Syscalls, _ format: CaptureFormat) throws(HardwareError) -> Negotiated {
        var fmt = v4l2_format()
        fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        fmt.fmt.pix.width = UInt32(settings.width)
        fmt.fmt.pix.height = UInt32(settings.height)
        fmt.fmt.pix.pixelformat = format.fourcc
        fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try sys.check("VIDIOC_S_FMT", device: settings.device, hint: Hints.camera) { sys.ioctl(fd, scand_VIDIOC_S_FMT, &fmt) }
        let pix = fmt.fmt.pix
        guard let got = CaptureFormat(fourcc: pix.pixelformat), pix.width > 0, pix.height > 0 else {
            throw HardwareError(.invalidFormat, operation: "VIDIOC_S_FMT", device: settings.device,
                                hint: "asked for \(format.rawValue), the driver set \(fourccString(pix.pixelformat))")
        }
        let width = Int(pix.width), height = Int(pix.height)
        let minLine = got == .yuyv || got == .uyvy ? width * 2 : width
        let bytesPerLine = max(Int(pix.bytesperline), got == .mjpeg || got == .jpeg ? 0 : minLine)
        return Negotiated(format: got, width: width, height: height, bytesPerLine: bytesPerLine,
                          sizeImage: Int(pix.sizeimage), converted: false, controlProblems: [])
    }

    private func setFrameRate(_ fd: Int32, _ sys: Syscalls) {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parm.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(max(1, settings.fps)))
        _ = sys.ioctl(fd, scand_VIDIOC_S_PARM, &parm) // a camera without rate control keeps its own
    }

    private func applyControls(_ fd: Int32, _ sys: Syscalls) -> [String] {
        var problems: [String] = []
        // Auto modes first, so that absolute values are accepted afterwards.
        for (name, value) in settings.controls.sorted(by: { ($0.key.hasSuffix("_auto") ? 0 : 1, $0.key) < ($1.key.hasSuffix("_auto") ? 0 : 1, $1.key) }) {
            guard let id = CameraControl.ids[name] else { problems.append("\(name): unknown control"); continue }
            var control = v4l2_control(id: id, value: Int32(clamping: value))
            if sys.ioctl(fd, scand_VIDIOC_S_CTRL, &control) < 0 {
                problems.append("\(name)=\(value): VIDIOC_S_CTRL: \(ErrnoName.name(sys.errno()))")
            }
        }
        return problems
    }

    public func close() {
        let (fd, sys, stream) = state.withLock { s -> (Int32, Syscalls, Stream?) in
            defer { s.fd = -1; s.dropped += s.stream?.dropped ?? 0; s.stream = nil; s.cycle = nil }
            return (s.fd, s.sys, s.stream)
        }
        stream?.stop()
        if fd >= 0 { _ = sys.close(fd) }
    }

    /// VIDIOC_QUERYCAP on the open descriptor: an unplugged camera answers ENODEV.
    public func check() throws(HardwareError) {
        let (fd, sys) = state.withLock { ($0.fd, $0.sys) }
        guard fd >= 0 else {
            throw HardwareError(.disconnected, operation: "VIDIOC_QUERYCAP", device: settings.device, errno: EBADF, hint: "the camera is not open")
        }
        var cap = v4l2_capability()
        try sys.check("VIDIOC_QUERYCAP", device: settings.device, hint: Hints.camera) { sys.ioctl(fd, scand_VIDIOC_QUERYCAP, &cap) }
    }

    // MARK: Streaming

    public func startCapture() throws(HardwareError) {
        let (fd, sys, negotiated) = state.withLock { ($0.fd, $0.sys, $0.negotiated) }
        guard fd >= 0, let negotiated else {
            throw HardwareError(.disconnected, operation: "VIDIOC_STREAMON", device: settings.device, errno: EBADF, hint: "the camera is not open")
        }
        stopCapture()
        try awaitBuffersUnmapped()
        let stream = try Stream(fd: fd, sys: sys, device: settings.device, format: negotiated, buffers: max(3, settings.buffers),
                                stallTimeoutMs: settings.stallTimeoutMs)
        state.withLock { $0.stream = stream }
    }

    public func stopCapture() {
        let stream = state.withLock { s -> Stream? in
            defer {
                s.dropped += s.stream?.dropped ?? 0
                if let ring = s.stream?.ring { s.stoppedRing = ring }
                s.stream = nil
            }
            return s.stream
        }
        stream?.stop()
    }

    /// How long a new stream waits for the stopped one's buffers to be unmapped.
    static let unmapWait = Duration.milliseconds(250)

    /// A stopped stream's buffers are unmapped when its reader thread and its last frame let go
    /// (its reader exits within a millisecond; a deep pass on a borrowed frame may take longer);
    /// until then VIDIOC_REQBUFS fails with EBUSY, which is our own doing, not another
    /// program's. So a new stream waits for them, up to `unmapWait`.
    private func awaitBuffersUnmapped() throws(HardwareError) {
        let deadline = ContinuousClock.now + Self.unmapWait
        while state.withLock({ $0.stoppedRing != nil }) {
            guard ContinuousClock.now < deadline else {
                throw HardwareError(.other, operation: "VIDIOC_REQBUFS", device: settings.device, errno: EBUSY,
                                    hint: "the previous stream's frames are still in use after \(Self.unmapWait)")
            }
            usleep(1000)
        }
    }

    public func nextFrame() async throws -> GrayFrame {
        guard let stream = state.withLock({ $0.stream }) else {
            throw HardwareError(.disconnected, operation: "VIDIOC_DQBUF", device: settings.device, errno: ENODEV, hint: "not streaming")
        }
        return try await stream.next()
    }
}

extension V4L2Camera {
    /// The controls among `CameraControl.ids` that the open camera offers and has enabled, with
    /// their ranges and current values (`VIDIOC_QUERYCTRL`, `VIDIOC_G_CTRL`).
    public func controlSettings() throws(HardwareError) -> [CameraControlSetting] {
        let (fd, sys) = try openDescriptor("VIDIOC_QUERYCTRL")
        var out: [CameraControlSetting] = []
        for (name, id) in CameraControl.ids.sorted(by: { $0.key < $1.key }) {
            var query = v4l2_queryctrl()
            query.id = id
            guard sys.ioctl(fd, scand_VIDIOC_QUERYCTRL, &query) == 0, query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { continue }
            var control = v4l2_control(id: id, value: 0)
            let value = sys.ioctl(fd, scand_VIDIOC_G_CTRL, &control) == 0 ? Int(control.value) : Int(query.default_value)
            out.append(CameraControlSetting(name: name, minimum: Int(query.minimum), maximum: Int(query.maximum),
                                            step: Int(query.step), defaultValue: Int(query.default_value), value: value))
        }
        return out
    }

    /// Sets a control by its config name now (`VIDIOC_S_CTRL`) and reads back what the driver
    /// took (`VIDIOC_G_CTRL`; a driver clamps a value out of range).
    @discardableResult
    public func setControl(_ name: String, to value: Int) throws(HardwareError) -> Int {
        guard let id = CameraControl.ids[name] else {
            throw .noSuchControl(name, operation: "VIDIOC_S_CTRL", device: self.name, known: CameraControl.ids.keys.sorted())
        }
        let (fd, sys) = try openDescriptor("VIDIOC_S_CTRL")
        var control = v4l2_control(id: id, value: Int32(clamping: value))
        try sys.check("VIDIOC_S_CTRL", device: self.name) { sys.ioctl(fd, scand_VIDIOC_S_CTRL, &control) }
        var taken = v4l2_control(id: id, value: control.value)
        return sys.ioctl(fd, scand_VIDIOC_G_CTRL, &taken) == 0 ? Int(taken.value) : Int(control.value)
    }

    private func openDescriptor(_ operation: String) throws(HardwareError) -> (Int32, Syscalls) {
        let (fd, sys) = state.withLock { ($0.fd, $0.sys) }
        guard fd >= 0 else { throw HardwareError(.notFound, operation: operation, device: name, hint: "the camera is not open") }
        return (fd, sys)
    }
}

extension V4L2Camera {
    /// `VIDIOC_S_PARM` on the open camera, while it streams. Drivers that take a new rate while
    /// streaming (vivid, several CSI bridges) change it from the next frames; uvcvideo answers
    /// EBUSY while streaming, and scand does not restart the stream for it (a restart costs
    /// 100–500 ms of `VIDIOC_STREAMON` at every wake): the error says so and the rate stays.
    public func setFrameRate(_ fps: Int) throws(HardwareError) -> Int {
        let want = fps > 0 ? fps : settings.fps
        let (fd, sys) = state.withLock { ($0.fd, $0.sys) }
        guard fd >= 0 else {
            throw HardwareError(.disconnected, operation: "VIDIOC_S_PARM", device: settings.device, errno: EBADF, hint: "the camera is not open")
        }
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try sys.check("VIDIOC_G_PARM", device: settings.device) { sys.ioctl(fd, scand_VIDIOC_G_PARM, &parm) }
        guard parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else {
            throw .noFrameRateControl(operation: "VIDIOC_G_PARM", device: settings.device)
        }
        parm.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(max(1, want)))
        try sys.check("VIDIOC_S_PARM", device: settings.device, hint: { $0 == EBUSY ? "the driver takes no frame rate change while streaming" : nil }) {
            sys.ioctl(fd, scand_VIDIOC_S_PARM, &parm)
        }
        let t = parm.parm.capture.timeperframe
        return t.numerator > 0 ? Int((Double(t.denominator) / Double(t.numerator)).rounded()) : want
    }
}

extension V4L2Camera {
    /// `camera.focus` through the focus controls (`VIDIOC_QUERYCTRL`, `VIDIOC_S_CTRL`):
    /// `.continuous` sets `V4L2_CID_FOCUS_AUTO` to 1; `.onRequest` sets it to 0 where the camera
    /// has `V4L2_CID_AUTO_FOCUS_START` (one cycle per `startAutofocus`), and on a camera with
    /// only `V4L2_CID_FOCUS_AUTO` (most USB webcams) emulates it: continuous autofocus, which a
    /// cycle restarts; `.manual` sets `V4L2_CID_FOCUS_AUTO` to 0 and `V4L2_CID_FOCUS_ABSOLUTE`
    /// to the dioptres mapped onto its range (V4L2 gives it no unit: 0 dioptres at its minimum,
    /// `Self.nearestDioptres` and nearer at its maximum). A camera without the controls throws
    /// `noFocusControl`.
    public func setFocus(_ mode: FocusMode) throws(HardwareError) {
        let (fd, sys) = try openDescriptor("VIDIOC_S_CTRL")
        let auto = query(fd, sys, scand_V4L2_CID_FOCUS_AUTO) != nil
        var cycle: FocusCycle?
        switch mode {
        case .continuous:
            guard auto else { throw .noFocusControl(mode, operation: "V4L2_CID_FOCUS_AUTO", device: name, errno: EINVAL) }
            try set(fd, sys, scand_V4L2_CID_FOCUS_AUTO, "V4L2_CID_FOCUS_AUTO", 1)
        case .onRequest:
            if query(fd, sys, scand_V4L2_CID_AUTO_FOCUS_START) != nil {
                if auto { try set(fd, sys, scand_V4L2_CID_FOCUS_AUTO, "V4L2_CID_FOCUS_AUTO", 0) }
                cycle = .oneShot
            } else if auto {
                try set(fd, sys, scand_V4L2_CID_FOCUS_AUTO, "V4L2_CID_FOCUS_AUTO", 1)
                cycle = .restartContinuous
            } else {
                throw .noFocusControl(mode, operation: "V4L2_CID_AUTO_FOCUS_START", device: name, errno: EINVAL)
            }
        case .manual(let dioptres):
            guard let range = query(fd, sys, scand_V4L2_CID_FOCUS_ABSOLUTE) else {
                throw .noFocusControl(mode, operation: "V4L2_CID_FOCUS_ABSOLUTE", device: name, errno: EINVAL)
            }
            if auto { try set(fd, sys, scand_V4L2_CID_FOCUS_AUTO, "V4L2_CID_FOCUS_AUTO", 0) }
            try set(fd, sys, scand_V4L2_CID_FOCUS_ABSOLUTE, "V4L2_CID_FOCUS_ABSOLUTE", Self.absoluteFocus(dioptres, range: range))
        }
        state.withLock { $0.cycle = cycle }
    }

    /// One autofocus cycle now: `V4L2_CID_AUTO_FOCUS_START`, or (emulated on a camera with only
    /// `V4L2_CID_FOCUS_AUTO`) continuous autofocus turned off and on, which makes it search again.
    public func startAutofocus() throws(HardwareError) {
        let (fd, sys) = try openDescriptor("VIDIOC_S_CTRL")
        switch state.withLock({ $0.cycle }) {
        case .oneShot?:
            try set(fd, sys, scand_V4L2_CID_AUTO_FOCUS_START, "V4L2_CID_AUTO_FOCUS_START", 1)
        case .restartContinuous?:
            try set(fd, sys, scand_V4L2_CID_FOCUS_AUTO, "V4L2_CID_FOCUS_AUTO", 0)
            try set(fd, sys, scand_V4L2_CID_FOCUS_AUTO, "V4L2_CID_FOCUS_AUTO", 1)
        case nil:
            throw .noFocusControl(.onRequest, operation: "V4L2_CID_AUTO_FOCUS_START", device: name)
        }
    }

    /// The dioptres at which `fixed` puts `V4L2_CID_FOCUS_ABSOLUTE` at its maximum (10 cm).
    static let nearestDioptres = 10.0

    /// `dioptres` on a `V4L2_CID_FOCUS_ABSOLUTE` range: 0 (infinity) at its minimum, larger values
    /// nearer (the V4L2 convention), `nearestDioptres` at its maximum, on its step.
    static func absoluteFocus(_ dioptres: Double, range: (minimum: Int32, maximum: Int32, step: Int32)) -> Int32 {
        let span = Double(range.maximum) - Double(range.minimum)
        let fraction = min(max(dioptres / nearestDioptres, 0), 1)
        let step = Double(max(1, range.step))
        let offset = ((span * fraction) / step).rounded() * step
        return Int32(clamping: Int(Double(range.minimum) + min(offset, span)))
    }

    /// The control's range when the camera offers it enabled, nil when not (`VIDIOC_QUERYCTRL`: EINVAL).
    private func query(_ fd: Int32, _ sys: Syscalls, _ id: UInt32) -> (minimum: Int32, maximum: Int32, step: Int32)? {
        var q = v4l2_queryctrl()
        q.id = id
        guard sys.ioctl(fd, scand_VIDIOC_QUERYCTRL, &q) == 0, q.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { return nil }
        return (q.minimum, q.maximum, q.step)
    }

    private func set(_ fd: Int32, _ sys: Syscalls, _ id: UInt32, _ control: String, _ value: Int32) throws(HardwareError) {
        var c = v4l2_control(id: id, value: value)
        try sys.check("VIDIOC_S_CTRL \(control)", device: name) { sys.ioctl(fd, scand_VIDIOC_S_CTRL, &c) }
    }
}
