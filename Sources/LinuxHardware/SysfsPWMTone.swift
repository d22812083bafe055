import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A passive buzzer driven with a square-wave tone from a PWM channel in sysfs
/// (`/sys/class/pwm/pwmchipN/pwmM`): active = tone on, inactive = silent. The channel is exported
/// if needed, set to `hz` at 50 % duty, and disabled again when the value is deinitialized.
public final class SysfsPWMTone: OutputLine, Sendable {
    public let name: String
    /// The pitch it was set up with (`buzzer.frequency_hz`).
    public let defaultHz: Int
    private let channel: String
    private let sys: Syscalls

    public init(channel: String, hz: Int, syscalls: Syscalls = .system) throws(HardwareError) {
        self.channel = channel
        self.sys = syscalls
        defaultHz = hz
        name = "buzzer (PWM \(channel), \(hz) Hz)"
        if access(channel + "/enable", F_OK) != 0 {
            // Export pwmM through the chip's export file.
            guard let slash = channel.lastIndex(of: "/"), let number = Int(channel[channel.index(after: slash)...].dropFirst(3)) else {
                throw HardwareError(.notFound, operation: "open", device: channel, errno: ENOENT, hint: "name a channel like /sys/class/pwm/pwmchip0/pwm0")
            }
            try writeFile(String(channel[..<slash]) + "/export", "\(number)")
        }
        try writeFile(channel + "/enable", "0")
        try writePeriod(hz)
    }

    /// A new pitch at 50 % duty (nil: `defaultHz`). The duty cycle goes to 0 first: the kernel
    /// refuses a period shorter than the duty cycle it has (EINVAL).
    public func setPitch(_ hz: Int?) throws(HardwareError) {
        try writePeriod(hz ?? defaultHz)
    }

    private func writePeriod(_ hz: Int) throws(HardwareError) {
        let period = 1_000_000_000 / min(max(hz, 100), 20_000)
        try writeFile(channel + "/duty_cycle", "0")
        try writeFile(channel + "/period", "\(period)")
        try writeFile(channel + "/duty_cycle", "\(period / 2)")
    }

    deinit { try? writeFile(channel + "/enable", "0") }

    /// Writes the channel's `enable` file.
    public func set(_ value: LineValue) throws(HardwareError) {
        try writeFile(channel + "/enable", value.isActive ? "1" : "0")
    }

    private func writeFile(_ path: String, _ text: String) throws(HardwareError) {
        let sys = self.sys
        let fd = try sys.check("open", device: path, hint: { $0 == EACCES ? "add the service user to group gpio (PWM sysfs)" : nil }) {
            sys.open(path, O_WRONLY | O_CLOEXEC)
        }
        defer { _ = sys.close(fd) }
        let bytes = Array(text.utf8)
        try sys.check("write", device: path) { bytes.withUnsafeBytes { sys.write(fd, $0.baseAddress, $0.count) } }
    }
}
