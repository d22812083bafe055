import Delivery
import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Walks the parsed tree, fills a `ScandConfig` and collects every problem with its line.
struct Reader {
    let file: String
    let lines: LineIndex
    let boardsDirectory: String
    var errors: [ConfigError] = []
    /// Whether the speech engine has a voice; nil: not checked.
    var knownVoice: ((String) -> Bool)?
    /// The keys set by `--set` (or a host's `SET`), by dotted name: their errors name `--set`,
    /// not a line of the file, and a string key takes their text as written.
    var overrides: [String: Override] = [:]
    /// Overridden keys read as text (a string or a word): the TOML parser's reason does not
    /// concern them.
    var takenAsText: Set<String> = []
    /// Every table this reader looked into, with the keys it knows there (nil: any name, as in
    /// `[symbology]`): the reader's own list of keys, for `ConfigLoader.knownTables`.
    var tablesRead: [String: [String]?] = [:]

    init(file: String, lines: LineIndex, boardsDirectory: String) {
        self.file = file
        self.lines = lines
        self.boardsDirectory = boardsDirectory
    }

    mutating func fail(_ key: String, _ message: String) {
        if let o = overriding(key) {
            // A value that is not the TOML it starts like: the parser's reason says more.
            let typeError = o.name == key && !takenAsText.contains(key) && !message.hasPrefix("unknown key")
            let reason = typeError ? o.problem ?? message : message
            errors.append(ConfigError(file: "--set", line: nil, key: key, message: reason))
        } else {
            errors.append(ConfigError(file: file, line: lines.line(of: key), key: key, message: message))
        }
    }

    /// The override that set `key` or a table above it, or that made table `key` (an unknown
    /// `--set nonsense.key=1` makes the table `nonsense`).
    func overriding(_ key: String) -> Override? {
        guard !overrides.isEmpty else { return nil }
        var k = Substring(key)
        while true {
            if let o = overrides[String(k)] { return o }
            guard let dot = k.lastIndex(of: ".") else { break }
            k = k[..<dot]
        }
        return lines.line(of: key) == nil ? overrides.values.first { $0.name.hasPrefix(key + ".") } : nil
    }

