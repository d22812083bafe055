import Foundation
import Testing

/// `outbox.policy = "reject-new"` in the built `scand run`: while an outbox holds
/// `outbox.capacity` results, a `TRIGGER` (serial, web) is refused and says why, the status and
/// the log show it; an acknowledgement makes room and scanning goes on.
@Suite(.serialized) struct OutputsFullDaemonTests {
    @Test func aFullOutboxRefusesTriggersUntilItsResultIsAcknowledged() async throws {
        let d = try ProtocolDocsTests.Daemon(torch: false, outbox: "capacity = 1\npolicy = \"reject-new\"")
        #expect(await d.ready(), "the daemon did not start: \(d.logText)")
        func results() -> Set<Int> {
            Set(d.other.compactMap { line -> Int? in
                guard let data = line.data(using: .utf8), let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
                return o["seq"] as? Int
            })
        }
        /// The daemon's status once `done` holds for it (and the results), or the last one.
        func status(until done: (String) -> Bool) async throws -> String {
            var last = ""
            for _ in 0..<300 {
                last = try await d.ask("STATUS")
                if done(last) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            return last
        }

        #expect(try await d.ask("TRIGGER") == "OK TRIGGER")
        // Its result is sent and waits for the ACK: the outbox is full.
        var now = try await status { $0.contains("\"outputsFull\":true") && !results().isEmpty }
        #expect(now.contains("\"outputsFull\":true") && results().count == 1, "\(now)\n\(d.other)\n\(d.logText.suffix(2000))")
        let seq = try #require(results().first)
        #expect(d.logText.contains("the outputs are full (serial /") && d.logText.contains("; outbox.policy = reject-new): presses are refused until kept results are delivered"))

        let refused = try await d.ask("TRIGGER")
        // It names the output that holds the results, as `scand status` does.
        #expect(refused.hasPrefix("ERR TRIGGER: outputs full (serial /") && refused.hasSuffix("): no session started until kept results are delivered (outbox.policy = reject-new)"), "\(refused)")
        #expect(now.contains("\"fullOutputs\":[\"serial /"), "\(now)")
        #expect(ProtocolDocsTests.rows(for: refused, in: try ProtocolDocsTests.answers()).count == 1, "docs/protocol.md has its row")
        let web = try SetupPageTests.post(d.port, "/api/command", Array("TRIGGER".utf8))
        #expect(web.text.hasPrefix("ERR TRIGGER: outputs full"), "\(web.text)")
        now = try await d.ask("STATUS")
        #expect(now.contains("\"goodReads\":1,") && now.contains("\"errors\":2,"), "no good read for a refused trigger: \(now)")
        #expect(d.logText.contains("trigger (host) ignored: the outputs are full") && d.logText.contains("trigger (web) ignored: the outputs are full"), "\(d.logText.suffix(1500))")
        // `scand status` prints it.
        let printed = try Run.scand(["status", "--config", d.dir.appendingPathComponent("scand.toml").path])
        #expect(printed.stdout.contains("outputsFull: true") && printed.stdout.contains("full output serial /"), "\(printed.stdout)\(printed.stderr)")

        // The host acknowledges: room again, and the next trigger reads.
        #expect(try await d.ask("ACK \(seq)") == "OK ACK \(seq)")
        now = try await status { $0.contains("\"outputsFull\":false") }
        #expect(now.contains("\"outputsFull\":false"), "\(now)")
        #expect(d.logText.contains("the outputs take results again"))
        #expect(try await d.ask("TRIGGER") == "OK TRIGGER")
        now = try await status { _ in results().count == 2 }
        #expect(results().count == 2, "\(now)\n\(d.other)")
    }
}
