import ArgumentParser
import Dispatch
import Logging
import ScanConfig
import ScanCore
import ScanRuntime
import ScanHardware
import ServiceLifecycle
import Viewfinder
import SetupPage
import SimulatedHardware
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `scand run`: the daemon.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the scanner daemon.",
        discussion: """
            SIGTERM or SIGINT stops it gracefully (torch off, outputs flushed); SIGHUP reloads the
            config (a bad new config is rejected and the old one kept). With simulated hardware,
            the Enter key (or --press-every) is the button.
            """
    )

    @Option(help: "The TOML config file.")
    var config: String = "/etc/scand/scand.toml"

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a config key by its dotted path, e.g. output.serial.device=/dev/pts/3.",
                                                        valueName: "key=value"))
    var overrides: [String] = []

    @Option(help: "Simulated hardware: press the button every this many seconds.")
    var pressEvery: Double?

    @Flag(help: "Simulated hardware: do not read the Enter key from standard input.")
    var noStdin = false

    func validate() throws {
        if let pressEvery, !(0.05...86_400).contains(pressEvery) {
            throw ValidationError("--press-every must be from 0.05 to 86400 seconds, not \(pressEvery)")
        }
    }

    func run() async throws {
        // SIGTERM/SIGINT from the first moment: during start-up they are remembered (and the
        // daemon ends cleanly before driving anything); once running, the service group's
        // graceful shutdown takes them, and this handler stops the runtime as well.
        let earlyStop = EarlyStop()
        let signals = SignalHandlers()
        signals.on(SIGTERM) { earlyStop.request() }
        signals.on(SIGINT) { earlyStop.request() }
        let loaded: ScandConfig
        do {
            loaded = try Board.loadConfig(path: config, overrides: overrides)
        } catch {
            printError("scand: config not usable:\n\(error)")
            throw ExitCode(78) // EX_CONFIG
        }
        let journal = JournalLogHandler.available
        LoggingSystem.bootstrap { label in
            if journal { return JournalLogHandler(logLevel: KioskRuntime.level(loaded.logLevel), label: label) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = KioskRuntime.level(loaded.logLevel)
            return handler
        }
        let logger = Logger(label: "scand")
        let board: Board
        do {
            board = try Board.make(loaded, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
        let statusFile = loaded.statusFile, metricsFile = loaded.metricsFile
        let tuning = Board.tuning(loaded, hasTorchLine: board.hardware.torch != nil)
        var events: EventSocket?
        var eventsLock: StateLock?
        if let path = loaded.eventSocket {
            do { eventsLock = try StateLock(path: path + ".lock") } catch {
                logger.critical("cannot start: \(error)")
                throw ExitCode(1)
            }
            do { events = try EventSocket(path: path); logger.notice("events on \(path)") } catch {
                logger.error("no event stream: \(error)")
            }
        }
        // The control socket is on by default, in systemd's RuntimeDirectory: a daemon started
        // by hand where that folder does not exist runs without it (said in the log).
        var controlLock: StateLock?
        var controlSocket = loaded.controlSocket
        if let path = controlSocket {
            let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
            var st = stat()
            if stat(folder.isEmpty ? "/" : folder, &st) != 0 {
                logger.notice("no control socket: \(folder) does not exist (control.socket = \"\(path)\"; scand snapshot opens the camera itself)")
                controlSocket = nil
            } else {
                do { controlLock = try StateLock(path: path + ".lock") } catch {
                    logger.error("no control socket: \(error)")
                    controlSocket = nil
                }
            }
        }
        let eventSink = events
        let mqtt = board.mqtt
        let mqttEvents = loaded.mqtt.events ? mqtt : nil
        // The setup page and the control socket see the same events.
        let hub: EventHub? = controlSocket == nil && loaded.webListen == nil ? nil : EventHub()
        let publish: (@Sendable (String) -> Void)? = eventSink == nil && mqttEvents == nil && hub == nil ? nil : { @Sendable line in
            eventSink?.publish(line)
            mqttEvents?.publishEvent(line)
            hub?.publish(line)
        }
        let outputs: [any ResultOutput] = board.outputs + [LogOutput(logger: logger)]
        let onStatus: @Sendable (KioskStatus) -> Void = { status in
            if let statusFile { StatusFile.write(status, to: statusFile) }
            if let metricsFile { MetricsFile.write(status, to: metricsFile) }
            mqtt?.publishStatus(json: status.json)
        }
        let f = loaded.feedback
        let patterns = FeedbackPatterns.standard.replacing(beep: f.beep, flash: f.flash, led: f.led, torch: f.torch, tone: f.tone, entryBeep: f.entryBeep)
        let runtime = KioskRuntime(hardware: board.hardware, tuning: tuning, outputs: outputs, logger: logger, patterns: patterns,
                                   firstSequence: board.lastSequence + 1, keepStreaming: loaded.camera.keepStreaming, onStatus: onStatus, onEvent: publish)
        let live = LiveConfig(path: config, overrides: overrides, running: loaded, hasTorchLine: board.hardware.torch != nil,
                              logger: logger) { await runtime.reload($0) }
        if let port = board.serialPort, loaded.serial.commands {
            await runtime.serveHost(on: port, version: Scand.configuration.version) { key, value in
                await live.set(key, value)
            }
        }

        if let mqtt {
            let version = Scand.configuration.version
            let applySet: @Sendable (String, String) async -> String? = { key, value in await live.set(key, value) }
            let serve: @Sendable (String, @escaping @Sendable (String) -> Void) -> Void = { line, reply in
                Task {
                    let answer = await runtime.command(line, version: version, applySet: applySet)
                    reply(answer)
                }
            }
            let commands = loaded.mqtt.commands ? serve : nil
            mqtt.start(onCommand: commands, onConnection: { _ in Task { await runtime.refreshStatus() } })
        }
        var listeners: [Task<Void, Never>] = []
        if let hub {
            let setup = SetupServer(backend: Self.backend(runtime: runtime, live: live), events: hub, logger: logger)
            if let path = controlSocket {
                listeners.append(Task {
                    do { try await setup.serve(unixPath: path) } catch { if !Task.isCancelled { logger.error("no control socket \(path): \(error)") } }
                })
                logger.notice("control socket on \(path) (scand snapshot; curl --unix-socket \(path) http://scand/api/status)")
            }
            if let address = loaded.webListen {
                let token = loaded.webToken
                listeners.append(Task {
                    do { try await setup.serve(host: address.host, port: address.port, token: token) } catch {
                        if !Task.isCancelled { logger.error("no setup page on \(address): \(error)") }
                    }
                })
                logger.notice("setup page on http://\(address)/\(token == nil ? "" : " (token required)")")
            }
        }
        // A host or event client that goes away must be an error on that write, not the end of
        // the daemon.
        Glibc.signal(SIGPIPE, SIG_IGN)
        earlyStop.runtime = runtime
        // SIGHUP: reload.
        signals.on(SIGHUP) {
            Task {
                SystemdNotifier.fromProcess().notify("RELOADING=1")
                await live.reload()
                SystemdNotifier.fromProcess().notify("READY=1")
            }
        }
        var presser: Task<Void, Error>?
        if let button = board.simulatedButton {
            if let pressEvery {
                presser = Task {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .milliseconds(Int(pressEvery * 1000)))
                        button.click()
                    }
                }
            }
            if !noStdin { StdinButton.start(button, logger: logger) }
            logger.notice("simulated hardware: press Enter to press the button; Ctrl-C stops")
        }
        logger.notice("scand started", metadata: ["config": "\(config)", "camera": "\(board.hardware.camera.name)"])
        // systemd: ready once the hardware is set up (the kiosk then waits for a missing camera
        // by itself); the watchdog is pinged by the kiosk loop only while it is healthy.
        let systemd = SystemdNotifier.fromProcess()
        let watchdog = Task {
            // READY with the first camera state (the camera opens on its own after start; a slow
            // one, or a loaded board, takes longer than a moment): waited for up to 5 s, then
            // READY all the same, and the kiosk goes on waiting for the camera by itself.
            var first = await runtime.status
            for _ in 0..<250 where first.camera == .starting {
                try? await Task.sleep(for: .milliseconds(20))
                first = await runtime.status
            }
            systemd.notify("READY=1\nSTATUS=camera \(first.camera.name), torch \(first.torch.rawValue)")
            guard let interval = systemd.watchdogInterval else { return }
            var lastCamera = first.camera
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if await runtime.isHealthy() { systemd.notify("WATCHDOG=1") } else { logger.critical("kiosk loop stalled: watchdog not pinged") }
                let now = await runtime.status.camera
                if now != lastCamera { systemd.notify("STATUS=camera \(now.name)"); lastCamera = now }
            }
        }
        let services = ServiceGroup(configuration: .init(
            services: [.init(service: runtime)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        if earlyStop.requested {
            logger.notice("stopped during start-up")
        } else {
            do { try await services.run() } catch { logger.error("kiosk service: \(error)") }
        }
        watchdog.cancel()
        presser?.cancel()
        for listener in listeners { listener.cancel() }
        mqtt?.publishStatus(json: await runtime.status.json)
        mqtt?.stop() // {"online":false} and the results in flight acknowledged, then goodbye
        if let statusFile { StatusFile.write(await runtime.status, to: statusFile) }
        withExtendedLifetime((eventsLock, controlLock, board.stateLock)) {}
        systemd.notify("STOPPING=1")
    }
}

extension Run {
    /// What the setup page and the control socket ask of the kiosk.
    static func backend(runtime: KioskRuntime, live: LiveConfig) -> SetupBackend {
        let version = Scand.configuration.version
        let camera = runtime.camera
        return SetupBackend(
            status: { await runtime.status.json },
            command: { line in await runtime.command(line, version: version) { key, value in await live.set(key, value) } },
            snapshot: {
                let (frame, tuning, torchOn) = try await runtime.snapshot()
                // Decoded off the cooperative pool (deep passes may take a while).
                return await withCheckedContinuation { c in
                    DispatchQueue.global(qos: .utility).async {
                        c.resume(returning: Snapshot(frame: frame, viewport: tuning.viewport, decoder: tuning.decoder,
                                                     torchOn: torchOn, capture: "\(camera.name): \(camera.summary)"))
                    }
                }
            },
            frame: { await runtime.tap.next(within: .seconds(2)) },
            view: { await runtime.view($0) },
            controls: {
                guard let adjustable = camera as? any AdjustableCamera else { return [] }
                return try adjustable.controlSettings()
            },
            setControl: { name, value in
                guard let adjustable = camera as? any AdjustableCamera else {
                    throw HardwareError(.other, operation: "VIDIOC_S_CTRL", device: camera.name, hint: "this camera has no adjustable controls")
                }
                try adjustable.setControl(name, to: value)
            })
    }
}

/// Signal handling through Dispatch sources (the default action is blocked).
final class SignalHandlers: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    func on(_ signal: Int32, _ action: @escaping @Sendable () -> Void) {
        Glibc.signal(signal, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
        source.setEventHandler(handler: action)
        source.resume()
        sources.append(source)
    }
}

/// The Enter key as the simulated button, read on a thread of its own (a blocking read must not
/// hold one of the few cooperative threads).
enum StdinButton {
    static func start(_ button: SimulatedButton, logger: Logger) {
        spawnThread {
            while let _ = readLine(strippingNewline: true) {
                button.click()
            }
        }
    }
}

/// Writes the status JSON atomically (a temporary file renamed over the old one).
enum StatusFile {
    static func write(_ status: KioskStatus, to path: String) {
        try? FileBytes.writeAtomically(Array((status.json + "\n").utf8), to: path)
    }
}

/// A stop asked for before the service group runs (SIGTERM during start-up): remembered, and
/// handed to the runtime once there is one.
final class EarlyStop: @unchecked Sendable {
    private let state = Locked<(requested: Bool, runtime: KioskRuntime?)>((false, nil))

    var requested: Bool { state.withLock { $0.requested } }

    /// The runtime to stop on a request from now on (a request already made stops it at once).
    var runtime: KioskRuntime? {
        get { state.withLock { $0.runtime } }
        set {
            let stopNow = state.withLock { s -> Bool in s.runtime = newValue; return s.requested }
            if stopNow, let newValue { Task { await newValue.stop() } }
        }
    }

    func request() {
        let runtime = state.withLock { s -> KioskRuntime? in s.requested = true; return s.runtime }
        if let runtime { Task { await runtime.stop() } }
    }
}
