// The hardware abstraction layer: what the kiosk needs from a board, in logical terms.
// Drivers (LinuxHardware, SimulatedHardware) implement these; nothing above them knows about
// volts, pin numbers or file descriptors.

/// The logical level of a GPIO line. Active-low wiring is applied by the driver when the line is
/// requested, so `.active` always means "on" / "pressed".
public enum LineValue: String, Sendable, Equatable {
    case active, inactive

    public init(_ on: Bool) { self = on ? .active : .inactive }
    public var isActive: Bool { self == .active }
}

/// An output line: the torch LED, the buzzer, the status LED. Requested with an initial value
/// (inactive) when the driver makes it, released when the value is deinitialized.
public protocol OutputLine: AnyObject, Sendable {
    /// The line's name for logs, e.g. `torch (gpiochip0:27)`.
    var name: String { get }
    /// Drives the line to `value`.
    func set(_ value: LineValue) throws(HardwareError)
    /// Sets the pitch of what sounds from now on (100...20000 Hz), or with nil the pitch the
    /// line was set up with (`buzzer.frequency_hz`). A line that only turns on and off (an LED,
    /// an active buzzer on a GPIO) has the one pitch it has: by default this does nothing.
    func setPitch(_ hz: Int?) throws(HardwareError)
}

extension OutputLine {
    /// A plain on/off line sounds (or shines) as it is: the pitch is left alone.
    public func setPitch(_ hz: Int?) throws(HardwareError) {}
}

/// One debounced edge of the trigger button.
public struct ButtonEvent: Sendable, Equatable {
    public enum Edge: String, Sendable { case pressed, released }
    public var edge: Edge
    /// Kernel or source timestamp in nanoseconds (0 if the source has none).
    public var timestampNanos: UInt64
    public init(_ edge: Edge, timestampNanos: UInt64 = 0) {
        self.edge = edge
        self.timestampNanos = timestampNanos
    }
}

/// The trigger button. Debouncing happens in the driver with the period from the board config.
public protocol Button: AnyObject, Sendable {
    var name: String { get }
    /// Debounced press and release edges, in order. One consumer.
    func events() -> AsyncStream<ButtonEvent>
}

/// A camera: opened once, then started and stopped per scan session.
///
/// `nextFrame()` returns the newest frame; frames that arrived while the caller was busy are
/// dropped and counted, never queued.
public protocol FrameSource: AnyObject, Sendable {
    /// The device's name for logs, e.g. `/dev/video0`.
    var name: String { get }
    /// Acquires the device. Throws `HardwareError` (`.notFound`, `.busy`, `.permissionDenied`, ...).
    func open() throws(HardwareError)
    /// Releases the device; safe to call when it is not open.
    func close()
    /// Whether the open device is still there, cheaply (no streaming, no frame): throws
    /// `.disconnected` when it went away. Called twice a second while the kiosk is idle, so
    /// that an unplugged camera is shown before someone presses.
    func check() throws(HardwareError)
    /// Starts streaming.
    func startCapture() throws(HardwareError)
    /// Stops streaming; safe to call when not streaming.
    func stopCapture()
    /// Waits for the next frame. Throws `HardwareError` (`.disconnected` when the device went
    /// away) or `CancellationError` when the waiting task is cancelled (or the stream stopped):
    /// the one HAL requirement without typed throws, since it throws both.
    func nextFrame() async throws -> GrayFrame
    /// Frames dropped because the consumer was busy, since the device was opened.
    var droppedFrames: Int { get }
    /// What the open device delivers, for the log (format, size, conversion).
    var summary: String { get }
    /// Asks for `fps` frames per second while the camera is open, or with 0 for the rate it was
    /// opened with, and returns the rate in effect (the driver may round it; one that takes no
    /// rate change while streaming may restart its stream to make it). Presentation mode
    /// watches for a code at a lower rate (`scan.presentation.watch_fps`) and scans at the full
    /// one. Throws when the change failed or the camera has no rate control (the default); the
    /// camera then keeps the rate it had, which is always a rate the kiosk works at.
    func setFrameRate(_ fps: Int) throws(HardwareError) -> Int
    /// The controls the open camera offers, among those scand knows by name (the setup page's
    /// sliders). By default none: a camera without controls has nothing to adjust.
    func controlSettings() throws(HardwareError) -> [CameraControlSetting]
    /// Sets control `name` to `value` now (not saved: the config keeps what the camera opens
    /// with) and returns the value the camera took, read back (a driver clamps a value out of
    /// its range: 999 may become 127). Throws when the camera offers no control `name` (by
    /// default it offers none).
    @discardableResult
    func setControl(_ name: String, to value: Int) throws(HardwareError) -> Int
    /// Puts the open camera's lens in `mode` (libcamera's `AfMode` and `LensPosition`, V4L2's
    /// `V4L2_CID_FOCUS_AUTO` and `V4L2_CID_FOCUS_ABSOLUTE`). Throws when the camera cannot
    /// (by default it cannot: a fixed-focus camera keeps its lens where it is).
    func setFocus(_ mode: FocusMode) throws(HardwareError)
    /// Starts one autofocus cycle now, in `FocusMode.onRequest` (libcamera's
    /// `AfTrigger = Start`, V4L2's `V4L2_CID_AUTO_FOCUS_START`); the lens then stays where the
    /// cycle left it. Throws when the camera has no autofocus (the default).
    func startAutofocus() throws(HardwareError)
}

