import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Twenty clients looping on `/snapshot.png` while a person presses the button (issue 41,
/// finding 7): one snapshot decode at a time, shared by the requests that wait for it, at low
/// priority; every press still reads.
@Suite(.serialized) struct SnapshotLoadTests {
    /// What the snapshot loops saw.
    struct Tally {
        var ok = 0
        var busy = 0
        var other: [String] = []
        /// Requests with no answer within 30 s (a snapshot decodes at the lowest priority: on
        /// a busy machine it may wait long) or closed unanswered.
        var unanswered = 0
        var decodes = Set<Int>()
    }

    @Test func twentySnapshotLoopsLeaveThePressesReading() async throws {
        let daemon = try SetupPageTests.Daemon(web: false)
        defer { try? FileManager.default.removeItem(at: daemon.dir) }
        let socket = daemon.dir.appendingPathComponent("control.sock").path
        #expect(await daemon.logged("scand started"), "\(daemon.logText)")
        #expect(await Poll.until { (try? ControlSocket.get(socket, "/api/status"))?.status == 200 }, "\(daemon.logText)")

        // 20 loops, each on a thread of its own (blocking sockets), until told to stop.
        let stop = Locked(false)
        let tally = Locked(Tally())
        let loops = 20
        let finished = DispatchGroup()
        for _ in 0..<loops {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                while !stop.withLock({ $0 }) {
                    do {
                        let answer = try ControlSocket.get(socket, "/snapshot.png", timeout: 30)
                        let decode = answer.header("X-Scand-Snapshot")
                            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["decode"] as? Int
                        tally.withLock { t in
                            switch answer.status {
                            case 200:
                                t.ok += 1
                                if let decode { t.decodes.insert(decode) }
                            case 503: t.busy += 1
                            default: t.other.append("\(answer.status) \(answer.text.prefix(100))")
                            }
                        }
                    } catch is ControlSocket.NoAnswer {
                        tally.withLock { $0.unanswered += 1 }
                    } catch {
                        tally.withLock { $0.other.append("\(error)") }
                    }
                }
            }
        }
        // The loops under way: requests have been answered.
        #expect(await Poll.until(30) { tally.withLock { $0.ok } >= loops }, "\(tally.withLock { $0 })")

        // 12 presses on the serial port, one after the other; each reads the Code 128 in view.
        var delays: [Double] = []
        var missed = 0
        _ = daemon.serialText()
        for _ in 0..<12 {
            let pressed = Date()
            try daemon.host.write(Array("TRIGGER\n".utf8))
            var serial = ""
            if await Poll.until(6, { serial += daemon.serialText(); return serial.contains("1BjnpEv") }) {
                delays.append(Date().timeIntervalSince(pressed))
            } else {
                missed += 1
            }
            // The session has ended (read, or closed at its 3 s timeout) before the next press.
            try await Task.sleep(for: .milliseconds(300))
        }
        stop.withLock { $0 = true }
        _ = finished.wait(timeout: .now() + 40)
        let t = tally.withLock { $0 }
        let sorted = delays.sorted()
        print("20 snapshot loops: \(t.ok) snapshots (\(t.decodes.count) decodes), \(t.busy) busy, \(t.unanswered) unanswered; presses read \(delays.count) of 12, "
              + "TRIGGER to read median \(sorted.isEmpty ? "-" : String(format: "%.3f s", sorted[sorted.count / 2])), max \(sorted.last.map { String(format: "%.3f s", $0) } ?? "-")")
        #expect(missed == 0, "every press reads: \(missed) of 12 did not; TRIGGER to read \(delays)")
        #expect(t.other.isEmpty, "every request is answered 200 or 503: \(t.other.prefix(5))")
        #expect(!t.decodes.isEmpty && t.decodes.count * 2 <= t.ok, "decodes are shared: \(t.decodes.count) decodes for \(t.ok) snapshots")
        // The daemon still answers and stops cleanly.
        #expect(try ControlSocket.get(socket, "/api/status").status == 200)
        kill(daemon.process.processIdentifier, SIGTERM)
        #expect(await ChildProcess.exitStatus(daemon.process) == 0, "\(daemon.logText)")
    }
}
