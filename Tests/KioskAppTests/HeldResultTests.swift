import Foundation
import KioskTestKit
import Logging
import ScanApp
import ScanConfig
import ScanHardware
import SimulatedHardware
import Testing

/// Issue 41, "nothing lost", through the kiosk `scand run` composes (virtual time): a read held
/// for its announcement is in the outbox file the moment it is read, before the result goes to
/// the outputs; a kiosk made from the same folder afterwards (the first one gone, as after
/// `kill -9`) sends it, once.
@Suite(.serialized) struct HeldResultTests {
    @Test func aResultHeldForItsAnnouncementIsStoredAtReadTime() throws {
        let folder = try Fixture.temporaryFolder("held-result")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try virtualKioskConfig(in: folder, image: "ean13.png",
                                          "[output.serial]\ndevice = \"simulated\"\nformat = \"json\"\n[feedback.speech]\nenabled = true\nsay = \"both\"")
        let outbox = folder.appendingPathComponent("serial.outbox")
        let logger = Logger(label: "held") { _ in SwiftLogNoOpLogHandler() }
        let events = Locked<[String]>([])

        do {
            let clock = ManualClock()
            let (kiosk, _) = try VirtualKiosk.composed(try Board.loadConfig(path: path), clock: clock, logger: logger,
                                                       onEvent: { line in events.withLock { $0.append(line) } })
            kiosk.start()
            kiosk.advance(.milliseconds(10))
            kiosk.click()
            // Read at the next frame; the announcement (about 2.5 s of the simulated speaker's
            // real time) has begun and holds the result.
            #expect(kiosk.advance(until: { events.withLock { $0.contains { $0.hasPrefix("{\"event\":\"announcement\"") } } },
                                  limit: .seconds(2)))
            #expect(!events.withLock { $0.contains { $0.hasPrefix("{\"event\":\"result\"") } }, "not sent during the announcement")
            let stored = try String(contentsOf: outbox, encoding: .utf8)
            #expect(stored.split(separator: "\n").filter { $0.hasPrefix("P 1 ") }.count == 1, "in the outbox at read time: \(stored)")
            #expect(kiosk.driver.status.metrics.goodReads == 1)
        } // the kiosk is gone here: nothing of it runs on

        // The next kiosk on the same folder sends it, once.
        let clock = ManualClock()
        let (next, board) = try VirtualKiosk.composed(try Board.loadConfig(path: path), clock: clock, logger: logger)
        let pty = try #require(board.serialPort as? PseudoTerminal)
        let host = open(pty.hostPath, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        defer { close(host) }
        next.start()
        next.advance(.milliseconds(100))
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<100 where !received.contains("\n") {
            let n = read(host, &buffer, buffer.count)
            if n > 0 { received += String(decoding: buffer[0..<n], as: UTF8.self) } else { usleep(10_000) }
        }
        let lines = received.split(whereSeparator: { $0 == "\r" || $0 == "\n" })
        #expect(lines.count == 1 && lines[0].contains("\"seq\":1,") && lines[0].contains("5901234123457"), "\(received)")
        #expect(next.driver.status.pendingResults == 0)
    }
}
