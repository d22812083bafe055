import ArgumentParser
import LinuxHardware

/// `scand probe`: what the board has.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "List cameras (formats, sizes, rates, controls), GPIO chips and lines, and serial ports.")

    func run() throws {
        let cameras = Probe.cameras()
        print("Cameras:\(cameras.isEmpty ? " none (no /dev/video*)" : "")")
        for c in cameras {
            if let error = c.error { print("  \(c.path): \(error)"); continue }
            print("  \(c.path): \(c.card) (\(c.driver))")
            for f in c.formats { print("    format \(f)") }
            for control in c.controls { print("    control \(control)") }
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
