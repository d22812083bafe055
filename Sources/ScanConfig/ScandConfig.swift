import Delivery
import ScanCore

/// scand's whole configuration, typed and validated. Every field has a default; a config file
/// names only what differs. `config/scand.toml` documents every key.
public struct ScandConfig: Equatable, Sendable {
    /// Which drivers run the kiosk: the board's real ones or the simulated ones (demo, tests).
    public enum Hardware: String, Sendable, CaseIterable { case linux, simulated }

    public struct Camera: Equatable, Sendable {
        /// The seed's quality levels, as capture sizes.
        public enum Quality: String, Sendable, CaseIterable {
            case fast, balanced, accurate
            public var size: (width: Int, height: Int) {
                switch self {
                case .fast: return (640, 480)
                case .balanced: return (1280, 720)
                case .accurate: return (1920, 1080)
                }
            }
        }
        /// Which camera stack opens the camera.
        public enum Backend: String, Sendable, CaseIterable {
            /// The kernel's V4L2 device `device` (USB cameras, CSI bridges that give YUV).
            case v4l2
            /// libcamera's camera `id` (Raspberry Pi CSI camera modules: raw Bayer sensors whose
            /// exposure, white balance and focus run inside libcamera).
            case libcamera
            /// libcamera when it lists the camera (`id`, or any camera when `id` is empty), else V4L2.
            case auto
        }
        public var backend = Backend.v4l2
        /// libcamera's camera id (`scand probe` lists them); empty: the first camera libcamera lists.
        public var id = ""
        /// V4L2 device path or stable name (`/dev/v4l/by-id/...`).
        public var device = "/dev/video0"
        public var quality = Quality.balanced
        /// Explicit size; defaults to the quality level's.
        public var width = 1280
        public var height = 720
        public var fps = 30
        /// Capture formats in order of preference: no conversion first, no decoding last.
        public var formats: [CameraFormat] = CameraFormat.allCases
        /// Camera controls by name (exposure_auto, exposure_absolute, focus_auto,
        /// focus_absolute, gain, power_line_frequency, brightness, contrast, sharpness,
        /// white_balance_auto).
        public var controls: [String: Int] = [:]
        /// Simulated camera: image files or folders it plays, in order, looping.
        public var images: [String] = []
        /// Simulated camera: frames each image is shown for (a code stays in view a while).
        public var framesPerImage = 15
        /// Keep the stream on between sessions (a warm camera: a press uses the next frame).
        public var keepStreaming = false
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
        public var dataBits = 8
        public var parity = SerialParity.none
        public var stopBits = 1
        public var flowControl = SerialFlowControl.none
        /// Bytes written before and after each result (escapes like `\r\n`, `\x02` allowed).
        public var prefix: [UInt8] = []
        public var suffix: [UInt8] = [13, 10]
        public var format = ResultFormat.text
        /// Put the AIM symbology identifier before the text.
        public var aim = false
        /// Keep each result until the host sends `ACK <seq>`.
        public var ack = false
        /// Accept host commands on the port.
        public var commands = true
        /// GS1 data as decoded or as `(01)...(10)...` (format text only).
        public var gs1 = GS1Text.raw
    }

    /// Another output: stdout or a USB HID keyboard gadget.
    public struct Output: Equatable, Sendable {
        public var enabled = false
        public var device = ""
        public var format = ResultFormat.text
        public var aim = false
        public var prefix: [UInt8] = []
        public var suffix: [UInt8] = [10]
        /// HID only: the host's keyboard layout.
        public var layout = KeyboardLayout.us
        /// GS1 data as decoded or as `(01)...(10)...` (format text only).
        public var gs1 = GS1Text.raw
    }

    /// `[output.mqtt]`: results, status and commands through an MQTT broker.
    public struct MQTT: Equatable, Sendable {
        /// nil: no MQTT output.
        public var url: MQTTURL?
        /// Empty: the host name.
        public var clientID = ""
        /// Empty: `scand/<client_id>`.
        public var topicPrefix = ""
        public var qos = 1
        public var username = ""
        /// A file whose first line is the password (kept out of the config).
        public var passwordFile: String?
        public var tlsCA: String?
        public var tlsCert: String?
        public var tlsKey: String?
        public var keepalive = 30
        /// Publish the event socket's events on `<prefix>/event`.
        public var events = false
        /// Accept host commands on `<prefix>/cmd`.
        public var commands = true
    }

