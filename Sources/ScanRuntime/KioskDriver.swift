import Dispatch
import Logging
import Delivery
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Carries out the pure `KioskCore`'s actions on the hardware and the outputs, and hands their
/// answers back: the one place where the kiosk's decisions meet devices. It decides nothing and
/// reads no clock: every call takes `now`. The runtime calls it from its actor, `VirtualKiosk`
/// from the test's thread; one caller at a time.
public final class KioskDriver {
    public private(set) var core: KioskCore
    let hardware: KioskHardware
    public private(set) var tuning: KioskTuning
    let outputs: [any ResultOutput]
    let logger: Logger
    let onEvent: (@Sendable (String) -> Void)?
    let onStatus: (@Sendable (KioskStatus) -> Void)?
    /// Where the speaker's reports go (from its own thread): they come back as `speechStarted`
    /// and `speechEnded` inputs.
    public var onSpeech: (@Sendable (KioskCore.Input) -> Void)?
    /// Where output work runs (outbox writes and their fsync, port writes): on this queue, its
    /// answers through `onOutputs`, so that a slow disk or port never holds up the next button
    /// edge; nil: inline, its answers handled at once (virtual time).
    public var outputQueue: DispatchQueue?
    public var onOutputs: (@Sendable (KioskCore.Input) -> Void)?
    /// Pings the service manager's watchdog (`WATCHDOG=1`): called on the output queue when the
    /// core asks, so that neither a stuck loop nor a stuck output pings.
    public var onWatchdog: (@Sendable () -> Void)?
    private var now = Duration.zero
    /// The newest result handed to the outputs (on the output queue), for their reports.
    private let taken = Locked(0)
    /// The outputs whose outboxes were full at the last report.
    private let fullOutputs = Locked<Set<String>>([])
    /// Reports counted so far: each is counted under this lock and numbered, so that the core
    /// can tell one counted earlier that reaches it later.
    private let reportsCounted = Locked(0)
    /// What went wrong in the current input's hardware calls (for host answers).
    private var failures: [String] = []

    public init(hardware: KioskHardware, tuning: KioskTuning, outputs: [any ResultOutput], logger: Logger,
                patterns: FeedbackPatterns = .standard, firstSequence: Int = 1, keepStreaming: Bool = false, watchdog: Duration? = nil,
                onStatus: (@Sendable (KioskStatus) -> Void)? = nil, onEvent: (@Sendable (String) -> Void)? = nil) {
        core = KioskCore(settings: Self.settings(tuning, hardware), phrases: tuning.phrases, patterns: patterns,
                         firstSequence: firstSequence, keepStreaming: keepStreaming, hasSpeaker: hardware.speaker != nil,
                         emitsEvents: onEvent != nil, watchdog: watchdog)
        self.hardware = hardware
        self.tuning = tuning
        self.outputs = outputs
        self.logger = logger
        self.onStatus = onStatus
        self.onEvent = onEvent
    }

    /// The machine's settings in `tuning`, without a torch when the hardware has no torch line.
    private static func settings(_ tuning: KioskTuning, _ hardware: KioskHardware) -> KioskSettings {
        var settings = tuning.settings
        settings.hasTorch = settings.hasTorch && hardware.torch != nil
        return settings
    }

    // MARK: - Driving

    /// Outputs to their initial state, the camera opened; kept results go out first.
    public func start(now: Duration) {
        run(.outputs(outputsReport()), now: now) // outboxes kept full from the last run refuse at once
        // A broker's acknowledgement frees room between deliveries: reported at once (a tryout:
        // an MQTT outbox of capacity 1 stayed full until the next second's retry).
        if let report = onOutputs {
            let counted = outputsReport
            for output in outputs { output.whenDelivered { report(.outputs(counted())) } }
        }
        run(.start, now: now)
        if outputs.contains(where: { $0.pendingCount > 0 }) { run(.retryOutputs, now: now) }
    }

    /// Handles one input and everything it leads to.
    public func handle(_ input: KioskCore.Input, now: Duration) {
        run(input, now: now)
    }

    /// Fires the timers and pattern steps due by `now`, in deadline order.
    public func fireDue(now: Duration) {
        self.now = max(self.now, now)
        while let due = core.takeDue(now: self.now) { run(due, now: self.now) }
    }

    /// When the core next wants `fireDue`.
    public var nextDeadline: Duration? { core.nextDeadline }

