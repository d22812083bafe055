/// The camera's state, in the seed's terms mapped onto Linux.
public enum CameraState: Equatable, Sendable, CustomStringConvertible {
    /// Not known yet (scand is starting).
    case starting
    /// Open and ready to stream.
    case available
    /// No device, or a runtime error; the reason is for the log.
    case unavailable(reason: String)
    /// Another program holds the device (EBUSY).
    case inUse
    /// The service user may not open the device (EACCES): add it to group `video`.
    case permissionDenied
    /// The device went away while in use (unplugged).
    case disconnected

    public var isAvailable: Bool { self == .available }

    /// A short machine-friendly name: `available`, `unavailable`, `in-use`, ...
    public var name: String {
        switch self {
        case .starting: return "starting"
        case .available: return "available"
        case .unavailable: return "unavailable"
        case .inUse: return "in-use"
        case .permissionDenied: return "permission-denied"
        case .disconnected: return "disconnected"
        }
    }

    public var description: String {
        if case .unavailable(let reason) = self { return "unavailable (\(reason))" }
        return name
    }
}

/// Whether the torch lights during a session.
public enum TorchMode: String, Sendable, CaseIterable {
    case on, off
    /// Lit when the viewport is dark (its brightness over the last frames), then kept on for
    /// the rest of the session.
    case auto
}

/// How scanning starts and ends (boxed scanners' trigger modes).
public enum TriggerMode: String, Sendable, CaseIterable {
    /// A press starts a session; the first read or the timeout ends it; a press cancels.
    case pulse
    /// Scans while the button is held; a release without a read ends it (the no-read pattern).
    case level
    /// No press: a change in the scene wakes scanning; a still scene goes back to watching.
    case presentation
    /// Always scanning; every new code reported, repeats held back by the same-symbol time.
    case continuous
}

/// How the camera focuses (`camera.focus`), for cameras with a movable lens; a fixed-focus
/// camera ignores it.
public enum FocusSetting: String, Sendable, CaseIterable {
    /// One autofocus cycle per press, started right after the torch is lit (the seed's
    /// tap-to-focus). Modes without a press (presentation, continuous) keep continuous autofocus.
    case autoOnPress = "auto-on-press"
    /// Autofocus follows the scene all the time.
    case continuous
    /// The lens is held at `KioskSettings.lensPosition`.
    case fixed
}

/// The torch as the kiosk knows it: always known, always reported.
public enum TorchState: String, Sendable, Equatable {
    /// No torch line is configured: it is never driven.
    case unavailable
    case off
    case on
    /// The last write to the line failed: its level is not known (the next session tries again).
    case failed
}

/// What happens to a result from a symbology that can hold letters (QR, Code 128, ...).
public enum AlphanumericDelivery: String, Sendable, CaseIterable {
    /// Deliver at once, like numeric-only codes.
    case immediate
    /// Hold it until a confirming press (the seed's review-then-Go); a timeout discards it.
    case confirm
}

/// What a long press does.
public enum LongPressAction: String, Sendable, CaseIterable {
    /// Nothing beyond the short press.
    case none
    /// Toggles the torch for the current session (when a torch is configured).
    case torch = "toggle-torch"
}

/// The kiosk's behaviour settings, from the config.
public struct KioskSettings: Equatable, Sendable {
    public var torchMode: TorchMode = .on
    public var trigger: TriggerMode = .pulse
    /// Presentation mode: back to watching after this long without a change or a read.
    public var presentationIdle: Duration = .seconds(3)
    /// Presentation mode: the camera's frame rate while it only watches for a change (0: the
    /// rate it was opened with). Applied where the camera takes a rate change while streaming.
    public var watchFPS = 0
    /// Distinct codes one read reports (the nearest the viewport's centre first).
    public var multiple = 1
    /// Frames not looked at after the torch comes on (they may carry the old exposure).
    public var framesSkippedAfterTorch = 0
    /// Whether a torch line is configured at all.
    public var hasTorch: Bool = true
    /// How the camera focuses (`camera.focus`).
    public var focus = FocusSetting.autoOnPress
    /// Where `fixed` holds the lens, in dioptres (`camera.lens_position`; 0: infinity).
    public var lensPosition = 0.0
    /// `camera.controls` sets `focus_auto` or `focus_absolute`: the lens is left to them.
    public var lensByControls = false
    public var sessionTimeout: Duration = .seconds(10)
    public var alphanumeric: AlphanumericDelivery = .immediate
    public var confirmTimeout: Duration = .seconds(10)
    /// How long the button must be held for a long press.
    public var longPressAfter: Duration = .milliseconds(800)
    public var longPressAction: LongPressAction = .none
    /// Consecutive frames with the same code before a read counts, per symbology (missing: 1).
    public var agreeingFrames: [Symbology: Int] = [:]
    /// The same code again within this time is held back (no feedback, count or sequence
    /// number) within one session; a press starts afresh.
    public var sameSymbolTimeout: Duration = .zero
    /// Spoken announcements (`[feedback.speech]`); nil: off.
    public var speech: SpeechBehaviour?
    /// Which codes are results (`scan.accept`, `scan.accept_pattern`); by default all.
    public var accept = PayloadFilter()

