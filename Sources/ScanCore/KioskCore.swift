import ScanHardware

/// The whole kiosk as one pure state machine: the `KioskMachine` (sessions, trigger modes,
/// results), the `CameraSupervisor` (open, watch, reopen), the `CameraStream` (what the camera
/// streams and for whom), the `IndicatorPlayer` (buzzer, LED, torch flashes), the timers and
/// the counters. One `handle(_:now:)` per input returns what to do, in order; time is an input
/// and nothing here reads a clock, touches a device or keeps a thread.
///
/// What the runtime did comes back as inputs: an action marked in `Action` as answered "now"
/// (`startStream`, `setFrameRate`) is answered before the next action runs (the stream's rate
/// follows its start); every other answer, and every `followUp`, is handled after the current
/// input's actions, in the order they arose.
public struct KioskCore: Sendable {
    public enum Input: Equatable, Sendable {
        /// The runtime is up: outputs in their initial state, the camera to be opened.
        case start
        case kiosk(KioskEvent)
        /// A frame of `session` was decoded in `seconds` (`brightness`: the viewport's mean level).
        /// `frame`: the decoded frame's size, which the codes' corners are in (the `located`
        /// event carries it: frames of a session may differ in size). `deepLookFollows`: a first
        /// look that found nothing, whose frame gets the deep passes next (no code yet is not a
        /// frame without one). `fromDeepLook`: the deep passes' read of a frame whose first look
        /// was already counted (`framesDecoded` counts frames, not looks).
        case decoded(session: Int, symbols: [Symbol], seconds: Double, brightness: Double? = nil, frame: FrameSize? = nil,
                     deepLookFollows: Bool = false, fromDeepLook: Bool = false)
        /// The deep passes of a frame of `session` whose first look left it to them found nothing
        /// in `seconds` (or were spared: its scene was already found to hold nothing): the frame
        /// counts as one without a code.
        case deepLookFoundNothing(session: Int, seconds: Double)
        /// A scene of `session` held still, just ended, showed something else where `codes` were
        /// last read (`CapturePipeline`): they are out of view.
        case codesLeftView(session: Int, codes: [CodeIdentity])
        /// Capture for `session` (nil: a stream without a session) failed: the camera is in `state`.
        case captureFailed(session: Int?, state: CameraState, message: String)
        /// Guidance for the person aiming, from a frame of `session` that could not be read.
        case guidance(session: Int, [Advice])
        /// A viewer (a snapshot, the setup page's preview) starts or stops wanting frames.
        case view(Bool)
        /// New settings and announcement words (SIGHUP, `SET`).
        case reload(KioskSettings, SpeechPhrases)
        /// A host `BEEP`.
        case beep
        /// The speaker began announcement `id` / ended it.
        case speechStarted(id: Int)
        case speechEnded(id: Int, SpeechEnd)
        /// Answers of the runtime.
        case camera(CameraSupervisor.Input)
        case streamStarted(Bool)
        case rateSet(Int, took: Bool)
        /// The camera took focus mode `mode` (`took`), or has no such control.
        case focusSet(FocusMode, took: Bool)
        /// An autofocus cycle started (`took`), or the camera has no autofocus.
        case autofocusStarted(took: Bool)
        case torchFailed
        /// The outputs after a delivery or a retry: whether any still keeps results, and the room
        /// they have for new ones.
        case outputs(OutputsReport)
        /// A timed pattern step is due (from `takeDue`).
        case stepPatterns(Duration)
        /// The outputs' retry timer fired (from `takeDue`), or kept results wait at start.
        case retryOutputs
        /// The watchdog's period is over (from `takeDue`): ping it if the kiosk is healthy.
        case watchdogDue
        /// Graceful stop: everything off, nothing after it.
        case stop
        /// The stop's last step, after what the stop led to.
        case finishStop
    }

