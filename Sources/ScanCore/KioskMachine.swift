/// What reaches the kiosk: driver events, timers, settings. Time only arrives as `timerFired`
/// and with decoded frames.
public enum KioskEvent: Equatable, Sendable {
    /// The runtime is up: outputs are in their initial state.
    case started
    case buttonPressed
    case buttonReleased
    /// A trigger from the host (serial command): like a press, but never confirms or toggles.
    /// A host's `TRIGGER`, and the door it came through.
    case hostTrigger(from: PressSource)
    /// The host ends the session (like a cancelling press; nothing when idle). In continuous
    /// mode it pauses scanning until the next trigger.
    case hostStop
    /// The host sets the torch mode for this run; nil returns to the configured mode.
    case torchOverride(TorchMode?)
    case timerFired(KioskTimer)
    /// Symbols decoded from a frame of `session`, viewport already applied, nearest the
    /// viewport's centre first, at `at` (any monotonic time: the same-symbol window is measured
    /// on it). `brightness`: the viewport's mean level (0...255), for the automatic torch.
    /// `deepLookFollows`: nothing found yet, the frame's deep passes to come; it does not break
    /// the run of frames a code must agree over (a code only the deep passes read comes between
    /// such first looks of the frames after its own).
    case decoded(session: Int, symbols: [Symbol], at: Duration = .zero, brightness: Double? = nil, deepLookFollows: Bool = false)
    /// A scene of `session` held still, ended at `at`, showed something else where `codes` were
    /// last read, whether or not its frames were read through: for the same-symbol filter and
    /// the frames a code must agree over, they are out of view.
    case codesLeftView(session: Int, codes: [CodeIdentity], at: Duration)
    /// The change detector saw the scene change (presentation mode).
    case sceneChanged
    /// Driving the torch line failed: the torch is in an unknown state.
    case torchFailed
    case cameraChanged(CameraState)
    case settingsChanged(KioskSettings)
    /// The announcement `id` has been said (or could not be): results it held go out.
    case announcementEnded(id: Int)
    /// The outputs take `room` more results before one refuses a result (an outbox full under
    /// `outbox.policy = reject-new`; nil: none ever refuses), counted once they had taken in
    /// every result up to number `through`; `full` names the outputs without room.
    case outputsRoom(Int?, through: Int, full: [String] = [])
    /// Shutting down (SIGTERM): everything off.
    case stopping
}

/// The timers the machine asks for. Starting a running timer restarts it.
public enum KioskTimer: String, Sendable, Hashable, CaseIterable {
    case session, confirmation, longPress
    /// The outputs have reported no room for this long: they are full.
    case outputsFull
    /// Presentation mode: the scene has been still this long; back to watching.
    case presentationIdle
}

/// What kind of frames the camera should deliver when no session decodes.
public enum CameraDuty: Equatable, Sendable {
    /// Not needed (the runtime may stop the stream).
    case idle
    /// Frames go to the change detector (presentation mode).
    case watch
}

/// What the kiosk asks the runtime to do, in order.
public enum KioskEffect: Equatable, Sendable {
    case setTorch(on: Bool)
    /// Start one autofocus cycle (`camera.focus = auto-on-press`): after the torch is lit, so
    /// that the lens focuses in the light the session reads in.
    case autofocus
    case startCapture(session: Int)
    case stopCapture
    /// What the camera does between sessions.
    case cameraDuty(CameraDuty)
    /// The outcome's beep (and torch flash); its LED flash unless `flash` is false (an
    /// announcement replaces it).
    case feedback(Feedback, flash: Bool = true)
    /// Say `announcement` aloud; the runtime answers with `announcementEnded(id:)`.
    case announce(id: Int, Announcement)
    /// Stop saying announcement `id` now (a press, a newer announcement, shutdown).
    case cutAnnouncement(id: Int)
    case indicate(StatusIndication)
    /// Store the result where the outputs keep results (their outboxes), without sending it:
    /// its announcement plays first. A `deliver` of it follows (after the announcement, or when
    /// it is cut short); a restart before that sends it with the other kept results.
    case store(ScanResult)
    /// Send the result (stored before by `store`, or not).
    case deliver(ScanResult)
    /// Codes read in this frame, of these symbologies (a good read, held for confirmation or
    /// not), before its feedback: what the decode statistics time.
    case read([Symbology])
    /// A code refused by the accept filter, and why (an event; not a result).
    case rejected(Symbol, reason: String)
    case startTimer(KioskTimer, after: Duration)
    case cancelTimer(KioskTimer)
    case log(LogLevel, String)
}

