import ScanCore

/// scand's whole configuration, typed and validated. Every field has a default; a config file
/// names only what differs. `config/scand.toml` documents every key.
public struct ScandConfig: Equatable, Sendable {
    /// Which drivers run the kiosk: the board's real ones or the simulated ones (demo, tests).
    public enum Hardware: String, Sendable, CaseIterable { case linux, simulated }

    public struct Camera: Equatable, Sendable {
        /// V4L2 device path or stable name (`/dev/v4l/by-id/...`).
        public var device = "/dev/video0"
        public var width = 1280
        public var height = 720
        public var fps = 30
        /// Simulated camera: image files or folders it plays, in order, looping.
        public var images: [String] = []
    }

    /// One GPIO line of the board profile, as the kiosk uses it.
    public struct Line: Equatable, Sendable {
        public enum Bias: String, Sendable, CaseIterable {
            case asIs = "as-is", disabled, pullUp = "pull-up", pullDown = "pull-down"
        }
        /// The chip (name, path, label or number) holding the line.
        public var chip: String
        /// The line's offset on the chip.
        public var offset: Int
        /// The pin's name as written in the config (e.g. `GPIO17`), for logs.
        public var pin: String
        public var activeLow = false
        public var bias = Bias.asIs

        public init(chip: String, offset: Int, pin: String, activeLow: Bool = false, bias: Bias = .asIs) {
            self.chip = chip
            self.offset = offset
            self.pin = pin
            self.activeLow = activeLow
            self.bias = bias
        }
    }

    public struct Serial: Equatable, Sendable {
        /// The tty, or empty for no serial output.
        public var device = ""
        public var baud = 115_200
        /// Bytes written before and after each result (escapes like `\r\n`, `\x02` allowed).
        public var prefix: [UInt8] = []
        public var suffix: [UInt8] = [13, 10]
    }

    public var hardware = Hardware.linux
    public var camera = Camera()
    public var viewport = Viewport(x: 0.1, y: 0.1, width: 0.8, height: 0.8)
    public var symbologies: Set<Symbology> = [
        .upcE, .ean8, .ean13, .upcA, .itf, .itf14, .code39, .code93, .code128, .pdf417, .aztec, .dataMatrix, .qrCode,
    ]
    public var kiosk = KioskSettings()
    /// Button debounce period, applied by the driver.
    public var debounce: Duration = .milliseconds(30)
    /// Configured lines by role: `button`, `torch`, `buzzer`, `status_led`.
    public var lines: [String: Line] = [:]
    public var serial = Serial()
    /// A file scand rewrites with its status and metrics, or nil.
    public var statusFile: String?
    public var logLevel = LogLevel.info

    public init() {}

    /// The line roles scand knows.
    public static let lineRoles = ["button", "torch", "buzzer", "status_led"]
}