    /// What the capture child does with frames now.
    public var work: CaptureWork { core.work }

    /// A viewer starts (`true`) or stops wanting frames; while any does, the camera streams
    /// (frames not decoded outside sessions), as for a warm camera.
    public func view(_ on: Bool, now: Duration) {
        run(.view(on), now: now)
    }

    /// Graceful stop: capture off, torch, LED and buzzer off, camera closed. Nothing after it.
    public func stop(now: Duration) {
        guard !core.stopped else { return }
        run(.stop, now: now)
    }

    /// Applies new settings, viewport and decoder (SIGHUP, `SET`). Hardware stays as it is.
    public func reload(_ new: KioskTuning, now: Duration) {
        tuning = new
        run(.reload(Self.settings(new, hardware), new.phrases), now: now)
    }

    /// The answer to a host command other than `SET` and `VERSION` (which the runtime answers).
    public func answer(_ command: HostCommand, now: Duration, door: PressSource = .host) -> String? {
        failures = []
        switch command {
        case .trigger:
            // With the camera unavailable or the outputs full a trigger starts no session (it is
            // counted as an error and beeps as one): the host is told so, not OK.
            let refusal = core.machine.triggerRefusal
            run(.kiosk(.hostTrigger(from: door)), now: now)
            if let refusal { return HostCommandError("TRIGGER", refusal).answer }
            return "OK TRIGGER"
        case .stop: run(.kiosk(.hostStop), now: now); return "OK STOP"
        case .torch(let mode):
            if let refusal = core.machine.refusal(of: .torchOverride(mode)) { return HostCommandError("TORCH", refusal).answer }
            run(.kiosk(.torchOverride(mode)), now: now)
            let word = mode.map { $0.rawValue.uppercased() } ?? "DEFAULT"
            if let failure = failures.first { return HostCommandError("TORCH", "\(word): \(failure)").answer }
            return "OK TORCH " + word
        case .beep: run(.beep, now: now); return "OK BEEP"
        case .status: return "OK STATUS " + status.json
        case .version, .set: return nil
        case .ack(let seq):
            guard outputs.map({ $0.acknowledge(seq) }).contains(true) else {
                return HostCommandError("ACK", "no result \(seq) waits for an acknowledgement").answer
            }
            run(.outputs(outputsReport()), now: now) // its room is free now (full outputs take presses again)
            return "OK ACK \(seq)"
        }
    }

    /// Reports the status again (something outside the kiosk changed, e.g. a connection).
    public func refreshStatus() { onStatus?(status) }

    /// The kiosk now.
    public var status: KioskStatus {
        let machine = core.machine
        return KioskStatus(camera: machine.camera, torch: machine.torch, torchMode: machine.torchMode, phase: Self.name(machine.phase),
                           metrics: machine.metrics, framesDecoded: core.framesDecoded,
                           framesDropped: hardware.camera.droppedFrames, cameraReconnects: core.supervisor.reconnects,
                           decodeSeconds: core.decodeSeconds, duplicatesSuppressed: machine.metrics.repeatsHeldBack,
                           pendingResults: outputs.reduce(0) { $0 + $1.pendingCount }, outputsFull: machine.outputsFull,
                           fullOutputs: machine.outputsFull ? machine.fullOutputs : [],
                           outputCounts: outputs.reduce(OutputCounts()) { $0 + $1.counts },
                           connections: outputs.compactMap { o in o.connection.map { (o.name, $0) } }, guidance: core.guidance,
                           viewport: tuning.viewport, focus: core.machine.settings.focusInEffect, autofocusCycles: core.autofocusCycles,
                           decoding: core.statistics)
    }

    // MARK: - Steps

    /// `input`, then every answer and follow-up it leads to, in the order they arose.
    private func run(_ input: KioskCore.Input, now: Duration) {
        self.now = max(self.now, now)
        var queue = [input]
        while !queue.isEmpty {
            var actions = core.handle(queue.removeFirst(), now: self.now)[...]
            while let action = actions.popFirst() {
                if case .followUp(let next) = action { queue.append(next); continue }
                for answer in perform(action) {
                    switch answer {
                    case .now(let input): actions = (core.handle(input, now: self.now) + actions)[...]
                    case .later(let input): queue.append(input)
                    }
                }
            }
        }
        if core.takeChanged() { onStatus?(status) }
    }

