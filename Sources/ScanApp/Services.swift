import Logging
import MQTTLink
import ScanCore
import ScanHardware
import ScanRuntime
import ServiceLifecycle
import SetupPage
import SimulatedHardware
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

// The long-running parts of the kiosk besides `KioskRuntime`, each a `Service` of the one group
// `KioskApp` lists. Each runs until the group's graceful shutdown reaches it (never ending on
// its own: the group would take that for a failure), then finishes its part and returns.

/// The status file, the metrics file and MQTT's status topic, written off the kiosk's actor:
/// the kiosk offers each new status and goes on; the newest is written, and at the end the
/// last one (the kiosk stops before this service does).
final class StatusService: Service {
    private let statusFile: String?
    private let metricsFile: String?
    private let mqtt: MQTTOutput?
    private let logger: Logger
    /// The files the last write failed on: a failure is logged when it starts and when it ends,
    /// not at every status.
    private let failing = Locked<Set<String>>([])
    private let pending = Locked<KioskStatus?>(nil)
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(statusFile: String?, metricsFile: String?, mqtt: MQTTOutput?, logger: Logger) {
        self.statusFile = statusFile
        self.metricsFile = metricsFile
        self.mqtt = mqtt
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// A new status (from the kiosk's actor: it only stores it).
    @Sendable func offer(_ status: KioskStatus) {
        pending.withLock { $0 = status }
        wake.yield()
    }

    func run() async {
        for await _ in wakeups.cancelOnGracefulShutdown() { writePending() }
        writePending()
    }

    private func writePending() {
        guard let status = pending.withLock({ s in defer { s = nil }; return s }) else { return }
        // The file also names the daemon's process: `scand status` tells a daemon that has gone
        // from one that runs.
        if let statusFile {
            written("status.file", statusFile) { () throws(FileBytes.Failure) in
                try FileBytes.writeAtomically(Array((String(status.json.dropLast()) + ",\"pid\":\(getpid())}\n").utf8), to: statusFile)
            }
        }
        if let metricsFile { written("metrics.file", metricsFile) { () throws(FileBytes.Failure) in try MetricsFile.write(status, to: metricsFile) } }
        mqtt?.publishStatus(json: status.json)
    }

    /// Runs `write`, and says in the log when writing `path` (`key`'s file) starts to fail and
    /// when it works again (a tryout: a status file in a folder that did not exist was never
    /// written, and nothing said so).
    private func written(_ key: String, _ path: String, _ write: () throws(FileBytes.Failure) -> Void) {
        do {
            try write()
            if failing.withLock({ $0.remove(path) != nil }) { logger.notice("\(key) \(path) written again") }
        } catch {
            if failing.withLock({ $0.insert(path).inserted }) {
                logger.warning("\(key) \(path) not written: \(error); it is written again at the next status once that is mended")
            }
        }
    }
}

/// The MQTT link: connected at start; host commands from the command topic answered one at a
/// time through the host command path (`MQTTOutput` lets 10 a second through, 20 at once; those
/// wait in a short queue, and what does not fit is answered `ERR <COMMAND>: busy`); at the end
/// `{"online":false}`, the results in flight acknowledged, goodbye.
struct MQTTService: Service {
    let mqtt: MQTTOutput
    let commands: HostCommands?
    let runtime: KioskRuntime
    /// Commands that may wait for their turn.
    static let queue = 32

    private enum Input: Sendable {
        case command(String, @Sendable (String) -> Void)
        case connectionChanged
    }

