import Foundation
import Testing

/// `scand status` against the real daemon on simulated hardware: asked over the control socket,
/// read from the status file when nothing answers there (defect A: both shipped configs set no
/// status file, and `scand status` said only "the config sets no status.file").
@Suite(.serialized) struct StatusCommandTests {
    @Test func aRunningDaemonWithoutAStatusFileIsAskedOverTheControlSocket() async throws {
        let daemon = try SetupPageTests.Daemon(web: false, statusFile: false)
        #expect(await daemon.logged("control socket on"), "\(daemon.logText)")
        let config = daemon.dir.appendingPathComponent("scand.toml").path
        var run = try Run.scand(["status", "--config", config])
        // The socket is announced just before it listens: bounded, until it answers.
        _ = await Poll.until(10) {
            run = (try? Run.scand(["status", "--config", config])) ?? run
            return run.status == 0
        }
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("camera: ") == true, "\(run.stdout)")
        #expect(lines.contains("torch: off") && lines.contains("torchMode: on") && lines.contains("phase: idle"), "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: daemon.dir.appendingPathComponent("status.json").path))

        let json = try Run.scand(["status", "--config", config, "--json"])
        #expect(json.status == 0 && json.stdout.hasPrefix("{\"camera\":") && json.stdout.contains("\"torchMode\":\"on\""), "\(json.stdout)")
    }

    @Test func aFileWithAWrongValueStillFindsTheDaemon() async throws {
        let daemon = try SetupPageTests.Daemon(web: false, statusFile: false)
        #expect(await daemon.logged("control socket on"), "\(daemon.logText)")
        let config = daemon.dir.appendingPathComponent("scand.toml")
        // The running daemon keeps its config; the file gets a value no start would take.
        let text = try String(contentsOf: config, encoding: .utf8)
        #expect(text.contains("session_timeout_ms = 3000"))
        try text.replacingOccurrences(of: "session_timeout_ms = 3000", with: "session_timeout_ms = -5").write(to: config, atomically: true, encoding: .utf8)
        var run = try Run.scand(["status", "--config", config.path])
        _ = await Poll.until(10) {
            run = (try? Run.scand(["status", "--config", config.path])) ?? run
            return run.status == 0
        }
        #expect(run.status == 0 && run.stdout.contains("phase: idle"), "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("has errors (a restart would refuse it)") && run.stderr.contains("session_timeout_ms"), "\(run.stderr)")
    }

    @Test func withNoDaemonItSaysSoInOneLine() throws {
        let dir = try Fixture.temporaryFolder("scand-status-none")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        let socket = dir.appendingPathComponent("control.sock").path, file = dir.appendingPathComponent("status.json").path
        try SetupPageTests.config(in: dir, serial: "/dev/null", statusFile: false).write(to: config, atomically: true, encoding: .utf8)
        let bare = try Run.scand(["status", "--config", config.path])
        #expect(bare.status == 1 && bare.stdout.isEmpty)
        #expect(bare.stderr == "scand status: no scand is running (nothing listens on the control socket \(socket))\n", "\(bare.stderr)")

        try SetupPageTests.config(in: dir, serial: "/dev/null").write(to: config, atomically: true, encoding: .utf8)
        let both = try Run.scand(["status", "--config", config.path])
        #expect(both.status == 1)
        #expect(both.stderr == "scand status: no scand is running (nothing listens on the control socket \(socket), and there is no status file \(file))\n",
                "\(both.stderr)")

        // No config file at all (the default /etc/scand/scand.toml on a machine without the
        // package): the default install's socket is asked, and the line says so.
        let none = try Run.scand(["status", "--config", dir.appendingPathComponent("missing.toml").path])
        #expect(none.status == 1)
        #expect(none.stderr.hasPrefix("scand status: no scand is running (") && none.stderr.contains("/run/scand/control.sock"), "\(none.stderr)")
    }

    @Test func theStatusFileIsTheFallback() throws {
        let dir = try Fixture.temporaryFolder("scand-status-file")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        try SetupPageTests.config(in: dir, serial: "/dev/null").write(to: config, atomically: true, encoding: .utf8)
        let status = "{\"camera\":\"available\",\"torch\":\"on\",\"torchMode\":\"auto\",\"phase\":\"scanning\",\"goodReads\":7}\n"
        try status.write(to: dir.appendingPathComponent("status.json"), atomically: true, encoding: .utf8)
        let run = try Run.scand(["status", "--config", config.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "camera: available\ntorch: on\ntorchMode: auto\nphase: scanning\ngoodReads: 7\n", "\(run.stdout)")
        let json = try Run.scand(["status", "--config", config.path, "--json"])
        #expect(json.stdout == status)
        // --file names another one, with or without a config.
        let other = dir.appendingPathComponent("other.json").path
        try status.replacingOccurrences(of: "scanning", with: "idle").write(toFile: other, atomically: true, encoding: .utf8)
        #expect(try Run.scand(["status", "--config", config.path, "--file", other]).stdout.contains("phase: idle"))
        #expect(try Run.scand(["status", "--config", dir.appendingPathComponent("none.toml").path, "--file", other]).stdout.contains("phase: idle"))
    }
    /// A status file outlives its daemon: one killed (-9) left `phase: idle` behind, and
    /// `scand status` showed it as a running kiosk, exit 0. Now it says plainly that scand is
    /// not running, shows the last status, and exits 1; a daemon that stopped says so too.
    @Test func aStatusFileOfADaemonThatIsGoneSaysSo() async throws {
        let dir = try Fixture.temporaryFolder("scand-status-gone")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = try ServiceGroupTests.config("qr.png", in: dir)
        let status = dir.appendingPathComponent("status.json")
        for signal in [SIGKILL, SIGTERM] {
            try? FileManager.default.removeItem(at: status)
            let process = Process()
            process.executableURL = Run.scand
            process.arguments = ["run", "--config", config.path, "--no-stdin"]
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try ChildProcess.launch(process)
            #expect(await Poll.until(20) { (try? String(contentsOf: status, encoding: .utf8))?.contains("\"phase\":\"idle\"") == true })
            let running = try Run.scand(["status", "--config", config.path])
            #expect(running.status == 0 && running.stdout.contains("phase: idle"), "\(running.stderr)")
            kill(process.processIdentifier, signal)
            _ = await ChildProcess.exitStatus(process)
            let gone = try Run.scand(["status", "--config", config.path])
            #expect(gone.status == 1)
            #expect(gone.stderr.contains("scand status: scand is not running (pid \(process.processIdentifier) "), "\(gone.stderr)")
            #expect(gone.stderr.contains(signal == SIGKILL ? "without stopping: killed or crashed" : "stopped at"), "\(gone.stderr)")
            #expect(gone.stdout.contains(signal == SIGKILL ? "phase: idle" : "phase: stopped"), "\(gone.stdout)")
        }
    }
}