/// Where the lens focuses, in logical terms.
public enum FocusMode: Sendable, Equatable, CustomStringConvertible {
    /// Autofocus that moves the lens only when asked (`startAutofocus`), e.g. once per press.
    case onRequest
    /// Autofocus that follows the scene all the time.
    case continuous
    /// The lens held at `dioptres` (1 / distance in metres: 0 is infinity, 10 is 10 cm).
    case manual(dioptres: Double)

    public var description: String {
        switch self {
        case .onRequest: return "autofocus on request"
        case .continuous: return "continuous autofocus"
        case .manual(let d): return "lens at \(d) dioptres"
        }
    }
}

extension FrameSource {
    /// A camera without rate control keeps its own rate: declared, so that the kiosk watches at
    /// the full rate and says so once.
    public func setFrameRate(_ fps: Int) throws(HardwareError) -> Int {
        throw .noFrameRateControl(operation: "setFrameRate", device: name)
    }

    /// A camera without controls offers none.
    public func controlSettings() throws(HardwareError) -> [CameraControlSetting] { [] }

    /// A camera without controls has no control `name`.
    @discardableResult
    public func setControl(_ name: String, to value: Int) throws(HardwareError) -> Int {
        throw .noSuchControl(name, operation: "setControl", device: self.name, known: [])
    }

    /// A fixed-focus camera keeps its lens where it is.
    public func setFocus(_ mode: FocusMode) throws(HardwareError) {
        throw .noFocusControl(mode, operation: "setFocus", device: name)
    }

    /// A camera without autofocus has no cycle to start.
    public func startAutofocus() throws(HardwareError) {
        throw .noFocusControl(.onRequest, operation: "startAutofocus", device: name)
    }
}

/// A camera control a person may adjust while the camera runs (the setup page's sliders), by the
/// name the config uses under `[camera.controls]`.
public struct CameraControlSetting: Sendable, Equatable {
    public var name: String
    public var minimum: Int
    public var maximum: Int
    public var step: Int
    public var defaultValue: Int
    /// The value now.
    public var value: Int

    public init(name: String, minimum: Int, maximum: Int, step: Int = 1, defaultValue: Int, value: Int) {
        self.name = name
        self.minimum = minimum
        self.maximum = maximum
        self.step = max(1, step)
        self.defaultValue = defaultValue
        self.value = value
    }
}

/// A serial port to a host.
public protocol SerialPort: AnyObject, Sendable {
    var name: String { get }
    /// Writes all of `bytes` within the driver's bounded time, or throws (`.timedOut`,
    /// `.disconnected`, ...). Never blocks the caller indefinitely.
    func write(_ bytes: [UInt8]) throws(HardwareError)
    /// Bytes the host sends, in chunks as they arrive. One consumer; the stream ends when the
    /// port is closed or fails.
    func received() -> AsyncStream<[UInt8]>
}

/// How an announcement ended.
public enum SpeechEnd: Sendable, Equatable {
    /// Said to the end.
    case said
    /// Cut short by `cutShort()` or by the next `say`.
    case cutShort
    /// The engine or the audio device failed; the reason is for the log.
    case failed(String)
}

/// A voice for announcements (people who cannot see the LED). One announcement at a time:
/// `say` cuts the one being said short. Synthesis and playback never run on the caller's thread.
public protocol Speaker: AnyObject, Sendable {
    /// The voice and where it speaks, for logs, e.g. `espeak-ng en (ALSA default)`.
    var name: String { get }
    /// Starts saying `text`. `ended` is called exactly once, on some other thread, when it has
    /// been said, was cut short or failed. `started` is called when the first audio sample
    /// goes out (to measure the delay from a read to the voice).
    func say(_ text: String, started: @escaping @Sendable () -> Void, ended: @escaping @Sendable (SpeechEnd) -> Void)
    /// Cuts the current announcement short (nothing when none is said).
    func cutShort()
}
