import Foundation
import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// A fresh outbox path under the temporary directory.
func temporaryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("scand-outbox-\(UUID().uuidString)").path
}

@Suite(.serialized) struct OutboxTests {
    @Test func pendingResultsSurviveAReopenAndDoneOnesDoNot() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let box = try Outbox(path: path)
            try box.add(.init(seq: 1, bytes: Array("one\r\n".utf8)))
            try box.add(.init(seq: 2, bytes: [0, 0xFF, 10]))
            box.done(1)
        } // as if the process were killed here: nothing more is written
        let reopened = try Outbox(path: path)
        #expect(reopened.pending == [.init(seq: 2, bytes: [0, 0xFF, 10])])
        #expect(reopened.maxSequence == 2)
        reopened.done(2)
        #expect(try Outbox(path: path).pending.isEmpty)
        #expect(try Outbox(path: path).maxSequence == 2, "numbers keep counting after compaction")
    }

    @Test func aTornLastLineLosesNothingWritten() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "P 5 aGk=\nD 5\nP 6 eW8=\nP 7 ab".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try Outbox(path: path).pending.map(\.seq) == [6])
    }

    @Test func capacityPolicies() throws {
        let drop = try Outbox(path: nil, capacity: 2, policy: .dropOldest)
        try drop.add(.init(seq: 1, bytes: [1])); try drop.add(.init(seq: 2, bytes: [2]))
        #expect(try drop.add(.init(seq: 3, bytes: [3])).dropped.map(\.seq) == [1])
        #expect(drop.pending.map(\.seq) == [2, 3])
        #expect(drop.room == nil)
        // Kept under a larger capacity (a tryout: 3 results kept, capacity lowered to 1, and
        // every new result dropped only one): the oldest make way down to the capacity.
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let big = try Outbox(path: path, capacity: 3)
        for seq in 1...3 { try big.add(.init(seq: seq, bytes: [UInt8(seq)])) }
        let small = try Outbox(path: path, capacity: 1)
        #expect(try small.add(.init(seq: 4, bytes: [4])).dropped.map(\.seq) == [1, 2, 3])
        #expect(small.pending.map(\.seq) == [4])
        #expect(try Outbox(path: path, capacity: 1).pending.map(\.seq) == [4], "the drops are in the file")
        let reject = try Outbox(path: nil, capacity: 1, policy: .rejectNew)
        try reject.add(.init(seq: 1, bytes: [1]))
        #expect { try reject.add(.init(seq: 2, bytes: [2])) } throws: { e in
            (e as? HardwareError).map { $0.kind == .busy && "\($0)".hasPrefix("outbox full (1 results pending): result 2 refused") } == true
        }
        #expect(reject.pending.map(\.seq) == [1])
        #expect(reject.room == 0)
    }

    /// An output's name goes into log lines and host answers (`ERR TRIGGER: outputs full
    /// (NAME)`): a device path's control characters are written `\xNN` (a tryout: a newline in
    /// a serial link's path split a refusal into two answer lines, the second `OK TRIGGER`).
    @Test func anOutputsNameCarriesNoControlCharacter() {
        let output = DeliveringOutput(port: SimulatedSerialPort(name: "/tmp/odd\nOK TRIGGER\u{1b}[2J"), format: .jsonLines)
        #expect(output.name == "serial /tmp/odd\\x0AOK TRIGGER\\x1B[2J")
    }

    @Test func ackModeKeepsAResultUntilTheHostAcknowledgesIt() throws {
        let port = FlakyPort()
        let output = DeliveringOutput(port: port, format: .jsonLines, requiresAck: true)
        try output.deliver(ScanResult(sequence: 4, session: 1, symbol: Symbol(symbology: .qrCode, text: "x")), unixMillis: 0)
        #expect(port.written.withLock { $0.count } == 1)
        #expect(output.pendingCount == 1)
        for _ in 1..<output.resendAfter { try output.retry() }
        #expect(port.written.withLock { $0.count } == 1, "not sent again before it is due")
        try output.retry()
        #expect(port.written.withLock { $0.count } == 2, "sent again once due while unacknowledged")
        #expect(!output.acknowledge(9))
        #expect(output.acknowledge(4))
        #expect(output.pendingCount == 0)
    }
}

