/// Keeps the camera open: opens it at start, watches it while it is open, and after any failure
/// closes it and tries again with backoff (0.5 s, 1 s, 2 s, then every 4 s). Pure: results of
/// the hardware calls come back as inputs, time only as timers firing.
public struct CameraSupervisor: Sendable {
    public enum Input: Equatable, Sendable {
        case start
        /// `open()` succeeded.
        case opened
        /// `open()` failed: the camera is in this state.
        case openFailed(CameraState)
        /// Streaming, a frame or the presence check of the open camera failed.
        case failed(CameraState)
        case timerFired(Timer)
        case stop
    }

    public enum Timer: String, Sendable, Hashable, CaseIterable {
        /// The next open attempt.
        case retry
        /// The next presence check of an open camera.
        case check
    }

    public enum Effect: Equatable, Sendable {
        case open
        case close
        /// Asks the open camera whether it is still there (cheap: no streaming).
        case check
        case startTimer(Timer, after: Duration)
        case cancelTimer(Timer)
        /// The camera's state changed (said once per change).
        case changed(CameraState)
    }

    public static let backoff: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)]

    public private(set) var state: CameraState = .starting
    /// Times the camera came back after being lost.
    public private(set) var reconnects = 0
    /// How often an open camera is checked (camera loss while idle is seen within this).
    public let checkEvery: Duration
    private var failures = 0
    private var stopped = false

    public init(checkEvery: Duration = .milliseconds(500)) { self.checkEvery = checkEvery }

    public mutating func handle(_ input: Input) -> [Effect] {
        if stopped { return [] }
        switch input {
        case .start:
            return [.open]
        case .opened:
            if failures > 0 { reconnects += 1 }
            failures = 0
            return change(to: .available) + [.cancelTimer(.retry), .startTimer(.check, after: checkEvery)]
        case .failed(let new):
            // A failure reported after the camera was given up (a late frame error) changes nothing.
            guard state.isAvailable else { return [] }
            return giveUp(new)
        case .openFailed(let new):
            // An unplugged camera that is still not there stays "disconnected".
            if state == .disconnected, case .unavailable = new { return giveUp(.disconnected) }
            return giveUp(new)
        case .timerFired(.retry):
            return state.isAvailable ? [] : [.open]
        case .timerFired(.check):
            return state.isAvailable ? [.check, .startTimer(.check, after: checkEvery)] : []
        case .stop:
            stopped = true
            return [.cancelTimer(.retry), .cancelTimer(.check), .close]
        }
    }

    private mutating func giveUp(_ new: CameraState) -> [Effect] {
        let delay = Self.backoff[min(failures, Self.backoff.count - 1)]
        failures += 1
        return change(to: new) + [.cancelTimer(.check), .close, .startTimer(.retry, after: delay)]
    }

    private mutating func change(to new: CameraState) -> [Effect] {
        guard new != state else { return [] }
        state = new
        return [.changed(new)]
    }
}