/// The kiosk loop as a pure state machine: `handle(_:)` takes one event and returns the effects
/// to carry out. No clock reads, no I/O, no threads.
///
/// Trigger modes (`KioskSettings.trigger`): `pulse` (a press starts a session, the first read
/// or the timeout ends it, a press cancels), `level` (scans while the button is held), `presentation`
/// (the change detector wakes scanning; `presentationIdle` without change goes back to watching)
/// and `continuous` (always scanning). In the last two, reads do not end the session and the
/// same-symbol window holds back repeats.
public struct KioskMachine: Sendable {
    public enum Phase: Equatable, Sendable {
        case idle
        /// Presentation mode between sessions: frames go to the change detector.
        case watching
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
    private var sequence = 0
    private var buttonDown = false
    /// The code seen in the last frames of this session and in how many in a row.
    private var candidate: (code: CodeIdentity, frames: Int)?
    /// The code last refused by the accept filter in this session: refused once, not per frame.
    private var lastRejected: (symbology: Symbology, bytes: [UInt8])?
    /// Repeats of the same code within `settings.sameSymbolTimeout` are held back; a press starts
    /// a new intent, so a press-started session forgets the last code.
    private var sameSymbol: SameSymbolFilter
    /// A press while scanning with a long-press action: it cancels on release unless it became
    /// a long press first.
    private var pressPending = false
    /// Continuous mode paused by the host (`STOP`) until the next trigger.
    private var paused = false
    /// Frames still to pass unlooked-at after the torch came on (old exposure).
    private var framesToSkip = 0
    /// The automatic torch's view of the scene.
    private var light = AmbientLight()
    /// The announcement being said and the results waiting for its end (`speech.deliver = after`).
    private var speaking: (id: Int, held: [ScanResult])?
    private var announcements = 0
    /// The outputs' room as last reported (nil: no limit), and the results handed to them
    /// (delivered or stored) that the report did not count yet.
    private var outputRoom: Int?
    private var handedOut: [Int] = []
    /// Whether this run handed the outputs any result yet: before it, an outbox without room
    /// holds results from before the start, which no acknowledgement of a result just sent
    /// will empty within `fullAfter`.
    private var handedOutAny = false
    /// The outputs are shown as full (`fullAfter` of no room), or will be when the timer fires.
    private var fullShown = false, fullPending = false
    /// How long the outputs must report no room before the kiosk shows them full: a result
    /// the broker or the host acknowledges within it leaves no trace (no LED, beep or log).
    public static let fullAfter = Duration.seconds(1)

    /// How many more results the outputs take now (nil: no limit): the last report's room less
    /// the results handed to them since. A read is a result only while there is room.
    public var roomForResults: Int? { outputRoom.map { max(0, $0 - handedOut.count) } }
    /// Whether the outputs have said for `fullAfter` that they take no new result: presses are
    /// refused and scanning waits until kept results are delivered, so that a beep never
    /// promises a result an output refuses. (Meanwhile, and while room is taken by results not
    /// yet reported on, reads wait for room.)
    public var outputsFull: Bool { fullShown }
    /// The outputs without room, by name, as last reported: those a refused press waits for.
    public private(set) var fullOutputs: [String] = []

    /// The torch mode the host set, over the configured one.
    private var torchOverride: TorchMode?
    /// The torch mode in force: the host's (`TORCH ON|OFF|AUTO`) or else the configured one.
    public var torchMode: TorchMode { torchOverride ?? settings.torchMode }

    /// - Parameter firstSequence: the number the first result gets (results keep counting across
    ///   restarts when the runtime persists them).
    public init(settings: KioskSettings, firstSequence: Int = 1) {
        self.settings = settings
        sequence = max(0, firstSequence - 1)
        torch = settings.hasTorch ? .off : .unavailable
        sameSymbol = SameSymbolFilter(window: settings.sameSymbolTimeout)
    }

