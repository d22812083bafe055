import Foundation
import TestThreads
import Testing

/// Issue 40: the CLI explains. Each refused value says why and what is allowed; `--set` takes a
/// string key's bare text and names itself in errors; `--version` names the commit and the
/// decoders; development benchmarks name the argument they need; the log on a terminal starts
/// with the message, says "press Enter" only when it reads stdin, and hides payloads when asked.
@Suite struct ExplainingCLITests {
    @Test(.onTestThreads) func aRefusedRegionSaysWhy() throws {
        let run = try Run.scand(["decode", "--roi", "2,0,1,1", Fixture.path("qr.png")])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("x + width and y + height must be at most 1"), "\(run.stderr)")
        let words = try Run.scand(["decode", "--roi", "a,b,c,d", Fixture.path("qr.png")])
        #expect(words.stderr.contains("\"a\" is not a number"), "\(words.stderr)")
        let three = try Run.scand(["decode", "--roi", "0,0,1", Fixture.path("qr.png")])
        #expect(three.stderr.contains("give four numbers x,y,w,h"), "\(three.stderr)")
    }

    @Test(.onTestThreads) func anUnknownSymbologyIsNamedWithTheList() throws {
        let run = try Run.scand(["decode", "--symbologies", "qr,foo", Fixture.path("qr.png")])
        #expect(run.status == 64)
        #expect(run.stderr.contains("\"foo\" is not a symbology; use: EAN-13,") && run.stderr.contains("QR-Code") && run.stderr.contains("Aztec"),
                "\(run.stderr)")
        #expect(try Run.scand(["decode", "--symbologies", "qr", Fixture.path("qr.png")]).status == 0)
    }

    @Test(.onTestThreads) func decodeWorkersShowOneDefault() throws {
        let help = try Run.scand(["decode", "--help"]).stdout
        let workers = help.components(separatedBy: "--workers <workers>").last?.components(separatedBy: "--max-pixels").first ?? ""
        #expect(workers.components(separatedBy: "default").count == 2, "\(workers)")
    }

    @Test(.onTestThreads) func helpParagraphsAreWrappedByTheParser() throws {
        for command in ["run", "snapshot", "status", "decode"] {
            let help = try Run.scand([command, "--help"]).stdout
            let discussion = help.components(separatedBy: "\n\n").dropFirst().first ?? ""
            // A line the parser did not fill: one of under 40 characters followed by more text.
            let lines = discussion.split(separator: "\n")
            for (i, line) in lines.enumerated() where i < lines.count - 1 {
                #expect(line.count > 40, "\(command): a broken line in\n\(discussion)")
            }
        }
    }

    @Test(.onTestThreads) func theVersionNamesTheCommitAndTheDecoders() throws {
        let run = try Run.scand(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("0.1.0 (commit "), "\(run.stdout)")
        #expect(run.stdout.contains("\nzbar 0.") && run.stdout.contains("\nzxing-cpp "), "\(run.stdout)")
    }

    @Test(.onTestThreads) func benchmarksNameTheInputTheyNeed() throws {
        let kiosk = try Run.scand(["bench", "kiosk", "--sessions", "1"])
        #expect(kiosk.status == 64 && kiosk.stderr.contains("--images") && !kiosk.stderr.contains("../shared"), "\(kiosk.stderr)")
        let missing = try Run.scand(["bench", "kiosk", "--images", "/nonexistent/scenes"])
        #expect(missing.stderr.contains("--images /nonexistent/scenes: cannot open"), "\(missing.stderr)")
        for (args, name) in [(["bench", "convert"], "--corpus"), (["bench", "no-code"], "--code"), (["bench", "soak"], "--image")] {
            let run = try Run.scand(args)
            #expect(run.status == 64 && run.stderr.contains(name), "\(args): \(run.stderr)")
        }
    }

    /// `--set web.listen=0.0.0.0:8080` is taken as text (the address's own check speaks), and
    /// a bad `--set` value is blamed on `--set`, never on a line of the file.
    @Test(.onTestThreads) func setTakesBareTextAndNamesItself() throws {
        let dir = try Fixture.temporaryFolder("scand-set")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        try (RunCommandTests.simulatedConfig() + "[scan]\nviewport = [0.1, 0.1, 0.8, 0.8]\n").write(to: config, atomically: true, encoding: .utf8)
        let open = try Run.scand(["check-config", config.path, "--set", "web.listen=0.0.0.0:8080"])
        #expect(open.status == 1 && open.stderr.contains("--set: web.listen: 0.0.0.0:8080 is not a loopback address"), "\(open.stderr)")
        let token = String(repeating: "t", count: 20)
        let ok = try Run.scand(["check-config", config.path, "--set", "web.listen=0.0.0.0:8080", "--set", "web.token=\(token)"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let bad = try Run.scand(["check-config", config.path, "--set", "scan.viewport=hello"])
        #expect(bad.stderr.contains("--set: scan.viewport: must be [x, y, width, height]") && !bad.stderr.contains("scand.toml:"), "\(bad.stderr)")
        #expect(bad.stderr.components(separatedBy: "scan.viewport").count == 2, "one message: \(bad.stderr)")
    }

    /// With `--no-stdin` no "press Enter"; on a terminal the message follows time and level;
    /// `log.payloads = "redacted"` keeps the Wi-Fi password (and every payload) out of the log.
    @Test func theLogOfARunReadsWell() async throws {
        let dir = try Fixture.temporaryFolder("scand-log")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        try """
            hardware = "simulated"
            [log]
            payloads = "redacted"
            [camera]
            images = ["\(Fixture.repo.appendingPathComponent("samples/qr-wifi.jpg").path)"]
            [gpio]
            board = "simulated"
            button = { pin = "GPIO17" }
            torch = { pin = "GPIO27" }
            """.write(to: config, atomically: true, encoding: .utf8)
        let log = dir.appendingPathComponent("log.txt")
        let process = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin", "--press-every", "0.3"], log: log)
        func text() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        let read = await Poll.until(30) { text().contains("notice read QR-Code") }
        await ChildProcess.end(process)
        let lines = text().split(separator: "\n").map(String.init)
        #expect(read, "\(text())")
        #expect(!text().contains("press Enter"), "\(text())")
        #expect(lines.contains { $0.hasSuffix(" notice simulated hardware: the button is pressed every 0.3 s; Ctrl-C stops") }, "\(text())")
        // `YYYY-MM-DD HH:MM:SS.mmm level message [metadata]`
        let started = lines.first { $0.contains("scand started") } ?? ""
        #expect(started.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} notice scand started \[camera="#, options: .regularExpression) != nil, "\(started)")
        let reads = lines.filter { $0.contains(" read QR-Code: ") }
        #expect(!reads.isEmpty && reads.allSatisfy { $0.contains("read QR-Code: wifi, ") && $0.contains(" bytes [") }, "\(reads)")
        // The sample's Wi-Fi string and its password never reach the log.
        #expect(!text().contains("WIFI:") && !text().contains("eqh524yng5by1a2rogubbb8ayn1b7o259owoo3sb") && !text().contains("kiosk;"), "\(text())")
        // One info line or more per outcome, nothing per LED or torch change.
        #expect(!text().contains("status LED") && !text().contains(" torch on") && !text().contains("feedback good-read"), "\(text())")
    }
}
