import Dispatch
import Decoding
import Logging
import ServiceLifecycle
import Synchronization
import Delivery
import ScanCore
import ScanHardware
import Viewfinder
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
    /// The voice for announcements (`[feedback.speech]`), if speech is on.
    public var speaker: (any Speaker)?

    public init(camera: any FrameSource, button: (any Button)? = nil, torch: (any OutputLine)? = nil,
                buzzer: (any OutputLine)? = nil, statusLED: (any OutputLine)? = nil, speaker: (any Speaker)? = nil) {
        self.camera = camera
        self.speaker = speaker
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
    /// The words of announcements (when speech is on).
    public var phrases: SpeechPhrases
    public init(settings: KioskSettings, viewport: Viewport, decoder: any BarcodeDecoder, phrases: SpeechPhrases = SpeechPhrases()) {
        self.phrases = phrases
        self.settings = settings
        self.viewport = viewport
        self.decoder = decoder
    }
}

/// A snapshot of the kiosk for `scand status` and the status file.
public struct KioskStatus: Sendable, Equatable {
    public var camera: CameraState
    /// Whether the torch is lit (or there is none, or it could not be driven).
    public var torch: TorchState
    /// The torch mode in force: the host's override or the configured mode.
    public var torchMode: TorchMode = .on
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
    /// Whether the outputs take no new result (`outbox.policy = reject-new`, an outbox full):
    /// presses are refused until kept results are delivered.
    public var outputsFull = false
    /// While the outputs are full: those without room, by name (`serial /dev/ttyUSB0`).
    public var fullOutputs: [String] = []
    /// Results an outbox file could not take (kept in memory and sent) and results parked
    /// because an output can never carry them, over all outputs.
    public var outputCounts = OutputCounts()
    /// Outputs with a connection (an MQTT broker): name and state.
    public var connections: [(name: String, state: String)] = []
    /// Guidance for the person aiming, while a session cannot read.
    public var guidance: [Advice] = []
    /// The viewport decoded now.
    public var viewport = Viewport.full
    /// How the camera focuses now: `auto-on-press`, `continuous` (also `auto-on-press` under a
    /// trigger mode with no press), `fixed at 2 dioptres (50 cm)`, or `camera.controls` when
    /// those set the lens.
    public var focus = FocusSetting.autoOnPress.rawValue
    /// Autofocus cycles the camera started (one per press with `auto-on-press`; 0 for a camera
    /// without autofocus).
    public var autofocusCycles = 0
    /// Reads, decode times and refusals per symbology, and no-reads, since the process started.
    public var decoding = DecodeStatistics()

    public static func == (a: KioskStatus, b: KioskStatus) -> Bool { a.json == b.json }

    /// One JSON object.
    public var json: String {
        let m = metrics
        return "{\"camera\":\(JSONText.string(camera.name)),\"cameraDetail\":\(JSONText.string(camera.description)),"
            + "\"torch\":\(JSONText.string(torch.rawValue)),\"torchMode\":\(JSONText.string(torchMode.rawValue)),\"phase\":\(JSONText.string(phase)),"
            + "\"presses\":\(m.presses),\"goodReads\":\(m.goodReads),\"closedWithoutScan\":\(m.closedWithoutScan),"
            + "\"errors\":\(m.errors),\"torchOn\":\(m.torchOn),\"torchAutoOn\":\(m.torchAutoOn),\"confirmationsExpired\":\(m.confirmationsExpired),"
            + "\"focus\":\(JSONText.string(focus)),\"autofocusCycles\":\(autofocusCycles),"
            + "\"framesDecoded\":\(framesDecoded),\"framesDropped\":\(framesDropped),\"cameraReconnects\":\(cameraReconnects),"
            + "\"decodeSeconds\":\(JSONText.number(decodeSeconds, decimals: 4)),\"duplicatesSuppressed\":\(duplicatesSuppressed),"
            + "\"pendingResults\":\(pendingResults),\"outputsFull\":\(outputsFull)"
            + (fullOutputs.isEmpty ? "" : ",\"fullOutputs\":[" + fullOutputs.map(JSONText.string).joined(separator: ",") + "]")
            + ",\"resultsNotStored\":\(outputCounts.notStored),\"resultsParked\":\(outputCounts.parked)"
            + ",\"commandsRefused\":\(outputCounts.commandsRefused),\"repliesDropped\":\(outputCounts.repliesDropped)"
            + (connections.isEmpty ? "" : ",\"connections\":{" + connections.map { "\(JSONText.string($0.name)):\(JSONText.string($0.state))" }.joined(separator: ",") + "}")
            + ",\"decoding\":" + decoding.json
            + ",\"guidance\":[" + guidance.map(\.json).joined(separator: ",") + "]"
            + ",\"viewport\":[\(viewport.x),\(viewport.y),\(viewport.width),\(viewport.height)]}"
    }
}

