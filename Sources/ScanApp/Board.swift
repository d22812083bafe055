import Decoding
import Logging
import ScanConfig
import Delivery
import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware
import LinuxHardware
import MQTTLink
#if canImport(Glibc)
import Glibc
#endif

/// The drivers and outputs the config names, made and not yet started: the first floor of the
/// composition (`KioskApp` builds the kiosk and its services on it).
public struct Board {
    public var hardware: KioskHardware
    public var outputs: [any ResultOutput]
    public var simulatedButton: SimulatedButton?
    /// The serial port, for host commands.
    public var serialPort: (any SerialPort)?
    /// The highest result number the outboxes have seen (results keep counting from there).
    public var lastSequence = 0
    /// Held while the daemon runs: one daemon per outbox folder.
    public var stateLock: StateLock?
    /// The MQTT output, when `[output.mqtt]` names a broker (started by `run`).
    public var mqtt: MQTTOutput?
    /// Simulated hardware: every change of its lines, camera and speaker.
    public var trace: Trace?

    /// The outbox folder, made (mode 0750) if it is not there; its parent must exist.
    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o750) == 0 || errno == EEXIST { return }
        let code = errno
        throw HardwareError(HardwareError.kind(forErrno: code), operation: "mkdir", device: path, errno: code,
                            hint: "the outbox folder (outbox.directory) cannot be made")
    }

    /// Drivers, outputs and outboxes for `config` (`version`: what MQTT reports).
    public static func make(_ config: ScandConfig, version: String, logger: Logger) throws -> Board {
        try make(config, version: version, logger: logger, clock: ContinuousClock())
    }

    /// The same, with the simulated camera's frames paced by `clock` (a manual clock in virtual time).
    public static func make<C: Clock>(_ config: ScandConfig, version: String, logger: Logger, clock: C) throws -> Board
        where C.Duration == Duration {
        var outputs: [any ResultOutput] = []
        var lastSequence = 0
        if let directory = config.outboxDirectory { try makeDirectory(directory) }
        let stateLock = try config.outboxDirectory.map { try StateLock(path: "\($0)/scand.lock") }
        func outbox(_ name: String) throws -> Outbox {
            let box = try Outbox(path: config.outboxDirectory.map { "\($0)/\(name).outbox" }, capacity: config.outboxCapacity,
                                 policy: config.outboxPolicy)
            lastSequence = max(lastSequence, box.maxSequence)
            for problem in box.problems { logger.error("\(name) outbox \(box.path ?? ""): \(problem)\(problem.hasPrefix("line ") ? ": skipped" : "")") }
            if !box.pending.isEmpty { logger.notice("\(name): \(box.pending.count) result(s) from before the restart will be sent") }
            return box
        }
        func format(_ format: ResultFormat, aim: Bool, prefix: [UInt8], suffix: [UInt8], gs1: GS1Text) -> OutputFormat {
            switch format {
            case .json: return .jsonLines
            case .text: return .text(prefix: prefix, suffix: suffix, aim: aim, gs1: gs1)
            }
        }
        var serialPort: (any SerialPort)?
        switch config.serial.device {
        case "":
            break
        case "simulated":
            let pty = try PseudoTerminal()
            logger.notice("simulated serial port: the host end is \(pty.hostPath) (try: cat \(pty.hostPath))")
            serialPort = pty
        default:
            var settings = SerialSettings(baud: config.serial.baud)
            settings.dataBits = config.serial.dataBits
            settings.stopBits = config.serial.stopBits
            settings.parity = config.serial.parity
            settings.flowControl = config.serial.flowControl
            serialPort = try TermiosSerialPort(path: config.serial.device, settings: settings, waitForDevice: true)
        }
        if let serialPort {
            outputs.append(DeliveringOutput(port: serialPort, format: format(config.serial.format, aim: config.serial.aim,
                                                                             prefix: config.serial.prefix, suffix: config.serial.suffix, gs1: config.serial.gs1),
                                            outbox: try outbox("serial"), requiresAck: config.serial.ack, logger: logger))
        }
        if config.stdout.enabled {
            outputs.append(DeliveringOutput(name: "stdout", format: format(config.stdout.format, aim: config.stdout.aim,
                                                                           prefix: config.stdout.prefix, suffix: config.stdout.suffix, gs1: config.stdout.gs1),
                                            logger: logger, writer: Writers.stdout))
        }
        if config.hid.enabled {
            outputs.append(DeliveringOutput(name: "hid \(PayloadText.escaped(config.hid.device))",
                                            format: .text(prefix: config.hid.prefix, suffix: config.hid.suffix, aim: config.hid.aim, gs1: config.hid.gs1),
                                            outbox: try outbox("hid"), logger: logger,
                                            writer: Writers.hidKeyboard(path: config.hid.device, layout: config.hid.layout)))
        }
        let mqtt = try config.mqtt.url.map { url in
            try makeMQTT(config.mqtt, url: url, outbox: try outbox("mqtt"), version: version, logger: logger)
        }
        if let mqtt { outputs.append(mqtt) }
        switch config.hardware {
        case .simulated:
            let trace = Trace(capacity: 1000)
            let show: @Sendable (String, LineValue) -> Void = { name, value in
                logger.debug("\(name) \(value == .active ? "on" : "off")")
            }
            func line(_ role: String) -> SimulatedLine? {
                config.lines[role].map { _ in SimulatedLine(name: role, trace: trace, onChange: show) }
            }
            let camera = try Self.camera(config, clock: clock)
            let button = config.lines["button"] != nil ? SimulatedButton() : nil
            let speaker: (any Speaker)? = try config.feedback.speech.wavDirectory == nil && config.feedback.speech.enabled
                ? SimulatedSpeaker(trace: trace, now: Board.elapsed(), selfTimed: true, onSay: { logger.debug("speaker: \"\($0)\"") })
                : speaker(config.feedback.speech, logger: logger)
            let hardware = KioskHardware(camera: camera, button: button, torch: line("torch"),
                                         buzzer: config.buzzerPWM != nil ? SimulatedToneLine(name: "buzzer", defaultHz: config.buzzerHz, trace: trace, onChange: show)
                                             : line("buzzer"),
                                         statusLED: line("status_led"), speaker: speaker)
            return Board(hardware: hardware, outputs: outputs, simulatedButton: button, serialPort: serialPort, lastSequence: lastSequence,
                         stateLock: stateLock, mqtt: mqtt, trace: trace)
        case .linux:
            let camera = try Self.camera(config)
            func lineSettings(_ role: String) -> LineSettings? {
                config.lines[role].map { l in
                    let bias: LineSettings.Bias
                    switch l.bias {
                    case .asIs: bias = .asIs
                    case .disabled: bias = .disabled
                    case .pullUp: bias = .pullUp
                    case .pullDown: bias = .pullDown
                    }
                    return LineSettings(chip: l.chip, offset: UInt32(exactly: l.offset) ?? .max, activeLow: l.activeLow, bias: bias)
                }
            }
            // A line that cannot be had (held by another program, no such chip) is reported and
            // left out: the kiosk runs without it rather than not at all.
            func degrade<T>(_ role: String, _ make: () throws -> T?) -> T? {
                do { return try make() } catch {
                    logger.error("\(role) line not available, running without it: \(error)")
                    return nil
                }
            }
            func output(_ role: String) -> (any OutputLine)? {
                degrade(role) { try lineSettings(role).map { try GPIOOutputLine(role: role, settings: $0) } }
            }
            let button = degrade("button") { try lineSettings("button").map { try GPIOButton(settings: $0, debounce: config.debounce) } }
            let buzzer: (any OutputLine)? = config.buzzerPWM != nil
                ? degrade("buzzer") { try SysfsPWMTone(channel: config.buzzerPWM!, hz: config.buzzerHz) } : output("buzzer")
            let hardware = KioskHardware(camera: camera, button: button, torch: output("torch"),
                                         buzzer: buzzer, statusLED: output("status_led"), speaker: try speaker(config.feedback.speech, logger: logger))
            return Board(hardware: hardware, outputs: outputs, simulatedButton: nil, serialPort: serialPort, lastSequence: lastSequence,
                         stateLock: stateLock, mqtt: mqtt)
        }
    }

    /// The config's camera, not opened: a V4L2 device, a libcamera camera, or the simulated one
    /// playing images.
    public static func camera(_ config: ScandConfig) throws -> any FrameSource {
        try camera(config, clock: ContinuousClock())
    }

    static func camera<C: Clock>(_ config: ScandConfig, clock: C) throws -> any FrameSource where C.Duration == Duration {
        switch config.hardware {
        case .simulated:
            return try SimulatedCamera(name: "simulated camera (\(config.camera.images.map(PayloadText.escaped).joined(separator: ", ")))",
                                       images: config.camera.images, fps: config.camera.fps,
                                       repeatEach: config.camera.framesPerImage, clock: clock)
        case .linux:
            let libcamera = SystemLibcamera()
            if usesLibcamera(config.camera.backend, id: config.camera.id, listed: { try? libcamera.cameras().map(\.id) }) {
                var settings = LibcameraSettings(id: config.camera.id, width: config.camera.width, height: config.camera.height,
                                                 fps: config.camera.fps)
                settings.controls = config.camera.controls
                return LibcameraCamera(settings: settings, shim: libcamera)
            }
            var settings = CameraSettings(device: config.camera.device, width: config.camera.width,
                                          height: config.camera.height, fps: config.camera.fps)
            settings.formats = config.camera.formats
            settings.controls = config.camera.controls
            return V4L2Camera(settings: settings)
        }
    }

    /// Whether `camera.backend` opens the camera through libcamera: always for `libcamera`,
    /// never for `v4l2`; for `auto` when libcamera lists the camera (`id`, or any camera when
    /// `id` is empty). `listed` (libcamera's camera ids, nil when it could not start) is asked
    /// only for `auto`.
    public static func usesLibcamera(_ backend: ScandConfig.Camera.Backend, id: String, listed: () -> [String]?) -> Bool {
        switch backend {
        case .v4l2: return false
        case .libcamera: return true
        case .auto:
            guard let ids = listed() else { return false }
            return id.isEmpty ? !ids.isEmpty : ids.contains(id)
        }
    }

    /// The MQTT output: client id (default: the host name), topic prefix (default
    /// `scand/<client id>`), credentials from the password file, TLS files checked here.
    static func makeMQTT(_ m: ScandConfig.MQTT, url: MQTTURL, outbox: Outbox, version: String, logger: Logger) throws -> MQTTOutput {
        let clientID = m.clientID.isEmpty ? hostName() : m.clientID
        var settings = MQTTClient.Settings(host: url.host, port: url.port, clientID: clientID)
        settings.keepalive = m.keepalive
        settings.tls = url.tls
        for file in [m.tlsCA, m.tlsCert, m.tlsKey, m.passwordFile].compactMap({ $0 }) where access(file, R_OK) != 0 {
            let code = errno
            throw HardwareError(HardwareError.kind(forErrno: code), operation: "access", device: file, errno: code,
                                hint: "a file named in [output.mqtt] must be readable by the service user")
        }
        settings.caFile = m.tlsCA
        settings.certFile = m.tlsCert
        settings.keyFile = m.tlsKey
        if !m.username.isEmpty {
            settings.username = m.username
            if let file = m.passwordFile {
                let bytes = try FileBytes.read(file, limit: 4096)
                settings.password = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            }
        }
        let prefix = m.topicPrefix.isEmpty ? "scand/\(clientID)" : m.topicPrefix
        let output = try MQTTOutput(settings: settings, prefix: prefix, qos: m.qos, outbox: outbox, commands: m.commands,
                                    version: version, logger: logger)
        logger.notice("mqtt: \(url) as \(clientID), topics \(prefix)/result, status, cmd\(m.events ? ", event" : "")")
        return output
    }

    /// The host name as an MQTT client id takes it (letters, digits, `-_.`; `scand` if none).
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "scand" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let clean = String(name.prefix(64).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") })
        return clean.isEmpty ? "scand" : clean
    }

    /// espeak-ng as `[feedback.speech]` says: WAV files in `wav_dir`, or the ALSA device; nil
    /// when speech is off. A voice or device that cannot be had stops the start (a kiosk
    /// configured to speak must not stay silent unnoticed).
    public static func speaker(_ speech: ScandConfig.SpeechConfig, logger: Logger) throws -> (any Speaker)? {
        guard speech.enabled else { return nil }
        let voice = EspeakSpeaker.Voice(name: speech.voice, rate: speech.rate, volume: speech.volume)
        let speaker = try EspeakSpeaker(voice: voice, output: speech.wavDirectory.map { .wavDirectory($0) } ?? .alsa(speech.device))
        logger.notice("speech: \(speaker.name), results delivered \(speech.deliver == .after ? "after the announcement" : "at once")")
        return speaker
    }

    /// Time since the first call, on the continuous clock.
    static func elapsed() -> @Sendable () -> Duration {
        let start = ContinuousClock.now
        return { ContinuousClock.now - start }
    }

    /// The config file with its overrides, validated as `ConfigLoader` does and against the
    /// decoding engines: a symbology that no configured engine reads is an error naming the
    /// engines that do (it would otherwise never read, silently).
    public static func loadConfig(path: String, overrides: [String] = []) throws(ConfigErrors) -> ScandConfig {
        try loadConfig(path: path, bytes: ConfigLoader.fileBytes(path), overrides: overrides)
    }

    /// The config the file's `bytes` (read before) make, as `loadConfig(path:overrides:)` does.
    public static func loadConfig(path: String, bytes: [UInt8], overrides: [String] = []) throws(ConfigErrors) -> ScandConfig {
        let config = try ConfigLoader.load(bytes: bytes, path: path, overrides: overrides, knownVoice: { EspeakSpeaker.hasVoice($0) })
        let engines = config.engines
        let read = engines.reduce(into: Set<Symbology>()) { $0.formUnion($1.supportedSymbologies) }
        let unread = config.symbologies.subtracting(read)
        guard unread.isEmpty else {
            let names = unread.map(\.rawValue).sorted()
            let others = DecodePipeline.Engine.allCases.filter { !engines.contains($0) && !$0.supportedSymbologies.isDisjoint(with: unread) }
            throw ConfigErrors(errors: [ConfigError(
                file: path, line: nil, key: "scan.symbologies",
                message: "\(names.joined(separator: ", ")) \(names.count == 1 ? "is" : "are") read by no configured engine "
                    + "(decoding.engines = \(config.engines.map(\.rawValue).joined(separator: ", ")))"
                    + (others.isEmpty ? "; leave \(names.count == 1 ? "it" : "them") out"
                        : "; \(others.map(\.rawValue).joined(separator: ", ")) reads \(names.count == 1 ? "it" : "them"): add it to decoding.engines or leave \(names.count == 1 ? "it" : "them") out"))])
        }
        return config
    }

    /// What a running kiosk takes from `config`: the one mapping used at start, on SIGHUP and
    /// on a host `SET` (`hasTorchLine`: whether the board has a torch line at all).
    public static func tuning(_ config: ScandConfig, hasTorchLine: Bool) -> KioskTuning {
        var settings = config.kiosk
        settings.hasTorch = hasTorchLine && config.kiosk.hasTorch
        settings.sameSymbolTimeout = config.sameSymbolTimeout
        settings.speech = config.feedback.speech.behaviour
        return KioskTuning(settings: settings, viewport: config.viewport,
                           decoder: DecodePipeline(symbologies: config.symbologies, quality: config.decodeQuality,
                                                   rules: config.rules, engines: config.engines, checksReadsInFrame: true,
                                                   // `scan.multiple`: up to N codes of a frame, so the first look must not stop at one.
                                                   stopsAtFirstCode: config.kiosk.multiple <= 1),
                           phrases: config.feedback.speech.phrases)
    }
}