    /// Why the kiosk refuses a host's `event` (it then changes nothing); nil when it takes it.
    /// A torch mode without a torch line: "no torch line".
    public func refusal(of event: KioskEvent) -> String? {
        if case .torchOverride = event, torch == .unavailable { return "no torch line" }
        return nil
    }

    /// Why a host's trigger starts no session now (the camera away, the outputs full); nil when
    /// it starts one or joins the session that runs.
    public var triggerRefusal: String? {
        if case .scanning = phase { return nil }
        guard phase != .stopped else { return nil }
        if !camera.isAvailable { return "camera \(camera): no session started" }
        if outputsFull { return "outputs full\(named): no session started until kept results are delivered (outbox.policy = reject-new)" }
        return nil
    }

    public mutating func handle(_ event: KioskEvent) -> [KioskEffect] {
        if phase == .stopped || refusal(of: event) != nil { return [] }
        switch event {
        case .started:
            var effects = torchOff(force: true)
            effects.append(.indicate(idleIndication))
            return effects
        case .buttonPressed:
            buttonDown = true
            var effects = cutAnnouncement() // a press cuts an announcement short
            if settings.longPressAction != .none, settings.trigger == .pulse {
                effects.append(.startTimer(.longPress, after: settings.longPressAfter))
                if case .scanning = phase {
                    // Held long, it is the long-press action; released early, it cancels.
                    metrics.presses += 1
                    metrics.pressesBySource[.button, default: 0] += 1
                    pressPending = true
                    return effects
                }
            }
            return effects + trigger(confirms: true, from: .button)
        case .buttonReleased:
            buttonDown = false
            var effects: [KioskEffect] = []
            if settings.longPressAction != .none, settings.trigger == .pulse { effects.append(.cancelTimer(.longPress)) }
            if pressPending {
                pressPending = false
                metrics.presses -= 1 // counted again by the trigger
                metrics.pressesBySource[.button, default: 0] -= 1
                effects += trigger(confirms: true, from: .button)
            } else if settings.trigger == .level, case .scanning = phase {
                metrics.closedWithoutScan += 1
                effects += endSession(.noRead) + [.log(.info, "scan session \(session) ended: button released without a code")]
            }
            return effects
        case .hostTrigger(let door):
            return cutAnnouncement() + trigger(confirms: false, from: door)
        case .hostStop:
            if settings.trigger == .continuous { paused = true }
            guard case .scanning = phase else { return [] }
            metrics.closedWithoutScan += 1
            return endSession(.cancelled) + [.log(.info, "scan session \(session) stopped by the host")]
        case .torchOverride(let mode):
            torchOverride = mode
            guard case .scanning = phase else { return [] }
            return sessionTorch()
        case .timerFired(let timer):
            return timerFired(timer)
        case .decoded(let from, let symbols, let now, let brightness, let deepLookFollows):
            return decoded(from: from, symbols, at: now, brightness: brightness, deepLookFollows: deepLookFollows)
        case .codesLeftView(let from, let codes, let now):
            guard phase == .scanning(session: from) else { return [] }
            sameSymbol.leftView(codes, at: now)
            if let c = candidate, codes.contains(c.code) { candidate = nil }
            return []
        case .sceneChanged:
            switch phase {
            case .watching:
                metrics.pressesBySource[.presentation, default: 0] += 1
                return startSession()
            case .scanning where settings.trigger == .presentation:
                return [.startTimer(.presentationIdle, after: settings.presentationIdle)]
            default: return []
            }
        case .torchFailed:
            guard torch != .unavailable, torch != .failed else { return [] }
            torch = .failed
            metrics.errors += 1
            return [.log(.error, "torch state unknown: the line could not be driven")]
        case .cameraChanged(let state):
            return cameraChanged(state)
        case .settingsChanged(let new):
            return settingsChanged(new)
        case .announcementEnded(let id):
            guard let s = speaking, s.id == id else { return [] }
            speaking = nil
            return s.held.map { .deliver($0) }
        case .outputsRoom(let room, let through, let full):
            outputRoom = room
            fullOutputs = room == 0 ? full : []
            handedOut.removeAll { $0 <= through }
            if room == 0 {
                guard !fullShown else { return [] }
                // Full since before the start: shown at once (a trigger in the first second
                // was taken and its read then refused).
                if !handedOutAny { return becameFullNow() }
                guard !fullPending else { return [] }
                fullPending = true
                return [.startTimer(.outputsFull, after: Self.fullAfter)]
            }
            var effects: [KioskEffect] = fullPending ? [.cancelTimer(.outputsFull)] : []
            fullPending = false
            if fullShown {
                fullShown = false
                effects += [.log(.notice, "the outputs take results again")] + resume()
            }
            return effects
        case .stopping:
            var effects = cutAnnouncement() // what it held is delivered, never lost
            if case .scanning = phase { effects += [.stopCapture] }
            if phase == .watching { effects += [.cameraDuty(.idle)] }
            effects += KioskTimer.allCases.map { .cancelTimer($0) }
            effects += torchOff(force: true)
            phase = .stopped
            return effects
        }
    }