    public enum Action: Equatable, Sendable {
        /// Drive the torch line (failure: answer `torchFailed`, later).
        case setTorch(Bool)
        /// Drive a feedback line to a level (and the buzzer to a pitch first: nil inside is its own).
        case setLine(IndicatorPlayer.Channel, LineValue, pitch: Int??)
        /// Camera calls; `open` and `check` answer with `camera(...)`, later.
        case openCamera, closeCamera, checkCamera
        /// Answered now with `streamStarted`; a failure also with `camera(.failed)`, later.
        case startStream
        case stopStream
        /// Answered now with `rateSet`.
        case setFrameRate(Int)
        /// Put the open camera's lens in a mode (when it opens, and when the settings change);
        /// answered now with `focusSet`.
        case setFocus(FocusMode)
        /// Start one autofocus cycle; answered now with `autofocusStarted`.
        case startAutofocus
        case say(id: Int, text: String)
        case cutSpeech
        /// Store the result where the outputs keep results, not sending it yet (its
        /// announcement plays first); a `deliver` of it follows.
        case store(ScanResult)
        /// Hand the result to the outputs, then send `event` (a client that sees it finds the
        /// result written or kept); answer `outputs`, later.
        case deliver(ScanResult, event: String?)
        /// Retry what outputs keep (answer `outputs`, later).
        case retryOutputs
        /// Tell the service manager the kiosk is alive (`WATCHDOG=1`), after the output work
        /// asked for before it: a loop or an output that is stuck pings no more.
        case pingWatchdog
        case log(LogLevel, String)
        /// One JSON event line for the event stream.
        case event(String)
        /// An input to handle after this one's actions.
        case followUp(Input)
    }

    /// The timers the core keeps.
    public enum Timer: Hashable, Sendable { case kiosk(KioskTimer), camera(CameraSupervisor.Timer), outputRetry, watchdog }

    /// A running capture that made no progress for this long is stalled: the watchdog is not
    /// pinged.
    public static let captureStall = Duration.seconds(10)

    public private(set) var machine: KioskMachine
    public private(set) var supervisor = CameraSupervisor()
    public private(set) var stream: CameraStream
    private var player: IndicatorPlayer
    private var phrases: SpeechPhrases
    private var deadlines: [Timer: Duration] = [:]
    /// The number of the last outputs report taken (`OutputsReport.counted`).
    private var outputsCounted = 0
    /// Whether the runtime has a speaker (announcements without one end at once).
    public let hasSpeaker: Bool
    /// Whether event lines are wanted (building them costs a little).
    public let emitsEvents: Bool
    /// How often the watchdog is pinged (nil: no watchdog).
    public let watchdog: Duration?
    public private(set) var stopped = false
    /// Something the status shows changed since `takeChanged()`.
    private var changed = false
    /// When each announcement being said was asked for, and the last delay to its first sample.
    private var announced: [Int: Duration] = [:]
    public private(set) var lastSpeechDelay: Duration?
    /// The session's guidance now (empty between sessions).
    public private(set) var guidance: [Advice] = []
    public private(set) var framesDecoded = 0
    public private(set) var decodeSeconds = 0.0
    /// When capture last made progress (started, or a frame decoded).
    private var lastProgress = Duration.zero
    /// The focus mode asked of the camera since it opened (nil: closed, or not asked yet), and
    /// whether the camera took it.
    private var focus: (mode: FocusMode, took: Bool?)?
    /// The `camera.focus` setting already reported as having no effect (said once).
    private var focusReported: FocusSetting?
    /// Autofocus cycles started (one per press with `camera.focus = auto-on-press`).
    public private(set) var autofocusCycles = 0
    /// Reads and decode times per symbology, refusals, no-reads: from process start, kept
    /// across reloads.
    public private(set) var statistics = DecodeStatistics()

    public init(settings: KioskSettings, phrases: SpeechPhrases = SpeechPhrases(), patterns: FeedbackPatterns = .standard,
                firstSequence: Int = 1, keepStreaming: Bool = false, hasSpeaker: Bool = false, emitsEvents: Bool = true,
                watchdog: Duration? = nil) {
        machine = KioskMachine(settings: settings, firstSequence: firstSequence)
        stream = CameraStream(keepStreaming: keepStreaming)
        player = IndicatorPlayer(patterns: patterns)
        self.phrases = phrases
        self.hasSpeaker = hasSpeaker
        self.emitsEvents = emitsEvents
        self.watchdog = watchdog
    }

