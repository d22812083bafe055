/// What reaches the kiosk: driver events, timers, settings. Time only arrives as `timerFired`.
public enum KioskEvent: Equatable, Sendable {
    /// The runtime is up: outputs are in their initial state.
    case started
    case buttonPressed
    case buttonReleased
    /// A trigger from the host (serial command): like a press, but never confirms or toggles.
    case hostTrigger
    /// The host ends the session (like a cancelling press; nothing when idle).
    case hostStop
    /// The host sets the torch mode for this run; nil returns to the configured mode.
    case torchOverride(TorchMode?)
    case timerFired(KioskTimer)
    /// Symbols decoded from a frame of `session`, viewport already applied, at `at` (any
    /// monotonic time: the same-symbol window is measured on it).
    case decoded(session: Int, symbols: [Symbol], at: Duration = .zero)
    /// Driving the torch line failed: the torch is in an unknown state.
    case torchFailed
    case cameraChanged(CameraState)
    case settingsChanged(KioskSettings)
    /// Shutting down (SIGTERM): everything off.
    case stopping
}

/// The timers the machine asks for. Starting a running timer restarts it.
public enum KioskTimer: String, Sendable, Hashable, CaseIterable {
    case session, confirmation, longPress
}

/// What the kiosk asks the runtime to do, in order.
public enum KioskEffect: Equatable, Sendable {
    case setTorch(on: Bool)
    case startCapture(session: Int)
    case stopCapture
    case feedback(Feedback)
    case indicate(StatusIndication)
    case deliver(ScanResult)
    case startTimer(KioskTimer, after: Duration)
    case cancelTimer(KioskTimer)
    case log(LogLevel, String)
}

/// The kiosk loop as a pure state machine: `handle(_:)` takes one event and returns the effects
/// to carry out. No clock reads, no I/O, no threads.
public struct KioskMachine: Sendable {
    public enum Phase: Equatable, Sendable {
        case idle
        case scanning(session: Int)
        /// A non-numeric result waits for a confirming press.
        case awaitingConfirmation(ScanResult)
        case stopped
    }

    public private(set) var phase: Phase = .idle
    public private(set) var camera: CameraState = .starting
    public private(set) var torch: TorchState
    public private(set) var metrics = KioskMetrics()
    public private(set) var settings: KioskSettings

    private var session = 0
    /// Repeats of the same code within `settings.sameSymbolTimeout` are held back; a press starts
    /// a new intent, so a press-started session forgets the last code.
    private var sameSymbol: SameSymbolFilter
    /// A press while scanning with a long-press action: it cancels on release unless it became
    /// a long press first.
    private var pressPending = false
    private var sequence = 0
    private var buttonDown = false
    /// The code seen in the last frames of this session and in how many in a row.
    private var candidate: (symbology: Symbology, bytes: [UInt8], frames: Int)?

    /// The torch mode the host set, over the configured one.
    private var torchOverride: TorchMode?
    private var torchMode: TorchMode { torchOverride ?? settings.torchMode }

    /// - Parameter firstSequence: the number the first result gets (results keep counting across
    ///   restarts when the runtime persists them).
    public init(settings: KioskSettings, firstSequence: Int = 1) {
        self.settings = settings
        sequence = max(0, firstSequence - 1)
        torch = settings.hasTorch ? .off : .unavailable
        sameSymbol = SameSymbolFilter(window: settings.sameSymbolTimeout)
    }

