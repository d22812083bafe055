import Decoding
import Logging
import ScanCore
import ScanHardware
import Viewfinder
#if canImport(Glibc)
import Glibc
#endif

/// What reaches the kiosk loop from its children (button, capture, host link) and from outside.
public enum LoopInput: Sendable, Equatable {
    case kiosk(KioskEvent)
    /// A frame of `session` was decoded (on the decode thread) in `seconds`; `brightness`: the
    /// viewport's mean level, when the torch mode wants it.
    case decoded(session: Int, symbols: [Symbol], seconds: Double, brightness: Double? = nil)
    /// Capture for `session` (nil: a stream without a session, warm or watching) failed: the
    /// camera is in `state`; `message` is for the log.
    case captureFailed(session: Int?, state: CameraState, message: String)
    /// The speaker began announcement `id` (its first sample went out).
    case speechStarted(id: Int)
    /// The speaker ended announcement `id`.
    case speechEnded(id: Int, SpeechEnd)
    /// Guidance for the person aiming, from a frame of `session` that could not be read.
    case guidance(session: Int, [Advice])
}

/// The kiosk's decisions and their execution, one step at a time: the `KioskMachine`, the
/// `CameraSupervisor` and the `IndicatorPlayer` fed with inputs and timers, their effects carried
/// out on the hardware and the outputs. It has no threads and never reads a clock: every call
/// takes `now` (time since start), and `nextDeadline` says when it next wants `fireDue`. The
/// runtime calls it from one place at a time; tests drive it in virtual time.
///
/// Effects of a step are carried out against the state they were computed for: what a hardware
/// call reports back (a camera that fails to stream, a torch that cannot be driven) is queued and
/// handled after the step, never in its middle.
public final class KioskLoop {
    public private(set) var machine: KioskMachine
    private var supervisor = CameraSupervisor()
    private var player: IndicatorPlayer
    let hardware: KioskHardware
    public private(set) var tuning: KioskTuning
    let outputs: [any ResultOutput]
    let logger: Logger
    let onEvent: (@Sendable (String) -> Void)?
    let onStatus: (@Sendable (KioskStatus) -> Void)?
    /// Told what the capture child should do with frames from now on.
    var onCapture: ((CaptureWork) -> Void)?
    /// Where the speaker's reports go (from its own thread): they come back as `speechStarted`
    /// and `speechEnded` inputs. Without it, reports are dropped (announcements then end only
    /// by being cut).
    public var onSpeech: (@Sendable (LoopInput) -> Void)?
    /// When each announcement being said was asked for, and the last delay from there to the
    /// first sample.
    private var announced: [Int: Duration] = [:]
    public private(set) var lastSpeechDelay: Duration?
    /// Keep the stream on between sessions (`camera.keep_streaming`).
    let keepStreaming: Bool
    /// What the machine wants of the camera between sessions.
    private var duty = CameraDuty.idle
    /// Whether stream changes wait for the end of the current effect list, and the change it
    /// asked for meanwhile (true: it included a session's stop).
    private var deferStream = false
    private var streamChange: Bool?
    /// Whether the camera streams (`startCapture` succeeded and no stop since).
    private var streaming = false

    enum Timer: Hashable { case kiosk(KioskTimer), camera(CameraSupervisor.Timer), outputRetry }
    private var deadlines: [Timer: Duration] = [:]
    private var queue: [Step] = []
    private enum Step { case kiosk(KioskEvent), camera(CameraSupervisor.Input), loop(LoopInput) }
    private var now = Duration.zero
    private var changed = false
    private var stopped = false

    /// The session whose frames are wanted, if capture runs.
    public private(set) var capturing: Int?
    /// Viewers (a snapshot, the setup page's preview) that want frames: the stream runs for them.
    private var viewers = 0
    /// The frame rate asked of the camera: 0 the configured one, else the watching rate.
    private var rate = 0
    /// The camera refused a rate change: not asked again until it is reopened.
    private var rateRefused = false
    /// The session's guidance now (empty between sessions).
    public private(set) var guidance: [Advice] = []

    /// What the capture child does with frames now.
    public var work: CaptureWork {
        if let capturing { return .decode(session: capturing, watching: machine.settings.trigger == .presentation) }
        guard streaming else { return .none }
        return duty == .watch ? .watch : .drain
    }
    private var framesDecoded = 0
    private var decodeSeconds = 0.0
    /// When capture last made progress (started, or a frame decoded).
    private var lastProgress = Duration.zero
    /// What went wrong in the current step's hardware calls (for host answers).
    private var failures: [String] = []