    /// What the capture child does with frames now.
    public var work: CaptureWork { stream.work(presentation: machine.settings.trigger == .presentation) }

    /// When the core next wants `takeDue(now:)`.
    public var nextDeadline: Duration? {
        guard !stopped else { return nil }
        return [deadlines.values.min(), player.nextDeadline].compactMap { $0 }.min()
    }

    /// Whether a running capture made progress within `stall` of `now`.
    public func isHealthy(now: Duration, stall: Duration) -> Bool {
        guard case .scanning = machine.phase, stream.capturing != nil else { return true }
        return now - lastProgress < stall
    }

    /// Whether the status changed since the last call (and forgets it).
    public mutating func takeChanged() -> Bool {
        defer { changed = false }
        return changed
    }

    /// The earliest timer or pattern step due by `now`, taken: hand it to `handle`. Pattern
    /// steps go first at equal times.
    public mutating func takeDue(now: Duration) -> Input? {
        guard !stopped else { return nil }
        let due = deadlines.filter { $0.value <= now }.min { $0.value < $1.value }
        if let step = player.nextDeadline, step <= now, due.map({ step <= $0.value }) ?? true { return .stepPatterns(step) }
        guard let (timer, _) = due else { return nil }
        deadlines[timer] = nil
        switch timer {
        case .kiosk(let t): return .kiosk(.timerFired(t))
        case .camera(let t): return .camera(.timerFired(t))
        case .outputRetry: return .retryOutputs
        case .watchdog: return .watchdogDue
        }
    }

    // MARK: - Inputs