    public init() {}
}

/// A result the kiosk delivers to its outputs.
public struct ScanResult: Equatable, Sendable {
    /// 1, 2, 3, ... for the life of the process.
    public var sequence: Int
    /// The scan session it came from.
    public var session: Int
    public var symbol: Symbol

    public init(sequence: Int, session: Int, symbol: Symbol) {
        self.sequence = sequence
        self.session = session
        self.symbol = symbol
    }
}

/// One-shot feedback on the buzzer and status LED.
public enum Feedback: String, Sendable, Equatable, CaseIterable {
    /// A good read: a short beep and the LED flash (the seed's flash animation).
    case goodRead = "good-read"
    /// The session ended without a code.
    case noRead = "no-read"
    /// A press that cannot be served (camera unavailable) or a session broken by the camera.
    case error
    /// The session was cancelled by a press.
    case cancelled
    /// A held result was confirmed and delivered.
    case confirmed
    /// A code was read that `scan.accept` or `scan.accept_pattern` refuses; the session goes on.
    case rejected
}

/// The status LED's steady indication: what the kiosk is doing or what is wrong.
public enum StatusIndication: String, Sendable, Equatable, CaseIterable {
    case starting, ready, scanning
    case awaitingConfirmation = "awaiting-confirmation"
    case cameraUnavailable = "camera-unavailable"
    case cameraInUse = "camera-in-use"
    case cameraPermissionDenied = "camera-permission-denied"
    case cameraDisconnected = "camera-disconnected"
    /// The outputs take no new result (`outbox.policy = reject-new`, an outbox full): presses
    /// are refused until kept results are delivered.
    case outputsFull = "outputs-full"

    /// The indication for a camera that is not available, or nil when it is.
    public init?(camera: CameraState) {
        switch camera {
        case .available: return nil
        case .starting: self = .starting
        case .unavailable: self = .cameraUnavailable
        case .inUse: self = .cameraInUse
        case .permissionDenied: self = .cameraPermissionDenied
        case .disconnected: self = .cameraDisconnected
        }
    }
}

/// The seed's metrics, plus what a kiosk operator needs.
public struct KioskMetrics: Equatable, Sendable {
    /// Button presses (and host triggers).
    public var presses = 0
    /// Good reads delivered.
    public var goodReads = 0
    /// Sessions that ended without a code: timed out or cancelled.
    public var closedWithoutScan = 0
    /// Presses refused or sessions broken because the camera was unavailable or the outputs
    /// were full.
    public var errors = 0
    /// Times the torch was switched on.
    public var torchOn = 0
    /// Held results discarded because no confirming press came.
    public var confirmationsExpired = 0
    /// Reads of the same code within the same-symbol time, held back.
    public var repeatsHeldBack = 0
    /// Times the automatic torch mode lit the torch (apart from `torchOn`).
    public var torchAutoOn = 0
    /// Codes read but refused by `scan.accept` / `scan.accept_pattern` (not results).
    public var rejected = 0
    /// Presses by where they came from (the browser seed's count per entry point); a
    /// presentation wake counts as a press from `presentation`.
    public var pressesBySource: [PressSource: Int] = [:]
    public init() {}
}

/// Where a press (a session's start or stop) came from.
public enum PressSource: String, Sendable, CaseIterable {
    /// The button line.
    case button
    /// A `TRIGGER` on the serial port.
    case host
    /// A `TRIGGER` from the setup page or the control socket.
    case web
    /// A `TRIGGER` over MQTT.
    case mqtt
    /// Presentation mode woken by a change in the scene.
    case presentation
}

public enum LogLevel: String, Sendable, CaseIterable { case debug, info, notice, warning, error }