    public mutating func handle(_ event: KioskEvent) -> [KioskEffect] {
        if phase == .stopped { return [] }
        switch event {
        case .started:
            var effects = torchOff(force: true)
            effects.append(.indicate(StatusIndication(camera: camera) ?? .ready))
            return effects
        case .buttonPressed:
            buttonDown = true
            var effects: [KioskEffect] = []
            if settings.longPressAction != .none {
                effects.append(.startTimer(.longPress, after: settings.longPressAfter))
                if case .scanning = phase {
                    // Held long, it is the long-press action; released early, it cancels.
                    metrics.presses += 1
                    pressPending = true
                    return effects
                }
            }
            return effects + trigger(confirms: true)
        case .buttonReleased:
            buttonDown = false
            guard settings.longPressAction != .none else { return [] }
            var effects: [KioskEffect] = [.cancelTimer(.longPress)]
            if pressPending {
                pressPending = false
                metrics.presses -= 1 // counted again by the trigger
                effects += trigger(confirms: true)
            }
            return effects
        case .torchFailed:
            guard torch != .unavailable, torch != .failed else { return [] }
            torch = .failed
            metrics.errors += 1
            return [.log(.error, "torch state unknown: the line could not be driven")]
        case .hostTrigger:
            return trigger(confirms: false)
        case .hostStop:
            guard case .scanning = phase else { return [] }
            metrics.closedWithoutScan += 1
            return endSession(.cancelled) + [.log(.info, "scan session \(session) stopped by the host")]
        case .torchOverride(let mode):
            torchOverride = mode
            guard case .scanning = phase else { return [] }
            return torchMode == .on ? torchOn() : torchOff()
        case .timerFired(let timer):
            return timerFired(timer)
        case .decoded(let from, let symbols, let now):
            return decoded(from: from, symbols, at: now)
        case .cameraChanged(let state):
            return cameraChanged(state)
        case .settingsChanged(let new):
            return settingsChanged(new)
        case .stopping:
            var effects: [KioskEffect] = []
            if case .scanning = phase { effects += [.stopCapture] }
            effects += KioskTimer.allCases.map { .cancelTimer($0) }
            effects += torchOff(force: true)
            phase = .stopped
            return effects
        }
    }

    // MARK: - Rules

    private mutating func trigger(confirms: Bool) -> [KioskEffect] {
        metrics.presses += 1
        switch phase {
        case .stopped:
            return []
        case .scanning:
            // A press during a session cancels it (the seed's close button).
            metrics.closedWithoutScan += 1
            return endSession(.cancelled) + [.log(.info, "scan session \(session) cancelled")]
        case .awaitingConfirmation(let held):
            guard confirms else { return startSession() }
            phase = .idle
            metrics.goodReads += 1
            return [.cancelTimer(.confirmation), .feedback(.confirmed), .deliver(held),
                    .indicate(.ready), .log(.info, "result \(held.sequence) confirmed")]
        case .idle:
            return startSession()
        }
    }

    private mutating func startSession() -> [KioskEffect] {
        var effects: [KioskEffect] = []
        if case .awaitingConfirmation = phase { effects += [.cancelTimer(.confirmation)] }
        guard camera.isAvailable else {
            metrics.errors += 1
            phase = .idle
            return effects + [.feedback(.error), .log(.warning, "press ignored: camera \(camera)")]
        }
        session += 1
        phase = .scanning(session: session)
        candidate = nil
        pressPending = false
        sameSymbol.forget() // a press is a new intent: the same code is reported again
        effects += torchOff(force: true) // off whenever a session starts, then on if configured
        if torchMode == .on { effects += torchOn() }
        effects += [.startCapture(session: session), .startTimer(.session, after: settings.sessionTimeout),
                    .indicate(.scanning), .log(.info, "scan session \(session) started")]
        return effects
    }

    /// Ends the scanning session: capture off, torch off, the session timer cancelled.
    private mutating func endSession(_ feedback: Feedback) -> [KioskEffect] {
        phase = .idle
        pressPending = false
        return [.stopCapture, .cancelTimer(.session)] + torchOff() + [.feedback(feedback),
                .indicate(StatusIndication(camera: camera) ?? .ready)]
    }

