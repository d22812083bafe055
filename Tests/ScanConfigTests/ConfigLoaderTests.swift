import Foundation
import ScanConfig
import ScanCore
import Testing

@Suite struct ConfigLoaderTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let boards = repo.appendingPathComponent("config/boards").path

    func parse(_ text: String, overrides: [String] = []) throws(ConfigErrors) -> ScandConfig {
        try ConfigLoader.parse(text, file: "test.toml", overrides: overrides, boardsDirectory: Self.boards)
    }

    func errors(_ text: String, overrides: [String] = []) -> [String] {
        do { _ = try parse(text, overrides: overrides); return [] } catch { return error.errors.map(\.description) }
    }

    @Test func shippedConfigsLoad() throws {
        let reference = try ConfigLoader.load(path: Self.repo.appendingPathComponent("config/scand.toml").path)
        #expect(reference.lines["torch"] == ScandConfig.Line(chip: "pinctrl-bcm2711", offset: 27, pin: "GPIO27"))
        #expect(reference.lines["button"]?.activeLow == true && reference.lines["button"]?.bias == .pullUp)
        let demo = try ConfigLoader.load(path: Self.repo.appendingPathComponent("config/demo.toml").path)
        #expect(demo.hardware == .simulated && demo.serial.device == "simulated")
        #expect(demo.outboxDirectory == "demo-state")
    }

    @Test func referenceConfigStatesTheBuiltInDefaults() throws {
        // Every value in config/scand.toml is the default: the file and the code agree.
        var reference = try ConfigLoader.load(path: Self.repo.appendingPathComponent("config/scand.toml").path)
        reference.lines = [:]
        reference.kiosk.hasTorch = false
        // Except where results wait: the shipped config keeps them in the state directory; a
        // config that says nothing keeps them in memory (and check-config says so).
        #expect(reference.outboxDirectory == "/var/lib/scand")
        reference.outboxDirectory = nil
        var defaults = ScandConfig()
        defaults.kiosk.hasTorch = false
        #expect(reference == defaults)
    }

    @Test func pi5BoardUsesItsOwnChip() throws {
        let c = try parse("[gpio]\nboard = \"raspberry-pi-5\"\ntorch = { pin = \"GPIO27\" }\n")
        #expect(c.lines["torch"]?.chip == "pinctrl-rp1")
        #expect(c.kiosk.hasTorch)
    }

    @Test func noTorchLineMeansNoTorch() throws {
        #expect(try parse("").kiosk.hasTorch == false)
    }

    @Test func errorsNameLineKeyAndAllowedValues() {
        let text = """
            hardware = "linux"
            [scan]
            alphanumeric = "later"
            session_timeout_ms = 5
            [torch]
            mode = "dim"
            [output.serial]
            baud = 1234
            """
        let e = errors(text)
        #expect(e.contains("test.toml:3: scan.alphanumeric: \"later\" is not allowed; use one of: immediate, confirm"))
        #expect(e.contains("test.toml:4: scan.session_timeout_ms: 5 is out of range; allowed: 500 to 600000"))
        #expect(e.contains("test.toml:6: torch.mode: \"dim\" is not allowed; use one of: on, off, auto"))
        #expect(e.contains { $0.hasPrefix("test.toml:8: output.serial.baud: 1234 is not a standard rate") })
    }

    @Test func feedbackPatternsAreReadAndBoundsChecked() throws {
        let c = try parse("""
            [feedback.good_read]
            beep = [40, 40, 40]
            flash = []
            torch = [60, 60, 60]
            [feedback.camera_in_use]
            led = [500, 500]
            [feedback.ready]
            led = [0]
            """)
        #expect(c.feedback.beep == [.goodRead: [40, 40, 40]] && c.feedback.flash == [.goodRead: []])
        #expect(c.feedback.torch == [.goodRead: [60, 60, 60]])
        #expect(c.feedback.led == [.cameraInUse: [500, 500], .ready: [0]])
        let e = errors("""
            [feedback.good_read]
            beep = [80, 5]
            flash = [\(Array(repeating: "60", count: 17).joined(separator: ", "))]
            [feedback.no_read]
            beep = "long"
            [feedback.scanning]
            led = [100, 100, 100]
            [feedback.camera_in_use]
            led = [1.5, 2]
            [feedback.goodread]
            beep = [80]
            """)
        #expect(e.contains("test.toml:2: feedback.good_read.beep: step 5 ms is out of range; each step is 10 to 10000 ms"))
        #expect(e.contains("test.toml:3: feedback.good_read.flash: has 17 steps; at most 16"))
        #expect(e.contains("test.toml:5: feedback.no_read.beep: must be an array of on/off milliseconds ([80] or [60, 60, 60]), or [] (none), not a string"))
        #expect(e.contains("test.toml:7: feedback.scanning.led: must be on/off milliseconds in pairs ([150, 150]), or [1] (steady on) or [0] (off)"))
        #expect(e.contains("test.toml:9: feedback.camera_in_use.led: must be whole milliseconds, not a decimal number"))
        #expect(e.contains { $0.hasPrefix("test.toml:10: feedback.goodread: unknown") }, "\(e)")
    }

    @Test func speechAndTonesAreReadAndChecked() throws {
        let c = try parse("""
            [feedback.good_read]
            tone_hz = 3200
            [feedback.camera_disconnected]
            beep = [500, 100, 500]
            [feedback.speech]
            enabled = true
            voice = "de"
            rate = 200
            volume = 80
            say = "both"
            no_read = "Kein Code gefunden"
            deliver = "immediately"
            replaces_flash = false
            wav_dir = "/var/lib/scand/speech"
            """)
        #expect(c.feedback.tone == [.goodRead: 3200])
        #expect(c.feedback.entryBeep == [.cameraDisconnected: [500, 100, 500]])
        let s = c.feedback.speech
        #expect(s.enabled && s.voice == "de" && s.rate == 200 && s.volume == 80 && s.say == .both && s.device == "default")
        #expect(s.behaviour == SpeechBehaviour(deliver: .immediately, replacesFlash: false))
        #expect(s.phrases.noRead == "Kein Code gefunden" && s.phrases.cameraError == SpeechPhrases().cameraError)
        #expect(s.wavDirectory == "/var/lib/scand/speech")
        #expect(try parse("").feedback.speech.behaviour == nil, "off unless enabled")
        let e = errors("""
            [feedback.error]
            tone_hz = 50
            [feedback.speech]
            enabled = true
            voice = "en; rm -rf"
            rate = 900
            say = "everything"
            no_read = ""
            deliver = "later"
            device = "default device"
            pitch = 3
            """)
        #expect(e.contains("test.toml:2: feedback.error.tone_hz: 50 is out of range; allowed: 100 to 20000"), "\(e)")
        #expect(e.contains { $0.hasPrefix("test.toml:5: feedback.speech.voice: \"en; rm -rf\" is not a voice name") }, "\(e)")
        #expect(e.contains { $0.hasPrefix("test.toml:6: feedback.speech.rate:") })
        #expect(e.contains { $0.hasPrefix("test.toml:7: feedback.speech.say:") && $0.contains("type, text, both") }, "\(e)")
        #expect(e.contains("test.toml:8: feedback.speech.no_read: must be 1 to 200 characters without control characters"))
        #expect(e.contains { $0.hasPrefix("test.toml:9: feedback.speech.deliver:") })
        #expect(e.contains { $0.hasPrefix("test.toml:10: feedback.speech.device: must be an ALSA PCM name") })
        #expect(e.contains { $0.hasPrefix("test.toml:11: feedback.speech.pitch: unknown key") })
        // The engine's own voice list, when the loader is given it (as scand does).
        let unknown = { (text: String) -> [String] in
            do { _ = try ConfigLoader.parse(text, file: "test.toml", boardsDirectory: Self.boards, knownVoice: { $0 == "en" }); return [] }
            catch { return (error as? ConfigErrors)?.errors.map(\.description) ?? [] }
        }
        #expect(unknown("[feedback.speech]\nenabled = true\nvoice = \"elvish\"\n") == [
            "test.toml:3: feedback.speech.voice: espeak-ng has no voice \"elvish\"; `espeak-ng --voices` lists them (en, de, en-us, ...)",
        ])
        #expect(unknown("[feedback.speech]\nenabled = false\nvoice = \"elvish\"\n").isEmpty, "not checked while speech is off")
    }

    @Test func mqttIsReadAndChecked() throws {
        let c = try parse("""
            [output.mqtt]
            url = "mqtts://broker.example.com"
            client_id = "till-3"
            topic_prefix = "shop/7/till-3"
            qos = 0
            username = "kiosk"
            password_file = "/etc/scand/mqtt.pass"
            tls_ca = "/etc/scand/ca.crt"
            keepalive = 60
            events = true
            commands = false
            """)
        let m = c.mqtt
        #expect(m.url == MQTTURL(tls: true, host: "broker.example.com", port: 8883))
        #expect(m.clientID == "till-3" && m.topicPrefix == "shop/7/till-3" && m.qos == 0 && m.username == "kiosk")
        #expect(m.passwordFile == "/etc/scand/mqtt.pass" && m.tlsCA == "/etc/scand/ca.crt" && m.keepalive == 60 && m.events && !m.commands)
        #expect(try parse("").mqtt.url == nil)
        let e = errors("""
            [output.mqtt]
            url = "mqtt://user:pw@broker/x"
            client_id = "a b"
            topic_prefix = "shop/#"
            qos = 2
            password_file = "/p"
            tls_cert = "/c"
            """)
        #expect(e.contains { $0.hasPrefix("test.toml:2: output.mqtt.url: \"user\" is not a host name") || $0.hasPrefix("test.toml:2: output.mqtt.url:") }, "\(e)")
        #expect(e.contains("test.toml:3: output.mqtt.client_id: at most 64 printable ASCII characters, no spaces, +, # or /"), "\(e)")
        #expect(e.contains { $0.hasPrefix("test.toml:4: output.mqtt.topic_prefix: a topic without wildcards") })
        #expect(e.contains { $0.hasPrefix("test.toml:5: output.mqtt.qos:") })
        #expect(e.contains("test.toml:6: output.mqtt.password_file: a password needs output.mqtt.username"), "\(e)")
        #expect(e.contains("test.toml:7: output.mqtt.tls_cert: tls_cert and tls_key go together (a client certificate and its key)"), "\(e)")
        // A username libmosquitto would refuse at start ("Malformed UTF-8").
        let user = errors("[output.mqtt]\nurl = \"mqtt://broker\"\nusername = \"u\\nser\\u001B\"")
        #expect(user.contains("test.toml:3: output.mqtt.username: text without control characters, at most 65535 bytes"), "\(user)")
    }

    @Test func brokerURLs() {
        #expect(MQTTURL.parse("mqtt://10.0.0.5") == .success(MQTTURL(tls: false, host: "10.0.0.5", port: 1883)))
        #expect(MQTTURL.parse("mqtt://[::1]:1884/") == .success(MQTTURL(tls: false, host: "::1", port: 1884)))
        #expect(MQTTURL(tls: false, host: "::1", port: 1884).description == "mqtt://[::1]:1884")
        for bad in ["http://x", "mqtt://", "mqtt://x:0", "mqtt://x:70000", "mqtt://x:1e3", "mqtt://a b", "mqtt://x/path", "mqtt://[::1", "mqtt://[zz]",
                    "mqtt://" + String(repeating: "a", count: 400),
                    // Fuzz finding: a 270-byte IPv6 "address" parsed but printed back over the 300-byte bound.
                    "mqtts://[" + String(repeating: ":2", count: 130) + "]", "mqtt://[\u{FF11}::1]"] {
            guard case .failure = MQTTURL.parse(bad) else { Issue.record("\(bad) accepted"); continue }
        }
        // The longest addresses still print back to themselves.
        for good in ["mqtts://[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]:65535", "mqtt://" + String(repeating: "a", count: 253) + ":65535"] {
            guard case .success(let url) = MQTTURL.parse(good) else { Issue.record("\(good) refused"); continue }
            #expect(MQTTURL.parse(url.description) == .success(url))
        }
    }

    @Test func syntaxErrorsCarryTheirLine() {
        let e = errors("[scan]\nviewport = [0.1,\n")
        #expect(e == ["test.toml:3:1: unclosed array: expected ']'"])
    }

    /// Notepad saves UTF-8 with a byte order mark: it is skipped, and an error on the first line
    /// keeps the column a person counts.
    @Test func aByteOrderMarkIsSkipped() throws {
        let c = try parse("\u{FEFF}[scan]\nsession_timeout_ms = 4000\n")
        #expect(c.kiosk.sessionTimeout == .milliseconds(4000))
        #expect(errors("\u{FEFF}[scan\n") == ["test.toml:1:6: expected ']' at the end of the table header"])
        #expect(errors("[scan]\n\u{FEFF}x = 1\n") == ["test.toml:2:1: expected a key, a [table] or a comment, found a byte order mark (U+FEFF, invisible in most editors)"],
                "only at the start")
        // Inside a value, invisible characters are shown: the name looks right otherwise.
        #expect(errors("[gpio]\nboard = \"\u{FEFF}raspberry-pi-4\"\n").first?.contains("\\u{FEFF}raspberry-pi-4") == true,
                "\(errors("[gpio]\nboard = \"\u{FEFF}raspberry-pi-4\"\n"))")
        #expect(errors("log_level = \"in\u{200B}fo\u{202E}\"\n").first?.contains("in\\u{200B}fo\\u{202E}") == true,
                "\(errors("log_level = \"in\u{200B}fo\u{202E}\"\n"))")
        // Windows' "Unicode" (UTF-16) is named.
        let utf16 = FileManager.default.temporaryDirectory.appendingPathComponent("scand-utf16-\(getpid()).toml")
        try Data([0xFF, 0xFE, 0x61, 0x00]).write(to: utf16)
        defer { try? FileManager.default.removeItem(at: utf16) }
        do { _ = try ConfigLoader.load(path: utf16.path); Issue.record("parsed") } catch {
            #expect(error.errors.map(\.description) == ["\(utf16.path):1:1: not valid UTF-8: the file is UTF-16 (save it as UTF-8)"])
        }
        // UTF-32 with its mark, and UTF-16 and UTF-32 without one, are named too.
        let text = "log_level = \"info\"\n"
        for (bytes, says) in [([0xFF, 0xFE, 0, 0] + Array(text.utf32LE), "the file is UTF-32"),
                              (Array(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), "zero bytes between the characters"),
                              (Array(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }), "zero bytes between the characters"),
                              (Array(text.utf32LE), "zero bytes between the characters")] {
            try Data(bytes).write(to: utf16)
            do { _ = try ConfigLoader.load(path: utf16.path); Issue.record("parsed: \(says)") } catch {
                #expect(error.errors.first?.description.contains(says) == true, "\(error.errors)")
            }
        }
    }

    /// A board profile that is nowhere: the message names every folder looked in and the
    /// profiles there.
    @Test func aMissingBoardProfileNamesWhereItWasLookedFor() {
        let e = errors("[gpio]\nboard = \"raspberry-pi-9\"\n")
        #expect(e.count == 1 && e[0].hasPrefix("test.toml:2: gpio.board: no board profile raspberry-pi-9.toml in \(Self.boards), /etc/scand/boards, /usr/share/scand/boards"), "\(e)")
        #expect(e.first?.contains("raspberry-pi-4, raspberry-pi-5") == true, "\(e)")
        #expect(errors("[gpio]\nboard = \"\"\n").contains { $0.hasSuffix("gpio.board: \"\" is not a board profile name") }, "an empty name")
        // The simulated board on real hardware: refused where check-config sees it, not at run.
        #expect(errors("hardware = \"linux\"\n[gpio]\nboard = \"simulated\"\n").contains { $0.contains("gpio.board: \"simulated\" is the simulated hardware's board") })
    }

    @Test func unknownKeysAndBadPinsAreCaught() {
        let e = errors("[scan]\nviewprt = [0,0,1,1]\n[gpio]\ntorch = { pin = \"GPIO99\" }\n")
        #expect(e.contains { $0.hasPrefix("test.toml:2: scan.viewprt: unknown key") })
        #expect(e.contains { $0.contains("gpio.torch.pin: \"GPIO99\" is not a pin of board raspberry-pi-4") })
    }

    /// Under reject-new, the outbox has room for every code a frame may give (a tryout: with
    /// capacity 1 and scan.multiple 3, two of three codes were dropped at every read).
    @Test func aRejectingOutboxHoldsAFramesCodes() {
        #expect(errors("[scan]\nmultiple = 3\n[outbox]\ncapacity = 2\npolicy = \"reject-new\"\n")
                == ["test.toml:4: outbox.capacity: 2 is less than scan.multiple (3): under policy reject-new the outbox must have room for every code of a frame"])
        #expect(errors("[scan]\nmultiple = 3\n[outbox]\ncapacity = 2\n").isEmpty, "drop-oldest takes every result")
        #expect(errors("[outbox]\ncapacity = 2\npolicy = \"reject-new\"\n", overrides: ["scan.multiple=4"]).count == 1, "a SET of scan.multiple is refused too")
    }

    /// Problems come in the file's order, whatever order they are checked in (a tryout: they
    /// came section by section as the reader went).
    @Test func problemsComeInTheFilesOrder() {
        let e = errors("[outbox]\npolicy = \"drop-newest\"\n[output.serial]\nformat = \"xml\"\n[camera]\nfps = 0\n[scan]\nviewprt = 1\n")
        #expect(e.count == 4 && e.map { $0.split(separator: ":")[1] } == ["2", "4", "6", "8"], "\(e)")
    }

    /// Two roles on one line (a tryout's finding: check-config passed it, and the daemon failed
    /// at start with the line busy), by name or by offset, the later one in the file named; a
    /// negative offset and one past what a chip counts.
    @Test func aLineServesOneRole() {
        let clash = errors("[gpio]\nbutton = { pin = \"GPIO17\" }\ntorch = { pin = \"GPIO22\" }\nstatus_led = { pin = 17 }\n")
        #expect(clash == ["test.toml:4: gpio.status_led.pin: 17 is line 17 of pinctrl-bcm2711, which gpio.button already uses; give each role a line of its own"], "\(clash)")
        #expect(errors("[gpio]\nbuzzer = { pin = \"GPIO22\" }\ntorch = { pin = \"GPIO22\" }\n").contains { $0.hasSuffix("gpio.torch.pin: GPIO22 is line 22 of pinctrl-bcm2711, which gpio.buzzer already uses; give each role a line of its own") })
        // The same offset on another chip is another line.
        #expect(errors("[gpio]\nbutton = { pin = 5 }\ntorch = { pin = 5, chip = \"gpiochip1\" }\n").isEmpty)
        // One chip by number, name or path.
        #expect(errors("[gpio]\nbutton = { pin = 5, chip = \"gpiochip1\" }\ntorch = { pin = 5, chip = \"/dev/gpiochip1\" }\n").contains { $0.hasSuffix("gpio.torch.pin: 5 is line 5 of /dev/gpiochip1, which gpio.button already uses; give each role a line of its own") })
        #expect(errors("[gpio]\nbutton = { pin = 5, chip = \"1\" }\ntorch = { pin = 5, chip = \"gpiochip1\" }\n").count == 1)
        #expect(errors("[gpio]\ntorch = { pin = -1 }\n").contains { $0.hasSuffix("gpio.torch.pin: -1 is not a line offset (0 to 65535), nor a pin name (\"GPIO17\")") })
        // Past what a chip counts (a tryout: 4294967313 passed, and the daemon trapped at start).
        #expect(errors("[gpio]\ntorch = { pin = 4294967313 }\n").contains { $0.hasSuffix("gpio.torch.pin: 4294967313 is not a line offset (0 to 65535), nor a pin name (\"GPIO17\")") })
    }

    @Test func viewportIsValidated() {
        #expect(errors("[scan]\nviewport = [0.5, 0.5, 0.9, 0.2]\n").contains("test.toml:2: scan.viewport: x + width and y + height must be at most 1"))
        #expect(errors("[scan]\nviewport = [0.5, 0.5]\n").contains { $0.contains("must be [x, y, width, height]") })
    }

    @Test func overridesSetAnyKeyByDottedPath() throws {
        let c = try parse("[output.serial]\ndevice = \"/dev/ttyUSB0\"\n",
                          overrides: ["output.serial.device=/dev/pts/3", "output.serial.baud=9600", "scan.viewport=[0.0, 0.0, 1.0, 1.0]",
                                      "torch.mode=off"])
        #expect(c.serial.device == "/dev/pts/3" && c.serial.baud == 9600)
        #expect(c.viewport == .full && c.kiosk.torchMode == .off)
        #expect(errors("", overrides: ["nonsense"]).contains { $0.contains("is not key=value") })
    }

    @Test func presentationWatchRate() throws {
        #expect(try parse("").kiosk.watchFPS == 0)
        #expect(try parse("[scan.presentation]\nwatch_fps = 10\n").kiosk.watchFPS == 10)
        #expect(errors("[scan.presentation]\nwatch_fps = 500\n").contains { $0.contains("scan.presentation.watch_fps") && $0.contains("0 to 120") },
                "\(errors("[scan.presentation]\nwatch_fps = 500\n"))")
    }

    @Test func prefixAndSuffixEscapes() throws {
        let c = try parse("[output.serial]\nprefix = '\\x02'\nsuffix = '\\x03\\r\\n'\n")
        #expect(c.serial.prefix == [2] && c.serial.suffix == [3, 13, 10])
        #expect(errors("[output.serial]\nprefix = '\\q'\n").contains { $0.contains("unknown escape") })
    }

    @Test func symbologyNamesAsPeopleWriteThem() throws {
        let c = try parse("[scan]\nsymbologies = [\"qr\", \"EAN-13\", \"code128\"]\n")
        #expect(c.symbologies == [.qrCode, .ean13, .code128])
        #expect(errors("[scan]\nsymbologies = [\"qr\", \"maxicode\"]\n").contains { $0.contains("\"maxicode\" is not a symbology") })
    }

    @Test func perSymbologyRules() throws {
        let c = try parse("[symbology.code39]\ncheck_digit = \"verify\"\nfull_ascii = false\ncode32 = true\nmin_length = 4\n[symbology.ean13]\nagreeing_frames = 3\n")
        let code39 = c.rules.rule(.code39)
        #expect(code39.checkDigit == .verify && !code39.fullASCII && code39.code32 && code39.minLength == 4)
        #expect(c.rules.rule(.ean13).agreeingFrames == 3)
        #expect(try !parse("").rules.rule(.code39).code32, "Code 32 only on request: a plain Code 39 may pass its check by chance")
        #expect(errors("[symbology.code128]\ncode32 = true\n").contains { $0.contains("code32: applies to Code-39 only") })
    }

    @Test func addOnRulesAndSeparator() throws {
        let c = try parse("[symbology]\naddon_separator = \" \"\n[symbology.ean13]\naddon = \"read\"\n[symbology.upca]\naddon = \"require\"\n")
        #expect(c.rules.rule(.ean13).addOn == .read && c.rules.rule(.upcA).addOn == .require && c.rules.rule(.ean8).addOn == .ignore)
        #expect(c.rules.addOnSeparator == " " && c.rules.readsAddOns)
        #expect(try !parse("").rules.readsAddOns, "add-ons are ignored by default")
        #expect(errors("[symbology.code128]\naddon = \"read\"\n").contains { $0.contains("code128.addon: applies to EAN-13, UPC-A, UPC-E, EAN-8 only") })
        #expect(errors("[symbology.ean8]\naddon = \"always\"\n").contains { $0.contains("addon: \"always\" is not allowed") })
        #expect(errors("[symbology]\naddon_separator = 5\n").contains { $0.contains("symbology.addon_separator: must be a string") })
        // Text outputs write control characters escaped: a tab would reach the host as \x09.
        #expect(errors("[symbology]\naddon_separator = \"\\t\"\n").contains { $0.contains("symbology.addon_separator: holds a control character") })
        #expect(errors("[symbology]\naddon_separator = \"\\r\\n\\u0000\"\n").contains { $0.contains("holds a NUL character") })
    }

    /// A NUL ends a path where the system reads it: `images = ["a\u0000b"]` opened `a`, and
    /// check-config said ok. Refused in every string and list of strings, with its line.
    @Test func aNULInAStringIsRefused() {
        #expect(errors("hardware = \"simulated\"\n[camera]\nimages = [\"a\\u0000b\"]\n") == ["test.toml:3: camera.images: \"a\\x00b\" holds a NUL character (\\u0000), which no path or name can hold"])
        #expect(errors("[output.serial]\ndevice = \"/dev/tty\\u0000S0\"\n").contains { $0.hasPrefix("test.toml:2: output.serial.device: ") && $0.contains("NUL") })
    }

    @Test func cameraQualityFormatsAndControls() throws {
        let c = try parse("[camera]\nquality = \"accurate\"\nformats = [\"mjpg\", \"YUYV\"]\n[camera.controls]\nfocus_auto = \"off\"\nfocus_absolute = 30\nexposure_auto = \"manual\"\n")
        #expect(c.camera.width == 1920 && c.camera.height == 1080)
        #expect(c.camera.formats == [.mjpeg, .yuyv])
        #expect(c.camera.controls == ["focus_auto": 0, "focus_absolute": 30, "exposure_auto": 1])
        let e = errors("[camera]\nformats = [\"H264\"]\n[camera.controls]\nzoom = 2\nexposure_auto = \"sometimes\"\n")
        #expect(e.contains { $0.contains("camera.formats: \"H264\" is not a format scand takes") })
        #expect(e.contains { $0.contains("camera.controls.zoom: unknown key") })
        #expect(e.contains { $0.contains("\"sometimes\" is not a value of exposure_auto") })
    }

    @Test func cameraBackendAndLibcameraId() throws {
        let plain = try parse("")
        #expect(plain.camera.backend == .v4l2 && plain.camera.id == "")
        let c = try parse("[camera]\nbackend = \"libcamera\"\nid = \"/base/soc/i2c0mux/i2c@1/imx708@1a\"\n")
        #expect(c.camera.backend == .libcamera && c.camera.id == "/base/soc/i2c0mux/i2c@1/imx708@1a")
        #expect(try parse("", overrides: ["camera.backend=auto"]).camera.backend == .auto)
        let e = errors("[camera]\nbackend = \"mmal\"\nid = 3\n")
        #expect(e.contains("test.toml:2: camera.backend: \"mmal\" is not allowed; use one of: v4l2, libcamera, auto"))
        #expect(e.contains { $0.hasPrefix("test.toml:3: camera.id: must be a string") })
    }

    @Test func serialFraming() throws {
        let c = try parse("[output.serial]\ndata_bits = 7\nparity = \"even\"\nstop_bits = 2\nflow_control = \"rts-cts\"\n")
        #expect(c.serial.dataBits == 7 && c.serial.parity == .even && c.serial.stopBits == 2 && c.serial.flowControl == .rtscts)
        #expect(errors("[output.serial]\nparity = \"mark\"\n").contains { $0.contains("use one of: none, even, odd") })
        #expect(errors("[output.hid]\nformat = \"json\"\n").contains { $0.contains("output.hid.format: a keyboard types text only") })
        #expect(errors("[outbox]\npolicy = \"drop-newest\"\n").contains { $0.contains("use one of: drop-oldest, reject-new") })
    }

    /// Issue 15: `[control]` and `[web]`.
    @Test func controlSocketAndSetupPage() throws {
        #expect(try parse("").controlSocket == "/run/scand/control.sock", "on by default")
        #expect(try parse("").webListen == nil, "the page is off by default")
        #expect(try parse("[control]\nsocket = \"\"").controlSocket == nil)
        let web = try parse("[web]\nlisten = \"[::1]:8080\"")
        #expect(web.webListen == ListenAddress(host: "::1", port: 8080) && web.webToken == nil)
        let open = try parse("[web]\nlisten = \"0.0.0.0:80\"\ntoken = \"0123456789abcdef\"")
        #expect(open.webListen?.isLoopback == false && open.webToken == "0123456789abcdef")
        #expect(errors("[web]\nlisten = \"0.0.0.0:80\"").contains { $0.contains("web.listen: 0.0.0.0:80 is not a loopback address: set web.token too") })
        #expect(errors("[web]\nlisten = \"127.0.0.1:80\"\ntoken = \"has space in it 1234\"").contains { $0.contains("web.token: must be 16 to 256") })
        #expect(errors("[web]\nlisten = \"localhost\"").contains { $0.contains("is not a listen address: no port") })
        #expect(errors("[control]\nsocket = \"/run/" + String(repeating: "x", count: 100) + "\"").contains { $0.contains("at most 103 bytes") })
        #expect(!errors("[control]\nsocket = \"/run/" + String(repeating: "x", count: 98) + "\"").contains { $0.contains("control.socket") }, "103 bytes")
        #expect(errors("[web]\nport = 80").contains { $0.contains("port") })
    }

    /// Acknowledged results need JSON: the host acknowledges a result by its seq, which text
    /// results do not carry (a text result would be sent again every 5 s for ever).
    @Test func acknowledgementsNeedJSON() {
        #expect(errors("[output.serial]\nack = true\n").contains { $0.contains("output.serial.ack: needs format = \"json\"") })
        #expect(errors("[output.serial]\nack = true\nformat = \"text\"\n").contains { $0.contains("output.serial.ack: needs format") })
        #expect(!errors("[output.serial]\nack = true\nformat = \"json\"\n").contains { $0.contains("output.serial.ack") })
    }

    /// An empty accept pattern is no pattern: `SET scan.accept_pattern=` undoes one set live.
    @Test func anEmptyAcceptPatternAcceptsAnyText() throws {
        #expect(errors("[scan]\naccept_pattern = \"\"\n").isEmpty)
        #expect(try parse("[scan]\naccept_pattern = \"^A\"\n").kiosk.accept.pattern != nil)
        #expect(try parse("[scan]\naccept_pattern = \"^A\"\n", overrides: ["scan.accept_pattern="]).kiosk.accept.pattern == nil)
    }
}

extension String {
    /// The text as UTF-32, little-endian.
    var utf32LE: [UInt8] { unicodeScalars.flatMap { s in (0..<4).map { UInt8((s.value >> (8 * $0)) & 0xFF) } } }
}
