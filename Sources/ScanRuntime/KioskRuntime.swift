import Decoding
import Logging
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// The board as the kiosk sees it. Any line may be missing: it is then never driven.
public struct KioskHardware: Sendable {
    public var camera: any FrameSource
    public var button: (any Button)?
    public var torch: (any OutputLine)?
    public var buzzer: (any OutputLine)?
    public var statusLED: (any OutputLine)?

    public init(camera: any FrameSource, button: (any Button)? = nil, torch: (any OutputLine)? = nil,
                buzzer: (any OutputLine)? = nil, statusLED: (any OutputLine)? = nil) {
        self.camera = camera
        self.button = button
        self.torch = torch
        self.buzzer = buzzer
        self.statusLED = statusLED
    }
}

/// What the runtime can change on a reload (SIGHUP) without reopening hardware.
public struct KioskTuning: Sendable {
    public var settings: KioskSettings
    public var viewport: Viewport
    public var decoder: any BarcodeDecoder
    /// The same code again within this time is not reported twice.
    public var sameSymbolTimeout: Duration
    public init(settings: KioskSettings, viewport: Viewport, decoder: any BarcodeDecoder, sameSymbolTimeout: Duration = .zero) {
        self.settings = settings
        self.viewport = viewport
        self.decoder = decoder
        self.sameSymbolTimeout = sameSymbolTimeout
    }
}

/// A snapshot of the kiosk for `scand status` and the status file.
public struct KioskStatus: Sendable, Equatable {
    public var camera: CameraState
    public var torch: TorchState
    public var phase: String
    public var metrics: KioskMetrics
    public var framesDecoded: Int
    public var framesDropped: Int
    public var cameraReconnects: Int
    /// Seconds spent decoding frames, in all.
    public var decodeSeconds: Double
    /// Results reported as the same code within the same-symbol time and not delivered again.
    public var duplicatesSuppressed: Int
    /// Results waiting in output outboxes.
    public var pendingResults: Int
    /// Results an outbox file could not take (kept in memory and sent) and results parked
    /// because an output can never carry them, over all outputs.
    public var outputCounts = OutputCounts()

    /// One JSON object.
    public var json: String {
        let m = metrics
        return "{\"camera\":\(JSONText.string(camera.name)),\"cameraDetail\":\(JSONText.string(camera.description)),"
            + "\"torch\":\(JSONText.string(torch.rawValue)),\"phase\":\(JSONText.string(phase)),"
            + "\"presses\":\(m.presses),\"goodReads\":\(m.goodReads),\"closedWithoutScan\":\(m.closedWithoutScan),"
            + "\"errors\":\(m.errors),\"torchOn\":\(m.torchOn),\"confirmationsExpired\":\(m.confirmationsExpired),"
            + "\"framesDecoded\":\(framesDecoded),\"framesDropped\":\(framesDropped),\"cameraReconnects\":\(cameraReconnects),"
            + "\"decodeSeconds\":\(JSONText.number(decodeSeconds, decimals: 4)),\"duplicatesSuppressed\":\(duplicatesSuppressed),"
            + "\"pendingResults\":\(pendingResults),\"resultsNotStored\":\(outputCounts.notStored),\"resultsParked\":\(outputCounts.parked)}"
    }
}