    // MARK: - Rules

    private mutating func trigger(confirms: Bool, from source: PressSource) -> [KioskEffect] {
        metrics.presses += 1
        metrics.pressesBySource[source, default: 0] += 1
        switch phase {
        case .stopped:
            return []
        case .scanning:
            switch settings.trigger {
            case .pulse, .presentation:
                // A press during a session cancels it (the seed's close button).
                metrics.closedWithoutScan += 1
                return endSession(.cancelled) + [.log(.info, "scan session \(session) cancelled")]
            case .level, .continuous:
                return [] // already scanning while held / always scanning
            }
        case .awaitingConfirmation(let held):
            guard confirms else {
                // Only the person at the kiosk confirms: a host's trigger starts the next
                // session, and the held result is discarded as one not confirmed in time.
                metrics.confirmationsExpired += 1
                return [.log(.notice, "result \(held.sequence) discarded: not confirmed before a TRIGGER (\(source.rawValue)) started a new session")]
                    + startSession(byPress: true, from: source)
            }
            phase = .idle
            metrics.goodReads += 1
            handedOut.append(held.sequence)
            handedOutAny = true
            return [.cancelTimer(.confirmation), .feedback(.confirmed), .deliver(held)] + resume()
                + [.log(.info, "result \(held.sequence) confirmed")]
        case .idle, .watching:
            paused = false
            return startSession(byPress: true, from: source)
        }
    }

    /// `from`: where the press came from, for the log of one that starts nothing.
    private mutating func startSession(byPress: Bool = false, from source: PressSource = .button) -> [KioskEffect] {
        let press = source == .button ? "press" : "trigger (\(source.rawValue))"
        var effects: [KioskEffect] = []
        if case .awaitingConfirmation = phase { effects += [.cancelTimer(.confirmation)] }
        guard camera.isAvailable else {
            phase = .idle
            guard byPress else { return effects }
            metrics.errors += 1
            return effects + [.feedback(.error)] + announce(.camera(camera)) + [.log(.warning, "\(press) ignored: camera \(camera)")]
        }
        guard !outputsFull else {
            guard byPress else { return effects }
            metrics.errors += 1
            return effects + [.feedback(.error)] + announce(.outputsFull)
                + [.log(.warning, "\(press) ignored: the outputs are full (outbox.policy = reject-new); presses are taken again once kept results are delivered")]
        }
        if phase == .watching { effects += [.cameraDuty(.idle)] }
        session += 1
        phase = .scanning(session: session)
        candidate = nil
        lastRejected = nil
        pressPending = false
        light = AmbientLight()
        // A press is a new intent: the same code is reported again. Without a press
        // (presentation, continuous) the same-symbol window holds back repeats.
        if byPress && settings.trigger != .continuous { sameSymbol.forget() }
        effects += torchOff(force: true) // off whenever a session starts, then on if configured
        effects += sessionTorch()
        if byPress, settings.focusMode == .onRequest { effects += [.autofocus] }
        effects += [.startCapture(session: session)]
        switch settings.trigger {
        case .pulse, .level: effects += [.startTimer(.session, after: settings.sessionTimeout)]
        case .presentation: effects += [.startTimer(.presentationIdle, after: settings.presentationIdle)]
        case .continuous: break
        }
        effects += [.indicate(.scanning), .log(.debug, "scan session \(session) started")]
        return effects
    }