    func run() async {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingOldest(Self.queue))
        let onCommand: (@Sendable (String, @escaping @Sendable (String) -> Void) -> Bool)?
        if commands == nil { onCommand = nil } else {
            // False: the queue is full (`MQTTOutput` answers ERR busy and counts it).
            onCommand = { line, reply in
                if case .dropped = feed.yield(.command(line, reply)) { return false }
                return true
            }
        }
        // Refused commands and dropped replies reach the status at most once a second.
        let (countChanges, countChanged) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        mqtt.start(onCommand: onCommand, onConnection: { _ in feed.yield(.connectionChanged) }, onCounts: { countChanged.yield() })
        let runtime = self.runtime, commands = self.commands
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in countChanges {
                    await runtime.refreshStatus()
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            for await input in inputs.cancelOnGracefulShutdown() {
                switch input {
                case .command(let line, let reply):
                    if let commands { reply(await commands.answer(line, door: .mqtt)) }
                case .connectionChanged:
                    await runtime.refreshStatus()
                }
            }
            countChanged.finish()
            group.cancelAll()
        }
        feed.finish()
        mqtt.stop()
    }
}

/// The setup page (TCP) or the control socket (a Unix socket): served until the end. A door
/// that cannot be opened is logged and the kiosk runs on without it.
struct SetupPageService: Service {
    enum Door: Sendable {
        case unix(String)
        case tcp(String, UInt16, token: String?)
    }
    let server: SetupServer
    let door: Door
    let logger: Logger

    func run() async {
        let server = self.server, door = self.door
        do {
            try await cancelWhenGracefulShutdown {
                switch door {
                case .unix(let path): try await server.serve(unixPath: path)
                case .tcp(let host, let port, let token): try await server.serve(host: host, port: port, token: token)
                }
            }
        } catch {
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            switch door {
            case .unix(let path): logger.error("no control socket \(path): \(SetupServer.reason(error))")
            case .tcp(let host, let port, _): logger.error("no setup page on \(host):\(port): \(SetupServer.reason(error)); the kiosk runs on without it")
            }
        }
        try? await gracefulShutdown()
    }
}

/// systemd: READY once the camera's first state is known (or after 5 s, the kiosk then waits
/// for the camera by itself), the camera state in STATUS, and STOPPING when the group begins
/// to stop. The watchdog pings themselves come from the kiosk's own loop (`KioskRuntime.Watchdog`,
/// made by `KioskApp` from the same notifier), never from here: a wedged kiosk stops pinging.
struct WatchdogService: Service {
    let runtime: KioskRuntime
    let systemd: SystemdNotifier

    func run() async {
        let systemd = self.systemd
        let runtime = self.runtime
        _ = try? await cancelWhenGracefulShutdown {
            var first = await runtime.status
            for _ in 0..<250 where first.camera == .starting {
                try await Task.sleep(for: .milliseconds(20))
                first = await runtime.status
            }
            systemd.notify("READY=1\nSTATUS=camera \(first.camera.name), torch \(first.torch.rawValue)")
            guard let interval = systemd.watchdogInterval else {
                try await gracefulShutdown()
                return
            }
            var lastCamera = first.camera
            while true {
                try await Task.sleep(for: interval)
                let now = await runtime.status.camera
                if now != lastCamera { systemd.notify("STATUS=camera \(now.name)"); lastCamera = now }
            }
        }
        systemd.notify("STOPPING=1")
    }
}

/// The daemon's one signal path: SIGTERM and SIGINT end this service, which shuts the group
/// down gracefully (`KioskApp.serviceConfigurations`); SIGHUP reads the config file again (a
/// bad one is rejected and the running config kept). The signals are trapped before the config
/// is read (`scand run`), so none is lost while the daemon starts.
struct SignalService: Service {
    let signals: UnixSignalsSequence
    let live: LiveConfig
    let logger: Logger

    func run() async {
        for await signal in signals.cancelOnGracefulShutdown() {
            switch signal {
            case .sighup:
                let systemd = SystemdNotifier.fromProcess()
                systemd.notify("RELOADING=1")
                await live.reload()
                systemd.notify("READY=1")
            default:
                logger.notice("\(signal): stopping")
                return
            }
        }
    }
}

/// Simulated hardware: the button pressed at a fixed interval (`scand run --press-every`).
struct PresserService: Service {
    let button: SimulatedButton
    let every: Duration

    func run() async {
        let button = self.button, every = self.every
        _ = try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: every)
                button.click()
            }
        }
    }
}