/// The kiosk service: feeds driver events into the `KioskMachine` and carries out its effects,
/// with timers on an injected clock. One instance per daemon.
public actor KioskRuntime {
    private var machine: KioskMachine
    private let hardware: KioskHardware
    private var tuning: KioskTuning
    let outputs: [any ResultOutput]
    let clock: any Clock<Duration>
    let logger: Logger
    private let patterns: FeedbackPatterns
    let onStatus: (@Sendable (KioskStatus) -> Void)?

    private var timers: [KioskTimer: (generation: Int, task: Task<Void, Never>)] = [:]
    private var timerGeneration = 0
    private var capture: Task<Void, Never>?
    private var reopen: Task<Void, Never>?
    private var players: [String: Task<Void, Never>] = [:]
    private var statusPattern = Pattern.steady(.inactive)
    private var flashing = false
    private var tasks: [Task<Void, Never>] = []
    private var framesDecoded = 0
    /// When the capture loop last made progress (a frame decoded or capture started).
    private var lastProgress: Duration = .zero
    private var decodeSeconds = 0.0
    private var cameraReconnects = 0
    var duplicates = 0
    var sameSymbol: SameSymbolFilter
    var retry: Task<Void, Never>?
    /// Time since the runtime started, on its clock.
    let elapsed: @Sendable () -> Duration
    let onEvent: (@Sendable (String) -> Void)?
    /// The camera state last sent as an event: a retry that finds the same state says nothing.
    private var cameraEventState: String?
    /// The camera was lost since it was last open (a reopen then counts as a reconnect).
    private var cameraWasLost: Bool { cameraEventState.map { $0 != "available" } ?? false }
    private var finished: CheckedContinuation<Void, Never>?
    var stopped = false

    public init(hardware: KioskHardware, tuning: KioskTuning, outputs: [any ResultOutput],
                clock: any Clock<Duration> = ContinuousClock(), logger: Logger,
                patterns: FeedbackPatterns = .standard, firstSequence: Int = 1,
                onStatus: (@Sendable (KioskStatus) -> Void)? = nil, onEvent: (@Sendable (String) -> Void)? = nil) {
        self.machine = KioskMachine(settings: tuning.settings, firstSequence: firstSequence)
        self.sameSymbol = SameSymbolFilter(window: tuning.sameSymbolTimeout)
        self.elapsed = Self.elapsedTime(on: clock)
        self.onEvent = onEvent
        self.hardware = hardware
        self.tuning = tuning
        self.outputs = outputs
        self.clock = clock
        self.logger = logger
        self.patterns = patterns
        self.onStatus = onStatus
    }

    /// Runs until `stop()`: opens the camera (retrying with backoff while it is missing),
    /// listens to the button, and serves scan sessions.
    public func run() async {
        handle(.started)
        // Results kept from before a restart go out first.
        if outputs.contains(where: { $0.pendingCount > 0 }) { retryOutputs() }
        openCamera(attempt: 0)
        if let button = hardware.button {
            tasks.append(Task { [weak self] in
                for await event in button.events() {
                    await self?.handle(event.edge == .pressed ? .buttonPressed : .buttonReleased)
                }
            })
        }
        await withCheckedContinuation { finished = $0 }
    }

    /// Graceful stop (SIGTERM): capture off, torch off, LED and buzzer off, `run()` returns.
    public func stop() {
        guard !stopped else { return }
        handle(.stopping)
        stopped = true
        reopen?.cancel()
        retry?.cancel()
        for task in tasks { task.cancel() }
        for (_, player) in players { player.cancel() }
        players = [:]
        flashing = false
        try? hardware.buzzer?.set(.inactive)
        try? hardware.statusLED?.set(.inactive)
        hardware.camera.close()
        logger.notice("stopped")
        finished?.resume()
        finished = nil
    }

    /// Applies new settings, viewport and decoder (SIGHUP). Hardware stays as it is.
    public func reload(_ new: KioskTuning) {
        tuning = new
        sameSymbol.window = new.sameSymbolTimeout
        handle(.settingsChanged(new.settings))
    }

    /// Feeds one event from outside (a host trigger, the demo's Enter key).
    public func send(_ event: KioskEvent) { handle(event) }

    /// The good-read beep, on request (host `BEEP`).
    func beep() { perform(.feedback(.goodRead)) }

    func addTask(_ task: Task<Void, Never>) { tasks.append(task) }

    func logHostError(_ message: String) { logger.warning("\(message)") }

    /// The kiosk now.
    public var status: KioskStatus {
        KioskStatus(camera: machine.camera, torch: machine.torch, phase: Self.name(machine.phase),
                    metrics: machine.metrics, framesDecoded: framesDecoded,
                    framesDropped: hardware.camera.droppedFrames, cameraReconnects: cameraReconnects,
                    decodeSeconds: decodeSeconds, duplicatesSuppressed: duplicates,
                    pendingResults: outputs.reduce(0) { $0 + $1.pendingCount },
                    outputCounts: outputs.reduce(OutputCounts()) { $0 + $1.counts })
    }

    // MARK: - The loop

    private func handle(_ event: KioskEvent) {
        guard !stopped else { return }
        let effects = machine.handle(event)
        for effect in effects { perform(effect) }
        if !effects.isEmpty { onStatus?(status) }
    }

    private func perform(_ effect: KioskEffect) {
        switch effect {
        case .setTorch(let on):
            event("torch", ["state": JSONText.string(on ? "on" : "off")])
            guard let torch = hardware.torch else { return }
            do { try torch.set(LineValue(on)) } catch { logger.error("torch: \(error)") }
            logger.info("torch \(on ? "on" : "off")")
        case .startCapture(let session):
            event("scanning-started", ["session": "\(session)"])
            startCapture(session)
        case .stopCapture:
            event("scanning-stopped", [:])
            capture?.cancel()
            capture = nil
            hardware.camera.stopCapture()
        case .feedback(let feedback):
            logger.info("feedback \(feedback.rawValue)")
            if let p = patterns.buzzer[feedback] { play(hardware.buzzer, role: "buzzer", p) }
            if let p = patterns.ledFlash[feedback] {
                flashing = true
                play(hardware.statusLED, role: "status_led", p) { await $0.flashEnded() }
            }
        case .indicate(let indication):
            logger.info("status LED \(indication.rawValue)")
            statusPattern = patterns.status[indication] ?? .steady(.inactive)
            // A running flash finishes first; the LED then shows the newest indication.
            if !flashing { play(hardware.statusLED, role: "status_led", statusPattern) }
        case .deliver(let result):
            deliver(result)
        case .startTimer(let timer, let after):
            startTimer(timer, after: after)
        case .cancelTimer(let timer):
            timers.removeValue(forKey: timer)?.task.cancel()
        case .log(let level, let message):
            logger.log(level: Self.level(level), "\(message)")
        }
    }

    // MARK: - Timers

    private func startTimer(_ timer: KioskTimer, after: Duration) {
        timers[timer]?.task.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        let clock = self.clock
        let task = Task { [weak self] in
            do { try await clock.sleep(for: after) } catch { return }
            await self?.timerFired(timer, generation: generation)
        }
        timers[timer] = (generation, task)
    }

    private func timerFired(_ timer: KioskTimer, generation: Int) {
        guard timers[timer]?.generation == generation else { return } // cancelled or restarted
        timers[timer] = nil
        handle(.timerFired(timer))
    }

    // MARK: - Camera

    private func openCamera(attempt: Int) {
        do {
            try hardware.camera.open()
            if cameraWasLost { cameraReconnects += 1 }
            cameraEvent("available")
            handle(.cameraChanged(.available))
        } catch {
            cameraLost(error, attempt: attempt)
        }
    }

    private func cameraEvent(_ state: String) {
        guard state != cameraEventState else { return }
        cameraEventState = state
        event("camera", ["state": JSONText.string(state)])
    }

    /// Reports the camera's state and retries opening it with backoff: 0.5 s, 1 s, 2 s, then
    /// every 4 s. The machine logs the state once; the retries are quiet.
    private func cameraLost(_ error: Error, attempt: Int) {
        cameraEvent(Self.cameraState(error).name)
        capture?.cancel()
        capture = nil
        hardware.camera.close()
        let state = Self.cameraState(error)
        if state != machine.camera { logger.debug("camera: \(error)") }
        handle(.cameraChanged(state))
        reopen?.cancel()
        let delay = Duration.milliseconds(500 * (1 << min(attempt, 3)))
        let clock = self.clock
        reopen = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.openCamera(attempt: attempt + 1)
        }
    }

    /// Whether the kiosk loop is alive: the actor answers (this call), and a running capture has
    /// made progress within `stall` (a hung decoder or camera loop does not). The watchdog pings
    /// systemd only while this holds.
    public func isHealthy(stall: Duration = .seconds(10)) -> Bool {
        guard case .scanning = machine.phase, capture != nil else { return true }
        return elapsed() - lastProgress < stall
    }

    private func startCapture(_ session: Int) {
        lastProgress = elapsed()
        do {
            try hardware.camera.startCapture()
        } catch {
            cameraLost(error, attempt: 0)
            return
        }
        let camera = hardware.camera
        let decoder = tuning.decoder
        let viewport = tuning.viewport
        capture = Task.detached { [weak self] in
            while !Task.isCancelled {
                let frame: GrayFrame
                do { frame = try await camera.nextFrame() } catch {
                    if Task.isCancelled || error is CancellationError { return }
                    await self?.captureFailed(error, session: session)
                    return
                }
                let cx = (viewport.x + viewport.width / 2) * Double(frame.width)
                let cy = (viewport.y + viewport.height / 2) * Double(frame.height)
                let started = ContinuousClock.now
                let symbols = decoder.decode(frame, viewport: viewport).sortedByDistance(toX: cx, y: cy)
                let seconds = (ContinuousClock.now - started).milliseconds / 1000
                await self?.frameDecoded(session: session, symbols: symbols, seconds: seconds)
            }
        }
    }

    private func frameDecoded(session: Int, symbols: [Symbol], seconds: Double) {
        framesDecoded += 1
        lastProgress = elapsed()
        decodeSeconds += seconds
        if !symbols.isEmpty, onEvent != nil {
            let located = symbols.map { s in
                "{\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"corners\":[" + s.corners.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]}"
            }
            event("located", ["session": "\(session)", "codes": "[" + located.joined(separator: ",") + "]"])
        }
        handle(.decoded(session: session, symbols: symbols))
    }

    private func captureFailed(_ error: Error, session: Int) {
        guard machine.phase == .scanning(session: session) else { return }
        logger.error("camera \(hardware.camera.name): \(error)")
        cameraLost(error, attempt: 0)
    }

    // MARK: - Patterns

    /// Plays `pattern` on `line` (repeating if it repeats), then calls `done` on the runtime.
    private func play(_ line: (any OutputLine)?, role: String, _ pattern: Pattern,
                      done: (@Sendable (isolated KioskRuntime) async -> Void)? = nil) {
        guard let line else { flashing = false; return }
        players[role]?.cancel()
        let clock = self.clock
        let logger = self.logger
        players[role] = Task { [weak self] in
            repeat {
                for step in pattern.steps {
                    if Task.isCancelled { return }
                    do { try line.set(step.value) } catch { logger.error("\(role): \(error)"); return }
                    if step.duration > .zero {
                        do { try await clock.sleep(for: step.duration) } catch { return }
                    }
                }
            } while pattern.repeats && !Task.isCancelled
            if let done, !Task.isCancelled, let self { await done(self) }
        }
    }

    /// The good-read flash is over: the status LED shows the current indication again.
    private func flashEnded() {
        flashing = false
        guard !stopped else { return }
        play(hardware.statusLED, role: "status_led", statusPattern)
    }

    // MARK: - Mapping

    static func cameraState(_ error: Error) -> CameraState {
        guard let e = error as? HardwareError else { return .unavailable(reason: "\(error)") }
        switch e.kind {
        case .busy: return .inUse
        case .permissionDenied: return .permissionDenied
        case .disconnected: return .disconnected
        case .notFound: return .unavailable(reason: "\(e.device) not found")
        default: return .unavailable(reason: e.description)
        }
    }

    static func name(_ phase: KioskMachine.Phase) -> String {
        switch phase {
        case .idle: return "idle"
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