    private enum Answer { case now(KioskCore.Input), later(KioskCore.Input) }

    private func perform(_ action: KioskCore.Action) -> [Answer] {
        let camera = hardware.camera
        switch action {
        case .setTorch(let on):
            guard let torch = hardware.torch else { return [] }
            do {
                try torch.set(LineValue(on))
                logger.debug("torch \(on ? "on" : "off")")
                return []
            } catch {
                logger.error("torch: \(error)")
                failures.append("\(error)")
                return [.later(.torchFailed)]
            }
        case .setLine(let channel, let value, let pitch):
            let line = switch channel {
            case .buzzer: hardware.buzzer
            case .statusLED: hardware.statusLED
            case .torch: hardware.torch
            }
            guard let line else { return [] }
            do {
                if let pitch { try line.setPitch(pitch) }
                try line.set(value)
            } catch { logger.error("\(channel.rawValue): \(error)") }
            return []
        case .openCamera:
            do {
                try camera.open()
                logger.notice("camera \(camera.name): \(camera.summary)")
                return [.later(.camera(.opened))]
            } catch {
                logger.debug("camera: \(error)")
                return [.later(.camera(.openFailed(Self.cameraState(error))))]
            }
        case .closeCamera:
            camera.close()
            return []
        case .checkCamera:
            do { try camera.check() } catch {
                logger.error("camera \(camera.name): \(error)")
                return [.later(.camera(.failed(Self.cameraState(error))))]
            }
            return []
        case .startStream:
            do {
                try camera.startCapture()
                return [.now(.streamStarted(true))]
            } catch {
                logger.error("camera \(camera.name): \(error)")
                return [.now(.streamStarted(false)), .later(.camera(.failed(Self.cameraState(error))))]
            }
        case .stopStream:
            camera.stopCapture()
            return []
        case .setFrameRate(let fps):
            // A camera that cannot change its rate says so once; it keeps the rate it has.
            do {
                let got = try camera.setFrameRate(fps)
                logger.debug("camera \(camera.name): \(got) fps\(fps > 0 ? " while watching" : "")")
                return [.now(.rateSet(fps, took: true))]
            } catch {
                logger.notice("camera \(camera.name): watching at the full rate: \(error)")
                return [.now(.rateSet(fps, took: false))]
            }
        case .setFocus(let mode):
            return lensStep("focus not set", { () throws(HardwareError) in try camera.setFocus(mode) }) { .focusSet(mode, took: $0) }
        case .startAutofocus:
            return lensStep("no autofocus cycle", { () throws(HardwareError) in try camera.startAutofocus() }) { .autofocusStarted(took: $0) }
        case .say(let id, let text):
            let report = onSpeech
            hardware.speaker?.say(text, started: { report?(.speechStarted(id: id)) }, ended: { report?(.speechEnded(id: id, $0)) })
            return []
        case .cutSpeech:
            hardware.speaker?.cutShort()
            return []
        case .deliver(let result, let event):
            let (outputs, logger, onEvent, taken) = (self.outputs, self.logger, self.onEvent, self.taken)
            return onOutputQueue {
                let millis = Self.unixMillis()
                for output in outputs {
                    do { try output.deliver(result, unixMillis: millis) } catch {
                        logger.error("output \(output.name): \(error)")
                    }
                }
                taken.withLock { $0 = max($0, result.sequence) }
                if let event { onEvent?(event) }
            }
        case .store(let result):
            // On the output queue like every write: before the `deliver` that follows it.
            let (outputs, logger, taken) = (self.outputs, self.logger, self.taken)
            let work: @Sendable () -> Void = {
                let millis = Self.unixMillis()
                for output in outputs {
                    do { try output.hold(result, unixMillis: millis) } catch {
                        logger.error("output \(output.name): result \(result.sequence) not stored before its announcement: \(error)")
                    }
                }
                taken.withLock { $0 = max($0, result.sequence) }
            }
            if let queue = outputQueue { queue.async(execute: work) } else { work() }
            return []
        case .retryOutputs:
            let (outputs, logger) = (self.outputs, self.logger)
            return onOutputQueue {
                for output in outputs where output.pendingCount > 0 {
                    let before = output.pendingCount
                    do {
                        try output.retry()
                        if output.pendingCount == 0 { logger.notice("output \(output.name): \(before) kept result(s) delivered") }
                    } catch {
                        logger.debug("output \(output.name): retry failed: \(error)")
                    }
                }
            }
        case .pingWatchdog:
            guard let ping = onWatchdog else { return [] }
            if let queue = outputQueue { queue.async(execute: ping) } else { ping() }
            return []
        case .log(let level, let message):
            logger.log(level: Self.level(level), "\(message)")
            return []
        case .event(let line):
            onEvent?(line)
            return []
        case .followUp:
            return [] // queued by `run`
        }
    }

