import Logging
import ScanConfig
import Delivery
import ScanCore
import ScanHardware
import ScanRuntime
import ServiceLifecycle
import UnixSignals
import SetupPage
import SimulatedHardware
import Viewfinder
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk as `scand run` runs it, made from a config: the board (drivers, outputs,
/// outboxes), the kiosk runtime on it, the host command path, and every long-running part as a
/// `Service`, in the order a `ServiceGroup` starts them. The group stops them in reverse: the
/// doors first (reload, watchdog, setup page), then the kiosk (torch, LED and buzzer off, the
/// camera closed), then the status writer and MQTT, which see the kiosk's last state.
///
/// The tests build their kiosks here too: what they run is what ships.
public final class KioskApp: Sendable {
    /// What `scand run` adds to the config.
    public struct Options: Sendable {
        /// The config file (read again on SIGHUP) and the `--set` overrides.
        public var configPath: String
        public var overrides: [String]
        /// What `VERSION` and MQTT report.
        public var version: String
        /// Simulated hardware: press the button this often.
        public var pressEvery: Duration?
        /// The process's signals, trapped (SIGTERM, SIGINT: a graceful stop; SIGHUP: a reload);
        /// nil for a kiosk that is not the process (a test's), which the test stops itself.
        public var signals: UnixSignalsSequence?

        public init(configPath: String, overrides: [String] = [], version: String, pressEvery: Duration? = nil,
                    signals: UnixSignalsSequence? = nil) {
            self.configPath = configPath
            self.overrides = overrides
            self.version = version
            self.pressEvery = pressEvery
            self.signals = signals
        }
    }

    public let config: ScandConfig
    /// The simulated button, on simulated hardware with a button line (the demo's Enter key).
    public let simulatedButton: SimulatedButton?
    /// Simulated hardware: the trace of its lines (torch, buzzer, status LED).
    public let simulatedTrace: Trace?
    /// The camera's name, for the log.
    public let cameraName: String
    public let runtime: KioskRuntime
    /// The host command language, one path for the serial port, MQTT and the setup page.
    public let commands: HostCommands
    /// Every event of the kiosk (one JSON object each), as the setup page and control socket
    /// stream them.
    public let events: EventHub
    /// The services, in start order.
    public let services: [any Service]
    /// The control socket actually served (nil when its folder does not exist).
    public let controlSocket: String?
    /// Held while the kiosk lives: one daemon per outbox folder, event and control socket.
    private let locks: Locked<[StateLock]>
    /// The board's outputs (the log is not one that keeps results).
    private let outputs: [any ResultOutput]

    /// Builds the kiosk for `config`; throws what a person must fix before it can start (a
    /// serial port or outbox that cannot be had, a lock held by another daemon).
    public init(config: ScandConfig, options: Options, logger: Logger) throws {
        self.config = config
        let board = try Board.make(config, version: options.version, logger: logger)
        var locks: [StateLock] = board.stateLock.map { [$0] } ?? []
        var events: EventSocket?
        if let path = config.eventSocket {
            locks.append(try StateLock(path: path + ".lock"))
            do {
                events = try EventSocket(path: path, onPause: { logger.warning("events: out of descriptors; accepting paused for 1 s") })
                logger.notice("events on \(path)")
            } catch {
                logger.error("no event stream: \(error)")
            }
        }
        // The control socket is on by default, in systemd's RuntimeDirectory: a daemon started
        // by hand where that folder does not exist runs without it (said in the log).
        var controlSocket = config.controlSocket
        if let path = controlSocket {
            if !FileBytes.folderExists(of: path) {
                logger.notice("no control socket: \(FileBytes.folder(of: path)) does not exist (control.socket = \"\(path)\"; scand snapshot opens the camera itself)")
                controlSocket = nil
            } else {
                do { locks.append(try StateLock(path: path + ".lock")) } catch {
                    logger.error("no control socket: \(error)")
                    controlSocket = nil
                }
            }
        }
        self.controlSocket = controlSocket
        self.locks = Locked(locks)
        outputs = board.outputs
        let hub = EventHub()
        self.events = hub
        let mqtt = board.mqtt
        let mqttEvents = config.mqtt.events ? mqtt : nil
        let eventSink = events
        let publish: @Sendable (String) -> Void = { line in
            eventSink?.publish(line)
            mqttEvents?.publishEvent(line)
            hub.publish(line)
        }
        let status = StatusService(statusFile: config.statusFile, metricsFile: config.metricsFile, mqtt: mqtt, logger: logger)
        let parts = Parts(config: config, board: board, logger: logger)
        let hasTorchLine = board.hardware.torch != nil
        let systemd = SystemdNotifier.fromProcess()
        let watchdog = systemd.watchdogInterval.map { KioskRuntime.Watchdog(interval: $0) { systemd.notify("WATCHDOG=1") } }
        let runtime = KioskRuntime(hardware: board.hardware, tuning: parts.tuning, outputs: parts.outputs, logger: logger,
                                   patterns: parts.patterns, firstSequence: parts.firstSequence, keepStreaming: parts.keepStreaming,
                                   watchdog: watchdog, onStatus: status.offer, onEvent: publish)
        self.runtime = runtime
        let live = LiveConfig(path: options.configPath, overrides: options.overrides, running: config, hasTorchLine: hasTorchLine,
                              logger: logger) { await runtime.reload($0) }
        let commands = HostCommands(runtime: runtime, live: live, version: options.version)
        self.commands = commands
        simulatedButton = board.simulatedButton
        simulatedTrace = board.trace
        cameraName = board.hardware.camera.name

        var services: [any Service] = []
        if let mqtt { services.append(MQTTService(mqtt: mqtt, commands: config.mqtt.commands ? commands : nil, runtime: runtime)) }
        services.append(status)
        if let port = board.serialPort, config.serial.commands {
            // The runtime serves the port in its own task group.
            runtime.serveHost(on: port) { await commands.answer($0) }
        }
        services.append(runtime)
        if controlSocket != nil || config.webListen != nil {
            let server = SetupServer(backend: SetupBackend.kiosk(runtime, commands: commands), events: hub, logger: logger)
            if let path = controlSocket {
                services.append(SetupPageService(server: server, door: .unix(path), logger: logger))
                logger.notice("control socket on \(path) (scand snapshot; curl --unix-socket \(path) http://scand/api/status)")
            }
            if let address = config.webListen {
                services.append(SetupPageService(server: server, door: .tcp(address.host, address.port, token: config.webToken), logger: logger))
                logger.notice("setup page on http://\(address)/\(config.webToken == nil ? "" : " (token required)")")
            }
        }
        services.append(WatchdogService(runtime: runtime, systemd: systemd))
        if let signals = options.signals { services.append(SignalService(signals: signals, live: live, logger: logger)) }
        if let button = board.simulatedButton, let every = options.pressEvery {
            services.append(PresserService(button: button, every: every))
        }
        self.services = services
    }

    /// Logs, after the stop, what each output had not delivered: kept in the outbox folder for
    /// the next start, or lost where `[outbox] directory = ""` keeps results in memory only.
    public func logUndelivered(_ logger: Logger) {
        for output in outputs where output.pendingCount > 0 {
            let n = output.pendingCount
            if let file = output.keptIn {
                logger.notice("output \(output.name): \(n) result(s) not delivered or acknowledged yet are kept in \(file) for the next start")
            } else {
                logger.warning("output \(output.name): \(n) result(s) not delivered or acknowledged are lost: [outbox] directory = \"\" keeps results in memory only (set a folder to keep them across a stop)")
            }
        }
    }

    /// What the kiosk's driver takes from the config and the board, the same for the daemon's
    /// runtime and for a kiosk in virtual time (`VirtualKiosk.composed`).
    public struct Parts {
        public var tuning: KioskTuning
        public var outputs: [any ResultOutput]
        public var patterns: FeedbackPatterns
        public var firstSequence: Int
        public var keepStreaming: Bool

        public init(config: ScandConfig, board: Board, logger: Logger) {
            let f = config.feedback
            patterns = FeedbackPatterns.standard.replacing(beep: f.beep, flash: f.flash, led: f.led, torch: f.torch, tone: f.tone,
                                                           entryBeep: f.entryBeep)
            tuning = Board.tuning(config, hasTorchLine: board.hardware.torch != nil)
            outputs = board.outputs + [LogOutput(logger: logger, payloads: config.logPayloads)]
            firstSequence = board.lastSequence + 1
            keepStreaming = config.camera.keepStreaming
        }
    }

    /// The services as a group's configuration wants them.
    public var serviceConfigurations: [ServiceGroupConfiguration.ServiceConfiguration] {
        services.map { service in
            // The signal service ends on SIGTERM or SIGINT: that is the group's graceful shutdown.
            service is SignalService ? .init(service: service, successTerminationBehavior: .gracefullyShutdownGroup) : .init(service: service)
        }
    }
}

/// The host command language as every door answers it (serial port, MQTT, the setup page and
/// control socket): one line in, one `OK ...` or `ERR ...` line out; `SET` goes through the
/// live config, validated as the file is.
public struct HostCommands: Sendable {
    let runtime: KioskRuntime
    let live: LiveConfig
    let version: String

    /// The answer to one line that came through `door`.
    public func answer(_ line: String, door: PressSource = .host) async -> String {
        let live = self.live
        return await runtime.command(line, version: version, door: door) { key, value in await live.set(key, value) }
    }
}

extension SetupBackend {
    /// What the setup page and the control socket ask of the kiosk. Snapshots go through one
    /// `SnapshotGate`: one decode at a time, at the lowest priority, shared by the requests that
    /// wait for it, at most `snapshotsWaiting` of them (one more is answered 503).
    static func kiosk(_ runtime: KioskRuntime, commands: HostCommands, snapshots: SnapshotGate? = nil) -> SetupBackend {
        let camera = runtime.camera
        let gate = snapshots ?? snapshotGate(runtime)
        return SetupBackend(
            status: { await runtime.status.json },
            command: { await commands.answer($0, door: .web) },
            snapshot: { try await gate.snapshot() },
            frame: { await runtime.tap.next(within: .seconds(2)) },
            view: { await runtime.view($0) },
            controls: { try camera.controlSettings() },
            setControl: { try camera.setControl($0, to: $1) },
            metrics: { MetricsFile.render(await runtime.status) })
    }

    /// Requests that may wait for one snapshot decode.
    static let snapshotsWaiting = 8

    /// The kiosk's snapshot gate: the next frame, decoded at low priority off the cooperative
    /// pool (deep passes may take a while).
    static func snapshotGate(_ runtime: KioskRuntime) -> SnapshotGate {
        let camera = runtime.camera
        return SnapshotGate(limit: snapshotsWaiting) {
            let (frame, tuning, torchOn) = try await runtime.snapshot()
            return try await SnapshotGate.atLowPriority {
                var snapshot = Snapshot(frame: frame, viewport: tuning.viewport, decoder: tuning.decoder, torchOn: torchOn,
                                        capture: "\(camera.name): \(camera.summary)")
                // The overlay's PNG once for every request that shares it (an encoding error
                // is met again, and answered, by the request that asks for it).
                try? snapshot.prepare()
                return snapshot
            }
        }
    }
}