    /// Ends the scanning session: capture off, torch off, the session timers cancelled; then
    /// what the mode does between sessions.
    private mutating func endSession(_ feedback: Feedback?) -> [KioskEffect] {
        phase = .idle
        pressPending = false
        var effects: [KioskEffect] = [.stopCapture] + sessionTimersOff() + torchOff()
        if let feedback { effects.append(.feedback(feedback)) }
        switch feedback {
        case .noRead: effects += announce(.noRead)
        case .error: effects += announce(.camera(camera))
        default: break
        }
        return effects + resume()
    }

    /// The timers a session of this mode runs.
    private func sessionTimersOff() -> [KioskEffect] {
        switch settings.trigger {
        case .pulse, .level: return [.cancelTimer(.session)]
        case .presentation: return [.cancelTimer(.presentationIdle)]
        case .continuous: return []
        }
    }

    /// Back to what the mode does without a session: ready (pulse, level), watching
    /// (presentation) or scanning again (continuous, unless paused or the camera is away).
    private mutating func resume() -> [KioskEffect] {
        guard phase == .idle else { return [] }
        let ready: [KioskEffect] = [.indicate(idleIndication)]
        guard camera.isAvailable, !outputsFull else { return ready }
        switch settings.trigger {
        case .pulse, .level: return ready
        case .presentation:
            phase = .watching
            return [.cameraDuty(.watch)] + ready
        case .continuous:
            return paused ? ready : startSession()
        }
    }

    private mutating func decoded(from: Int, _ symbols: [Symbol], at now: Duration, brightness: Double?, deepLookFollows: Bool) -> [KioskEffect] {
        guard phase == .scanning(session: from) else { return [] }
        var effects: [KioskEffect] = []
        if let brightness, torchMode == .auto, torch == .off, light.isDark(after: brightness) {
            effects += torchOn(automatic: true)
            // The lens focused in the dark: once more in the torch's light.
            if settings.focusMode == .onRequest { effects += [.autofocus] }
        }
        // Nothing yet, the frame's deep passes to come: not a frame without a code (for the
        // frames a code must agree over, and for the same-symbol filter's sightings).
        if deepLookFollows, symbols.allSatisfy(\.isEmpty) { return effects }
        if framesToSkip > 0 {
            framesToSkip -= 1
            return effects
        }
        let codes = symbols.filter { !$0.isEmpty }
        sameSymbol.frame(showing: codes, at: now)
        guard let symbol = codes.first else { candidate = nil; return effects }
        // A code counts once it was the same in enough consecutive frames.
        // A linear code checked within its frame (bars fit, or two engines alike) counts twice.
        let weight = symbol.verifiedInFrame ? 2 : 1
        let frames = (candidate.map { $0.code == CodeIdentity(symbol) ? $0.frames : 0 } ?? 0) + weight
        candidate = (CodeIdentity(symbol), frames)
        guard frames >= settings.agreeingFrames[symbol.symbology] ?? 1 else { return effects }
        candidate = nil
        // A code the accept filter refuses is not a result: its own feedback, event and count,
        // once while it stays in view, and the session goes on looking.
        if let reason = settings.accept.refusal(symbol) {
            if let last = lastRejected, last.symbology == symbol.symbology, last.bytes == symbol.bytes { return effects }
            lastRejected = (symbol.symbology, symbol.bytes)
            metrics.rejected += 1
            return effects + [.feedback(.rejected), .rejected(symbol, reason: reason),
                              .log(.info, "\(symbol.symbology.rawValue) code not accepted (\(reason)); still looking")]
        }
        // Up to `multiple` distinct codes of this frame, nearest the centre first, and no more
        // than the outputs take. A repeat is decided before any feedback, count or sequence
        // number: the session goes on.
        let room = roomForResults ?? .max
        guard room > 0 else {
            if outputsFull { return effects + notTaken(symbol) }
            // The room is taken by results the outputs have not reported on yet: read again
            // once they have.
            return effects + [.log(.debug, "\(symbol.symbology.rawValue) read while the outputs take in the last result; read again once they report room")]
        }
        let limit = min(settings.multiple, room)
        var batch: [Symbol] = []
        var left = 0 // codes `multiple` would take and the room does not
        for code in codes where settings.accept.refusal(code) == nil {
            guard !batch.contains(where: { $0.symbology == code.symbology && $0.bytes == code.bytes }) else { continue }
            guard batch.count < limit else {
                if limit < settings.multiple { left += 1 }
                continue
            }
            if sameSymbol.admit(code, at: now) { batch.append(code) } else { metrics.repeatsHeldBack += 1 }
        }
        if left > 0 {
            effects.append(.log(.warning, "\(left) more code(s) in this frame not taken: the outputs are full (outbox.policy = reject-new)"))
        }
        guard !batch.isEmpty else {
            let window = settings.sameSymbolTimeout
            let why = window == .zero ? "it has not left the view since it was sent"
                : "it has not been out of view for scan.same_symbol_timeout_ms (\(Int(window.milliseconds)) ms) since it was sent"
            return effects + [.log(.debug, "\(symbol.symbology.rawValue) read again, held back: \(why)")]
        }
        let results = batch.map { code -> ScanResult in
            sequence += 1
            return ScanResult(sequence: sequence, session: from, symbol: code)
        }
        let keepsScanning = settings.trigger == .continuous || settings.trigger == .presentation
        let holds = results.count == 1 && !batch[0].numericOnly && settings.alphanumeric == .confirm
        let flash = settings.speech?.replacesFlash != true
        effects.append(.read(batch.map(\.symbology)))
        if keepsScanning && !holds {
            metrics.goodReads += results.count
            effects += [.feedback(.goodRead, flash: flash)] + deliverAnnounced(results)
            if settings.trigger == .presentation { effects += [.startTimer(.presentationIdle, after: settings.presentationIdle)] }
            return effects
        }
        phase = .idle
        effects += [.stopCapture] + sessionTimersOff() + torchOff() + [.feedback(.goodRead, flash: flash)]
        if holds {
            let result = results[0]
            phase = .awaitingConfirmation(result)
            return effects + announce(.read(batch)) + [.startTimer(.confirmation, after: settings.confirmTimeout), .indicate(.awaitingConfirmation),
                              .log(.info, "\(result.symbol.symbology.rawValue) result \(result.sequence) held for confirmation")]
        }
        metrics.goodReads += results.count
        return effects + deliverAnnounced(results) + resume()
    }

