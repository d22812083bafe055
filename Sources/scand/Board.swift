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

    struct Unsupported: Error, CustomStringConvertible { var description: String }

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
            let port = try TermiosSerialPort(path: config.serial.device, baud: config.serial.baud)
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
                                             images: config.camera.images, fps: config.camera.fps, clock: ContinuousClock())
            let button = config.lines["button"] != nil ? SimulatedButton() : nil
            let hardware = KioskHardware(camera: camera, button: button, torch: line("torch"),
                                         buzzer: line("buzzer"), statusLED: line("status_led"))
            return Board(hardware: hardware, outputs: outputs, simulatedButton: button)
        case .linux:
            throw Unsupported(description: "hardware = \"linux\": the V4L2 camera and libgpiod line drivers are not in this build yet; use hardware = \"simulated\"")
        }
    }

    static func tuning(_ config: ScandConfig) -> KioskTuning {
        KioskTuning(settings: config.kiosk, viewport: config.viewport, decoder: ZBarDecoder(symbologies: config.symbologies))
    }
}