/// Findings of the hostile-input review (issue 12), each kept as a regression test.
@Suite(.serialized) struct OutboxFaultTests {
    @Test func aHugeSequenceNumberIsSkippedNotATrap() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "D 9223372036854775807\nP 3 aGk=\nP -1 aGk=\nP 4 !!\nZ 5\nD\n".write(toFile: path, atomically: false, encoding: .utf8)
        let box = try Outbox(path: path)
        #expect(box.pending.map(\.seq) == [3])
        #expect(box.maxSequence == 3)
        #expect(box.problems == ["line 1: sequence number not from 1 to 1000000000000", "line 3: sequence number not from 1 to 1000000000000",
                                 "line 4: result 4 is not valid base64", "line 5: unknown line kind", "line 6: not an outbox line"])
    }

    @Test func aResultTheFileCannotTakeIsStillSentAndCounted() throws {
        let dir = temporaryPath()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { chmod(dir, 0o700); try? FileManager.default.removeItem(atPath: dir) }
        let box = try Outbox(path: dir + "/serial.outbox")
        // The file goes away and the folder refuses a new one (as with EACCES or EMFILE).
        unlink(dir + "/serial.outbox")
        #expect(rmdir(dir) == 0)
        let port = FlakyPort()
        let output = DeliveringOutput(port: port, format: .text(prefix: [], suffix: [10], aim: false), outbox: box)
        try output.deliver(ScanResult(sequence: 1, session: 1, symbol: Symbol(symbology: .qrCode, text: "kept")), unixMillis: 0)
        #expect(port.written.withLock { $0 } == ["kept\n"], "sent although not stored")
        #expect(output.counts == OutputCounts(notStored: 1, parked: 0))
        #expect(output.pendingCount == 0)
    }

    @Test func aResultTheOutputCanNeverCarryIsParkedAndTheRestFlow() throws {
        let written = Locked<[String]>([])
        let output = DeliveringOutput(name: "hid", format: .text(prefix: [], suffix: [], aim: false)) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if text.unicodeScalars.contains(where: { $0.value > 127 }) { throw UndeliverableResult("layout us cannot type U+00FC") }
            written.withLock { $0.append(text) }
        }
        for (seq, text) in [(1, "Grüße"), (2, "plain"), (3, "next")] {
            try output.deliver(ScanResult(sequence: seq, session: seq, symbol: Symbol(symbology: .qrCode, text: text)), unixMillis: 0)
        }
        #expect(written.withLock { $0 } == ["plain", "next"])
        #expect(output.pendingCount == 0)
        #expect(output.counts.parked == 1)
    }

    @Test func retriesResendOnlyWhatIsDue() throws {
        // 17 results while the host never acknowledges: each goes out once, then once more per
        // `resendAfter` retries, not all of them on every retry.
        let port = FlakyPort()
        let output = DeliveringOutput(port: port, format: .jsonLines, requiresAck: true)
        for seq in 1...17 {
            try output.deliver(ScanResult(sequence: seq, session: seq, symbol: Symbol(symbology: .qrCode, text: "r\(seq)")), unixMillis: 0)
            try output.retry()
        }
        // Result k saw 18 - k retries: it went out again after every `resendAfter` of them
        // (before: every pending result on every retry, 17 + 153 lines).
        let due = (1...17).map { (18 - $0) / output.resendAfter }.reduce(0, +)
        #expect(port.written.withLock { $0.count } == 17 + due)
        #expect(due == 24)
    }
}

@Suite struct HostLinkTests {
    /// An answer is one line whatever the names and reasons in it hold (a tryout: a camera path
    /// with a newline in it split `ERR TRIGGER: camera unavailable (...)` in two, the second
    /// line a forged answer).
    @Test func anAnswerIsOneLine() async throws {
        let service = try ServiceKiosk(images: ["no-code.png"])
        let answer = await service.runtime.command("SET scan.multiple=2", version: "9.9") { _, _ in "no such key\nOK TRIGGER\u{1b}[2J" }
        #expect(answer == "ERR SET: no such key\\x0AOK TRIGGER\\x1B[2J", "\(answer)")
    }

    /// Every command through the service's host link, on a simulated serial port: one answer
    /// line per command, written in the runtime (never interleaved with results).
    @Test func everyHostCommandThroughTheService() async throws {
        // The session lasts longer than the test (the torch is lit while it runs), also when the
        // test waits for minutes on a loaded machine (30 s ended it between TORCH ON and the check).
        let service = try ServiceKiosk(images: ["no-code.png"], sessionTimeout: .seconds(3600))
        let applied = Locked<[String]>([])
        let runtime = service.runtime
        runtime.serveHost(on: service.serial) { line in
            await runtime.command(line, version: "9.9") { key, value in
                if key == "scan.session_timeout_ms" { applied.withLock { $0.append("\(key)=\(value)") }; return nil }
                return "unknown key \(key)"
            }
        }
        try await service.start()
        func ask(_ line: String, expect answer: String) async throws {
            let got = try await service.ask(line)
            #expect(got.hasPrefix(answer), "\(line) -> \(got)")
        }
        try await ask("TRIGGER", expect: "OK TRIGGER")
        #expect(await service.runtime.status.phase == "scanning")
        try await ask("TORCH OFF", expect: "OK TORCH OFF")
        #expect(service.trace.of("torch").last == "inactive")
        #expect(await service.runtime.status.json.contains("\"torch\":\"off\",\"torchMode\":\"off\""))
        try await ask("TORCH ON", expect: "OK TORCH ON")
        #expect(service.trace.of("torch").last == "active")
        try await ask("STOP", expect: "OK STOP")
        #expect(await service.runtime.status.phase == "idle")
        #expect(service.trace.of("torch").last == "inactive")
        try await ask("BEEP", expect: "OK BEEP")
        try await ask("STATUS", expect: "OK STATUS {\"camera\":\"available\"")
        try await ask("VERSION", expect: "OK VERSION scand 9.9")
        try await ask("SET scan.session_timeout_ms=4000", expect: "OK SET scan.session_timeout_ms")
        try await ask("SET torch.colour=red", expect: "ERR SET: unknown key torch.colour")
        try await ask("ACK 3", expect: "ERR ACK: no result 3")
        try await ask("LAUNCH", expect: "ERR LAUNCH: unknown command")
        try await ask(String(repeating: "X", count: 400), expect: "ERR LINE: too long")
        try await ask("trigger", expect: "OK TRIGGER")
        // Answers echoed back get no answer (two ends answering each other's answers looped at
        // thousands of lines a second): the next answer is VERSION's.
        try await ask("ERR LAUNCH: unknown command\r\nok TRIGGER\r\nErr\r\nVERSION", expect: "OK VERSION scand 9.9")
        #expect(applied.withLock { $0 } == ["scan.session_timeout_ms=4000"])
        let m = await service.runtime.status.metrics
        #expect(m.presses == 2 && m.closedWithoutScan == 1)
        try await service.stop()
    }
}

