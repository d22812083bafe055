/// What the capture child does with the frames it takes.
public enum CaptureWork: Equatable, Sendable {
    /// No stream.
    case none
    /// A warm camera between sessions: frames are taken and dropped (buffers back to the driver).
    case drain
    /// Presentation mode between sessions: frames go to the change detector only.
    case watch
    /// Frames of `session` are decoded; `watching`: the change detector looks too (a
    /// presentation session goes on while the scene changes).
    case decode(session: Int, watching: Bool)
}

/// The camera's duty: whether it streams, at which rate, and what its frames are for. Pure:
/// it is told what the kiosk wants (a session's capture, watching, a warm camera, viewers) and
/// what the camera did (started, refused a rate, closed), and answers with what to do.
///
/// The stream follows a whole list of the kiosk's effects (`begin(_:)`, `end()`): a list that
/// stops capture and wants it again (a session that ends into watching, a wake from watching)
/// keeps the stream it has instead of stopping and starting it.
public struct CameraStream: Sendable, Equatable {
    public enum Action: Equatable, Sendable {
        /// Start streaming; answer with `started(_:)`.
        case start
        case stop
        /// Ask the camera for `fps` (0: its configured rate); answer with `rateSet(_:took:)`.
        case setRate(Int)
    }

    /// Keep the stream on between sessions (`camera.keep_streaming`).
    public let keepStreaming: Bool
    /// The session whose frames are wanted.
    public private(set) var capturing: Int?
    /// Whether the camera streams (a start succeeded and no stop since).
    public private(set) var streaming = false
    private var duty = CameraDuty.idle
    private var viewers = 0
    private var available = false
    /// The rate asked of the camera: 0 the configured one, else the watching rate.
    private var rate = 0
    /// The camera refused a rate change: not asked again until it is reopened.
    private var rateRefused = false
    /// Inside an effect list that restarts the stream: changes wait for its end (true: one
    /// of them was a session's stop).
    private var deferring = false
    private var pendingStop: Bool?

    public init(keepStreaming: Bool = false) { self.keepStreaming = keepStreaming }

    /// What the capture child does with frames now (`presentation`: the kiosk's trigger mode
    /// is presentation, so a session's frames are watched too).
    public func work(presentation: Bool) -> CaptureWork {
        if let capturing { return .decode(session: capturing, watching: presentation) }
        guard streaming else { return .none }
        return duty == .watch ? .watch : .drain
    }

    // MARK: - What the kiosk wants

    /// Starts an effect list of the kiosk machine: stream changes wait for `end()` when the list
    /// stops the stream and then wants it again.
    public mutating func begin(_ effects: [KioskEffect]) {
        deferring = Self.restartsStream(effects)
    }

    /// Ends the effect list begun with `begin(_:)`.
    public mutating func end(watchFPS: Int) -> [Action] {
        deferring = false
        guard let stopping = pendingStop else { return [] }
        pendingStop = nil
        return update(stopping: stopping, watchFPS: watchFPS)
    }

    /// A session's frames are wanted from now on.
    public mutating func capture(session: Int, watchFPS: Int) -> [Action] {
        capturing = session
        return change(stopping: false, watchFPS: watchFPS)
    }

    /// The session's frames are no longer wanted.
    public mutating func stopCapture(watchFPS: Int) -> [Action] {
        capturing = nil
        return change(stopping: true, watchFPS: watchFPS)
    }

    /// What the camera does between sessions.
    public mutating func duty(_ new: CameraDuty, watchFPS: Int) -> [Action] {
        duty = new
        return change(stopping: false, watchFPS: watchFPS)
    }

    /// A viewer starts (`true`) or stops wanting frames: while any does, the camera streams.
    public mutating func view(_ on: Bool, watchFPS: Int) -> [Action] {
        viewers = max(0, viewers + (on ? 1 : -1))
        return update(stopping: false, watchFPS: watchFPS)
    }

    // MARK: - What the camera did

    /// The camera became available (a warm camera streams from the start) or not.
    public mutating func cameraAvailable(_ isAvailable: Bool, watchFPS: Int) -> [Action] {
        available = isAvailable
        return isAvailable ? update(stopping: false, watchFPS: watchFPS) : []
    }

    /// The camera was closed: nothing streams, and a reopened camera runs at its configured rate.
    public mutating func closed() {
        capturing = nil
        streaming = false
        rate = 0
        rateRefused = false
    }

    /// The answer to `.start`: on success the rate it should run at; on failure no capture.
    public mutating func started(_ ok: Bool, watchFPS: Int) -> [Action] {
        guard ok else {
            capturing = nil
            return []
        }
        streaming = true
        return updateRate(watchFPS: watchFPS)
    }

    /// The answer to `.setRate(fps)`: whether the camera took it.
    public mutating func rateSet(_ fps: Int, took: Bool) {
        if took { rate = fps } else { rateRefused = true }
    }

    // MARK: - Decisions

    private mutating func change(stopping: Bool, watchFPS: Int) -> [Action] {
        guard deferring else { return update(stopping: stopping, watchFPS: watchFPS) }
        pendingStop = (pendingStop ?? false) || stopping
        return []
    }

    /// Starts or stops the stream as the work needs it; `stopping`: a session's stop, which
    /// stops a stream nobody else needs even when it is believed stopped (stopping twice is safe).
    private mutating func update(stopping: Bool, watchFPS: Int) -> [Action] {
        let wanted = capturing != nil || duty == .watch || ((keepStreaming || viewers > 0) && available)
        if wanted && !streaming { return [.start] } // the rate follows `started`
        var actions: [Action] = []
        if !wanted && (streaming || stopping) {
            actions.append(.stop)
            streaming = false
        }
        return actions + updateRate(watchFPS: watchFPS)
    }

    /// Presentation mode: the camera watches at `watchFPS` while only the change detector (and
    /// no session, and no viewer) wants its frames, and runs at its configured rate otherwise.
    private func updateRate(watchFPS: Int) -> [Action] {
        guard streaming, !rateRefused, watchFPS > 0 || rate != 0 else { return [] }
        let wanted = capturing == nil && duty == .watch && viewers == 0 ? watchFPS : 0
        return wanted == rate ? [] : [.setRate(wanted)]
    }

    /// Whether `effects` stop the stream and then want it again.
    static func restartsStream(_ effects: [KioskEffect]) -> Bool {
        guard let off = effects.firstIndex(where: { $0 == .stopCapture || $0 == .cameraDuty(.idle) }) else { return false }
        return effects[off...].contains { effect in
            if case .startCapture = effect { return true }
            return effect == .cameraDuty(.watch)
        }
    }
}
