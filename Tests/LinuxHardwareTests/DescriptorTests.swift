import Foundation
@testable import LinuxHardware
import ScanHardware
import SimulatedHardware
import Synchronization
import Testing

/// Issue 13, defect 5: descriptors with one owner, and writes that never interleave.
@Suite(.serialized) struct DescriptorTests {
    /// The pty's reader thread used to keep the number of a descriptor `hangUp()` had closed: a
    /// file opened afterwards gets that number, and its bytes came out as "from the host".
    @Test func aHungUpPtyNeverReadsAFileThatReusesItsNumber() async throws {
        let pty = try PseudoTerminal()
        var incoming = pty.received().makeAsyncIterator()
        pty.hangUp()
        // Pipes opened now take the lowest free numbers: the ones the pty had.
        var pipes: [[Int32]] = []
        for _ in 0..<4 {
            var p: [Int32] = [0, 0]
            #expect(pipe(&p) == 0)
            _ = write(p[1], "not from the host", 17)
            pipes.append(p)
        }
        defer { for p in pipes { close(p[0]); close(p[1]) } }
        let got = await incoming.next()
        #expect(got == nil, "the stream ends; it read \(got.map { String(decoding: $0, as: UTF8.self) } ?? "")")
        #expect(throws: HardwareError.self) { try pty.write(Array("late".utf8)) }
    }

    @Test func aDescriptorClosesOnceAfterTheLastBorrow() {
        let closed = Locked<[Int32]>([])
        let d = Descriptor(77) { fd in closed.withLock { $0.append(fd) } }
        let inside: Int32? = d.use { fd in
            d.close() // closed while borrowed: the number stays valid until the borrow ends
            #expect(closed.withLock { $0 }.isEmpty)
            return fd
        }
        #expect(inside == 77)
        #expect(closed.withLock { $0 } == [77])
        #expect(d.use { $0 } == nil)
        d.close()
        #expect(closed.withLock { $0 } == [77])
    }

    /// Four threads writing 16 KB lines at once through the termios driver: every line arrives
    /// whole (a full pty buffer makes each write partial, so unordered writers interleave).
    @Test func concurrentWritesNeverInterleave() async throws {
        let pty = try PseudoTerminal()
        let port = try TermiosSerialPort(path: pty.hostPath, settings: {
            var s = SerialSettings(baud: 115_200); s.writeTimeout = .seconds(10); return s
        }())
        let lines = (0..<4).map { i in Array(repeating: UInt8(ascii: "a") + UInt8(i), count: 16_384) + [10] }
        let done = Atomic<Int>(0)
        let failures = Locked<[String]>([])
        for line in lines {
            spawnThread {
                for _ in 0..<3 {
                    do { try port.write(line) } catch { failures.withLock { $0.append("\(error)") } }
                }
                done.add(1, ordering: .relaxed)
            }
        }
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while received.count < 12 * 16_385 && ContinuousClock.now < deadline {
            received += pty.readFromHost()
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let got = received.split(separator: 10)
        #expect(got.count == 12)
        for line in got {
            #expect(line.count == 16_384 && Set(line).count == 1, "a line mixed from several writes")
        }
    }
}
