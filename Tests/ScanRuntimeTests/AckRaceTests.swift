import Foundation
import ScanCore
import ScanHardware
import Delivery
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Found by the hardware lab's power-cut run (hil/powercut.py): a host's `ACK n` that arrives
/// while the outbox is fsyncing the next result made the output send result n once more
/// (`[15, 16, 16, 17]` on the UART). The ACK took n out of the acknowledgement window, then
/// waited for the outbox's file lock to mark it done; the new result's flush, in between, found
/// n pending and no longer awaited, and sent it again.
@Suite(.serialized) struct AckRaceTests {
    /// fsync that can be held shut: the test opens it when it wants the append to finish.
    final class Gate: Sendable {
        struct State { var shut = false; var waiting = false }
        let state = Locked(State())
        var calls: OutboxCalls {
            var calls = OutboxCalls.system
            let state = self.state
            calls.fsync = { fd in
                while state.withLock({ s -> Bool in if s.shut { s.waiting = true }; return s.shut }) { usleep(1000) }
                return Glibc.fsync(fd)
            }
            return calls
        }
    }

    func result(_ seq: Int) -> ScanResult { ScanResult(sequence: seq, session: seq, symbol: Symbol(symbology: .qrCode, text: "r\(seq)")) }

    @Test func anAckDuringTheNextResultsFsyncSendsNothingTwice() throws {
        for round in 1...20 {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ack-race-\(getpid())-\(round)").path
            try? FileManager.default.removeItem(atPath: dir)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let gate = Gate()
            let box = try Outbox(path: dir + "/serial.outbox", calls: gate.calls)
            let sent = Locked<[Int]>([])
            let output = DeliveringOutput(name: "serial", format: .text(prefix: [], suffix: [10], aim: false), outbox: box,
                                          requiresAck: true) { bytes in
                let text = String(decoding: bytes, as: UTF8.self)
                sent.withLock { $0.append(Int(text.dropFirst().prefix { $0 != "\n" })!) }
            }
            try output.deliver(result(1), unixMillis: 0)
            // The next result's fsync is held: the outbox's file stays busy.
            gate.state.withLock { $0.shut = true }
            let delivered = Thread { try? output.deliver(self.result(2), unixMillis: 0) }
            delivered.start()
            for _ in 0..<10_000 where !gate.state.withLock({ $0.waiting }) { usleep(1000) }
            #expect(gate.state.withLock { $0.waiting }, "the second delivery reached the held fsync")
            // The host acknowledges 1 meanwhile; then the fsync completes.
            let acked = Locked(false)
            let ack = Thread { acked.withLock { $0 = output.acknowledge(1) } }
            ack.start()
            usleep(50_000)
            gate.state.withLock { $0.shut = false }
            var waited = 0
            while (sent.withLock({ $0.last }) != 2 || !acked.withLock({ $0 })) && waited < 10_000 { usleep(1000); waited += 1 }
            usleep(20_000)
            #expect(acked.withLock { $0 }, "round \(round): the ACK was not taken")
            #expect(sent.withLock { $0 } == [1, 2], "round \(round): sent \(sent.withLock { $0 }), result 1 again after its ACK")
            #expect(box.pending.map(\.seq) == [2], "round \(round)")
        }
    }
}
