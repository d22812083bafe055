import ImageLoading
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A camera that plays image files at a frame rate, looping, paced by an injected clock; it
/// can be unplugged, plugged back, made busy or forbidden.
public final class SimulatedCamera<C: Clock>: FrameSource, Sendable where C.Duration == Duration {
    /// What the simulated device does on `open()`.
    public enum Condition: Sendable { case present, unplugged, busy, forbidden }

    public let name: String
    private let frames: [GrayFrame]
    private let repeatEach: Int
    private let period: Duration
    private let clock: C
    private let trace: Trace?
    private struct State {
        var condition = Condition.present
        var open = false
        var streaming = false
        var next = 0
        var nextDue: C.Instant?
        var dropped = 0
        var delivered = 0
        /// The due time of the frame the consumer sleeps for, if it does.
        var waitingFor: C.Instant?
        /// When streaming last stopped: the scene moves on while nobody looks.
        var stoppedAt: C.Instant?
        var observer: (@Sendable (Int, C.Instant) -> Void)?
        /// `brightness` and `contrast`, as the setup page adjusts them.
        var brightness = 0
        var contrast = 100
        /// Frames of the scene per frame delivered: above 1 while a lower rate is asked for.
        var stride = 1
        /// Rate changes answer EBUSY, as uvcvideo's do while streaming.
        var refusesRate = false
        /// Whether the lens moves (a camera module with autofocus, as the Pi's Camera Module 3).
        var hasAutofocus = true
        var focus: FocusMode?
        var autofocusCycles = 0
    }
    private let state = Locked(State())

    /// A camera playing `frames` at `fps`, each for `repeatEach` frames.
    /// `trace` records `camera open`, `camera start`, ... when given.
    public init(name: String = "simulated-camera", frames: [GrayFrame], fps: Int, repeatEach: Int = 1, clock: C, trace: Trace? = nil) {
        precondition(!frames.isEmpty, "a simulated camera needs at least one frame")
        self.name = name
        self.trace = trace
        self.frames = frames
        self.repeatEach = max(1, repeatEach)
        self.period = .nanoseconds(1_000_000_000 / max(fps, 1))
        self.clock = clock
    }

    /// A camera playing image files; a folder stands for its PNG, JPEG and PGM files in name order.
    public convenience init(name: String = "simulated-camera", images: [String], fps: Int, repeatEach: Int = 1, clock: C,
                            trace: Trace? = nil) throws(HardwareError) {
        var frames: [GrayFrame] = []
        // Paths come from the config: shown escaped (a control character never reaches the log).
        for path in Self.expand(images) {
            do { frames.append(try ImageFile.load(path)) } catch {
                let shown = PayloadText.escaped(path)
                throw HardwareError(.invalidFormat, operation: "load image", device: shown,
                                    summary: "image \(shown) cannot be played: \(PayloadText.escaped(error.reason))")
            }
        }
        guard !frames.isEmpty else {
            let shown = images.map(PayloadText.escaped).joined(separator: ", ")
            throw HardwareError(.notFound, operation: "load images", device: shown, summary: "no PNG, JPEG or PGM files in \(shown)")
        }
        self.init(name: name, frames: frames, fps: fps, repeatEach: repeatEach, clock: clock, trace: trace)
    }