    public init(hardware: KioskHardware, tuning: KioskTuning, outputs: [any ResultOutput], logger: Logger,
                patterns: FeedbackPatterns = .standard, firstSequence: Int = 1, keepStreaming: Bool = false,
                onStatus: (@Sendable (KioskStatus) -> Void)? = nil, onEvent: (@Sendable (String) -> Void)? = nil) {
        self.keepStreaming = keepStreaming
        machine = KioskMachine(settings: Self.settings(tuning, hardware), firstSequence: firstSequence)
        player = IndicatorPlayer(patterns: patterns)
        self.hardware = hardware
        self.tuning = tuning
        self.outputs = outputs
        self.logger = logger
        self.onStatus = onStatus
        self.onEvent = onEvent
    }

    // MARK: - Driving

    /// Outputs to their initial state, the camera opened; kept results go out first.
    public func start(now: Duration) {
        self.now = now
        run([.kiosk(.started), .camera(.start)])
        if outputs.contains(where: { $0.pendingCount > 0 }) { retryOutputs() }
        finishStep()
    }

    /// Handles one input and everything it leads to.
    public func handle(_ input: LoopInput, now: Duration) {
        self.now = max(self.now, now)
        run([.loop(input)])
        finishStep()
    }

    /// Fires the timers and pattern steps due by `now`, in deadline order.
    public func fireDue(now: Duration) {
        self.now = max(self.now, now)
        while !stopped {
            let due = deadlines.filter { $0.value <= now }.min { $0.value < $1.value }
            let step = player.nextDeadline.flatMap { $0 <= now ? $0 : nil }
            if let step, due.map({ step <= $0.value }) ?? true {
                apply(player.advance(to: step))
                continue
            }
            guard let (timer, _) = due else { break }
            deadlines[timer] = nil
            switch timer {
            case .kiosk(let t): run([.kiosk(.timerFired(t))])
            case .camera(let t): run([.camera(.timerFired(t))])
            case .outputRetry: retryOutputs()
            }
        }
        finishStep()
    }

    /// When the loop next wants `fireDue`.
    public var nextDeadline: Duration? {
        guard !stopped else { return nil }
        return [deadlines.values.min(), player.nextDeadline].compactMap { $0 }.min()
    }

    /// Graceful stop: capture off, torch, LED and buzzer off, camera closed. Nothing after it.
    public func stop(now: Duration) {
        guard !stopped else { return }
        self.now = max(self.now, now)
        run([.kiosk(.stopping), .camera(.stop)])
        apply(player.stop())
        deadlines = [:]
        stopped = true
        logger.notice("stopped")
        finishStep()
    }

    /// A viewer starts (`true`) or stops wanting frames; while any does, the camera streams
    /// (frames not decoded outside sessions), as for a warm camera.
    public func view(_ on: Bool, now: Duration) {
        self.now = max(self.now, now)
        viewers = max(0, viewers + (on ? 1 : -1))
        if !stopped { updateStream() }
        finishStep()
    }

    /// Applies new settings, viewport and decoder (SIGHUP, `SET`). Hardware stays as it is.
    public func reload(_ new: KioskTuning, now: Duration) {
        tuning = new
        handle(.kiosk(.settingsChanged(Self.settings(new, hardware))), now: now)
    }

    /// The machine's settings in `tuning`: with its same-symbol time, and without a torch when
    /// the hardware has no torch line.
    private static func settings(_ tuning: KioskTuning, _ hardware: KioskHardware) -> KioskSettings {
        var settings = tuning.settings
        settings.sameSymbolTimeout = tuning.sameSymbolTimeout
        settings.hasTorch = settings.hasTorch && hardware.torch != nil
        return settings
    }

