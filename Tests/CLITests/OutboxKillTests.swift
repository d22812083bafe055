import Foundation
import SimulatedHardware
import Testing

/// The outbox across a `kill -9`: results read while the serial port was missing are in the
/// outbox file, and the next start sends each of them exactly once.
@Suite struct OutboxKillTests {
    @Test func resultsSurviveKillNineAndAreSentOnceAfterTheRestart() async throws {
        let dir = try Fixture.temporaryFolder("scand-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        let status = dir.appendingPathComponent("status.json")
        try """
            hardware = "simulated"
            [camera]
            images = ["\(Fixture.path("qr.png"))", "\(Fixture.path("datamatrix.png"))"]
            frames_per_image = 3
            [scan]
            same_symbol_timeout_ms = 0
            [gpio]
            board = "simulated"
            button = { pin = "GPIO17" }
            [output.serial]
            device = "\(dir.path)/ttyUSB-unplugged"
            [outbox]
            directory = "\(dir.path)"
            [status]
            file = "\(status.path)"
            """.write(to: config, atomically: true, encoding: .utf8)

        func launch(_ extra: [String]) throws -> Process {
            let p = Process()
            p.executableURL = Run.scand
            p.arguments = ["run", "--config", config.path, "--no-stdin"] + extra
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        func pending() -> Int {
            (FileManager.default.contents(atPath: status.path)
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["pendingResults"] as? Int) ?? 0
        }

        let first = try launch(["--press-every", "0.2"])
        _ = await Poll.until { pending() >= 3 }
        kill(first.processIdentifier, SIGKILL)
        ChildProcess.waitForStatus(first)
        let outbox = try String(contentsOf: dir.appendingPathComponent("serial.outbox"), encoding: .utf8)
        // What the restart owes: results stored (P) and not dropped by the capacity (X), written
        // (D) or parked (K). (On a loaded runner the first daemon may press for minutes before
        // this test's task runs again, and the outbox then drops its oldest.)
        let lines = outbox.split(separator: "\n").map { $0.split(separator: " ") }
        let closed = Set(lines.filter { ["D", "X", "K"].contains($0.first ?? "") && $0.count > 1 }.map { $0[1] })
        let stored = lines.filter { $0.first == "P" && $0.count > 1 && !closed.contains($0[1]) }.count
        #expect(stored >= 3)

        let host = try PseudoTerminal()
        try FileManager.default.removeItem(at: status) // the first daemon's
        let second = try launch(["--set", "output.serial.device=\(try Fixture.serialLink(to: host.hostPath, in: dir))"])
        defer { if second.isRunning { second.terminate() } }
        var received = ""
        _ = await Poll.until {
            received += String(decoding: host.readFromHost(), as: UTF8.self)
            return received.split(separator: "\r\n").count >= stored
        }
        // Done when the second daemon says its outbox is empty (a result is marked sent only
        // after it was written) and it has ended: nothing more can come, so what the host has
        // then is all it will ever get (no press in this run).
        #expect(await Poll.until { FileManager.default.fileExists(atPath: status.path) && pending() == 0 }, "the outbox is emptied")
        ChildProcess.stop(second)
        received += String(decoding: host.readFromHost(), as: UTF8.self)
        let sent = received.split(separator: "\r\n").map(String.init)
        #expect(sent.count == stored, "each stored result exactly once: \(sent)")
        #expect(Set(sent).isSubset(of: ["https://example.org/kiosk?id=42", "scand DataMatrix fixture"]))
    }
}