    mutating func read(_ root: ConfigValue) -> ScandConfig {
        var c = ScandConfig()
        let top = table(root, "", allowed: ["hardware", "log_level", "camera", "scan", "decoding", "symbology", "torch", "button", "buzzer", "gpio", "output", "outbox", "metrics", "events", "status", "feedback", "control", "web", "log"])
        c.hardware = choice(top, "hardware", default: c.hardware)
        c.logLevel = choice(top, "log_level", default: c.logLevel)
        let log = table(top["log"], "log", allowed: ["payloads"])
        c.logPayloads = choice(log, "log.payloads", default: c.logPayloads)

        let cam = table(top["camera"], "camera", allowed: ["backend", "id", "device", "quality", "width", "height", "fps", "formats", "controls", "images",
                                                          "frames_per_image", "keep_streaming", "focus", "lens_position"])
        c.camera.backend = choice(cam, "camera.backend", default: c.camera.backend)
        c.camera.id = string(cam, "camera.id", default: c.camera.id)
        c.camera.keepStreaming = bool(cam, "camera.keep_streaming", default: c.camera.keepStreaming)
        c.camera.device = string(cam, "camera.device", default: c.camera.device)
        c.camera.quality = choice(cam, "camera.quality", default: c.camera.quality)
        c.camera.width = int(cam, "camera.width", default: c.camera.quality.size.width, range: 160...4096)
        c.camera.height = int(cam, "camera.height", default: c.camera.quality.size.height, range: 120...4096)
        if cam["formats"] != nil {
            let names = strings(cam, "camera.formats", default: []).map { $0.uppercased() }
            let formats = names.compactMap(CameraFormat.init(rawValue:))
            if let bad = names.first(where: { CameraFormat(rawValue: $0) == nil }) {
                fail("camera.formats", "\"\(bad)\" is not a format scand takes; use: " + CameraFormat.allCases.map(\.rawValue).joined(separator: ", "))
            } else if formats.isEmpty {
                fail("camera.formats", "name at least one format")
            } else { c.camera.formats = formats }
        }
        let controlNames = ["exposure_auto", "exposure_absolute", "focus_auto", "focus_absolute", "gain", "power_line_frequency",
                            "brightness", "contrast", "sharpness", "white_balance_auto"]
        let aliases: [String: [String: Int]] = [
            "exposure_auto": ["manual": 1, "auto": 3, "aperture-priority": 3, "shutter-priority": 2],
            "power_line_frequency": ["disabled": 0, "50hz": 1, "60hz": 2, "auto": 3],
            "focus_auto": ["off": 0, "on": 1, "continuous": 1], "white_balance_auto": ["off": 0, "on": 1],
        ]
        for (name, value) in table(cam["controls"], "camera.controls", allowed: controlNames) {
            let key = "camera.controls.\(name)"
            switch value {
            case .int(let n): c.camera.controls[name] = n
            case .bool(let b): c.camera.controls[name] = b ? 1 : 0
            case .string(let word):
                if let n = aliases[name]?[word.lowercased()] { c.camera.controls[name] = n } else {
                    fail(key, "\"\(word)\" is not a value of \(name); use a number" + (aliases[name].map { " or one of: " + $0.keys.sorted().joined(separator: ", ") } ?? ""))
                }
            default: fail(key, "must be a number")
            }
        }
        c.camera.fps = int(cam, "camera.fps", default: c.camera.fps, range: 1...120)
        c.kiosk.focus = choice(cam, "camera.focus", default: c.kiosk.focus)
        // The lens set by raw controls (configs from before camera.focus) stays theirs.
        if let raw = c.camera.controls.keys.sorted().first(where: { $0.hasPrefix("focus_") }) {
            if let key = ["focus", "lens_position"].first(where: { cam[$0] != nil }) {
                fail("camera.\(key)", "camera.controls.\(raw) sets the lens already; keep one of them (camera.focus = \"fixed\" with camera.lens_position holds it in dioptres)")
            }
            c.kiosk.lensByControls = true
        }
        c.kiosk.lensPosition = number(cam, "camera.lens_position", default: c.kiosk.lensPosition, range: ScandConfig.lensPositions,
                                      unit: "dioptres (1 / metres: 0 is infinity, 2 is 50 cm, 10 is 10 cm)")
        c.camera.images = strings(cam, "camera.images", default: [])
        c.camera.framesPerImage = int(cam, "camera.frames_per_image", default: c.camera.framesPerImage, range: 1...10_000)
        if c.hardware == .simulated && c.camera.images.isEmpty {
            fail("camera.images", "the simulated camera needs image files or folders to play")
        }

        let scan = table(top["scan"], "scan", allowed: ["viewport", "symbologies", "session_timeout_ms", "alphanumeric", "confirm_timeout_ms",
                                                        "same_symbol_timeout_ms", "trigger", "multiple", "presentation", "accept", "accept_pattern"])
        c.kiosk.trigger = choice(scan, "scan.trigger", default: c.kiosk.trigger)
        c.kiosk.multiple = int(scan, "scan.multiple", default: c.kiosk.multiple, range: 1...16)
        let presentation = table(scan["presentation"], "scan.presentation", allowed: ["idle_ms", "watch_fps"])
        c.kiosk.presentationIdle = millis(presentation, "scan.presentation.idle_ms", default: c.kiosk.presentationIdle, range: 200...600_000)
        c.kiosk.watchFPS = int(presentation, "scan.presentation.watch_fps", default: c.kiosk.watchFPS, range: 0...120)
        c.sameSymbolTimeout = millis(scan, "scan.same_symbol_timeout_ms", default: c.sameSymbolTimeout, range: 0...600_000)
        if let v = scan["viewport"] {
            let known = errors.count
            let numbers = numbersArray(v, "scan.viewport")
            if numbers.count == 4 {
                let vp = Viewport(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
                if let problem = vp.problem { fail("scan.viewport", problem) } else { c.viewport = vp }
            } else if errors.count == known && (!numbers.isEmpty || v != .array([])) {
                fail("scan.viewport", "must be [x, y, width, height], normalized to 0..1")
            }
        }
        if scan["symbologies"] != nil {
            var set = Set<Symbology>()
            for name in strings(scan, "scan.symbologies", default: []) {
                if let s = Symbology(name: name) { set.insert(s) } else {
                    fail("scan.symbologies", "\"\(name)\" is not a symbology; use: " + Symbology.allCases.map(\.rawValue).joined(separator: ", "))
                }
            }
            if set.isEmpty { fail("scan.symbologies", "enable at least one symbology") } else { c.symbologies = set }
        }
        c.kiosk.sessionTimeout = millis(scan, "scan.session_timeout_ms", default: c.kiosk.sessionTimeout, range: 500...600_000)
        c.kiosk.alphanumeric = choice(scan, "scan.alphanumeric", default: c.kiosk.alphanumeric)
        if scan["accept"] != nil {
            let names = strings(scan, "scan.accept", default: []).map { $0.lowercased() }
            let allowed = PayloadKind.allCases.map(\.rawValue).joined(separator: ", ")
            if let bad = names.first(where: { PayloadKind(rawValue: $0) == nil }) {
                fail("scan.accept", "\"\(bad)\" is not a payload type; use: \(allowed)")
            } else if names.isEmpty {
                fail("scan.accept", "name at least one payload type (\(allowed)); leave it out to accept every code")
            } else { c.kiosk.accept.kinds = Set(names.compactMap(PayloadKind.init(rawValue:))) }
        }
        // "" (e.g. `SET scan.accept_pattern=`): no pattern, as when the key is left out.
        if scan["accept_pattern"] != nil, case let source = string(scan, "scan.accept_pattern", default: ""), !source.isEmpty {
            do { c.kiosk.accept.pattern = try AcceptPattern(source) } catch {
                fail("scan.accept_pattern", error.message)
            }
        }
        c.kiosk.confirmTimeout = millis(scan, "scan.confirm_timeout_ms", default: c.kiosk.confirmTimeout, range: 500...600_000)
        if c.kiosk.multiple > 1 && c.kiosk.alphanumeric == .confirm {
            fail("scan.multiple", "several codes at once cannot wait for one confirming press; use scan.alphanumeric = \"immediate\" or multiple = 1")
        }

        let decoding = table(top["decoding"], "decoding", allowed: ["engines", "quality"])
        if decoding["engines"] != nil {
            let names = strings(decoding, "decoding.engines", default: []).map { $0.lowercased() }
            let engines = names.compactMap(DecodingEngine.init(rawValue:))
            if let bad = names.first(where: { DecodingEngine(rawValue: $0) == nil }) {
                fail("decoding.engines", "\"\(bad)\" is not an engine; use " + DecodingEngine.allCases.map(\.rawValue).joined(separator: ", "))
            } else if engines.isEmpty || Set(engines).count != engines.count {
                fail("decoding.engines", "name each engine once, at least one")
            } else { c.engines = engines }
        }
        c.decodeQuality = choice(decoding, "decoding.quality", default: c.decodeQuality)

        var turnedOff: [String] = []
        let symbologyTable = table(top["symbology"], "symbology", allowed: nil)
        // Any spelling of a symbology's name is taken; its canonical names and the table's own
        // keys are what the reader knows (ConfigLoader.knownTables).
        tablesRead["symbology"] = .some(Symbology.allCases.map(\.rawValue) + ["addon_separator"])
        for (name, value) in symbologyTable.sorted(by: { $0.key < $1.key }) {
            let key = "symbology.\(name)"
            if name == "addon_separator" {
                c.rules.addOnSeparator = string([name: value], key, default: "")
                if c.rules.addOnSeparator.utf8.count > 8 { fail(key, "is longer than 8 bytes") }
                // Text outputs write a control character escaped (a tab as \x09): the host
                // would never get the character itself.
                if c.rules.addOnSeparator.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                    fail(key, "holds a control character, which text outputs write escaped (a tab as \\x09); use printable characters, e.g. \" \" or \"-\"")
                }
                continue
            }
            guard let symbology = Symbology(name: name) else {
                fail(key, "\"\(name)\" is not a symbology; use: " + Symbology.allCases.map(\.rawValue).joined(separator: ", "))
                continue
            }
            let addOn = SymbologyRules.addOnSymbologies.contains(symbology) ? ["addon"] : []
            var value = value
            if addOn.isEmpty, case .table(var keys) = value, keys["addon"] != nil {
                fail("\(key).addon", "applies to " + SymbologyRules.addOnSymbologies.map(\.rawValue).joined(separator: ", ") + " only")
                keys["addon"] = nil
                value = .table(keys)
            }
            let t = table(value, key, allowed: ["enabled", "min_length", "max_length", "check_digit", "agreeing_frames", "full_ascii", "code32"] + addOn)
            var rule = c.rules.rule(symbology)
            if t["enabled"] != nil {
                if bool(t, "\(key).enabled", default: true) { c.symbologies.insert(symbology) } else {
                    c.symbologies.remove(symbology)
                    turnedOff.append("\(key).enabled")
                }
            }
            if t["min_length"] != nil { rule.minLength = int(t, "\(key).min_length", default: 1, range: 1...10_000) }
            if t["max_length"] != nil { rule.maxLength = int(t, "\(key).max_length", default: 10_000, range: 1...10_000) }
            if let min = rule.minLength, let max = rule.maxLength, min > max { fail("\(key).min_length", "is more than max_length") }
            rule.checkDigit = choice(t, "\(key).check_digit", default: rule.checkDigit)
            if t["check_digit"] != nil, rule.checkDigit != .none, ![.itf, .code39].contains(symbology) {
                fail("\(key).check_digit", "\(symbology.rawValue) has no optional check digit (EAN/UPC/ITF-14 digits are always verified); it applies to ITF and Code-39")
            }
            rule.agreeingFrames = int(t, "\(key).agreeing_frames", default: rule.agreeingFrames, range: 1...30)
            if t["full_ascii"] != nil {
                if symbology != .code39 { fail("\(key).full_ascii", "applies to Code-39 only") }
                rule.fullASCII = bool(t, "\(key).full_ascii", default: true)
            }
            if t["code32"] != nil {
                if symbology != .code39 { fail("\(key).code32", "applies to Code-39 only") }
                rule.code32 = bool(t, "\(key).code32", default: false)
            }
            if t["addon"] != nil { rule.addOn = choice(t, "\(key).addon", default: rule.addOn) }
            c.rules.rules[symbology] = rule
        }
        c.kiosk.agreeingFrames = Dictionary(uniqueKeysWithValues: Symbology.allCases.map { ($0, c.rules.rule($0).agreeingFrames) })
        if c.symbologies.isEmpty {
            // Every symbology turned off, however it was spelled: the kiosk would read nothing.
            let keys = (scan["symbologies"] != nil ? ["scan.symbologies"] : []) + turnedOff
            fail(keys.last ?? "scan.symbologies", "no symbology is left to read: \(keys.joined(separator: ", ")) leave none on; "
                 + "enable at least one, e.g. [symbology.qr] enabled = true")
        }

        let torch = table(top["torch"], "torch", allowed: ["mode", "skip_frames"])
        c.kiosk.torchMode = choice(torch, "torch.mode", default: c.kiosk.torchMode)
        c.kiosk.framesSkippedAfterTorch = int(torch, "torch.skip_frames", default: c.kiosk.framesSkippedAfterTorch, range: 0...30)

        let button = table(top["button"], "button", allowed: ["debounce_ms", "long_press_ms", "long_press"])
        c.debounce = millis(button, "button.debounce_ms", default: c.debounce, range: 0...1000)
        c.kiosk.longPressAfter = millis(button, "button.long_press_ms", default: c.kiosk.longPressAfter, range: 100...10_000)
        c.kiosk.longPressAction = choice(button, "button.long_press", default: c.kiosk.longPressAction)
        if c.kiosk.longPressAction != .none && c.kiosk.trigger != .pulse {
            fail("button.long_press", "a long press has a meaning with scan.trigger = \"pulse\" only (now \"\(c.kiosk.trigger.rawValue)\")")
        }

        let buzzerTable = table(top["buzzer"], "buzzer", allowed: ["pwm", "frequency_hz"])
        let pwm = string(buzzerTable, "buzzer.pwm", default: "")
        c.buzzerPWM = pwm.isEmpty ? nil : pwm
        c.buzzerHz = int(buzzerTable, "buzzer.frequency_hz", default: c.buzzerHz, range: 100...20_000)

        let gpio = table(top["gpio"], "gpio", allowed: ["board"] + ScandConfig.lineRoles)
        let boardName = string(gpio, "gpio.board", default: c.hardware == .simulated ? "simulated" : "raspberry-pi-4")
        let board = loadBoard(boardName)
        // (`scand decode --config` sets it with `--set`: it reads a kiosk's decoding keys and no
        // lines, on a laptop without the profiles.)
        if boardName == "simulated", c.hardware != .simulated, overrides["gpio.board"] == nil {
            fail("gpio.board", "\"simulated\" is the simulated hardware's board; with hardware = \"\(c.hardware.rawValue)\" name the board's profile, e.g. \"raspberry-pi-4\"")
        }
        for role in ScandConfig.lineRoles {
            guard let value = gpio[role] else { continue }
            let key = "gpio.\(role)"
            let t = table(value, key, allowed: ["pin", "chip", "active_low", "bias"])
            guard let board else { continue }
            guard let pinValue = t["pin"] else { fail(key, "name the line's pin, e.g. pin = \"GPIO17\""); continue }
            var offset: Int?
            var pinName = ""
            switch pinValue {
            case .int(let n) where ScandConfig.lineOffsets.contains(n): offset = n; pinName = "\(n)"
            case .int(let n): fail("\(key).pin", "\(n) is not a line offset (0 to 65535), nor a pin name (\"GPIO17\")")
            case .string(let s):
                pinName = s
                offset = board.pins[s] ?? (board.name == "simulated" ? Int(s.drop { !$0.isNumber }) : nil)
                if offset == nil {
                    fail("\(key).pin", "\"\(s)\" is not a pin of board \(boardName); use one of: " + board.pins.keys.sorted().prefix(30).joined(separator: ", "))
                }
            default: fail("\(key).pin", "must be a pin name (\"GPIO17\") or a line offset, not \(pinValue.typeName)")
            }
            guard let offset else { continue }
            var line = ScandConfig.Line(chip: string(t, "\(key).chip", default: board.chip), offset: offset, pin: pinName)
            line.activeLow = bool(t, "\(key).active_low", default: role == "button")
            line.bias = choice(t, "\(key).bias", default: role == "button" ? .pullUp : .asIs)
            c.lines[role] = line
        }
        // One line, one role: the button read on the torch's line, or the LED driven on the
        // buzzer's, would fail to open at start (the line is busy) or fight on the pin. The role
        // later in the file is the one named.
        var placed: [(role: String, line: ScandConfig.Line)] = []
        for role in c.lines.keys.sorted(by: { (lines.line(of: "gpio.\($0)") ?? .max, $0) < (lines.line(of: "gpio.\($1)") ?? .max, $1) }) {
            let line = c.lines[role]!
            if let other = placed.first(where: { ScandConfig.sameChip($0.line.chip, line.chip) && $0.line.offset == line.offset }) {
                fail("gpio.\(role).pin", "\(line.pin) is line \(line.offset) of \(line.chip), which gpio.\(other.role) already uses; give each role a line of its own")
                c.lines[role] = nil
            } else {
                placed.append((role, line))
            }
        }
        c.kiosk.hasTorch = c.lines["torch"] != nil

        let output = table(top["output"], "output", allowed: ["serial", "stdout", "hid", "mqtt"])
        readMQTT(output["mqtt"], into: &c.mqtt)
        let serial = table(output["serial"], "output.serial", allowed: ["device", "baud", "data_bits", "parity", "stop_bits", "flow_control", "prefix", "suffix", "format", "aim", "ack", "commands", "gs1"])
        c.serial.format = choice(serial, "output.serial.format", default: ResultFormat.text)
        c.serial.aim = bool(serial, "output.serial.aim", default: false)
        c.serial.ack = bool(serial, "output.serial.ack", default: false)
        if c.serial.ack && c.serial.format != .json {
            fail("output.serial.ack", "needs format = \"json\": the host acknowledges a result by its seq (ACK <seq>), which only JSON carries")
        }
        c.serial.commands = bool(serial, "output.serial.commands", default: true)
        c.serial.gs1 = gs1Text(serial, "output.serial.gs1", format: c.serial.format)
        for (name, key) in [("stdout", "output.stdout"), ("hid", "output.hid")] {
            let t = table(output[name], key, allowed: ["enabled", "device", "format", "aim", "prefix", "suffix", "layout", "gs1"])
            var o = name == "stdout" ? c.stdout : c.hid
            o.enabled = bool(t, "\(key).enabled", default: false)
            o.device = string(t, "\(key).device", default: name == "hid" ? "/dev/hidg0" : "")
            o.format = choice(t, "\(key).format", default: ResultFormat.text)
            if name == "hid" && o.format != .text { fail("\(key).format", "a keyboard types text only; use \"text\""); o.format = .text }
            o.aim = bool(t, "\(key).aim", default: false)
            o.prefix = escapes(t, "\(key).prefix", default: [])
            o.suffix = escapes(t, "\(key).suffix", default: [10])
            o.layout = choice(t, "\(key).layout", default: KeyboardLayout.us)
            o.gs1 = gs1Text(t, "\(key).gs1", format: o.format)
            if name == "stdout" { c.stdout = o } else { c.hid = o }
        }
        let outbox = table(top["outbox"], "outbox", allowed: ["directory", "capacity", "policy"])
        let dir = string(outbox, "outbox.directory", default: "")
        c.outboxDirectory = dir.isEmpty ? nil : dir
        c.outboxCapacity = int(outbox, "outbox.capacity", default: c.outboxCapacity, range: 1...1_000_000)
        c.outboxPolicy = choice(outbox, "outbox.policy", default: c.outboxPolicy)
        // Under reject-new a frame gives only as many results as the outbox has room for: with
        // fewer places than codes a frame may hold, codes read would be dropped at every read
        // (a tryout: 1 of 3 sent, with a healthy host).
        if c.outboxPolicy == .rejectNew, c.outboxCapacity < c.kiosk.multiple {
            fail("outbox.capacity", "\(c.outboxCapacity) is less than scan.multiple (\(c.kiosk.multiple)): under policy reject-new the outbox must have room for every code of a frame")
        }
        let metrics = table(top["metrics"], "metrics", allowed: ["file"])
        let mf = string(metrics, "metrics.file", default: "")
        c.metricsFile = mf.isEmpty ? nil : mf
        let events = table(top["events"], "events", allowed: ["socket"])
        let es = string(events, "events.socket", default: "")
        c.eventSocket = es.isEmpty ? nil : es
        let control = table(top["control"], "control", allowed: ["socket"])
        let cs = string(control, "control.socket", default: c.controlSocket ?? "")
        c.controlSocket = cs.isEmpty ? nil : cs
        // 103: SwiftNIO's portable limit for a Unix socket address (Linux's sun_path holds 107).
        if cs.utf8.count > 103 { fail("control.socket", "a Unix socket path has at most 103 bytes; this one has \(cs.utf8.count)") }
        let web = table(top["web"], "web", allowed: ["listen", "token"])
        let listen = string(web, "web.listen", default: "")
        let token = string(web, "web.token", default: "")
        if !listen.isEmpty {
            do throws(ListenAddress.Problem) { c.webListen = try ListenAddress.parse(listen) } catch {
                fail("web.listen", "\(PayloadText.escaped(listen).debugDescription) is not a listen address: \(error)")
            }
        }
        if !token.isEmpty {
            if token.utf8.count < 16 || token.utf8.count > 256 || !token.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" }) {
                fail("web.token", "must be 16 to 256 printable ASCII characters without spaces (e.g. from `openssl rand -hex 16`)")
            } else { c.webToken = token }
        }
        if let address = c.webListen, !address.isLoopback, c.webToken == nil {
            fail("web.listen", "\(address) is not a loopback address: set web.token too (every request must then carry it)")
        }
        c.serial.dataBits = int(serial, "output.serial.data_bits", default: 8, range: 5...8)
        c.serial.stopBits = int(serial, "output.serial.stop_bits", default: 1, range: 1...2)
        c.serial.parity = choice(serial, "output.serial.parity", default: SerialParity.none)
        c.serial.flowControl = choice(serial, "output.serial.flow_control", default: SerialFlowControl.none)
        c.serial.device = string(serial, "output.serial.device", default: "")
        c.serial.baud = int(serial, "output.serial.baud", default: c.serial.baud, range: 1200...4_000_000)
        if serial["baud"] != nil, !Self.bauds.contains(c.serial.baud) {
            fail("output.serial.baud", "\(c.serial.baud) is not a standard rate; use one of: " + Self.bauds.map(String.init).joined(separator: ", "))
        }
        c.serial.prefix = escapes(serial, "output.serial.prefix", default: c.serial.prefix)
        c.serial.suffix = escapes(serial, "output.serial.suffix", default: c.serial.suffix)