    /// The answer to a host command other than `SET` (which the runtime applies through the
    /// config); nil for `SET`.
    public func answer(_ command: HostCommand, now: Duration) -> String? {
        self.now = max(self.now, now)
        failures = []
        switch command {
        case .trigger: handle(.kiosk(.hostTrigger), now: now); return "OK TRIGGER"
        case .stop: handle(.kiosk(.hostStop), now: now); return "OK STOP"
        case .torch(let mode):
            if let refusal = machine.refusal(of: .torchOverride(mode)) { return "ERR TORCH: " + refusal }
            handle(.kiosk(.torchOverride(mode)), now: now)
            let word = mode.map { $0.rawValue.uppercased() } ?? "DEFAULT"
            if let failure = failures.first { return "ERR TORCH \(word): \(failure)" }
            return "OK TORCH " + word
        case .beep:
            apply(player.feedback(.goodRead, now: now))
            finishStep()
            return "OK BEEP"
        case .status: return "OK STATUS " + status.json
        case .version: return nil
        case .set: return nil
        case .ack(let seq):
            return outputs.map({ $0.acknowledge(seq) }).contains(true)
                ? "OK ACK \(seq)" : "ERR ACK \(seq): no result \(seq) waits for an acknowledgement"
        }
    }

    /// Whether capture made progress within `stall` (a hung decoder or camera does not).
    public func isHealthy(now: Duration, stall: Duration) -> Bool {
        guard case .scanning = machine.phase, capturing != nil else { return true }
        return now - lastProgress < stall
    }

    /// The kiosk now.
    public var status: KioskStatus {
        KioskStatus(camera: machine.camera, torch: machine.torch, torchMode: machine.torchMode, phase: Self.name(machine.phase),
                    metrics: machine.metrics, framesDecoded: framesDecoded,
                    framesDropped: hardware.camera.droppedFrames, cameraReconnects: supervisor.reconnects,
                    decodeSeconds: decodeSeconds, duplicatesSuppressed: machine.metrics.repeatsHeldBack,
                    pendingResults: outputs.reduce(0) { $0 + $1.pendingCount },
                    outputCounts: outputs.reduce(OutputCounts()) { $0 + $1.counts },
                    connections: outputs.compactMap { o in o.connection.map { (o.name, $0) } }, guidance: guidance,
                    viewport: tuning.viewport)
    }

    // MARK: - Steps

    private func run(_ steps: [Step]) {
        queue += steps
        while !queue.isEmpty, !stopped {
            switch queue.removeFirst() {
            case .kiosk(let event):
                let effects = machine.handle(event)
                if !effects.isEmpty { changed = true }
                // A list that stops the stream and wants it again (a session that ends into
                // watching, a wake from watching) keeps the stream it has: the stream follows
                // the whole list instead of stopping and starting.
                deferStream = Self.restartsStream(effects)
                for effect in effects { perform(effect) }
                deferStream = false
                if let stopping = streamChange {
                    streamChange = nil
                    updateStream(stopping: stopping)
                }
            case .camera(let input):
                for effect in supervisor.handle(input) { perform(effect) }
            case .loop(let input):
                take(input)
            }
        }
    }

    /// Reports the status again (something outside the loop changed, e.g. a connection).
    public func refreshStatus() {
        changed = true
        finishStep()
    }

    private func finishStep() {
        guard changed else { return }
        changed = false
        onStatus?(status)
    }

