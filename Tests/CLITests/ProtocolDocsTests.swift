import Foundation
import SimulatedHardware
import Testing

/// docs/protocol.md's table of answers against the built daemon: good and bad lines through
/// the serial port and the web door of `scand run`, and every answer must have its row.
@Suite(.serialized) struct ProtocolDocsTests {
    static let page = "docs/protocol.md"

    /// The answers table: each row's answer as written, and as a pattern (`<...>` is any text).
    static func answers() throws -> [(row: String, pattern: NSRegularExpression)] {
        let text = try String(contentsOf: Fixture.repo.appendingPathComponent(page), encoding: .utf8)
        guard let start = text.range(of: "\n## Answers\n") else { throw DocError("\(page) has no ## Answers section") }
        let section = String(text[start.upperBound...]).components(separatedBy: "\n## ").first ?? ""
        var rows: [(String, NSRegularExpression)] = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            var pattern = "^"
            var rest = Substring(cell)
            while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
                pattern += NSRegularExpression.escapedPattern(for: String(rest[..<open])) + ".+"
                rest = rest[rest.index(after: close)...]
            }
            pattern += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
            rows.append((String(cell), try NSRegularExpression(pattern: pattern)))
        }
        guard rows.count > 10 else { throw DocError("\(page): only \(rows.count) answers in its table") }
        return rows
    }

    struct DocError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// The rows `answer` matches.
    static func rows(for answer: String, in table: [(row: String, pattern: NSRegularExpression)]) -> [String] {
        table.filter { $0.pattern.firstMatch(in: answer, range: NSRange(answer.startIndex..., in: answer)) != nil }.map(\.row)
    }

    /// A daemon on simulated hardware showing a QR code, its serial port a pty held here, its
    /// results acknowledged (`ack = true`), with a setup page; `outbox`: more lines of `[outbox]`.
    final class Daemon {
        let dir: URL, host: PseudoTerminal, process: Process, port: UInt16, log: URL

        init(torch: Bool, outbox: String = "") throws {
            dir = try Fixture.temporaryFolder("scand-protocol")
            host = try PseudoTerminal()
            port = try SetupPageTests.freePort()
            log = dir.appendingPathComponent("log.txt")
            let config = dir.appendingPathComponent("scand.toml")
            try """
                hardware = "simulated"
                [camera]
                images = ["\(Fixture.path("qr.png"))"]
                fps = 15
                [gpio]
                board = "simulated"
                button = { pin = "GPIO17" }
                \(torch ? "torch = { pin = \"GPIO27\" }" : "")
                [output.serial]
                device = "\(try Fixture.serialLink(to: host.hostPath, in: dir))"
                format = "json"
                ack = true
                [outbox]
                directory = "\(dir.path)"
                \(outbox)
                [control]
                socket = "\(dir.path)/control.sock"
                [web]
                listen = "127.0.0.1:\(port)"
                """.write(to: config, atomically: true, encoding: .utf8)
            process = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin"], log: log)
        }

        deinit {
            ChildProcess.stop(process)
            try? FileManager.default.removeItem(at: dir)
        }

        var logText: String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }

        func ready() async -> Bool {
            await Poll.until(30) { logText.contains("scand started") && (try? SetupPageTests.get(port, "/api/status")) != nil }
        }

        /// Lines from the serial port so far that are not answers (results).
        var other: [String] = []
        private var pending = ""

        /// Sends `bytes` on the serial port and returns the answer line (`OK`/`ERR`).
        func ask(_ bytes: [UInt8]) async throws -> String {
            try host.write(bytes)
            for _ in 0..<1000 {
                pending += String(decoding: host.readFromHost(), as: UTF8.self)
                while let end = pending.firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
                    let line = String(pending[..<end])
                    pending = String(pending[pending.index(after: end)...])
                    if line.hasPrefix("OK") || line.hasPrefix("ERR") { return line }
                    if !line.isEmpty { other.append(line) }
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            return "(no answer to \(String(decoding: bytes, as: UTF8.self).prefix(40)))"
        }

        func ask(_ line: String) async throws -> String { try await ask(Array((line + "\r\n").utf8)) }
    }

    /// Lines good and bad for every command, as a host or a person typing would send them.
    static let lines: [String] = [
        "TRIGGER", "trigger", "STOP", "TORCH ON", "TORCH OFF", "TORCH AUTO", "TORCH DEFAULT", "torch on", "BEEP", "STATUS", "VERSION",
        "SET scan.session_timeout_ms=4000", "SET scan.trigger=sometimes", "SET scan.session_timeout_ms=1", "SET camera.fps=10", "SET torch.skip_frames=3",
        "SET nonsense.key=1", "SET scan.viewport=hello", "SET scan.viewport=[0.5", "SET output.serial.device=/dev/null", "SET",
        "SET =5", "SET scan", "ACK 999", "ACK", "ACK x", "ACK -1", "TORCH", "TORCH MAYBE", "TRIGGER NOW", "STOP 2", "BEEP BEEP",
        "STATUS please", "VERSION 2", "LAUNCH", "FLY ME TO THE MOON", "   ", String(repeating: "X", count: 300),
    ]

    @Test func everyAnswerOfTheDaemonHasARowInTheTable() async throws {
        let table = try Self.answers()
        var seen: [String: String] = [:] // row -> an answer that matched it
        func check(_ answer: String, for line: String, door: String) {
            let matched = Self.rows(for: answer, in: table)
            if matched.isEmpty {
                Issue.record("\(door) \(line.prefix(40)) -> \(answer): no row of the answers table in \(Self.page) matches this answer; add it")
            }
            for row in matched where seen[row] == nil { seen[row] = answer }
        }
        for torch in [true, false] {
            let d = try Daemon(torch: torch)
            #expect(await d.ready(), "the daemon did not start: \(d.logText)")
            for line in Self.lines { check(try await d.ask(line), for: line, door: "serial") }
            // A SET says in the log which key it changed, to what, and from where.
            #expect(d.logText.contains("info SET scan.session_timeout_ms = 4000 [door=host]"), "\(d.logText.suffix(2000))")
            check(try await d.ask([0x54, 0xE9, 0x0D, 0x0A]), for: "T\\xE9", door: "serial")
            // A result to acknowledge: the first JSON line with a seq.
            let triggered = try await d.ask("TRIGGER")
            var seq: Int?
            var lastStatus = ""
            // Up to 15 s: a debug daemon on a loaded machine may take more than a second to read.
            for _ in 0..<300 where seq == nil {
                try await Task.sleep(for: .milliseconds(50))
                lastStatus = try await d.ask("STATUS")
                seq = d.other.lazy.compactMap { line -> Int? in
                    guard let data = line.data(using: .utf8), let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
                    return o["seq"] as? Int
                }.first
            }
            #expect(seq != nil, "no result came: \(d.other); TRIGGER: \(triggered); \(lastStatus)\n\(d.logText.suffix(3000))")
            if let seq { check(try await d.ask("ACK \(seq)"), for: "ACK \(seq)", door: "serial") }
            for body in Self.lines.map({ Array($0.utf8) }) + [[], Array("TRIGGER\nSTOP".utf8), [0x54, 0x00, 0xFF]] {
                let answer = try SetupPageTests.post(d.port, "/api/command", body)
                check(answer.text.trimmingCharacters(in: .newlines), for: String(decoding: body, as: UTF8.self), door: "web")
            }
        }
        // Rows no door of these daemons can reach, each with where it is tested.
        let elsewhere = [
            "ERR TORCH: <mode>: <reason>": "a torch line that fails (KioskDriver tests)",
            "ERR TRIGGER: camera <state>: no session started": "a camera gone (KioskRuntimeTests)",
            "ERR TRIGGER: outputs full (<outputs>): no session started until kept results are delivered (outbox.policy = reject-new)": "OutputsFullDaemonTests",
            "ERR <COMMAND>: busy: more than 10 commands a second; not run": "MQTT's rate (MQTTFloodTests)",
            "ERR <COMMAND>: busy: too many commands waiting; not run": "MQTT's full queue (MQTTFloodTests)",
            "ERR <COMMAND>: not answered here": "no working daemon gives it",
        ]
        for (row, _) in table where seen[row] == nil && elsewhere[row] == nil {
            Issue.record("\(Self.page): no answer of the daemon matched the row \(row): is it still given? If so, add a line that gets it to ProtocolDocsTests.lines")
        }
    }
}
