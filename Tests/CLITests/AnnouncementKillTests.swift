import Foundation
import SimulatedHardware
import Testing

/// Issue 41, "nothing lost": a result whose announcement is playing (speech on, results sent
/// after it) is in the outbox from the moment it was read. `kill -9` during the announcement,
/// a restart, and the host gets it. (Before, it was held in memory only: a read that was
/// beeped and announced was lost.)
@Suite(.serialized) struct AnnouncementKillTests {
    @Test(.timeLimit(.minutes(2))) func aReadKilledDuringItsAnnouncementIsDeliveredAfterTheRestart() async throws {
        let dir = try Fixture.temporaryFolder("scand-announce")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        let status = dir.appendingPathComponent("status.json")
        // Continuous: the code is read at start, once. "EAN 13 barcode: 5 9 0 1 ..." takes the simulated
        // speaker about 2.5 s (70 ms a character).
        try """
            hardware = "simulated"
            log_level = "info"
            [camera]
            images = ["\(Fixture.path("ean13.png"))"]
            [scan]
            trigger = "continuous"
            [output.serial]
            device = "\(dir.path)/ttyUSB-unplugged"
            format = "json"
            [outbox]
            directory = "\(dir.path)"
            [control]
            socket = ""
            [status]
            file = "\(status.path)"
            [feedback.speech]
            enabled = true
            say = "both"
            """.write(to: config, atomically: true, encoding: .utf8)
        let outbox = dir.appendingPathComponent("serial.outbox")
        func stored() -> Bool { ((try? String(contentsOf: outbox, encoding: .utf8)) ?? "").contains("P 1 ") }

        let firstLog = dir.appendingPathComponent("first.log")
        let first = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin", "--set", "log_level=debug"], log: firstLog,
                                            executable: FullDiskTests.executable)
        #expect(await Poll.until(60) { ((try? String(contentsOf: firstLog, encoding: .utf8)) ?? "").contains("announcement 1: EAN 13 barcode") },
                "the read is announced")
        // Stored at read time: in the file while the announcement plays (given 0.5 s of it).
        _ = await Poll.until(0.5) { stored() }
        kill(first.processIdentifier, SIGKILL)
        await ChildProcess.reap(first)
        let log = try String(contentsOf: firstLog, encoding: .utf8)
        #expect(!log.contains(" read EAN-13: "), "killed while the announcement played, before the result went to the outputs")
        #expect(stored(), "the held result is in the outbox file")

        let host = try PseudoTerminal()
        try? FileManager.default.removeItem(at: status)
        let second = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin", "--set", "scan.trigger=pulse",
                                              "--set", "output.serial.device=\(try Fixture.serialLink(to: host.hostPath, in: dir))"],
                                             log: dir.appendingPathComponent("second.log"), executable: FullDiskTests.executable)
        var received = ""
        _ = await Poll.until(30) {
            received += String(decoding: host.readFromHost(), as: UTF8.self)
            return FileManager.default.fileExists(atPath: status.path) && received.contains("\n")
        }
        // Nothing more comes: the outbox is empty.
        _ = await Poll.until(5) {
            (FileManager.default.contents(atPath: status.path)
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["pendingResults"] as? Int) == 0
        }
        await ChildProcess.end(second)
        received += String(decoding: host.readFromHost(), as: UTF8.self)
        let results = received.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        #expect(results.map { $0["seq"] as? Int } == [1], "the announced read, once: \(received)")
        #expect(results.first?["text"] as? String == "5901234123457")
    }
}