    /// A code read while the outputs take no result (they filled during the session): not a
    /// result; the session ends as one the kiosk cannot serve.
    private mutating func notTaken(_ symbol: Symbol) -> [KioskEffect] {
        metrics.errors += 1
        return endSession(.error) + announce(.outputsFull)
            + [.log(.warning, "\(symbol.symbology.rawValue) code read but not taken: the outputs are full (outbox.policy = reject-new)")]
    }

    // MARK: - Outputs full

    /// The status LED between sessions: the camera's trouble first, then full outputs.
    private var idleIndication: StatusIndication {
        StatusIndication(camera: camera) ?? (outputsFull ? .outputsFull : .ready)
    }

    /// The full outputs' names in brackets, for a line that says the outputs are full ("" when
    /// the report named none).
    private var named: String { fullOutputs.isEmpty ? "" : " (\(fullOutputs.joined(separator: "; ")))" }

    /// The outputs said no new result fits: a scanning session without a press (continuous,
    /// presentation) ends, the kiosk stops watching, the LED shows it. A press-started session
    /// goes on to its end (a read then is refused); a held result still waits for its
    /// confirmation.
    private mutating func becameFullNow() -> [KioskEffect] {
        fullShown = true
        return becameFull()
    }

    private mutating func becameFull() -> [KioskEffect] {
        var effects: [KioskEffect] = [.log(.warning, "the outputs are full (\((fullOutputs + ["outbox.policy = reject-new"]).joined(separator: "; "))): presses are refused until kept results are delivered")]
        switch phase {
        case .scanning where settings.trigger == .continuous || settings.trigger == .presentation:
            effects += endSession(nil)
        case .watching:
            phase = .idle
            effects += [.cameraDuty(.idle)] + resume()
        case .idle:
            effects += resume()
        default:
            break
        }
        return effects
    }

