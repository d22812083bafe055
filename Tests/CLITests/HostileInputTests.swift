import Foundation
import SimulatedHardware
import Testing

/// The daemon as a hostile host, a careless admin and a second copy of itself would meet it
/// (issue 12): every finding kept as a test against the real `scand run`.
@Suite(.serialized) struct HostileInputTests {
    /// A daemon on simulated hardware whose serial port is a pty the test holds.
    final class Daemon {
        let dir: URL
        let host: PseudoTerminal
        let process = Process()
        let log: URL

        /// `maxFiles` runs the daemon under `prlimit --nofile` (to meet EMFILE).
        init(extraConfig: String = "", dir: URL? = nil, maxFiles: Int? = nil) throws {
            self.dir = try dir ?? Fixture.temporaryFolder("scand-hostile")
            host = try PseudoTerminal()
            log = self.dir.appendingPathComponent("log-\(UUID().uuidString.prefix(6)).txt")
            try """
                hardware = "simulated"
                [camera]
                images = ["\(Fixture.path("no-code.png"))"]
                [gpio]
                board = "simulated"
                button = { pin = "GPIO17" }
                torch = { pin = "GPIO27" }
                [output.serial]
                device = "\(try Fixture.serialLink(to: host.hostPath, in: self.dir))"
                [outbox]
                directory = "\(self.dir.path)"
                [status]
                file = "\(self.dir.path)/status.json"
                \(extraConfig)
                """.write(to: self.dir.appendingPathComponent("scand.toml"), atomically: true, encoding: .utf8)
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let arguments = ["run", "--config", self.dir.appendingPathComponent("scand.toml").path, "--no-stdin"]
            let command = (maxFiles.map { ["/usr/bin/prlimit", "--nofile=\($0)"] } ?? []) + [Run.scand.path] + arguments
            // The shell opens the log in the child and execs the daemon (same pid): the log does
            // not depend on a descriptor handed down from this busy test process (twice in CI
            // the daemon answered on its pty while its log stayed empty).
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$@\" 2>>\"$SCAND_TEST_LOG\"", "sh"] + command
            var environment = ProcessInfo.processInfo.environment
            environment["SCAND_TEST_LOG"] = log.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try ChildProcess.launch(process) // with no signal blocked, as a service manager starts it
        }

        deinit { ChildProcess.stop(process) }