    public mutating func handle(_ input: Input, now: Duration) -> [Action] {
        guard !stopped else { return [] }
        switch input {
        case .start:
            if let watchdog { deadlines[.watchdog] = now + watchdog }
            return kiosk(.started, now: now) + camera(.start, now: now)
        case .kiosk(let event):
            return kiosk(event, now: now)
        case .decoded(let session, let symbols, let seconds, let brightness, let frame, let deepLookFollows, let fromDeepLook):
            guard stream.capturing == session else { return [] }
            if !fromDeepLook { framesDecoded += 1 }
            decodeSeconds += seconds
            if !deepLookFollows || !symbols.isEmpty { statistics.frame(showing: symbols, at: now) }
            lastProgress = now
            var actions: [Action] = []
            if !symbols.isEmpty, emitsEvents {
                let located = symbols.map { s in
                    "{\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"corners\":[" + s.corners.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]}"
                }
                var fields = ["session": "\(session)", "codes": "[" + located.joined(separator: ",") + "]"]
                if let frame { fields["width"] = "\(frame.width)"; fields["height"] = "\(frame.height)" }
                actions += event("located", fields)
            }
            return actions + [.followUp(.kiosk(.decoded(session: session, symbols: symbols, at: now, brightness: brightness,
                                                       deepLookFollows: deepLookFollows)))]
        case .deepLookFoundNothing(let session, let seconds):
            // The frame counted at its first look; now it counts as one without a code.
            return handle(.decoded(session: session, symbols: [], seconds: seconds, fromDeepLook: true), now: now)
        case .codesLeftView(let session, let codes):
            guard stream.capturing == session else { return [] }
            return [.followUp(.kiosk(.codesLeftView(session: session, codes: codes, at: now)))]
        case .captureFailed(let session, let state, let message):
            guard stream.capturing == session, stream.streaming else { return [] }
            return [.log(.error, message), .followUp(.camera(.failed(state)))]
        case .guidance(let session, let advice):
            guard stream.capturing == session, advice != guidance else { return [] }
            return setGuidance(advice)
        case .view(let on):
            return streamActions(stream.view(on, watchFPS: watchFPS))
        case .reload(let settings, let phrases):
            self.phrases = phrases
            return kiosk(.settingsChanged(settings), now: now) + focusActions()
        case .beep:
            return lines(player.feedback(.goodRead, now: now))
        case .speechStarted(let id):
            guard let asked = announced[id] else { return [] }
            lastSpeechDelay = now - asked
            return [.log(.debug, "announcement \(id): first sample \(lastSpeechDelay! / .milliseconds(1)) ms after it was asked for")]
        case .speechEnded(let id, let end):
            announced[id] = nil
            var actions: [Action] = []
            if case .failed(let reason) = end { actions.append(.log(.error, "speaker: announcement \(id) not said: \(reason)")) }
            return actions + [.followUp(.kiosk(.announcementEnded(id: id)))]
        case .camera(let input):
            return camera(input, now: now)
        case .streamStarted(let ok):
            return streamActions(stream.started(ok, watchFPS: watchFPS))
        case .rateSet(let fps, let took):
            stream.rateSet(fps, took: took)
            return []
        case .focusSet(let mode, let took):
            guard focus?.mode == mode else { return [] }
            focus?.took = took
            guard took else { return noFocus() }
            return [.log(.info, "camera focus: \(Self.words(mode, trigger: machine.settings.trigger))")]
        case .autofocusStarted(let took):
            guard took else {
                if focus != nil { focus?.took = false }
                return noFocus()
            }
            autofocusCycles += 1
            changed = true
            return [.log(.debug, "autofocus cycle \(autofocusCycles) started")] + event("autofocus", ["cycles": "\(autofocusCycles)"])
        case .torchFailed:
            return kiosk(.torchFailed, now: now)
        case .outputs(let report):
            if let n = report.counted {
                guard n > outputsCounted else { return [] }
                outputsCounted = n
            }
            changed = true
            if report.pending, deadlines[.outputRetry] == nil { deadlines[.outputRetry] = now + .seconds(1) }
            return kiosk(.outputsRoom(report.room, through: report.through, full: report.full), now: now)
        case .retryOutputs:
            return [.retryOutputs]
        case .watchdogDue:
            guard let watchdog else { return [] }
            deadlines[.watchdog] = now + watchdog
            guard isHealthy(now: now, stall: Self.captureStall) else {
                return [.log(.error, "kiosk loop stalled: capture made no progress in \(Self.captureStall); watchdog not pinged")]
            }
            return [.pingWatchdog]
        case .stepPatterns(let at):
            return lines(player.advance(to: at))
        case .stop:
            return kiosk(.stopping, now: now) + camera(.stop, now: now) + [.followUp(.finishStop)]
        case .finishStop:
            deadlines = [:]
            stopped = true
            return lines(player.stop()) + [.log(.notice, "kiosk stopped")]
        }
    }

    // MARK: - The machines' effects as actions

    private var watchFPS: Int { machine.settings.watchFPS }

    private mutating func kiosk(_ event: KioskEvent, now: Duration) -> [Action] {
        let effects = machine.handle(event)
        if !effects.isEmpty { changed = true }
        // A list that stops the stream and wants it again keeps the stream it has: the stream
        // follows the whole list instead of stopping and starting.
        stream.begin(effects)
        var actions: [Action] = []
        for effect in effects { actions += perform(effect, now: now) }
        return actions + streamActions(stream.end(watchFPS: watchFPS))
    }

    private mutating func perform(_ effect: KioskEffect, now: Duration) -> [Action] {
        switch effect {
        case .setTorch(let on):
            player.release(.torch) // a torch flash gives way to the kiosk's own use of the torch
            return event("torch", ["state": JSONText.string(on ? "on" : "off")]) + [.setTorch(on)]
        case .autofocus:
            // Only a camera that took autofocus on request is asked for a cycle.
            guard let focus, focus.mode == .onRequest, focus.took == true else { return [] }
            return [.startAutofocus]
        case .startCapture(let session):
            lastProgress = now
            // A continuous session starts without a trigger: its reads are timed from sight.
            statistics.sessionStarted(at: now, triggered: machine.settings.trigger != .continuous)
            return event("scanning-started", ["session": "\(session)"]) + streamActions(stream.capture(session: session, watchFPS: watchFPS))
        case .stopCapture:
            return event("scanning-stopped", [:]) + (guidance.isEmpty ? [] : setGuidance([]))
                + streamActions(stream.stopCapture(watchFPS: watchFPS))
        case .cameraDuty(let duty):
            return streamActions(stream.duty(duty, watchFPS: watchFPS))
        case .feedback(let feedback, let flash):
            // The no-read and the cancel end a session without a read.
            if feedback == .noRead || feedback == .cancelled { statistics.endedWithoutRead(at: now) }
            let p = player.patterns
            return [.log(.debug, "feedback \(feedback.rawValue)")]
                + event("feedback", ["outcome": JSONText.string(feedback.rawValue), "beep": Pattern.stepsJSON(p.buzzer[feedback]),
                                     "tone_hz": p.tone[feedback].map(String.init) ?? "null",
                                     "flash": Pattern.stepsJSON(flash ? p.ledFlash[feedback] : nil), "torch": Pattern.stepsJSON(p.torchFlash[feedback])])
                + lines(player.feedback(feedback, flash: flash, now: now))
        case .announce(let id, let announcement):
            let text = phrases.text(for: announcement)
            var actions: [Action] = [.log(.debug, "announcement \(id): \(text)")]
            actions += event("announcement", ["id": "\(id)", "kind": JSONText.string(announcement.kind), "text": JSONText.string(text)])
            guard hasSpeaker else { return actions + [.followUp(.kiosk(.announcementEnded(id: id)))] }
            announced[id] = now
            return actions + [.say(id: id, text: text)]
        case .cutAnnouncement(let id):
            announced[id] = nil
            return [.log(.debug, "announcement \(id) cut short"), .cutSpeech]
        case .indicate(let indication):
            let led = player.patterns.status[indication]
            return [.log(.debug, "status LED \(indication.rawValue)")]
                + event("indication", ["state": JSONText.string(indication.rawValue), "led": Pattern.stepsJSON(led),
                                       "repeats": led?.repeats == true ? "true" : "false"])
                + lines(player.indicate(indication, now: now))
        case .store(let result):
            return [.store(result)]
        case .deliver(let result):
            let s = result.symbol
            return [.deliver(result, event: eventLine("result", ["seq": "\(result.sequence)", "symbology": JSONText.string(s.symbology.rawValue),
                                                                 "text": JSONText.string(s.text), "payload": PayloadClassifier.classify(s).json]))]
        case .read(let symbologies):
            statistics.read(symbologies, at: now)
            return []
        case .rejected(let s, let reason):
            statistics.refused(s.symbology)
            return event("rejected", ["symbology": JSONText.string(s.symbology.rawValue), "payload": JSONText.string(PayloadClassifier.classify(s).kind.rawValue),
                                      "bytes": "\(s.bytes.count)", "reason": JSONText.string(reason)])
        case .startTimer(let timer, let after):
            deadlines[.kiosk(timer)] = now + after
            return []
        case .cancelTimer(let timer):
            deadlines[.kiosk(timer)] = nil
            return []
        case .log(let level, let message):
            return [.log(level, message)]
        }
    }

    private mutating func camera(_ input: CameraSupervisor.Input, now: Duration) -> [Action] {
        var actions: [Action] = []
        for effect in supervisor.handle(input) {
            switch effect {
            case .open:
                actions.append(.openCamera)
            case .close:
                stream.closed()
                focus = nil
                actions.append(.closeCamera)
            case .check:
                actions.append(.checkCamera)
            case .startTimer(let timer, let after):
                deadlines[.camera(timer)] = now + after
            case .cancelTimer(let timer):
                deadlines[.camera(timer)] = nil
            case .changed(let state):
                changed = true
                actions += event("camera", ["state": JSONText.string(state.name)])
                actions.append(.followUp(.kiosk(.cameraChanged(state))))
                // A warm camera streams from the start.
                actions += streamActions(stream.cameraAvailable(state.isAvailable, watchFPS: watchFPS))
                // The lens as `camera.focus` wants it, once the camera is open.
                if state.isAvailable { actions += focusActions() } else { focus = nil }
            }
        }
        return actions
    }

    // MARK: - Focus

    /// The focus mode the settings want, asked of the open camera when it differs from the
    /// one asked for since it opened.
    private mutating func focusActions() -> [Action] {
        guard supervisor.state.isAvailable else { return [] }
        guard let wanted = machine.settings.focusMode, focus?.mode != wanted else { return [] }
        focus = (wanted, nil)
        return [.setFocus(wanted)]
    }

    /// A camera without the focus control `camera.focus` needs: said once, never an error
    /// (the camera keeps its lens where it is).
    private mutating func noFocus() -> [Action] {
        let setting = machine.settings.focus
        guard focusReported != setting else { return [] }
        focusReported = setting
        let lacks = setting == .fixed ? "no lens position control" : "no autofocus"
        return [.log(.notice, "camera has \(lacks): camera.focus = \(setting.rawValue) has no effect")]
    }

    /// What a focus mode does, for the log.
    static func words(_ mode: FocusMode, trigger: TriggerMode) -> String {
        switch mode {
        case .onRequest: return "one autofocus cycle per press"
        case .continuous: return "continuous autofocus" + (trigger == .presentation || trigger == .continuous ? " (scan.trigger = \(trigger.rawValue): no press)" : "")
        case .manual(let d): return "lens fixed at " + FocusMode.lensText(d)
        }
    }

    private mutating func setGuidance(_ advice: [Advice]) -> [Action] {
        guidance = advice
        changed = true
        return (advice.first.map { [.log(.debug, "guidance: \($0.message)")] } ?? [])
            + event("guidance", ["advice": "[" + advice.map(\.json).joined(separator: ",") + "]"])
    }

    private func streamActions(_ actions: [CameraStream.Action]) -> [Action] {
        actions.map { action in
            switch action {
            case .start: return .startStream
            case .stop: return .stopStream
            case .setRate(let fps): return .setFrameRate(fps)
            }
        }
    }

    private func lines(_ changes: [IndicatorPlayer.Change]) -> [Action] {
        changes.map { .setLine($0.channel, $0.value, pitch: $0.pitch) }
    }

    /// One JSON event line, its type first; nil when no one wants events.
    private func eventLine(_ type: String, _ fields: [String: String]) -> String? {
        guard emitsEvents else { return nil }
        let body = fields.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value)" }
        return "{\"event\":\(JSONText.string(type))" + (body.isEmpty ? "" : "," + body.joined(separator: ",")) + "}"
    }

    private func event(_ type: String, _ fields: [String: String]) -> [Action] {
        eventLine(type, fields).map { [.event($0)] } ?? []
    }
}

/// What the outputs keep, counted after output work (a delivery, a store, a retry).
public struct OutputsReport: Equatable, Sendable {
    /// Whether any output still keeps results (they are retried every second).
    public var pending: Bool
    /// How many more results the outputs take before one refuses a result (an outbox full
    /// under `outbox.policy = reject-new`); nil: none ever refuses.
    public var room: Int?
    /// The newest result the outputs had taken in (delivered or stored) when this was counted;
    /// 0 for none.
    public var through: Int
    /// The outputs that take no new result now (room 0), by name: what the kiosk names when it
    /// refuses a press for them.
    public var full: [String]
    /// Its number in the order the reports were counted (they reach the core from several
    /// threads, not always in that order): one counted before a report already taken is out
    /// of date and left out. nil: always taken.
    public var counted: Int?
    public init(pending: Bool, room: Int? = nil, through: Int = 0, full: [String] = [], counted: Int? = nil) {
        self.pending = pending
        self.room = room
        self.through = through
        self.full = full
        self.counted = counted
    }
}

/// A frame's size in pixels.
public struct FrameSize: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
}