    /// Image files: each path, or a folder's PNG, JPEG and PGM files in name order.
    public static func expand(_ paths: [String]) -> [String] {
        var out: [String] = []
        for path in paths {
            guard let dir = opendir(path) else { out.append(path); continue }
            defer { closedir(dir) }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                let lower = name.lowercased()
                if [".png", ".jpg", ".jpeg", ".pgm"].contains(where: { lower.hasSuffix($0) }) { names.append(name) }
            }
            out += names.sorted().map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
        }
        return out
    }

    // MARK: Injected conditions

    /// Unplugs the camera: a waiting `nextFrame()` fails with `.disconnected`, `open()` with `.notFound`.
    public func unplug() { state.withLock { $0.condition = .unplugged; $0.open = false; $0.streaming = false } }
    /// Plugs it back in.
    public func plugIn() { state.withLock { $0.condition = .present } }
    /// Another program holds the device: `open()` fails with `.busy`.
    public func makeBusy() { state.withLock { $0.condition = .busy; $0.open = false; $0.streaming = false } }
    /// The service user may not open it: `open()` fails with `.permissionDenied`.
    public func forbid() { state.withLock { $0.condition = .forbidden; $0.open = false } }
    /// A fixed-focus camera from now on: `setFocus` and `startAutofocus` fail as a driver's do
    /// for a camera without the controls.
    public func removeAutofocus() { state.withLock { $0.hasAutofocus = false; $0.focus = nil } }
    /// The lens mode the kiosk set, nil before it set one (or for a fixed-focus camera).
    public var focusMode: FocusMode? { state.withLock { $0.focus } }
    /// Autofocus cycles started since the camera was made.
    public var autofocusCycles: Int { state.withLock { $0.autofocusCycles } }
    /// From now on rate changes while streaming fail with EBUSY (as on uvcvideo).
    public func refuseRateChanges() { state.withLock { $0.refusesRate = true } }
    public var isStreaming: Bool { state.withLock { $0.streaming } }
    /// Called for every frame handed out with its image's index and the time that image came into
    /// view (benchmarks).
    public func observe(_ observer: @escaping @Sendable (Int, C.Instant) -> Void) { state.withLock { $0.observer = observer } }
    public var framesDelivered: Int { state.withLock { $0.delivered } }
    /// When the next frame is due, while streaming.
    public var nextFrameDue: C.Instant? { state.withLock { $0.streaming ? $0.nextDue : nil } }
    /// The time between frames.
    public var framePeriod: Duration { period }

    // MARK: FrameSource

    public func open() throws(HardwareError) {
        trace?.record("camera open")
        let condition = state.withLock { s -> Condition in
            if s.condition == .present { s.open = true }
            return s.condition
        }
        switch condition {
        case .present: return
        case .unplugged: throw HardwareError(.notFound, operation: "open", device: name, errno: ENOENT)
        case .busy: throw HardwareError(.busy, operation: "open", device: name, errno: EBUSY)
        case .forbidden: throw HardwareError(.permissionDenied, operation: "open", device: name, errno: EACCES,
                                             hint: "add the service user to group video")
        }
    }

    public func close() {
        state.withLock { $0.open = false; $0.streaming = false; $0.stride = 1 } // opening sets the configured rate again
        trace?.record("camera close")
    }

    public func check() throws(HardwareError) {
        let condition = state.withLock { $0.condition }
        switch condition {
        case .unplugged: throw HardwareError(.disconnected, operation: "VIDIOC_QUERYCAP", device: name, errno: ENODEV)
        case .present, .busy, .forbidden: return // a held device is still there
        }
    }

    public func startCapture() throws(HardwareError) {
        trace?.record("camera start")
        let condition = state.withLock { s -> Condition? in
            guard s.open, s.condition == .present else { return s.condition == .present ? .unplugged : s.condition }
            s.streaming = true
            let now = clock.now
            if let stoppedAt = s.stoppedAt {
                let passed = Int(stoppedAt.duration(to: now) / period)
                s.next = (s.next + max(0, passed)) % (frames.count * repeatEach)
            }
            s.nextDue = now.advanced(by: period)
            return nil
        }
        switch condition {
        case nil: return
        case .busy?: throw HardwareError(.busy, operation: "VIDIOC_STREAMON", device: name, errno: EBUSY)
        default: throw HardwareError(.disconnected, operation: "VIDIOC_STREAMON", device: name, errno: ENODEV)
        }
    }

    public func stopCapture() {
        trace?.record("camera stop")
        let now = clock.now
        state.withLock { s in
            if s.streaming { s.stoppedAt = now }
            s.streaming = false
        }
    }

    public var droppedFrames: Int { state.withLock { $0.dropped } }

    /// `3 image(s), gray 320x240 to 1920x1080 at 15 fps, 8 frames each` (one size when they agree).
    public var summary: String {
        let areas = frames.map { $0.width * $0.height }
        let small = frames[areas.firstIndex(of: areas.min()!)!], large = frames[areas.firstIndex(of: areas.max()!)!]
        let sizes = small.width == large.width && small.height == large.height ? "\(small.width)x\(small.height)"
            : "\(small.width)x\(small.height) to \(large.width)x\(large.height)"
        return "\(frames.count) image(s), gray \(sizes) at \(1_000_000_000 / max(1, Int(period / .nanoseconds(1)))) fps"
            + (repeatEach > 1 ? ", \(repeatEach) frames each" : "")
    }

    /// Whether the camera is streaming and its consumer is blocked waiting for a frame that is
    /// not due yet: with every delivered frame consumed, nothing moves until the clock does.
    /// (A consumer woken by the clock but not yet run is not waiting.)
    public var isWaitingForFrame: Bool {
        let now = clock.now
        return state.withLock { s in s.streaming && s.waitingFor.map { now < $0 } == true }
    }

    public func nextFrame() async throws -> GrayFrame {
        guard let due = state.withLock({ $0.streaming ? $0.nextDue : nil }) else {
            throw HardwareError(.disconnected, operation: "VIDIOC_DQBUF", device: name, errno: ENODEV)
        }
        if clock.now < due {
            state.withLock { $0.waitingFor = due }
            defer { state.withLock { $0.waitingFor = nil } }
            try await clock.sleep(until: due, tolerance: nil)
        }
        return try takeFrame()
    }

    /// The frame due now, without waiting (the newest: frames whose time passed are dropped).
    /// Throws `.disconnected` when not streaming. For drivers of virtual time.
    public func takeFrame() throws(HardwareError) -> GrayFrame {
        try state.withLock { s throws(HardwareError) in
            guard s.streaming, s.condition == .present else {
                throw HardwareError(.disconnected, operation: "VIDIOC_DQBUF", device: name, errno: ENODEV)
            }
            // Newest frame wins: periods that passed while the consumer was busy are dropped.
            var due = s.nextDue ?? clock.now
            let now = clock.now
            var skipped = 0
            let step = period * s.stride
            while due.advanced(by: step) <= now { due = due.advanced(by: step); skipped += 1 }
            s.dropped += skipped
            let total = frames.count * repeatEach
            s.next = (s.next + skipped * s.stride) % total
            var frame = frames[s.next / repeatEach]
            // When this image came into view: its first frame's due time, delivered or not (a
            // camera at a lower rate or a busy consumer may have skipped it).
            s.observer?(s.next / repeatEach, due.advanced(by: period * -(s.next % repeatEach)))
            s.next = (s.next + s.stride) % total
            s.nextDue = due.advanced(by: step)
            s.delivered += 1
            if s.brightness != 0 || s.contrast != 100 { frame = Self.adjusted(frame, brightness: s.brightness, contrast: s.contrast) }
            frame.timestampNanos = UInt64(s.delivered)
            return frame
        }
    }

    /// `frame` with its levels moved by `brightness` and scaled by `contrast` percent about mid-gray.
    static func adjusted(_ frame: GrayFrame, brightness: Int, contrast: Int) -> GrayFrame {
        var table = [UInt8](repeating: 0, count: 256)
        for v in 0..<256 { table[v] = UInt8(clamping: (v - 128) * contrast / 100 + 128 + brightness) }
        var pixels = frame.packedPixels()
        for i in pixels.indices { pixels[i] = table[Int(pixels[i])] }
        return GrayFrame(width: frame.width, height: frame.height, pixels: pixels, timestampNanos: frame.timestampNanos)
    }
}