        /// The daemon's log so far (bytes that are not UTF-8 shown as U+FFFD, never an empty text).
        var logText: String {
            let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            // An empty log has twice been seen in CI with the daemon answering on its pty: say
            // where the daemon's stderr goes, for the next one who meets it.
            if text.isEmpty, let fd2 = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/fd/2") {
                print("log \(log.path) empty; pid \(process.processIdentifier) writes its stderr to \(fd2)")
            }
            return text
        }

        /// Waits up to `seconds` for `text` in the log (a reload under a sanitizer takes a while).
        func logged(_ text: String, within seconds: Double = 10) async -> Bool {
            await Poll.until(seconds) { logText.contains(text) }
        }

        /// How many lines of the log contain `text`.
        func count(_ text: String) -> Int { logText.split(separator: "\n").count { $0.contains(text) } }

        /// Descriptors the daemon holds open now.
        var descriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? 0 }

        /// Sends one line and returns the answer line.
        func ask(_ line: String) async throws -> String {
            _ = host.readFromHost()
            try host.write(Array((line + "\r\n").utf8))
            var got = ""
            // Polled every 1 ms, not with `Poll.until` (20 ms): a test asks 1,100 times. Bounded
            // at about 5 s; the answer decides, not the wait.
            for _ in 0..<5000 where !got.contains("\r\n") {
                got += String(decoding: host.readFromHost(), as: UTF8.self)
                if !got.contains("\r\n") { try await Task.sleep(for: .milliseconds(1)) }
            }
            return String(got.prefix { $0 != "\r" && $0 != "\n" })
        }

        var rssKB: Int {
            let text = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
    }

    @Test func hostileSetLinesGetAnAnswerAndTheDaemonLives() async throws {
        let d = try Daemon()
        defer { try? FileManager.default.removeItem(at: d.dir) }
        #expect(try await d.ask("VERSION").hasPrefix("OK VERSION scand"))
        let answers = [
            ("SET scan.viewport=[0.1,0.1,0.8,}", "ERR SET: scan.viewport: the value [0.1,0.1,0.8,} is not valid TOML: column 14"),
            ("SET x=[}", "ERR SET: unknown key x; known keys here: hardware"),
            ("SET .={}", "ERR SET: .: not a key"),
            ("SET scan..x=1", "ERR SET: scan..x: not a key"),
            ("SET output.serial.prefix=abc", "ERR SET: output.serial.prefix is not set while running"),
            ("SET outbox.directory=/tmp", "ERR SET: outbox.directory is not set while running"),
            ("SET output.serial.gs1=hri", "ERR SET: output.serial.gs1 is not set while running"),
            // The advice follows the key, not its value (a tryout: the value the daemon runs
            // with was told to reload, and a reload key to restart while the file had edits).
            ("SET outbox.capacity=1000", "ERR SET: outbox.capacity is not set while running; change it in \(d.dir.appendingPathComponent("scand.toml").path), then restart"),
            ("SET torch.skip_frames=2", "ERR SET: torch.skip_frames is not set while running; change it in \(d.dir.appendingPathComponent("scand.toml").path), then reload"),
            ("SET output.stdout.gs1=human", "ERR SET: output.stdout.gs1: \"human\" is not allowed; use one of: raw, hri"),
            ("SET scan.session_timeout_ms=abc", "ERR SET: scan.session_timeout_ms: must be an integer, not a string"),
            ("SET scan.session_timeout_ms=1e3", "ERR SET: scan.session_timeout_ms: must be an integer, not a decimal number"),
            ("SET scan.nothing=1", "ERR SET: unknown key scan.nothing; known keys here: "),
            ("SET decoding.engines=[\"zbar\"]", "ERR SET: decoding.engines: scan.symbologies: Aztec, DataMatrix, PDF417 are read by no configured engine"),
            (String(repeating: "é", count: 86), "ERR LINE: only printable ASCII is accepted"),
            ("SET scan.session_timeout_ms=4000", "OK SET scan.session_timeout_ms"),
        ]
        for (line, expected) in answers {
            let got = try await d.ask(line)
            #expect(got.hasPrefix(expected), "\(line) -> \(got)")
        }
        #expect(d.process.isRunning)
    }

    @Test func memoryStaysFlatOverAThousandSets() async throws {
        let d = try Daemon()
        defer { try? FileManager.default.removeItem(at: d.dir) }
        for i in 0..<100 { _ = try await d.ask("SET scan.session_timeout_ms=\(1000 + i)") }
        let before = d.rssKB
        for i in 0..<1000 { _ = try await d.ask("SET scan.session_timeout_ms=\(2000 + i % 50)") }
        let after = d.rssKB
        // Before: every SET parsed all earlier ones again and parsed trees were never freed
        // (RSS 32 -> 212 MB over 1,000 SETs).
        #expect(after - before < 8_000, "RSS \(before) kB -> \(after) kB")
        #expect(try await d.ask("STATUS").hasPrefix("OK STATUS"))
    }

    @Test func aSecondDaemonOnTheSameStateSaysAlreadyRunning() async throws {
        let first = try Daemon()
        defer { try? FileManager.default.removeItem(at: first.dir) }
        #expect(try await first.ask("VERSION").hasPrefix("OK"))
        let second = try Daemon(dir: first.dir)
        #expect(ChildProcess.waitForStatus(second.process) == 1)
        #expect(second.logText.contains("already running: another scand (pid \(first.process.processIdentifier)) holds \(first.dir.path)/scand.lock"))
        #expect(first.process.isRunning)
    }

    @Test func anEventSocketPathThatIsAFileIsLeftAlone() async throws {
        let dir = try Fixture.temporaryFolder("scand-hostile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let precious = dir.appendingPathComponent("precious.txt")
        try "keep me".write(to: precious, atomically: true, encoding: .utf8)
        let d = try Daemon(extraConfig: "[events]\nsocket = \"\(precious.path)\"", dir: dir)
        #expect(try await d.ask("VERSION").hasPrefix("OK"))
        #expect(try String(contentsOf: precious, encoding: .utf8) == "keep me")
        #expect(await d.logged("exists and is not a socket; not removed"), "\(d.logText)")
    }

    @Test func sighupWithABrokenFileKeepsTheDaemon() async throws {
        let d = try Daemon()
        defer { try? FileManager.default.removeItem(at: d.dir) }
        #expect(try await d.ask("VERSION").hasPrefix("OK"))
        // Signals only once the daemon says it runs (its SIGHUP handler is set by then).
        #expect(await d.logged("scand started"), "\(d.logText)")
        let rejected = "config reload rejected, keeping the running config"
        for (i, text) in ["[\n", "x = [}\n", "a = {b=[}\n"].enumerated() {
            try text.write(to: d.dir.appendingPathComponent("scand.toml"), atomically: true, encoding: .utf8)
            kill(d.process.processIdentifier, SIGHUP)
            // Asked once this reload has been refused (the log says so), not after a guess.
            #expect(await Poll.until { d.count(rejected) > i }, "reload \(i + 1) refused: \(d.logText)")
            #expect(try await d.ask("VERSION").hasPrefix("OK"), "alive after SIGHUP with \(text.debugDescription)")
        }
        #expect(d.count(rejected) == 3, "\(d.logText)")
        #expect(await d.logged("scand.toml:1:2: a key cannot start with the end of the line"), "\(d.logText)")
    }

    /// A `SET` applies to the file the daemon runs with, not to edits saved since and not
    /// reloaded (a tryout: `SET scan.multiple=1` switched the kiosk to an unsaved
    /// `trigger = "continuous"`, and a file broken since refused a valid `SET`).
    @Test func aSetAppliesToTheFileAsRunNotToUnsavedEdits() async throws {
        let d = try Daemon()
        defer { try? FileManager.default.removeItem(at: d.dir) }
        #expect(await d.logged("scand started"), "\(d.logText)")
        let file = d.dir.appendingPathComponent("scand.toml")
        let good = try String(contentsOf: file, encoding: .utf8)
        try (good + "\n[scan]\ntrigger = \"continuous\"\n").write(to: file, atomically: true, encoding: .utf8)
        let set = try await d.ask("SET scan.multiple=1")
        #expect(set.hasPrefix("OK SET scan.multiple"), "\(set)")
        try await Task.sleep(for: .seconds(1))
        #expect(!d.logText.contains("scan session 1 started") && !d.logText.contains("continuous"), "the unsaved trigger mode stays unsaved: \(d.logText.suffix(1500))")
        try "[scan\n".write(to: file, atomically: true, encoding: .utf8)
        let again = try await d.ask("SET scan.session_timeout_ms=4000")
        #expect(again.hasPrefix("OK SET scan.session_timeout_ms"), "a file broken since is no matter to a SET: \(again)")
        kill(d.process.processIdentifier, SIGHUP)
        #expect(await d.logged("config reload rejected, keeping the running config"), "\(d.logText)")
    }

    @Test func aSetDoesNotHideABrokenFileOnReload() async throws {
        let d = try Daemon()
        defer { try? FileManager.default.removeItem(at: d.dir) }
        #expect(await d.logged("scand started"), "\(d.logText)")
        #expect(try await d.ask("SET scan.session_timeout_ms=4000").hasPrefix("OK"))
        // The file gets the same key with a value no start would take: the reload is refused
        // though this run's SET would cover it.
        let file = d.dir.appendingPathComponent("scand.toml")
        let good = try String(contentsOf: file, encoding: .utf8)
        try (good + "\n[scan]\nsession_timeout_ms = -5\n").write(to: file, atomically: true, encoding: .utf8)
        kill(d.process.processIdentifier, SIGHUP)
        #expect(await Poll.until { d.count("config reload rejected, keeping the running config") == 1 }, "\(d.logText)")
        #expect(await d.logged("session_timeout_ms"), "the reason names the key: \(d.logText)")
        // A good file is taken, and the log says which SETs this run keeps over it.
        try (good + "\n[scan]\nsession_timeout_ms = 6000\n").write(to: file, atomically: true, encoding: .utf8)
        kill(d.process.processIdentifier, SIGHUP)
        #expect(await d.logged("(this run's SETs kept: scan.session_timeout_ms=4000)"), "\(d.logText)")
        #expect(!d.logText.contains("takes effect at the next start"), "only runtime keys changed")
        // A start-only change is named (a tryout: `outbox.policy` changed by a reload was not).
        try (good.replacingOccurrences(of: "[outbox]\n", with: "[outbox]\npolicy = \"reject-new\"\n") + "\n[scan]\nsession_timeout_ms = 6000\n")
            .write(to: file, atomically: true, encoding: .utf8)
        kill(d.process.processIdentifier, SIGHUP)
        #expect(await d.logged("config: [outbox] changed: that takes effect at the next start (systemctl restart scand); a reload applies scan, "), "\(d.logText)")
    }

    @Test func outOfDescriptorsTheEventSocketDoesNotSpin() async throws {
        let dir = try Fixture.temporaryFolder("scand-emfile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let socketPath = dir.appendingPathComponent("events.sock").path
        let d = try Daemon(extraConfig: "[events]\nsocket = \"\(socketPath)\"", dir: dir, maxFiles: 64)
        #expect(try await d.ask("VERSION").hasPrefix("OK"))
        var clients: [Int32] = []
        defer { for c in clients { close(c) } }
        let paused = "events: out of descriptors; accepting paused for 1 s"
        for _ in 0..<80 {
            let before = d.descriptors
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in socketPath.utf8.enumerated() { raw[i] = b }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            clients.append(fd)
            // One by one, as clients of a kiosk screen would come: each taken by the daemon
            // (one more descriptor) before the next, until it has none left.
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 200)
            _ = await Poll.until(2) { d.descriptors > before || d.descriptors >= 64 }
            if d.descriptors >= 64 && d.count(paused) > 0 { break }
        }
        // Before: accept failed with EMFILE, the listener stayed readable and the daemon spun at
        // 100 % of a core. Now the failed accept pauses the listener (the log says so: an event,
        // not CPU time over a wall-clock window), and the daemon still answers.
        #expect(await d.logged(paused), "out of descriptors with \(d.descriptors) open: \(d.logText)")
        #expect(try await d.ask("STATUS").hasPrefix("OK STATUS"))
    }

    @Test func outOfRangeOptionsAreUsageErrors() throws {
        for value in ["inf", "1e300", "1e-9", "0", "-1", "nan"] {
            let run = try Run.scand(["run", "--config", Fixture.repo.appendingPathComponent("config/demo.toml").path, "--press-every=\(value)"])
            #expect(run.status == 64, "--press-every \(value): \(run.status)")
            #expect(run.stderr.contains("--press-every must be from 0.05 to 86400 seconds"))
        }
    }
}