    public var hardware = Hardware.linux
    public var camera = Camera()
    public var viewport = Viewport(x: 0.1, y: 0.1, width: 0.8, height: 0.8)
    public var symbologies: Set<Symbology> = [
        .upcE, .ean8, .ean13, .upcA, .itf, .itf14, .code39, .code93, .code128, .pdf417, .aztec, .dataMatrix, .qrCode,
    ]
    public var kiosk = KioskSettings()
    /// Decoding engines in order (`zxing`, `zbar`) and how many extra passes a frame may get.
    public var engines: [DecodingEngine] = [.zxing, .zbar]
    public var decodeQuality = DecodeQuality.balanced
    /// Per-symbology rules (length, check digit, agreeing frames).
    public var rules = SymbologyRules()
    /// Button debounce period, applied by the driver.
    public var debounce: Duration = .milliseconds(30)
    /// A passive buzzer driven with a tone: a sysfs PWM channel (`/sys/class/pwm/pwmchip0/pwm0`)
    /// and its frequency; nil for an active buzzer on `lines["buzzer"]`.
    public var buzzerPWM: String?
    public var buzzerHz = 2700
    /// Configured lines by role: `button`, `torch`, `buzzer`, `status_led`.
    public var lines: [String: Line] = [:]
    public var serial = Serial()
    public var mqtt = MQTT()
    public var stdout = Output()
    public var hid = Output(enabled: false, device: "/dev/hidg0", format: .text, aim: false, prefix: [], suffix: [10], layout: .us)
    /// Where outboxes live (one file per output), or nil to keep pending results in memory.
    public var outboxDirectory: String?
    public var outboxCapacity = 1000
    public var outboxPolicy = OutboxPolicy.dropOldest
    /// The same code again within this time is not reported twice.
    public var sameSymbolTimeout: Duration = .milliseconds(500)
    /// A Prometheus text file rewritten on every change, or nil.
    public var metricsFile: String?
    /// A Unix socket streaming JSON events, or nil.
    public var eventSocket: String?
    /// The control socket (HTTP over a Unix socket: `scand snapshot`, `curl --unix-socket`), or nil.
    public var controlSocket: String? = "/run/scand/control.sock"
    /// `[web]`: the setup page's address (nil: off) and the token every request must carry.
    public var webListen: ListenAddress?
    public var webToken: String?
    /// A file scand rewrites with its status and metrics, or nil.
    public var statusFile: String?
    public var logLevel = LogLevel.info
    /// `log.payloads`: how much of a payload the log shows (full, type, redacted).
    public var logPayloads = PayloadLogging.full
    /// `[feedback]`: the integrator's beep, flash and status LED patterns (what is not set keeps
    /// the built-in pattern).
    public var feedback = FeedbackConfig()

    /// Patterns as on/off milliseconds, alternating and starting with on.
    public struct FeedbackConfig: Equatable, Sendable {
        /// The buzzer per outcome (one shot; off after the last step).
        public var beep: [Feedback: [Int]] = [:]
        /// The status LED's flash per outcome, played over the status pattern (one shot).
        public var flash: [Feedback: [Int]] = [:]
        /// The torch as the flash per outcome (one shot), played while the kiosk does not
        /// need the torch itself.
        public var torch: [Feedback: [Int]] = [:]
        /// The status LED per indication: on/off pairs repeated, or one value: steady on
        /// (`[1]`) or off (`[0]`).
        public var led: [StatusIndication: [Int]] = [:]
        /// The buzzer's pitch per outcome (a PWM buzzer; `buzzer.frequency_hz` otherwise).
        public var tone: [Feedback: Int] = [:]
        /// A beep when the kiosk enters an indication (one shot), e.g. the camera unplugged.
        public var entryBeep: [StatusIndication: [Int]] = [:]
        /// `[feedback.speech]`.
        public var speech = SpeechConfig()
        public init() {}
    }