extension SimulatedCamera {
    /// `brightness` (-128...127, added to every level) and `contrast` (0...200 %), on an open camera.
    public func controlSettings() throws(HardwareError) -> [CameraControlSetting] {
        let (open, brightness, contrast) = state.withLock { ($0.open, $0.brightness, $0.contrast) }
        guard open else { throw HardwareError(.notFound, operation: "VIDIOC_QUERYCTRL", device: name, hint: "the camera is not open") }
        return [CameraControlSetting(name: "brightness", minimum: -128, maximum: 127, defaultValue: 0, value: brightness),
                CameraControlSetting(name: "contrast", minimum: 0, maximum: 200, defaultValue: 100, value: contrast)]
    }

    /// Sets `brightness` or `contrast`, clamped to its range as a driver does; returns the value taken.
    @discardableResult
    public func setControl(_ name: String, to value: Int) throws(HardwareError) -> Int {
        let taken = try state.withLock { s throws(HardwareError) -> Int? in
            guard s.open else { throw HardwareError(.notFound, operation: "VIDIOC_S_CTRL", device: self.name, hint: "the camera is not open") }
            switch name {
            case "brightness": s.brightness = min(127, max(-128, value)); return s.brightness
            case "contrast": s.contrast = min(200, max(0, value)); return s.contrast
            default: return nil
            }
        }
        guard let taken else { throw .noSuchControl(name, operation: "VIDIOC_S_CTRL", device: self.name, known: ["brightness", "contrast"]) }
        return taken
    }
}

