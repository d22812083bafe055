import Foundation
import Testing

/// `scand run` as a process: SIGHUP with a bad config keeps the old one, SIGTERM stops it.
@Suite struct RunCommandTests {
    static let repo = Fixture.repo

    /// A simulated board showing qr.png with a torch line; `gpio` adds lines, `then` tables.
    static func simulatedConfig(gpio: String = "", then: String = "") -> String {
        "hardware = \"simulated\"\n[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\n"
            + "[gpio]\nboard = \"simulated\"\ntorch = { pin = \"GPIO27\" }\n" + gpio + then
    }

    /// Issue 13, defect 4: SIGTERM during start-up. The runtime used to be stopped before it ran,
    /// then `run()` reopened the camera and waited forever. Now the service group's graceful
    /// shutdown (or the default action, before the group is up) ends the process at once.
    @Test func sigtermRightAfterStartEndsTheProcess() async throws {
        let dir = try Fixture.temporaryFolder("scand-term")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        let status = dir.appendingPathComponent("status.json")
        try Self.simulatedConfig(then: "[status]\nfile = \"\(status.path)\"\n").write(to: config, atomically: true, encoding: .utf8)
        // -1: once the daemon runs (its status file is there), whatever the machine's speed.
        for delayMs in [0, 20, 100, 300, -1] {
            try? FileManager.default.removeItem(at: status)
            let logFile = dir.appendingPathComponent("stderr-\(delayMs).log")
            let process = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin"], log: logFile)
            defer { if process.isRunning { process.interrupt(); kill(process.processIdentifier, SIGKILL) } }
            if delayMs >= 0 {
                // A deliberate gap, to land the signal somewhere in start-up: wherever it lands,
                // the process must end (gracefully or by the default action), so no gap length
                // decides the result.
                try await Task.sleep(for: .milliseconds(delayMs))
            } else {
                _ = await Poll.until { FileManager.default.fileExists(atPath: status.path) }
            }
            kill(process.processIdentifier, SIGTERM)
            // Bounded only to end a hang (the old daemon never ended), not a speed check.
            _ = await Poll.until { !process.isRunning }
            #expect(!process.isRunning, "SIGTERM \(delayMs) ms after start: still running after 10 s")
            if !process.isRunning {
                // Before the service group is up the default action ends it; after, a graceful exit.
                let graceful = process.terminationReason == .exit && process.terminationStatus == 0
                let early = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM
                let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
                #expect(graceful || early, "SIGTERM \(delayMs) ms after start: \(process.terminationReason) \(process.terminationStatus)\n\(log)")
                if delayMs < 0 { #expect(graceful, "SIGTERM to a running daemon: \(process.terminationReason) \(process.terminationStatus)") }
            }
        }
    }

    /// A config value with an invisible character (a byte order mark pasted into the serial
    /// device's path) shows as `\u{FEFF}` in the log, not as the right name.
    @Test func theLogShowsInvisibleCharactersInAValue() async throws {
        let log = try await Self.logUntilStopped(pressing: true) { dir in
            "[output.serial]\ndevice = \"\u{FEFF}\(dir.path)/ttyNONE\"\n"
        } shows: { dir in "\\u{FEFF}\(dir.path)/ttyNONE" }
        #expect(!log.unicodeScalars.contains("\u{FEFF}"), "no raw byte order mark in the log")
    }

    /// `--press-every` with a config that has no button to press says so (a tryout: it did
    /// nothing, silently).
    @Test func pressEveryWithoutAButtonSaysSo() async throws {
        _ = try await Self.logUntilStopped(pressing: false) { _ in "" } shows: { _ in
            "--press-every presses nothing: the config has no simulated button"
        }
    }

    /// Runs `scand run --press-every 0.3` on the simulated board (with a button when `pressing`,
    /// and `then`'s tables), expects its log to show `shows`, stops it and returns the log.
    static func logUntilStopped(pressing: Bool, then: (URL) -> String, shows: (URL) -> String) async throws -> String {
        let dir = try Fixture.temporaryFolder("scand-log")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        try simulatedConfig(gpio: pressing ? "button = { pin = \"GPIO17\" }\n" : "", then: then(dir)).write(to: config, atomically: true, encoding: .utf8)
        let logFile = dir.appendingPathComponent("stderr.log")
        let process = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin", "--press-every", "0.3"], log: logFile)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func log() -> String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
        let text = shows(dir)
        #expect(await Poll.until { log().contains(text) }, "\(log())")
        kill(process.processIdentifier, SIGTERM)
        _ = await Poll.until { !process.isRunning }
        return log()
    }

    @Test func sighupWithABadConfigKeepsTheOldOneAndSigtermStopsGracefully() async throws {
        let dir = try Fixture.temporaryFolder("scand-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        let status = dir.appendingPathComponent("status.json")
        let good = Self.simulatedConfig(gpio: "button = { pin = \"GPIO17\" }\n", then: "[status]\nfile = \"\(status.path)\"\n")
        try good.write(to: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = Run.scand
        process.arguments = ["run", "--config", config.path, "--no-stdin", "--press-every", "0.3"]
        // The log into a file, not a pipe: a pipe nobody reads until the end fills up (64 KiB)
        // and the daemon, blocked writing to it, could not end on SIGTERM.
        let logFile = dir.appendingPathComponent("stderr.log")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        func statusJSON() -> [String: Any]? {
            FileManager.default.contents(atPath: status.path).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
        func waitFor(_ what: String, _ condition: () -> Bool) async throws {
            #expect(await Poll.until { condition() }, "\(what)")
        }
        func log() -> String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
        try await waitFor("a good read") { (statusJSON()?["goodReads"] as? Int ?? 0) >= 1 }

        try "hardware = \"simulated\"\n[scan]\nalphanumeric = \"later\"\n".write(to: config, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        // Once the reload has been refused (the log says so), the daemon still runs.
        try await waitFor("the reload is refused") { log().contains("config reload rejected, keeping the running config") }
        #expect(process.isRunning)
        let readsBefore = statusJSON()?["goodReads"] as? Int ?? 0
        try await waitFor("still reading with the old config") { (statusJSON()?["goodReads"] as? Int ?? 0) > readsBefore }

        kill(process.processIdentifier, SIGTERM)
        #expect(await ChildProcess.exitStatus(process) == 0)
        let text = log()
        #expect(text.contains("config reload rejected, keeping the running config"))
        #expect(text.contains("scan.alphanumeric: \"later\" is not allowed"))
        // The last line says the daemon has stopped: the kiosk's own line and every output's come before it.
        let lines = text.split(separator: "\n")
        #expect(lines.last?.hasSuffix("notice scand stopped") == true, "\(lines.suffix(5))")
        #expect(lines.contains { $0.hasSuffix("notice kiosk stopped") })
        #expect(statusJSON()?["torch"] as? String == "off")
    }

    /// The daemon with speech on, writing its announcements as WAV files: each good read is
    /// spoken by the real espeak-ng, and the result is logged after its announcement.
    @Test func theDaemonSpeaksEachReadIntoAWAVFile() async throws {
        let dir = try Fixture.temporaryFolder("scand-speech")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        let status = dir.appendingPathComponent("status.json")
        try Self.simulatedConfig(gpio: "button = { pin = \"GPIO17\" }\n", then: "[status]\nfile = \"\(status.path)\"\n"
            + "[feedback.speech]\nenabled = true\nsay = \"type\"\nwav_dir = \"\(dir.path)\"\n").write(to: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = Run.scand
        process.arguments = ["run", "--config", config.path, "--no-stdin", "--press-every", "0.5", "--set", "log_level=debug"]
        // The log into a file, not a pipe: a pipe nobody reads until the end fills up (64 KiB)
        // and the daemon, blocked writing to it, could not end on SIGTERM.
        let logFile = dir.appendingPathComponent("stderr.log")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func wavs() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".wav") } }
        _ = await Poll.until { wavs().count >= 2 }
        kill(process.processIdentifier, SIGTERM)
        #expect(await ChildProcess.exitStatus(process) == 0)
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        #expect(wavs().count >= 2, "\(log)")
        #expect(log.contains("speech: espeak-ng en (WAV files in \(dir.path)), results delivered after the announcement"), "\(log)")
        #expect(log.contains("announcement 1: QR code scanned"))
        // The result is logged after its announcement has been written, never before.
        let lines = log.split(separator: "\n")
        let asked = lines.firstIndex { $0.contains("announcement 1: QR code scanned") }
        let sample = lines.firstIndex { $0.contains("announcement 1: first sample") }
        let result = lines.firstIndex { $0.contains("result 1 ") || $0.contains("seq=1 ") || $0.contains("\"seq\":1,") }
        #expect(asked != nil && sample != nil && result != nil, "\(log)")
        if let asked, let sample, let result { #expect(asked < sample && sample < result, "\(log)") }
        for file in wavs() {
            let bytes = try Data(contentsOf: dir.appendingPathComponent(file))
            #expect(bytes.count > 44 + 22050, "\(file): at least half a second of speech")
            #expect(bytes.prefix(4) == Data("RIFF".utf8))
        }
    }

    /// A code that only the deep passes read (a UPC-A under glare that zxing's first look misses
    /// and nothing reads again within its frame) is delivered by the daemon as built. Before, the
    /// first looks between its deep reads broke the two frames a linear code must agree over, and
    /// it was located at every frame and never sent.
    @Test func theDaemonDeliversACodeOnlyTheDeepPassesRead() async throws {
        let dir = try Fixture.temporaryFolder("scand-deep")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        try ("hardware = \"simulated\"\n[camera]\nimages = [\"\(Fixture.path("upca-glare.png"))\"]\n"
            + "[gpio]\nboard = \"simulated\"\nbutton = { pin = \"GPIO17\" }\n[scan]\nviewport = [0.0, 0.0, 1.0, 1.0]\n")
            .write(to: config, atomically: true, encoding: .utf8)
        let logFile = dir.appendingPathComponent("stderr.log")
        let process = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin", "--press-every", "15"], log: logFile)
        defer { if process.isRunning { process.interrupt(); kill(process.processIdentifier, SIGKILL) } }
        func log() -> String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
        _ = await Poll.until(90) { log().contains("725078102615") }
        kill(process.processIdentifier, SIGTERM)
        #expect(await ChildProcess.exitStatus(process) == 0)
        #expect(log().contains("725078102615"), "\(log())")
    }

    /// Issue 13, defect 9: a symbology no configured engine reads was accepted and never read.
    @Test func checkConfigRejectsASymbologyNoEngineReads() throws {
        let path = Self.repo.appendingPathComponent("config/scand.toml").path
        let zbarOnly = try Run.scand(["check-config", path, "--set", "decoding.engines=[\"zbar\"]"])
        #expect(zbarOnly.status == 1)
        #expect(zbarOnly.stderr.contains("scan.symbologies: Aztec, DataMatrix, PDF417 are read by no configured engine (decoding.engines = zbar); zxing reads them"), "\(zbarOnly.stderr)")
        let narrowed = try Run.scand(["check-config", path, "--set", "decoding.engines=[\"zbar\"]", "--set", "scan.symbologies=[\"qr\", \"ean13\"]"])
        #expect(narrowed.status == 0, "\(narrowed.stderr)")
    }

    @Test func checkConfigExitsNonZeroAndNamesTheLine() throws {
        let run = try Run.scand(["check-config", Self.repo.appendingPathComponent("config/scand.toml").path,
                                 "--set", "torch.mode=bright"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("torch.mode: \"bright\" is not allowed; use one of: on, off"))
        // Issue 13, defect 7: the shipped config leaves the size to camera.quality, and
        // check-config says what it will ask the camera for.
        let fast = try Run.scand(["check-config", Self.repo.appendingPathComponent("config/scand.toml").path,
                                  "--set", "camera.quality=fast", "--set", "gpio.board=raspberry-pi-4"])
        #expect(fast.status == 0, "\(fast.stderr)")
        #expect(fast.stdout.contains("capture 640x480 at 30 fps (quality fast), formats in order: GREY, YUYV, UYVY, NV12, NV21, YU12, MJPG, JPEG"), "\(fast.stdout)")
        let ok = try Run.scand(["check-config", Self.repo.appendingPathComponent("config/demo.toml").path])
        #expect(ok.status == 0 && ok.stdout.contains("ok") && ok.stdout.contains("feedback built-in patterns"))
        let quiet = try Run.scand(["check-config", Self.repo.appendingPathComponent("config/demo.toml").path,
                                   "--set", "feedback.good_read.beep=[30]", "--set", "feedback.good_read.flash=[]",
                                   "--set", "feedback.ready.led=[0]"])
        #expect(quiet.stdout.contains("feedback good_read beep [30], flash none; ready led [0] (the rest built in)"), "\(quiet.stdout)\(quiet.stderr)")
        #expect(ok.stdout.contains("  speech off") && ok.stdout.contains("  mqtt off"))
        let fleet = try Run.scand(["check-config", Self.repo.appendingPathComponent("config/demo.toml").path,
                                   "--set", "output.mqtt.url=mqtt://broker.local", "--set", "output.mqtt.client_id=till-3"])
        #expect(fleet.stdout.contains("  mqtt mqtt://broker.local:1883 as till-3, topics scand/till-3/..., qos 1, commands on, events off"), "\(fleet.stdout)")
        let badURL = try Run.scand(["check-config", Self.repo.appendingPathComponent("config/demo.toml").path,
                                    "--set", "output.mqtt.url=http://broker.local/x"])
        #expect(badURL.status == 1 && badURL.stderr.contains("output.mqtt.url: must start with mqtt:// or mqtts://"), "\(badURL.stderr)")
    }

    /// Speech in check-config: the voice is looked up in espeak-ng itself; an unknown one is
    /// named with its line, a known one is summarised.
    @Test func checkConfigLooksUpTheSpeechVoice() throws {
        let demo = Self.repo.appendingPathComponent("config/demo.toml").path
        let spoken = try Run.scand(["check-config", demo, "--set", "feedback.speech.enabled=true", "--set", "feedback.speech.voice=de",
                                    "--set", "feedback.good_read.tone_hz=3200"])
        #expect(spoken.status == 0, "\(spoken.stderr)")
        #expect(spoken.stdout.contains("  speech espeak-ng voice de at 175 words/min, volume 100, says type, on ALSA default, results after the announcement, replaces the flash"),
                "\(spoken.stdout)")
        #expect(spoken.stdout.contains("good_read tone 3200 Hz"), "\(spoken.stdout)")
        let unknown = try Run.scand(["check-config", demo, "--set", "feedback.speech.enabled=true", "--set", "feedback.speech.voice=elvish"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("feedback.speech.voice: espeak-ng has no voice \"elvish\""), "\(unknown.stderr)")
    }
}