    /// `[feedback.speech]`: spoken announcements (espeak-ng).
    public struct SpeechConfig: Equatable, Sendable {
        public var enabled = false
        /// An espeak-ng voice: `en`, `de`, `en-us`, `fr+f3`.
        public var voice = "en"
        /// Words a minute (80...450).
        public var rate = 175
        /// 0...200, 100 normal.
        public var volume = 100
        public var say = SpokenContent.type
        public var noRead = SpeechPhrases().noRead
        public var cameraError = SpeechPhrases().cameraError
        public var outputsFull = SpeechPhrases().outputsFull
        public var deliver = SpeechDelivery.after
        public var replacesFlash = true
        /// The ALSA PCM the voice plays on.
        public var device = "default"
        /// Write each announcement as a WAV file here instead of playing it.
        public var wavDirectory: String?

        /// The kiosk's part: nil when speech is off.
        public var behaviour: SpeechBehaviour? { enabled ? SpeechBehaviour(deliver: deliver, replacesFlash: replacesFlash) : nil }
        public var phrases: SpeechPhrases { SpeechPhrases(say: say, noRead: noRead, cameraError: cameraError, outputsFull: outputsFull) }
        public init() {}
    }

    public init() {
        kiosk.agreeingFrames = Dictionary(uniqueKeysWithValues: Symbology.allCases.map { ($0, rules.rule($0).agreeingFrames) })
    }

    /// The line roles scand knows.
    public static let lineRoles = ["button", "torch", "buzzer", "status_led"]
    /// A GPIO chip's line offsets (the kernel counts a chip's lines in 16 bits).
    public static let lineOffsets = 0...65535

    /// Whether two `chip` values name one chip as far as the config tells: the same text, or
    /// the same number (`0`, `gpiochip0`, `/dev/gpiochip0`). A label and a number are told
    /// apart only on the board, where the second line's open fails as busy.
    public static func sameChip(_ a: String, _ b: String) -> Bool {
        func number(_ s: String) -> Int? {
            let name = s.hasPrefix("/dev/") ? String(s.dropFirst(5)) : s
            return Int(name.hasPrefix("gpiochip") ? String(name.dropFirst(8)) : name)
        }
        if a == b { return true }
        guard let x = number(a), let y = number(b) else { return false }
        return x == y
    }
}

extension ScandConfig {
    /// Keys (and tables) a running daemon applies at once, on a host `SET` or SIGHUP; every other
    /// key names hardware, files or outputs and takes effect at the next start.
    public static let runtimeKeys = ["scan", "decoding", "symbology", "torch.mode", "button.long_press_ms", "button.long_press",
                                     "camera.focus", "camera.lens_position"]

    /// Keys a running daemon applies on SIGHUP but not on `SET`: `SET` says to reload.
    public static let reloadKeys = ["torch.skip_frames"]

    /// `camera.lens_position`'s range in dioptres: infinity to 3 cm (libcamera's `LensPosition`
    /// for the Pi's Camera Module 3 goes to 15, 6.7 cm; a lens that stops short clamps it).
    public static let lensPositions = 0.0...32.0

    /// Whether a change of `key` (dotted parts) takes effect without a restart.
    public static func takesEffectWhileRunning(_ key: [String]) -> Bool {
        let name = key.joined(separator: ".")
        return runtimeKeys.contains { name == $0 || name.hasPrefix($0 + ".") }
    }

    /// This config with everything a running daemon applies reset: two configs whose
    /// `startOnly` differ need a restart to go from one to the other.
    public var startOnly: ScandConfig {
        let defaults = ScandConfig()
        var c = self
        c.viewport = defaults.viewport
        c.symbologies = defaults.symbologies
        let hasTorch = c.kiosk.hasTorch
        c.kiosk = defaults.kiosk
        c.kiosk.hasTorch = hasTorch
        c.engines = defaults.engines
        c.decodeQuality = defaults.decodeQuality
        c.rules = defaults.rules
        c.sameSymbolTimeout = defaults.sameSymbolTimeout
        return c
    }