extension SimulatedCamera {
    /// Delivers every n-th frame of the scene, n = the configured rate / `fps` (at least 1): the
    /// scene keeps its own time. A change takes effect from the next frame, as on a driver that
    /// takes a rate while streaming (vivid does).
    public func setFrameRate(_ fps: Int) throws(HardwareError) -> Int {
        let base = max(1, Int(Duration.seconds(1) / period))
        let stride = fps <= 0 ? 1 : max(1, Int((Double(base) / Double(fps)).rounded()))
        let now = clock.now
        try state.withLock { s throws(HardwareError) in
            guard s.open else { throw HardwareError(.notFound, operation: "VIDIOC_S_PARM", device: name, hint: "the camera is not open") }
            if s.refusesRate && s.streaming {
                throw HardwareError(.busy, operation: "VIDIOC_S_PARM", device: name, errno: EBUSY, hint: "the driver takes no frame rate change while streaming")
            }
            if stride < s.stride, let due = s.nextDue { s.nextDue = min(due, now.advanced(by: period)) }
            s.stride = stride
        }
        trace?.record("camera rate \(base / stride) fps")
        return base / stride
    }
}

extension SimulatedCamera {
    /// Takes any focus mode while open (the simulated lens has autofocus and a lens position),
    /// unless `removeAutofocus()` made it a fixed-focus camera.
    public func setFocus(_ mode: FocusMode) throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            guard s.open else { throw HardwareError(.notFound, operation: "setFocus", device: name, hint: "the camera is not open") }
            guard s.hasAutofocus else { throw .noFocusControl(mode, operation: "setFocus", device: name) }
            s.focus = mode
        }
        trace?.record("lens \(Self.traced(mode))")
    }

    /// Counts one autofocus cycle, in `FocusMode.onRequest`.
    public func startAutofocus() throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            guard s.open else { throw HardwareError(.notFound, operation: "startAutofocus", device: name, hint: "the camera is not open") }
            guard s.hasAutofocus, s.focus == .onRequest else {
                throw .noFocusControl(.onRequest, operation: "startAutofocus", device: name)
            }
            s.autofocusCycles += 1
        }
        trace?.record("lens autofocus cycle")
    }

    /// `on-request`, `continuous`, `fixed 2.5`: the lens's mode in the trace.
    static func traced(_ mode: FocusMode) -> String {
        switch mode {
        case .onRequest: return "on-request"
        case .continuous: return "continuous"
        case .manual(let d): return "fixed \(d)"
        }
    }
}
