import ArgumentParser
import CStartup
import Logging
import ScanApp
import ScanConfig
import ScanCore
import ScanRuntime
import SimulatedHardware
import ScanHardware
import ServiceLifecycle
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

/// `scand run`: the daemon.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the scanner daemon.",
        discussion: """
            SIGTERM or SIGINT stops it gracefully (torch off, outputs flushed); SIGHUP reloads the \
            config (a bad new config is rejected and the old one kept). With simulated hardware, \
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
        // One signal path from the first instruction: CStartup's constructor has noted SIGTERM,
        // SIGINT and SIGHUP since the process began; from here the daemon's own sequence takes
        // them (its signal service stops the group or reloads), and a stop noted before is
        // honoured before anything is driven. (The config is read after, so an early SIGHUP
        // changes nothing.)
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup)
        // A host or event client that goes away must be an error on that write, not the end of
        // the daemon.
        Glibc.signal(SIGPIPE, SIG_IGN)
        if scand_early_stop() != 0 {
            printError("scand: stopped during start-up (signal \(scand_early_stop()))")
            return
        }
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
            return TerminalLogHandler(logLevel: KioskRuntime.level(loaded.logLevel))
        }
        let logger = Logger(label: "scand")
        let app: KioskApp
        do {
            let options = KioskApp.Options(configPath: config, overrides: overrides, version: Version.daemon,
                                           pressEvery: pressEvery.map { .milliseconds(Int($0 * 1000)) }, signals: signals)
            app = try KioskApp(config: loaded, options: options, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
        if let button = app.simulatedButton {
            if !noStdin {
                StdinButton.start(button, logger: logger)
                logger.notice("simulated hardware: press Enter to press the button; Ctrl-C stops")
            } else if let pressEvery {
                logger.notice("simulated hardware: the button is pressed every \(pressEvery) s; Ctrl-C stops")
            }
        } else if pressEvery != nil {
            logger.warning("--press-every presses nothing: the config has no simulated button (hardware = \"simulated\" with [gpio] button = { pin = \"GPIO17\" })")
        }
        logger.notice("scand started", metadata: ["config": "\(config)", "camera": "\(app.cameraName)"])
        // One group: its signal service ends on SIGTERM or SIGINT, which shuts the group down
        // gracefully (the doors, then the kiosk with torch, LED and buzzer off, then the
        // outputs); SIGHUP reloads.
        let group = ServiceGroup(configuration: .init(services: app.serviceConfigurations, logger: logger))
        do { try await group.run() } catch {
            logger.critical("stopped by a failure: \(error)")
            throw ExitCode(1)
        }
        // The last lines: every service has ended (the kiosk, then the outputs and MQTT after it).
        app.logUndelivered(logger)
        logger.notice("scand stopped")
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