    private mutating func decoded(from: Int, _ symbols: [Symbol], at now: Duration) -> [KioskEffect] {
        guard phase == .scanning(session: from) else { return [] }
        guard let symbol = symbols.first(where: { !$0.isEmpty }) else { candidate = nil; return [] }
        // A code counts once it was the same in enough consecutive frames.
        let frames = candidate.map { $0.symbology == symbol.symbology && $0.bytes == symbol.bytes ? $0.frames + 1 : 1 } ?? 1
        candidate = (symbol.symbology, symbol.bytes, frames)
        guard frames >= settings.agreeingFrames[symbol.symbology] ?? 1 else { return [] }
        candidate = nil
        // A repeat is decided before any feedback, count or sequence number: the session goes on.
        guard sameSymbol.admit(symbol, at: now) else {
            metrics.repeatsHeldBack += 1
            return [.log(.debug, "\(symbol.symbology.rawValue) read again within the same-symbol time: held back")]
        }
        sequence += 1
        let result = ScanResult(sequence: sequence, session: from, symbol: symbol)
        phase = .idle
        var effects: [KioskEffect] = [.stopCapture, .cancelTimer(.session)] + torchOff() + [.feedback(.goodRead)]
        if symbol.numericOnly || settings.alphanumeric == .immediate {
            metrics.goodReads += 1
            effects += [.deliver(result), .indicate(.ready)]
        } else {
            phase = .awaitingConfirmation(result)
            effects += [.startTimer(.confirmation, after: settings.confirmTimeout), .indicate(.awaitingConfirmation),
                        .log(.info, "\(symbol.symbology.rawValue) result \(sequence) held for confirmation")]
        }
        return effects
    }

    private mutating func timerFired(_ timer: KioskTimer) -> [KioskEffect] {
        switch (timer, phase) {
        case (.session, .scanning):
            metrics.closedWithoutScan += 1
            return endSession(.noRead) + [.log(.info, "scan session \(session) timed out without a code")]
        case (.confirmation, .awaitingConfirmation(let held)):
            phase = .idle
            metrics.confirmationsExpired += 1
            return [.indicate(StatusIndication(camera: camera) ?? .ready),
                    .log(.notice, "result \(held.sequence) discarded: not confirmed in time")]
        case (.longPress, .scanning) where buttonDown && settings.longPressAction == .torch:
            pressPending = false // the release no longer cancels
            guard torch != .unavailable else { return [.log(.info, "long press: no torch configured")] }
            return torch == .on ? torchOff() : torchOn()
        default:
            return [] // a timer that fired after its reason went away
        }
    }

    private mutating func cameraChanged(_ state: CameraState) -> [KioskEffect] {
        guard state != camera else { return [] }
        let previous = camera
        camera = state
        var effects: [KioskEffect] = []
        let level: LogLevel = state.isAvailable ? .notice : .error
        let verb = previous == .starting || state.isAvailable ? "camera" : "camera interrupted:"
        effects.append(.log(level, "\(verb) \(state)" + (state == .permissionDenied ? "; add the service user to group video" : "")))
        if !state.isAvailable {
            // The torch goes off whenever the camera is interrupted.
            if case .scanning = phase {
                metrics.errors += 1
                return effects + endSession(.error)
            }
            effects += torchOff()
        }
        if case .awaitingConfirmation = phase { return effects }
        return effects + [.indicate(StatusIndication(camera: state) ?? .ready)]
    }

    private mutating func settingsChanged(_ new: KioskSettings) -> [KioskEffect] {
        var effects: [KioskEffect] = []
        if !new.hasTorch && settings.hasTorch { effects += torchOff() }
        settings = new
        sameSymbol.window = new.sameSymbolTimeout
        if !new.hasTorch { torch = .unavailable } else if torch == .unavailable { torch = .off }
        if case .scanning = phase, torchMode == .off { effects += torchOff() }
        return effects + [.log(.info, "settings applied")]
    }

    // MARK: - Torch

    private mutating func torchOn() -> [KioskEffect] {
        guard torch == .off || torch == .failed else { return [] }
        torch = .on
        metrics.torchOn += 1
        return [.setTorch(on: true)]
    }

    /// Turns the torch off; `force` drives the line even when it is believed off (start, stop).
    private mutating func torchOff(force: Bool = false) -> [KioskEffect] {
        guard torch == .on || torch == .failed || (force && torch == .off) else { return [] }
        torch = .off
        return [.setTorch(on: false)]
    }
}