    private func take(_ input: LoopInput) {
        switch input {
        case .kiosk(let event):
            queue.append(.kiosk(event))
        case .decoded(let session, let symbols, let seconds, let brightness):
            guard capturing == session else { return }
            framesDecoded += 1
            decodeSeconds += seconds
            lastProgress = now
            if !symbols.isEmpty, onEvent != nil {
                let located = symbols.map { s in
                    "{\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"corners\":[" + s.corners.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]}"
                }
                event("located", ["session": "\(session)", "codes": "[" + located.joined(separator: ",") + "]"])
            }
            queue.append(.kiosk(.decoded(session: session, symbols: symbols, at: now, brightness: brightness)))
        case .captureFailed(let session, let state, let message):
            guard capturing == session, streaming else { return }
            logger.error("camera \(hardware.camera.name): \(message)")
            queue.append(.camera(.failed(state)))
        case .speechStarted(let id):
            guard let asked = announced[id] else { return }
            lastSpeechDelay = now - asked
            logger.debug("announcement \(id): first sample \(lastSpeechDelay! / .milliseconds(1)) ms after it was asked for")
        case .guidance(let session, let advice):
            guard capturing == session, advice != guidance else { return }
            setGuidance(advice)
        case .speechEnded(let id, let end):
            announced[id] = nil
            if case .failed(let reason) = end { logger.error("speaker: announcement \(id) not said: \(reason)") }
            queue.append(.kiosk(.announcementEnded(id: id)))
        }
    }

    private func perform(_ effect: KioskEffect) {
        switch effect {
        case .setTorch(let on):
            event("torch", ["state": JSONText.string(on ? "on" : "off")])
            guard let torch = hardware.torch else { return }
            player.release(.torch) // a torch flash gives way to the kiosk's own use of the torch
            do {
                try torch.set(LineValue(on))
                logger.info("torch \(on ? "on" : "off")")
            } catch {
                logger.error("torch: \(error)")
                failures.append("\(error)")
                queue.append(.kiosk(.torchFailed))
            }
        case .startCapture(let session):
            event("scanning-started", ["session": "\(session)"])
            lastProgress = now
            capturing = session
            changeStream(stopping: false)
        case .stopCapture:
            event("scanning-stopped", [:])
            capturing = nil
            if !guidance.isEmpty { setGuidance([]) }
            changeStream(stopping: true)
        case .cameraDuty(let new):
            duty = new
            changeStream(stopping: false)
        case .feedback(let feedback, let flash):
            logger.info("feedback \(feedback.rawValue)")
            // A screen or a speaker can mirror what the buzzer and the LED do.
            let p = player.patterns
            event("feedback", ["outcome": JSONText.string(feedback.rawValue), "beep": Pattern.stepsJSON(p.buzzer[feedback]),
                               "tone_hz": p.tone[feedback].map(String.init) ?? "null",
                               "flash": Pattern.stepsJSON(flash ? p.ledFlash[feedback] : nil), "torch": Pattern.stepsJSON(p.torchFlash[feedback])])
            apply(player.feedback(feedback, flash: flash, now: now))
        case .announce(let id, let announcement):
            let text = tuning.phrases.text(for: announcement)
            logger.info("announcement \(id): \(text)")
            event("announcement", ["id": "\(id)", "kind": JSONText.string(announcement.kind), "text": JSONText.string(text)])
            guard let speaker = hardware.speaker else {
                queue.append(.kiosk(.announcementEnded(id: id)))
                return
            }
            announced[id] = now
            let report = onSpeech
            speaker.say(text, started: { report?(.speechStarted(id: id)) }, ended: { report?(.speechEnded(id: id, $0)) })
        case .cutAnnouncement(let id):
            announced[id] = nil
            logger.info("announcement \(id) cut short")
            hardware.speaker?.cutShort()
        case .indicate(let indication):
            logger.info("status LED \(indication.rawValue)")
            let led = player.patterns.status[indication]
            event("indication", ["state": JSONText.string(indication.rawValue), "led": Pattern.stepsJSON(led),
                                 "repeats": led?.repeats == true ? "true" : "false"])
            apply(player.indicate(indication, now: now))
        case .deliver(let result):
            deliver(result)
        case .startTimer(let timer, let after):
            deadlines[.kiosk(timer)] = now + after
        case .cancelTimer(let timer):
            deadlines[.kiosk(timer)] = nil
        case .log(let level, let message):
            logger.log(level: Self.level(level), "\(message)")
        }
    }

    private func perform(_ effect: CameraSupervisor.Effect) {
        switch effect {
        case .open:
            do {
                try hardware.camera.open()
                logger.notice("camera \(hardware.camera.name): \(hardware.camera.summary)")
                queue.append(.camera(.opened))
            } catch {
                logger.debug("camera: \(error)")
                queue.append(.camera(.openFailed(Self.cameraState(error))))
            }
        case .close:
            capturing = nil
            streaming = false
            rate = 0 // opening sets the configured rate again
            rateRefused = false
            hardware.camera.close()
            onCapture?(work)
        case .check:
            do { try hardware.camera.check() } catch {
                logger.error("camera \(hardware.camera.name): \(error)")
                queue.append(.camera(.failed(Self.cameraState(error))))
            }
        case .startTimer(let timer, let after):
            deadlines[.camera(timer)] = now + after
        case .cancelTimer(let timer):
            deadlines[.camera(timer)] = nil
        case .changed(let state):
            changed = true
            event("camera", ["state": JSONText.string(state.name)])
            queue.append(.kiosk(.cameraChanged(state)))
            if state.isAvailable { updateStream() } // a warm camera streams from the start
        }
    }

    private func setGuidance(_ advice: [Advice]) {
        guidance = advice
        changed = true
        if let first = advice.first { logger.info("guidance: \(first.message)") }
        event("guidance", ["advice": "[" + advice.map(\.json).joined(separator: ",") + "]"])
    }

    private func changeStream(stopping: Bool) {
        if deferStream { streamChange = (streamChange ?? false) || stopping } else { updateStream(stopping: stopping) }
    }

    /// Whether `effects` stop the stream and then want it again.
    static func restartsStream(_ effects: [KioskEffect]) -> Bool {
        guard let off = effects.firstIndex(where: { $0 == .stopCapture || $0 == .cameraDuty(.idle) }) else { return false }
        return effects[off...].contains { effect in
            if case .startCapture = effect { return true }
            return effect == .cameraDuty(.watch)
        }
    }

    /// Starts or stops the stream as the work needs it (a session, watching, a warm camera);
    /// `stopping`: a session's stop, which stops a stream nobody else needs even when it is
    /// believed stopped (safe: stopping is idempotent).
    private func updateStream(stopping: Bool = false) {
        let wanted = capturing != nil || duty == .watch || ((keepStreaming || viewers > 0) && supervisor.state.isAvailable)
        if wanted && !streaming {
            do {
                try hardware.camera.startCapture()
                streaming = true
            } catch {
                logger.error("camera \(hardware.camera.name): \(error)")
                capturing = nil
                queue.append(.camera(.failed(Self.cameraState(error))))
            }
        } else if !wanted && (streaming || stopping) {
            hardware.camera.stopCapture()
            streaming = false
        }
        updateRate()
        onCapture?(work)
    }

    /// Presentation mode: the camera watches at `watchFPS` while only the change detector (and no
    /// session, and no page) wants its frames, and runs at its configured rate otherwise.
    private func updateRate() {
        let watchFPS = machine.settings.watchFPS
        guard streaming, !rateRefused, watchFPS > 0 || rate != 0 else { return }
        let wanted = capturing == nil && duty == .watch && viewers == 0 ? watchFPS : 0
        guard wanted != rate else { return }
        do {
            let got = try hardware.camera.setFrameRate(wanted)
            rate = wanted
            logger.info("camera \(hardware.camera.name): \(got) fps\(wanted > 0 ? " while watching" : "")")
        } catch {
            rateRefused = true
            logger.notice("camera \(hardware.camera.name): watching at the full rate: \(error)")
        }
    }

    private func apply(_ changes: [IndicatorPlayer.Change]) {
        for change in changes {
            let line = switch change.channel {
            case .buzzer: hardware.buzzer
            case .statusLED: hardware.statusLED
            case .torch: hardware.torch
            }
            guard let line else { continue }
            do {
                if let pitch = change.pitch { try line.setPitch(pitch) }
                try line.set(change.value)
            } catch { logger.error("\(change.channel.rawValue): \(error)") }
        }
    }

    // MARK: - Results

    private func deliver(_ result: ScanResult) {
        let s = result.symbol
        let millis = Self.unixMillis()
        for output in outputs {
            do { try output.deliver(result, unixMillis: millis) } catch {
                logger.error("output \(output.name): \(error)")
            }
        }
        // After the outputs: a client that sees the event finds the result written (or kept).
        event("result", ["seq": "\(result.sequence)", "symbology": JSONText.string(s.symbology.rawValue),
                         "text": JSONText.string(s.text), "payload": PayloadClassifier.classify(s).json])
        scheduleRetry()
    }

    /// While any output keeps results, retries every second (quietly) until all are written.
    private func scheduleRetry() {
        guard deadlines[.outputRetry] == nil, outputs.contains(where: { $0.pendingCount > 0 }) else { return }
        deadlines[.outputRetry] = now + .seconds(1)
    }

    private func retryOutputs() {
        for output in outputs where output.pendingCount > 0 {
            let before = output.pendingCount
            do {
                try output.retry()
                if output.pendingCount == 0 { logger.notice("output \(output.name): \(before) kept result(s) delivered") }
            } catch {
                logger.debug("output \(output.name): retry failed: \(error)")
            }
        }
        changed = true
        scheduleRetry()
    }

    /// One JSON event for the event stream.
    private func event(_ type: String, _ fields: [String: String]) {
        guard let onEvent else { return }
        let body = fields.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value)" }
        onEvent("{\"event\":\(JSONText.string(type))" + (body.isEmpty ? "" : "," + body.joined(separator: ",")) + "}")
    }
}