    /// The keys and tables whose start-only settings differ in `other` (for the reload's
    /// warning: `[outbox]`, `[camera]`, `log_level`), in the file's usual order.
    public func startOnlyChanges(to other: ScandConfig) -> [String] {
        let (a, b) = (startOnly, other.startOnly)
        let fields: [(String, Bool)] = [
            ("hardware", a.hardware != b.hardware), ("log_level", a.logLevel != b.logLevel), ("[camera]", a.camera != b.camera),
            ("button.debounce_ms", a.debounce != b.debounce), ("[buzzer]", a.buzzerPWM != b.buzzerPWM || a.buzzerHz != b.buzzerHz),
            ("[gpio]", a.lines != b.lines), ("[output.serial]", a.serial != b.serial), ("[output.stdout]", a.stdout != b.stdout),
            ("[output.hid]", a.hid != b.hid), ("[output.mqtt]", a.mqtt != b.mqtt),
            ("[outbox]", a.outboxDirectory != b.outboxDirectory || a.outboxCapacity != b.outboxCapacity || a.outboxPolicy != b.outboxPolicy),
            ("[metrics]", a.metricsFile != b.metricsFile), ("[events]", a.eventSocket != b.eventSocket), ("[status]", a.statusFile != b.statusFile),
            ("[control]", a.controlSocket != b.controlSocket), ("[web]", a.webListen != b.webListen || a.webToken != b.webToken),
            ("[log]", a.logPayloads != b.logPayloads), ("[feedback]", a.feedback != b.feedback),
        ]
        let named = fields.filter(\.1).map(\.0)
        // Anything else that differs (a table added since) is still said.
        return named.isEmpty && a != b ? ["other start-only keys"] : named
    }
}

/// A broker address: `mqtt://host[:port]` (1883) or `mqtts://host[:port]` (8883, TLS).
public struct MQTTURL: Equatable, Sendable, CustomStringConvertible {
    public var tls: Bool
    public var host: String
    public var port: Int

    /// Parses a broker URL; nil with the reason when it is not one. Bounded and strict: a host
    /// name or IPv4/IPv6 address ([::1]), an optional port 1...65535, nothing else (no user info,
    /// path, query).
    public static func parse(_ text: String) -> Result<MQTTURL, MQTTURLError> {
        guard text.utf8.count <= 300 else { return .failure(MQTTURLError("longer than 300 bytes")) }
        let tls: Bool
        var rest: Substring
        if text.hasPrefix("mqtt://") { tls = false; rest = text.dropFirst(7) } else if text.hasPrefix("mqtts://") { tls = true; rest = text.dropFirst(8) } else {
            return .failure(MQTTURLError("must start with mqtt:// or mqtts://"))
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return .failure(MQTTURLError("an IPv6 address needs its closing ]")) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(MQTTURLError("only :port may follow the address")) }
                portText = after.dropFirst()
            }
            // 45 characters: the longest IPv6 text form (INET6_ADDRSTRLEN - 1), IPv4 tail included.
            guard !host.isEmpty, host.utf8.count <= 45,
                  host.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else {
                return .failure(MQTTURLError("\"\(host)\" is not an IPv6 address"))
            }
        } else {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
            guard !host.isEmpty, host.utf8.count <= 253,
                  host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else {
                return .failure(MQTTURLError("\"\(host)\" is not a host name or address (letters, digits, - and . only; no path or user)"))
            }
        }
        var port = tls ? 8883 : 1883
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p), portText.allSatisfy(\.isNumber) else {
                return .failure(MQTTURLError("port \"\(portText)\" is not 1 to 65535"))
            }
            port = p
        }
        return .success(MQTTURL(tls: tls, host: String(host), port: port))
    }

    public init(tls: Bool, host: String, port: Int) {
        self.tls = tls
        self.host = host
        self.port = port
    }

    public var description: String {
        "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

public struct MQTTURLError: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
