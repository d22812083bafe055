import Foundation
import KioskTestKit
import Logging
import ScanApp
import ScanConfig
import ScanCore
import ScanHardware
import SimulatedHardware
import Testing

/// `outbox.policy = "reject-new"` through the kiosk `scand run` composes (virtual time): a
/// full outbox refuses presses with the error beep instead of beeping a good read for a result
/// it would refuse, also right after a restart on a folder left full; an acknowledgement makes
/// room and the next press reads.
@Suite(.serialized) struct OutputsFullCompositionTests {
    @Test func aFullOutboxRefusesPressesUntilItHasRoom() throws {
        let folder = try Fixture.temporaryFolder("outputs-full")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Results wait for the host's ACK: the one result the outbox takes fills it.
        let path = try virtualKioskConfig(in: folder, image: "ean13.png", outbox: "capacity = 1\npolicy = \"reject-new\"",
                                          "[output.serial]\ndevice = \"simulated\"\nformat = \"json\"\nack = true")
        let logger = Logger(label: "outputs-full") { _ in SwiftLogNoOpLogHandler() }
        let events = Locked<[String]>([])
        func feedback(_ outcome: String) -> Int {
            events.withLock { $0.filter { $0.hasPrefix("{\"event\":\"feedback\"") && $0.contains("\"outcome\":\"\(outcome)\"") }.count }
        }
        func results() -> Int { events.withLock { $0.filter { $0.hasPrefix("{\"event\":\"result\"") }.count } }

        do {
            let (kiosk, _) = try VirtualKiosk.composed(try Board.loadConfig(path: path), clock: ManualClock(), logger: logger,
                                                       onEvent: { line in events.withLock { $0.append(line) } })
            kiosk.start()
            kiosk.advance(.milliseconds(10))
            #expect(!kiosk.driver.status.outputsFull)
            kiosk.click()
            #expect(kiosk.advance(until: { results() == 1 }, limit: .seconds(2)))
            // Sent, not acknowledged: the outbox holds its one result, a second on (`fullAfter`).
            #expect(!kiosk.driver.status.outputsFull)
            kiosk.advance(.milliseconds(1100))
            #expect(kiosk.driver.status.outputsFull && kiosk.driver.status.pendingResults == 1)
            #expect(events.withLock { $0.last { $0.hasPrefix("{\"event\":\"indication\"") } }?.contains("\"state\":\"outputs-full\"") == true)
            kiosk.click()
            kiosk.advance(.seconds(1))
            #expect(feedback("good-read") == 1 && feedback("error") == 1 && results() == 1)
            #expect(kiosk.driver.status.metrics.errors == 1 && kiosk.driver.status.metrics.goodReads == 1)
            let refused = kiosk.driver.answer(.trigger, now: kiosk.now) ?? ""
            #expect(refused.hasPrefix("ERR TRIGGER: outputs full (serial ") && refused.hasSuffix("): no session started until kept results are delivered (outbox.policy = reject-new)"), "\(refused)")
            #expect(kiosk.driver.status.fullOutputs.count == 1 && kiosk.driver.status.fullOutputs[0].hasPrefix("serial "))
        } // gone, as after a stop: its result stays in the outbox file

        events.withLock { $0 = [] }
        let (next, _) = try VirtualKiosk.composed(try Board.loadConfig(path: path), clock: ManualClock(), logger: logger,
                                                  onEvent: { line in events.withLock { $0.append(line) } })
        next.start()
        next.advance(.milliseconds(10))
        #expect(next.driver.status.outputsFull, "full from the start, at once: the kept result fills the outbox")
        next.click()
        next.advance(.seconds(1))
        #expect(feedback("good-read") == 0 && feedback("error") == 1 && results() == 0)
        // The host acknowledges the kept result: room again at once, and a press reads.
        #expect(next.driver.answer(.ack(1), now: next.now) == "OK ACK 1")
        #expect(!next.driver.status.outputsFull)
        next.click()
        #expect(next.advance(until: { results() == 1 }, limit: .seconds(2)))
        #expect(feedback("good-read") == 1 && events.withLock { $0.contains { $0.contains("\"seq\":2,") } })
    }
}
