import InMemoryLogging
import Logging
import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import Testing

/// A serial port that can be unplugged.
final class FlakyPort: SerialPort, @unchecked Sendable {
    let name = "flaky"
    let plugged = Locked(true)
    let written = Locked<[String]>([])
    func write(_ bytes: [UInt8]) throws(HardwareError) {
        guard plugged.withLock({ $0 }) else { throw HardwareError(.disconnected, operation: "write", device: name, errno: 5) }
        written.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
    }
    func received() -> AsyncStream<[UInt8]> { AsyncStream { $0.finish() } }
}

@Suite struct SerialOutputTests {
    func result(_ n: Int) -> ScanResult { ScanResult(sequence: n, session: n, symbol: Symbol(symbology: .ean8, text: "\(n)")) }

    @Test func linesThatCouldNotBeWrittenAreSentInOrderWhenThePortIsBack() throws {
        let port = FlakyPort()
        let output = SerialOutput(port: port)
        try output.deliver(result(1), unixMillis: 0)
        port.plugged.withLock { $0 = false }
        // The error names the result that was not written and what becomes of it.
        #expect { try output.deliver(result(2), unixMillis: 0) } throws: {
            "\($0)" == "result 2 not written: flaky disconnected (write: EIO); kept and retried every second"
        }
        #expect { try output.deliver(result(3), unixMillis: 0) } throws: { "\($0)".hasPrefix("result 2 not written") }
        #expect(output.pendingCount == 2)
        port.plugged.withLock { $0 = true }
        try output.deliver(result(4), unixMillis: 0)
        #expect(port.written.withLock { $0 } == ["1\r\n", "2\r\n", "3\r\n", "4\r\n"])
        #expect(output.pendingCount == 0)
    }

    @Test func theOldestAreDiscardedPastTheLimitAndThatIsSaid() throws {
        let port = FlakyPort()
        port.plugged.withLock { $0 = false }
        let logs = InMemoryLogHandler()
        let output = DeliveringOutput(port: port, format: .text(prefix: [], suffix: [13, 10], aim: false),
                                      outbox: try Outbox(path: nil, capacity: 2), logger: Logger(label: "test") { _ in logs })
        for n in 1...3 { _ = try? output.deliver(result(n), unixMillis: 0) }
        port.plugged.withLock { $0 = true }
        try output.deliver(result(4), unixMillis: 0)
        #expect(port.written.withLock { $0 } == ["3\r\n", "4\r\n"])
        #expect(logs.entries.map(\.message.description) == [
            "output serial flaky: outbox full, the oldest pending result 1 was dropped",
            "output serial flaky: outbox full, the oldest pending result 2 was dropped",
        ])
    }
}