    private mutating func timerFired(_ timer: KioskTimer) -> [KioskEffect] {
        switch (timer, phase) {
        case (.session, .scanning):
            metrics.closedWithoutScan += 1
            return endSession(.noRead) + [.log(.info, "scan session \(session) timed out without a code")]
        case (.presentationIdle, .scanning):
            return endSession(nil) + [.log(.info, "scan session \(session): the scene is still; watching again")]
        case (.confirmation, .awaitingConfirmation(let held)):
            phase = .idle
            metrics.confirmationsExpired += 1
            return resume() + [.log(.notice, "result \(held.sequence) discarded: not confirmed in time")]
        case (.outputsFull, _):
            fullPending = false
            guard outputRoom == 0, !fullShown else { return [] }
            return becameFullNow()
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
            if phase == .watching {
                phase = .idle
                effects += [.cameraDuty(.idle)]
            }
            effects += torchOff()
            if previous.isAvailable { effects += announce(.camera(state)) }
        }
        if case .awaitingConfirmation = phase { return effects }
        if state.isAvailable, phase == .idle { return effects + resume() }
        return effects + [.indicate(idleIndication)]
    }

    private mutating func settingsChanged(_ new: KioskSettings) -> [KioskEffect] {
        var effects: [KioskEffect] = []
        if !new.hasTorch && settings.hasTorch { effects += torchOff() }
        let modeChanged = new.trigger != settings.trigger
        if new.speech == nil { effects += cutAnnouncement() }
        settings = new
        sameSymbol.window = new.sameSymbolTimeout
        if !new.hasTorch { torch = .unavailable } else if torch == .unavailable { torch = .off }
        if case .scanning = phase, torchMode == .off { effects += torchOff() }
        effects.append(.log(.debug, "settings applied"))
        guard modeChanged else { return effects }
        // Another trigger mode: whatever runs ends quietly and the new mode takes over.
        switch phase {
        case .scanning: effects += endSession(nil)
        case .watching:
            phase = .idle
            effects += [.cameraDuty(.idle)] + resume()
        case .idle: effects += resume()
        default: break
        }
        return effects
    }

    // MARK: - Speech

    /// Results out now, or (speech on, `deliver = after`) when their announcement ends.
    private mutating func deliverAnnounced(_ results: [ScanResult]) -> [KioskEffect] {
        handedOut += results.map(\.sequence) // delivered or stored: in the outputs either way
        handedOutAny = handedOutAny || !results.isEmpty
        guard let speech = settings.speech else { return results.map { .deliver($0) } }
        if speech.deliver == .after { return announce(.read(results.map(\.symbol)), holding: results) }
        return announce(.read(results.map(\.symbol))) + results.map { .deliver($0) }
    }

    /// Starts an announcement when speech is on, cutting the one being said short.
    private mutating func announce(_ announcement: Announcement, holding results: [ScanResult] = []) -> [KioskEffect] {
        guard settings.speech != nil else { return results.map { .deliver($0) } }
        let effects = cutAnnouncement()
        announcements += 1
        speaking = (announcements, results)
        // A held result is stored at read time: a kill during the announcement loses no read.
        return effects + results.map { .store($0) } + [.announce(id: announcements, announcement)]
    }

    /// Ends the announcement being said now; the results it held go out (never lost).
    private mutating func cutAnnouncement() -> [KioskEffect] {
        guard let s = speaking else { return [] }
        speaking = nil
        return [.cutAnnouncement(id: s.id)] + s.held.map { .deliver($0) }
    }

    // MARK: - Torch

    /// The torch as the session's mode wants it now: on, off, or (auto) left to the light.
    private mutating func sessionTorch() -> [KioskEffect] {
        switch torchMode {
        case .on: return torchOn()
        case .off: return torchOff()
        case .auto: return []
        }
    }

    private mutating func torchOn(automatic: Bool = false) -> [KioskEffect] {
        guard torch == .off || torch == .failed else { return [] }
        torch = .on
        if automatic { metrics.torchAutoOn += 1 } else { metrics.torchOn += 1 }
        framesToSkip = settings.framesSkippedAfterTorch
        return [.setTorch(on: true)] + (automatic ? [.log(.debug, "torch on: the viewport is dark")] : [])
    }

    /// Turns the torch off; `force` drives the line even when it is believed off (start, stop).
    private mutating func torchOff(force: Bool = false) -> [KioskEffect] {
        guard torch == .on || torch == .failed || (force && torch == .off) else { return [] }
        torch = .off
        framesToSkip = 0
        return [.setTorch(on: false)]
    }
}
