import ArgumentParser
import LinuxHardware
import ScanApp
import ScanConfig
#if canImport(Glibc)
import Glibc
#endif

/// `scand probe`: what the board has.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "List cameras (formats, sizes, rates, controls), GPIO chips and lines, and serial ports.")

    @Option(help: "The TOML config file: with camera.backend = \"libcamera\" or \"auto\", libcamera's cameras are listed too.")
    var config: String = "/etc/scand/scand.toml"

    @Flag(help: "List libcamera's cameras (CSI camera modules) whatever the config says.")
    var libcamera = false

    func run() throws {
        var backend = ScandConfig.Camera.Backend.v4l2
        if access(config, F_OK) == 0 {
            do { backend = try Board.loadConfig(path: config).camera.backend } catch {
                printError("scand probe: \(config) not usable, so its camera.backend is not known (--libcamera lists libcamera's cameras):\n\(error)")
            }
        }
        let cameras = Probe.cameras()
        print("Cameras:\(cameras.isEmpty ? " none (no /dev/video*)" : "")")
        for c in cameras {
            if let error = c.error { print("  \(c.path): \(error)"); continue }
            print("  \(c.path): \(c.card) (\(c.driver))")
            for f in c.formats { print("    format \(f)") }
            for control in c.controls { print("    control \(control)") }
        }
        if libcamera || backend != .v4l2 {
            for line in Probe.libcameraLines() { print(line) }
        }
        let chips = Probe.chips()
        print("GPIO chips:\(chips.isEmpty ? " none (no /dev/gpiochip*)" : "")")
        for chip in chips {
            print("  \(chip.name) [\(chip.label)] \(chip.lines.count) lines")
            for line in chip.lines { print("    \(line)") }
        }
        let ports = Probe.serialPorts()
        print("Serial ports:\(ports.isEmpty ? " none" : "")")
        for p in ports { print("  \(p)") }
    }
}