/// The kiosk service. `run()` is one task group: children for the button, capture (frames
/// decoded on a thread of their own), the host link and the timers, all feeding one
/// `KioskDriver` (the pure `KioskCore` and the hardware) through this actor. It ends on `stop()`, on graceful shutdown (SIGTERM through
/// a `ServiceGroup`) and on cancellation, with the torch, LED and buzzer off; nothing it
/// started outlives it.
public actor KioskRuntime: Service {
    private let driver: KioskDriver
    private let clock: any Clock<Duration>
    private let logger: Logger
    /// Time since the runtime was made, on its clock.
    private let elapsed: @Sendable () -> Duration
    private let capture = CaptureControl()
    private let wakeup = Wakeup()
    /// First looks at every new frame, on one thread; deep passes on older frames, on another.
    private let decodeWorker = DecodeWorker(label: "scand.decode")
    private let deepWorker = DecodeWorker(label: "scand.decode-deep")
    private let deepJobs = LatestSlot<CapturePipeline.DeepJob>()
    private let pipeline = CapturePipeline()
    /// The host's serial link and the answers to its lines, set before `run()`.
    private let host = Locked<(port: any SerialPort, answer: @Sendable (String) async -> String)?>(nil)
    private var stopRequested = false
    private let stopSignal = Wakeup()
    /// The speaker's and the output thread's reports, fed to the kiosk by a child.
    private let reports: AsyncStream<KioskCore.Input>
    /// Results and host answers are written here, in order, off the actor: a slow disk or port
    /// never holds up the next button edge, and answers never interleave with results.
    private let outputQueue = DispatchQueue(label: "scand.outputs", qos: .userInitiated)
    /// Copies of frames for snapshots and the setup page's preview.
    public nonisolated let tap = FrameTap()
    /// The camera, for what it delivers and its controls.
    public nonisolated let camera: any FrameSource

    public init(hardware: KioskHardware, tuning: KioskTuning, outputs: [any ResultOutput],
                clock: any Clock<Duration> = ContinuousClock(), logger: Logger,
                patterns: FeedbackPatterns = .standard, firstSequence: Int = 1, keepStreaming: Bool = false,
                watchdog: Watchdog? = nil,
                onStatus: (@Sendable (KioskStatus) -> Void)? = nil, onEvent: (@Sendable (String) -> Void)? = nil) {
        driver = KioskDriver(hardware: hardware, tuning: tuning, outputs: outputs, logger: logger, patterns: patterns,
                         firstSequence: firstSequence, keepStreaming: keepStreaming, watchdog: watchdog?.interval,
                         onStatus: onStatus, onEvent: onEvent)
        driver.onWatchdog = watchdog?.ping
        self.clock = clock
        self.logger = logger
        camera = hardware.camera
        elapsed = Self.elapsedTime(on: clock)
        let (reports, report) = AsyncStream.makeStream(of: KioskCore.Input.self)
        self.reports = reports
        driver.onSpeech = { report.yield($0) }
        driver.outputQueue = outputQueue
        driver.onOutputs = { report.yield($0) }
    }

    /// Serves the host's line protocol (`HostCommand`) on `port` while `run()` runs: each line
    /// gets one answer line, `answer`'s (`OK ...` or `ERR ...`); an over-long line gets `ERR`
    /// and changes nothing. Call before `run()`.
    public nonisolated func serveHost(on port: any SerialPort, answer: @escaping @Sendable (String) async -> String) {
        host.withLock { $0 = (port, answer) }
    }

    /// Runs until `stop()`, graceful shutdown or cancellation: opens the camera (retrying with
    /// backoff while it is missing), listens to the button, and serves scan sessions.
    public func run() async {
        guard !stopRequested else { return }
        step { driver.start(now: elapsed()) }
        let hardware = driver.hardware
        await withTaskGroup(of: Void.self) { group in
            // Graceful shutdown (SIGTERM through the service group) stops the kiosk; a
            // cancellation ends this child with the others.
            group.addTask {
                guard (try? await gracefulShutdown()) != nil else { return }
                await self.stop()
            }
            if let button = hardware.button {
                group.addTask {
                    for await event in button.events() {
                        await self.input(.kiosk(event.edge == .pressed ? .buttonPressed : .buttonReleased))
                    }
                }
            }
            group.addTask { await self.captureFrames(hardware.camera) }
            group.addTask { await self.deepLooks() }
            group.addTask { await self.runTimers() }
            let reports = self.reports
            group.addTask {
                for await report in reports {
                    if Task.isCancelled { break }
                    await self.input(report)
                }
            }
            if let host = host.withLock({ $0 }) {
                group.addTask { await self.serveHost(host.port, answer: host.answer) }
            }
            await stopSignal.wait()
            group.cancelAll()
        }
        capture.serve(.none)
        step { driver.stop(now: elapsed()) } // after a cancellation without stop()
        // What the outputs still have to write (a result read just before the stop) is written
        // before `run()` returns.
        let queue = outputQueue
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    /// Graceful stop (SIGTERM): capture off, torch off, LED and buzzer off, `run()` returns.
    /// Before `run()`, it makes `run()` return at once.
    public func stop() {
        guard !stopRequested else { return }
        stopRequested = true
        step { driver.stop(now: elapsed()) }
        capture.serve(.none)
        stopSignal.fire()
        wakeup.fire()
    }

    /// Applies new settings, viewport and decoder (SIGHUP). Hardware stays as it is.
    public func reload(_ new: KioskTuning) {
        step { driver.reload(new, now: elapsed()) }
        wakeup.fire()
    }

    /// Feeds one event from outside (a host trigger, the demo's Enter key).
    public func send(_ event: KioskEvent) { input(.kiosk(event)) }

    /// The kiosk now.
    public var status: KioskStatus { driver.status }

    /// A viewer starts (`true`) or stops wanting frames from `tap`: while any does, the camera
    /// streams between sessions (its frames are not decoded). Calls must pair.
    public func view(_ on: Bool) {
        step { driver.view(on, now: elapsed()) }
    }

    /// Why a snapshot could not be taken.
    public struct NoFrame: Error, CustomStringConvertible {
        public var description: String
    }

    /// The next frame from the camera (streaming it for the moment if it is idle), with the
    /// tuning it is decoded with now and whether the torch is lit.
    public func snapshot(within timeout: Duration = .seconds(3)) async throws(NoFrame) -> (frame: GrayFrame, tuning: KioskTuning, torchOn: Bool) {
        let camera = driver.core.machine.camera
        guard camera.isAvailable else { throw NoFrame(description: "no frame: camera \(self.camera.name) is \(camera.description)") }
        view(true)
        defer { view(false) }
        guard let frame = await tap.next(within: timeout, on: clock) else {
            throw NoFrame(description: "no frame from camera \(self.camera.name) within \(timeout) (camera \(driver.core.machine.camera.description))")
        }
        return (frame, driver.tuning, driver.core.machine.torch == .on)
    }

    /// A service manager's watchdog, pinged from the kiosk's own loop: every `interval` the
    /// timers child fires the core's watchdog timer, the core asks for a ping if a running
    /// capture made progress (`KioskCore.captureStall`), and `ping` runs on the output queue
    /// after the writes asked for before it. A stuck actor, timers child, capture or output
    /// therefore stops the pings, and systemd restarts the daemon.
    public struct Watchdog: Sendable {
        public var interval: Duration
        public var ping: @Sendable () -> Void
        public init(interval: Duration, ping: @escaping @Sendable () -> Void) { self.interval = interval; self.ping = ping }
    }

    /// Whether the kiosk loop is alive: the actor answers (this call), and a running capture has
    /// made progress within `stall` (a hung decoder or camera loop does not).
    public func isHealthy(stall: Duration = .seconds(10)) -> Bool {
        driver.core.isHealthy(now: elapsed(), stall: stall)
    }

    // MARK: - Children

    /// One call into the driver; then the capture child is told its work, and the timers
    /// child woken when the next deadline moved.
    private func step<T>(_ body: () -> T) -> T {
        let before = driver.nextDeadline
        let result = body()
        capture.serve(driver.work)
        if driver.nextDeadline != before { wakeup.fire() }
        return result
    }

    private func input(_ input: KioskCore.Input) {
        step { driver.handle(input, now: elapsed()) }
    }

    private func fireDue() -> Duration? {
        step { driver.fireDue(now: elapsed()) }
        return driver.nextDeadline
    }

    /// Sleeps until the loop's next deadline (or until it changes), then fires what is due.
    private func runTimers() async {
        let clock = self.clock
        while !Task.isCancelled {
            let next = fireDue()
            let wait = next.map { max(.zero, $0 - elapsed()) }
            await wakeup.wait(for: wait, on: clock)
        }
    }

    /// Frames as the loop wants them (decoded, watched or drained) on the decode thread, as inputs.
    private func captureFrames(_ camera: any FrameSource) async {
        let pipeline = self.pipeline
        var failed: CaptureWork?
        while let work = await capture.next(after: failed) {
            failed = nil
            let frame: GrayFrame
            do { frame = try await camera.nextFrame() } catch {
                if Task.isCancelled { return }
                guard capture.current == work else { continue } // stopped or changed meanwhile
                failed = work
                let session: Int? = if case .decode(let s, _) = work { s } else { nil }
                input(.captureFailed(session: session, state: KioskDriver.cameraState(error), message: "camera \(camera.name): \(error)"))
                continue
            }
            // A frame that arrives after the work changed is the newest there is: a warm camera's
            // frame waited for while draining serves the session a press just started.
            let now = capture.current
            tap.offer(frame)
            guard now == work || work == .drain || work == .watch, now != .none, now != .drain else { continue }
            let work = now
            let tuning = driver.tuning
            let (inputs, deep) = await decodeWorker.run { pipeline.firstLook(for: frame, work: work, tuning: tuning) }
            for item in inputs { input(item) }
            // The newest frame that needs them gets the deep passes when that thread is free.
            if let deep, capture.current == work { deepJobs.offer(deep) }
        }
    }

    /// Deep passes on the newest frame whose first look found nothing, on their own thread,
    /// abandoned between passes when the session ends or the work changes.
    private func deepLooks() async {
        let capture = self.capture, pipeline = self.pipeline
        while let job = await deepJobs.take() {
            let now = elapsed(), torchOn = driver.core.machine.torch == .on
            let inputs = await deepWorker.run {
                pipeline.deepLook(job, current: { capture.current == job.work }, now: now, torchOn: torchOn)
            }
            for item in inputs { input(item) }
        }
    }

    private func serveHost(_ port: any SerialPort, answer: @Sendable (String) async -> String) async {
        var lines = LineAssembler()
        for await chunk in port.received() {
            for item in lines.feed(chunk) {
                let reply: String
                switch item {
                case .tooLong: reply = HostCommandError(line: "too long (at most \(HostCommand.maxLength) bytes)").answer
                case .line(let text):
                    // An answer coming back (a host or a second scand echoing what it reads)
                    // gets no answer: two ends answering each other's answers never stop.
                    if HostCommand.isAnswer(text) {
                        logger.debug("serial: an answer came back (\(PayloadText.escaped(String(text.prefix(80))))); not answered")
                        continue
                    }
                    reply = await answer(text)
                }
                self.reply(reply, on: port)
            }
        }
    }

    /// One line of the host command language from any channel (serial port, MQTT), answered as
    /// on the serial port: `OK ...` or `ERR ...`. `applySet` tries `SET key=value`.
    /// `door`: where the line came from, for the presses counted per source.
    public func command(_ line: String, version: String, door: PressSource = .host,
                        applySet: @Sendable (String, String) async -> String?) async -> String {
        // One line, whatever the names in it hold (a camera path from the config with a newline
        // in it split `ERR TRIGGER: camera unavailable (...)` in two, the second a line of its own).
        PayloadText.controlsShown(await answerLine(line, version: version, door: door, applySet: applySet))
    }

    private func answerLine(_ line: String, version: String, door: PressSource,
                            applySet: @Sendable (String, String) async -> String?) async -> String {
        switch Result(catching: { () throws(HostCommandError) -> HostCommand in try HostCommand.parse(line) }) {
        case .failure(let error): return error.answer
        case .success(.set(let key, let value)):
            if let problem = await applySet(key, value) { return HostCommandError("SET", problem).answer }
            // Which setting changed, to what, and from where (a SIGHUP reload says so itself).
            logger.info("SET \(key) = \(PayloadText.escaped(String(value.prefix(200))))", metadata: ["door": "\(door.rawValue)"])
            return "OK SET \(key)"
        case .success(.version): return "OK VERSION scand \(version)"
        case .success(let command): return answer(command, door: door)
        }
    }

    /// Writes the status again (an output's connection changed outside the loop).
    public func refreshStatus() { driver.refreshStatus() }

    private func answer(_ command: HostCommand, door: PressSource) -> String {
        step { driver.answer(command, now: elapsed(), door: door) } ?? HostCommandError("\(command)", "not answered here").answer
    }

    /// Answers are written on the output queue, like results: they never interleave.
    private func reply(_ answer: String, on port: any SerialPort) {
        let logger = self.logger
        outputQueue.async {
            do { try port.write(Array((answer + "\r\n").utf8)) } catch {
                logger.warning("answer to the host not written: \(error)")
            }
        }
    }

    static func elapsedTime<C: Clock>(on clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The swift-log level for a config log level.
    public static func level(_ level: LogLevel) -> Logger.Level { KioskDriver.level(level) }
}