        readFeedback(top["feedback"], into: &c.feedback)

        let status = table(top["status"], "status", allowed: ["file"])
        let statusFile = string(status, "status.file", default: "")
        c.statusFile = statusFile.isEmpty ? nil : statusFile
        return c
    }


    /// `output.<name>.gs1`: how a text output writes GS1 data; JSON carries the AIs in its own field.
    mutating func gs1Text(_ t: [String: ConfigValue], _ key: String, format: ResultFormat) -> GS1Text {
        let value = choice(t, key, default: GS1Text.raw)
        if value == .hri && format == .json {
            fail(key, "\"hri\" is for format = \"text\": JSON carries the AIs in its \"gs1\" object; leave gs1 out or use \"raw\"")
            return .raw
        }
        return value
    }

    static let bauds = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600]

    // MARK: - Board profiles

    struct Board { var name: String; var chip: String; var pins: [String: Int] }

    mutating func loadBoard(_ name: String) -> Board? {
        if name == "simulated" { return Board(name: name, chip: "sim", pins: [:]) }
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            fail("gpio.board", "\"\(name)\" is not a board profile name"); return nil
        }
        let folders = [boardsDirectory, "/etc/scand/boards", "/usr/share/scand/boards"]
        let candidates = folders.map { "\($0)/\(name).toml" }
        guard let existing = candidates.first(where: { access($0, F_OK) == 0 }) else {
            let known = Set(folders.flatMap { Self.profileNames(in: $0) }).sorted()
            fail("gpio.board", "no board profile \(name).toml in \(folders.joined(separator: ", "))"
                 + (known.isEmpty ? " (none there: the package installs raspberry-pi-4 and raspberry-pi-5 in /usr/share/scand/boards; a source tree has them in config/boards)"
                    : " (profiles there: \(known.joined(separator: ", ")))"))
            return nil
        }
        let path = candidates.first { access($0, R_OK) == 0 } ?? existing
        do {
            let document = try ConfigValue.parse(try ConfigLoader.readFile(path), file: path)
            var sub = Reader(file: path, lines: LineIndex(lines: document.lines), boardsDirectory: boardsDirectory)
            let t = sub.table(.table(document.root), "", allowed: ["name", "chip", "pins"])
            let chip = sub.string(t, "chip", default: "gpiochip0")
            var pins: [String: Int] = [:]
            for (pin, value) in sub.table(t["pins"], "pins", allowed: nil) {
                if case .int(let n) = value, ScandConfig.lineOffsets.contains(n) { pins[pin] = n } else { sub.fail("pins.\(pin)", "must be a line offset, 0 to 65535") }
            }
            errors += sub.errors
            return Board(name: name, chip: chip, pins: pins)
        } catch {
            fail("gpio.board", "board profile \(name): \(error)")
            return nil
        }
    }

    /// The profile names (`name.toml`) in a folder, none when it cannot be listed.
    static func profileNames(in folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir), names.count < 64 {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".toml"), name.count > 5 { names.append(String(name.dropLast(5))) }
        }
        return names
    }
}