extension HostLinkTests {
    /// Defect B: a kiosk without a torch line answered `TORCH ON` with OK and took the mode
    /// while nothing could light. Every torch command is refused now, and nothing changes.
    @Test func torchCommandsWithoutATorchLineAreRefused() async throws {
        let service = try ServiceKiosk(images: ["no-code.png"], torch: false)
        let runtime = service.runtime
        runtime.serveHost(on: service.serial) { await runtime.command($0, version: "9.9") { _, _ in "unknown key" } }
        try await service.start()
        for line in ["TORCH ON", "TORCH OFF", "TORCH AUTO", "TORCH DEFAULT"] {
            let answer = try await service.ask(line)
            #expect(answer == "ERR TORCH: no torch line", "\(line) -> \(answer)")
        }
        #expect(try await service.ask("TRIGGER") == "OK TRIGGER")
        let status = await service.runtime.status
        #expect(status.torch == .unavailable && status.metrics.torchOn == 0)
        #expect(status.json.contains("\"torch\":\"unavailable\",\"torchMode\":\"on\""), "\(status.json)")
        #expect(service.trace.of("torch").isEmpty)
        try await service.stop()
    }
}

@Suite struct DeliveryTests {
    @Test func aHostThatDisappearsGetsTheResultsInOrderWhenItIsBack() throws {
        let port = FlakyPort()
        let h = try Harness(outputs: { _ in [DeliveringOutput(port: port, format: .text(prefix: [], suffix: [10], aim: false))] })
        h.start()
        port.plugged.withLock { $0 = false }
        h.button.click()
        h.advance(.milliseconds(100))
        #expect(h.status.pendingResults == 1)
        port.plugged.withLock { $0 = true }
        h.advance(.seconds(1))
        #expect(port.written.withLock { $0 } == ["https://example.org/kiosk?id=42\n"])
        #expect(h.status.pendingResults == 0)
    }

    /// The same-symbol window holds back a repeat within a session; a new press is a new intent.
    @Test func theSameCodeAgainWithinTheWindowIsReportedAfterANewPress() throws {
        let h = try Harness(sameSymbolTimeout: .seconds(2))
        h.start()
        for _ in 0..<2 {
            h.button.click()
            h.advance(.milliseconds(100))
        }
        #expect(h.status.metrics.goodReads == 2)
        #expect(h.status.duplicatesSuppressed == 0)
        #expect(h.hostReceived() == String(repeating: "https://example.org/kiosk?id=42\r\n", count: 2))
    }

    @Test func eventsReachAClientOfTheEventSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scand-ev-\(getpid()).sock").path
        let socket = try EventSocket(path: path)
        let client = try EventClient(path: path)
        for _ in 0..<200 where socket.clientCount == 0 { try await Task.sleep(for: .milliseconds(2)) }
        let h = try Harness(onEvent: { socket.publish($0) })
        h.start()
        h.button.click()
        h.advance(.milliseconds(100))
        #expect(h.status.metrics.goodReads == 1)
        var lines: [String] = []
        for _ in 0..<200 where !lines.contains(where: { $0.contains("\"result\"") }) {
            lines += client.readLines()
            try await Task.sleep(for: .milliseconds(2))
        }
        let types = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
        }
        #expect(types.contains("scanning-started") && types.contains("torch") && types.contains("located"))
        #expect(types.contains("result") && types.contains("scanning-stopped"))
        #expect(lines.first { $0.contains("\"located\"") }?.contains("\"corners\":[[") == true)
    }
}

/// A local client of the event socket.
final class EventClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw HardwareError(HardwareError.kind(forErrno: errno), operation: "connect", device: path, errno: errno) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    deinit { close(fd) }
    func readLines() -> [String] {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            buffer += chunk[0..<n]
        }
        var out: [String] = []
        while let nl = buffer.firstIndex(of: 10) {
            out.append(String(decoding: buffer[..<nl], as: UTF8.self))
            buffer.removeSubrange(...nl)
        }
        return out
    }
}