@Suite struct HostileFileTests {
    @Test func statusOnSomethingElseIsAnError() throws {
        let dir = try Fixture.temporaryFolder("scand-status")
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in [("empty-object.json", "{}"), ("garbage.json", "not json"), ("array.json", "[1,2]")] {
            let path = dir.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let run = try Run.scand(["status", "--file", path])
            #expect(run.status == 1 && run.stderr.contains("is not a status file"), "\(name): \(run.status) \(run.stderr)")
        }
    }

    @Test func checkConfigNeverEchoesControlCharacters() throws {
        let dir = try Fixture.temporaryFolder("scand-ctl")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("c.toml").path
        try "hardware = \"simulated\"\n[camera]\nimages = [\"a\\u001B]0;pwned\\u0007\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        // The image cannot be loaded: the error names it, escaped.
        let run = try Run.scand(["check-config", config])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("\u{1B}") && run.stderr.contains("camera.images: a\\x1B]0;pwned\\x07"), "\(run.stderr)")
        // `run` refuses it alike, escaped in its log.
        let started = try Run.scand(["run", "--config", config, "--no-stdin"])
        #expect(started.status == 1)
        #expect(!started.stderr.contains("\u{1B}") && started.stderr.contains("image a\\x1B]0;pwned\\x07 cannot be played"), "\(started.stderr)")
        // An image that loads, named so: listed, escaped.
        let named = dir.appendingPathComponent("a\u{1B}]0;pwned\u{07}.png")
        try FileManager.default.copyItem(atPath: Fixture.path("qr.png"), toPath: named.path)
        try "hardware = \"simulated\"\n[camera]\nimages = [\"\(dir.path)/a\\u001B]0;pwned\\u0007.png\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let listed = try Run.scand(["check-config", config])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!listed.stdout.contains("\u{1B}") && listed.stdout.contains("a\\x1B]0;pwned\\x07.png ("), "\(listed.stdout)")
    }
}

@Suite struct SoakTests {
    /// Sessions in virtual time through the whole runtime (outbox file, events, a host SET every
    /// tenth session): memory comes back to where it was (`scand bench soak`; 10,000 sessions
    /// there, 1,000 here).
    @Test func memoryIsFlatOverAThousandSessions() throws {
        let run = try Run.scand(["bench", "soak", "--sessions", "1000", "--image", Fixture.path("qr.png")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("good reads 1000, delivered 1000, pending 0"), "\(run.stdout)")
        let growth = run.stdout.split(separator: "(").last.flatMap { Int($0.prefix { $0 == "-" || $0 == "+" || $0.isNumber }.replacing("+", with: "")) }
        #expect(growth.map { $0 < 4096 } == true, "RSS grew: \(run.stdout)")
    }
}