    /// Runs output `work` where outputs are written, answering with what they keep after it.
    private func onOutputQueue(_ work: @escaping @Sendable () -> Void) -> [Answer] {
        guard let queue = outputQueue, let report = onOutputs else {
            work()
            return [.later(.outputs(outputsReport()))]
        }
        let counted = outputsReport
        queue.async {
            work()
            report(.outputs(counted()))
        }
        return []
    }

    /// What the outputs keep now, and the newest result they took in (on the output queue:
    /// after the work that came before), and the outputs without room by name. An output whose
    /// outbox has just filled is named in the debug log with what it keeps.
    private var outputsReport: @Sendable () -> OutputsReport {
        let (outputs, taken, full, logger, counted) = (self.outputs, self.taken, self.fullOutputs, self.logger, self.reportsCounted)
        // One report at a time, numbered: the output queue's report after a write and the
        // broker's thread's after a PUBACK race to the core, and the one counted before the
        // PUBACK could arrive last and leave the kiosk full for good (a CI run: an empty outbox
        // of one shown full, every press refused).
        return { counted.withLock { order in
            order += 1
            // `through` first: a result the output queue takes meanwhile is then counted as not
            // yet taken, and its room stays taken (never the other way round).
            let through = taken.withLock { $0 }
            let rooms = outputs.map(\.room)
            let filled = zip(outputs, rooms).filter { $0.1 == 0 }.map(\.0)
            let before = full.withLock { f in defer { f = Set(filled.map(\.name)) }; return f }
            for output in filled where !before.contains(output.name) {
                // At debug: an outbox of one fills with every result until the host's ACK, and
                // a full outbox the kiosk shows is named by its own warning (a tryout: a warning
                // per read of a run whose host acknowledged each at once).
                logger.debug("output \(output.name): its outbox is full: \(output.pendingCount) result(s) not delivered or acknowledged yet (outbox.capacity; outbox.policy = reject-new)")
            }
            return OutputsReport(pending: outputs.contains { $0.pendingCount > 0 }, room: rooms.compactMap { $0 }.min(), through: through,
                                 full: filled.map(\.name), counted: order)
        } }
    }

    // MARK: - Names

    static func unixMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// The camera state a driver error means.
    public static func cameraState(_ error: any Error) -> CameraState {
        guard let e = error as? HardwareError else { return .unavailable(reason: "\(error)") }
        switch e.kind {
        case .busy: return .inUse
        case .permissionDenied: return .permissionDenied
        case .disconnected: return .disconnected
        case .notFound: return .unavailable(reason: "\(e.device) not found" + (e.hint.map { "; \($0)" } ?? ""))
        default: return .unavailable(reason: e.description)
        }
    }

    /// A lens request and its answer to the core. A camera without the control (`invalidFormat`:
    /// ENOTSUP, EINVAL) is answered `took: false`, and the core says so once, never an error.
    /// Any other failure is the device's, which the stream and the presence check report; the
    /// lens is asked again when the camera reopens.
    private func lensStep(_ failure: String, _ request: () throws(HardwareError) -> Void,
                          answer: (Bool) -> KioskCore.Input) -> [Answer] {
        do {
            try request()
            return [.now(answer(true))]
        } catch where error.kind == .invalidFormat {
            logger.debug("camera \(hardware.camera.name): \(error)")
            return [.now(answer(false))]
        } catch {
            logger.warning("camera \(hardware.camera.name): \(failure): \(error)")
            return []
        }
    }

    static func name(_ phase: KioskMachine.Phase) -> String {
        switch phase {
        case .idle: return "idle"
        case .watching: return "watching"
        case .scanning: return "scanning"
        case .awaitingConfirmation: return "awaiting-confirmation"
        case .stopped: return "stopped"
        }
    }

    /// The swift-log level for a config log level.
    public static func level(_ level: LogLevel) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .notice: return .notice
        case .warning: return .warning
        case .error: return .error
        }
    }
}
