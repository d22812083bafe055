import Decoding
import Logging
import ScanConfig
import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware
import LinuxHardware

typealias SimulatedButtonHandle = SimulatedButton

/// The one composition root: drivers chosen and made from the config.
struct Board {
    var hardware: KioskHardware
    var outputs: [any ResultOutput]
    var simulatedButton: SimulatedButton?

    static func make(_ config: ScandConfig, logger: Logger) throws -> Board {
        var outputs: [any ResultOutput] = []
        switch config.serial.device {
        case "":
            break
        case "simulated":
            let pty = try PseudoTerminal()
            logger.notice("simulated serial port: the host end is \(pty.hostPath) (try: cat \(pty.hostPath))")
            outputs.append(SerialOutput(port: pty, prefix: config.serial.prefix, suffix: config.serial.suffix))
        default:
            var settings = SerialSettings(baud: config.serial.baud)
            settings.dataBits = config.serial.dataBits
            settings.stopBits = config.serial.stopBits
            settings.parity = SerialSettings.Parity(rawValue: config.serial.parity) ?? .none
            settings.flowControl = SerialSettings.FlowControl(rawValue: config.serial.flowControl) ?? .none
            let port = try TermiosSerialPort(path: config.serial.device, settings: settings)
            outputs.append(SerialOutput(port: port, prefix: config.serial.prefix, suffix: config.serial.suffix))
        }
        switch config.hardware {
        case .simulated:
            let trace = Trace()
            let show: @Sendable (String, LineValue) -> Void = { name, value in
                logger.debug("\(name) \(value == .active ? "on" : "off")")
            }
            func line(_ role: String) -> SimulatedLine? {
                config.lines[role].map { _ in SimulatedLine(name: role, trace: trace, onChange: show) }
            }
            let camera = try SimulatedCamera(name: "simulated camera (\(config.camera.images.joined(separator: ", ")))",
                                             images: config.camera.images, fps: config.camera.fps,
                                             repeatEach: config.camera.framesPerImage, clock: ContinuousClock())
            let button = config.lines["button"] != nil ? SimulatedButton() : nil
            let hardware = KioskHardware(camera: camera, button: button, torch: line("torch"),
                                         buzzer: line("buzzer"), statusLED: line("status_led"))
            return Board(hardware: hardware, outputs: outputs, simulatedButton: button)
        case .linux:
            var settings = CameraSettings(device: config.camera.device, width: config.camera.width,
                                          height: config.camera.height, fps: config.camera.fps)
            settings.formats = config.camera.formats.compactMap { CaptureFormat(rawValue: $0) }
            settings.controls = config.camera.controls
            let camera = V4L2Camera(settings: settings)
            func lineSettings(_ role: String) -> LineSettings? {
                config.lines[role].map { l in
                    let bias: LineSettings.Bias
                    switch l.bias {
                    case .asIs: bias = .asIs
                    case .disabled: bias = .disabled
                    case .pullUp: bias = .pullUp
                    case .pullDown: bias = .pullDown
                    }
                    return LineSettings(chip: l.chip, offset: UInt32(l.offset), activeLow: l.activeLow, bias: bias)
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
                                         buzzer: buzzer, statusLED: output("status_led"))
            return Board(hardware: hardware, outputs: outputs, simulatedButton: nil)
        }
    }

    static func tuning(_ config: ScandConfig) -> KioskTuning {
        KioskTuning(settings: config.kiosk, viewport: config.viewport,
                    decoder: DecodePipeline(symbologies: config.symbologies, quality: DecodePipeline.Quality(rawValue: config.decodeQuality) ?? .balanced,
                                            rules: config.rules, engines: config.engines.compactMap(DecodePipeline.Engine.init(rawValue:))))
    }
}
