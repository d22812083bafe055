import Foundation
import InMemoryLogging
import KioskTestKit
import Logging
import ScanApp
import ScanConfig
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// The kiosk a config composes (`Board.make`, `KioskApp.Parts`, as `scand run`), in virtual
/// time: a manual clock paces its simulated camera and fires its timers, so what happens at
/// which moment is decided exactly, without sleeps.
@Suite(.onTestThreads) struct VirtualCompositionTests {
    final class Composed {
        let clock = ManualClock()
        let kiosk: VirtualKiosk
        let events = Locked<[String]>([])
        let folder: URL

        init(_ toml: String) throws {
            folder = try Fixture.temporaryFolder("virtual-kiosk")
            let path = folder.appendingPathComponent("scand.toml").path
            try ("hardware = \"simulated\"\n[gpio]\nboard = \"simulated\"\nbutton = { pin = \"GPIO17\" }\n"
                + "torch = { pin = \"GPIO27\" }\nbuzzer = { pin = \"GPIO22\" }\nstatus_led = { pin = \"GPIO23\" }\n" + toml)
                .write(toFile: path, atomically: true, encoding: .utf8)
            let events = self.events
            kiosk = try VirtualKiosk.composed(try Board.loadConfig(path: path), clock: clock,
                                              logger: Logger(label: "virtual") { _ in SwiftLogNoOpLogHandler() },
                                              onEvent: { line in events.withLock { $0.append(line) } }).kiosk
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func results() -> [String] { events.withLock { $0 }.filter { $0.hasPrefix("{\"event\":\"result\"") } }
    }

    /// A press reads the camera's code at the first frame due after it, with the config's
    /// symbology rules and outputs, at a virtual time the test knows.
    @Test func aPressReadsAtTheNextFrame() throws {
        let c = try Composed("[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\nfps = 10\n[scan]\nalphanumeric = \"immediate\"\n")
        c.kiosk.start()
        c.kiosk.advance(.milliseconds(10))
        #expect(c.kiosk.driver.status.camera == .available)
        c.kiosk.click()
        #expect(c.results().isEmpty)
        c.kiosk.advance(.milliseconds(150))
        #expect(c.results().count == 1 && c.results()[0].contains("https://example.org/kiosk?id=42"), "\(c.results())")
        #expect(c.kiosk.driver.status.phase == "idle")
    }

    /// A code that only the frames' deep looks read (a UPC-A under glare that zxing's first look
    /// misses and nothing reads again within its frame) is sent: the next frames' first looks,
    /// which leave their frames to the deep look, come between its reads and no longer break
    /// the two frames a linear code must agree over (before, it was never sent).
    @Test func aCodeTheFirstLookMissesIsReadByTheDeepLook() throws {
        let c = try Composed("[camera]\nimages = [\"\(Fixture.path("upca-glare.png"))\"]\nfps = 10\n"
            + "[scan]\nviewport = [0.0, 0.0, 1.0, 1.0]\n")
        c.kiosk.start()
        c.kiosk.click()
        c.kiosk.advance(.milliseconds(1000))
        #expect(c.results().count == 1 && c.results()[0].contains("725078102615"), "\(c.results())")
    }

    /// Continuous mode: a code that leaves the view for a second and comes back is sent again.
    /// Frames without a code, whose first look leaves them to the deep passes, count as frames
    /// without it once those passes found nothing (a tryout: counting only the first looks, the
    /// code was sent once and then held back as a repeat for ever).
    @Test func aCodeThatComesBackIsSentAgain() throws {
        let c = try Composed("[camera]\nimages = [\"\(Fixture.path("no-code.png"))\", \"\(Fixture.path("upca.png"))\"]\nfps = 15\n"
            + "frames_per_image = 15\n[scan]\nviewport = [0.0, 0.0, 1.0, 1.0]\ntrigger = \"continuous\"\n")
        c.kiosk.start()
        c.kiosk.advance(.milliseconds(6000))
        let texts = c.results().compactMap { try? JSONValue.parse(Array($0.utf8))["text"]?.string }
        #expect(texts == ["036000291452", "036000291452", "036000291452"], "\(c.results())")
    }

    /// With no code in view, the session ends with the no-read at exactly the configured timeout.
    @Test func noCodeEndsTheSessionAtTheTimeoutExactly() throws {
        let c = try Composed("[camera]\nimages = [\"\(Fixture.path("no-code.png"))\"]\n[scan]\nsession_timeout_ms = 2000\n")
        c.kiosk.start()
        c.kiosk.click()
        c.kiosk.advance(.milliseconds(1999))
        #expect(c.kiosk.driver.status.phase == "scanning")
        c.kiosk.advance(.milliseconds(1))
        #expect(c.kiosk.driver.status.phase == "idle")
        #expect(c.kiosk.driver.status.metrics.closedWithoutScan == 1)
        #expect(c.results().isEmpty)
    }

    /// `scan.multiple` through the composition, in virtual time: one press, the frame's three codes.
    @Test func scanMultipleInVirtualTime() throws {
        let c = try Composed("[camera]\nimages = [\"\(Fixture.path("three-codes.png"))\"]\n[scan]\nviewport = [0.0, 0.0, 1.0, 1.0]\n"
            + "alphanumeric = \"immediate\"\nmultiple = 4\n")
        c.kiosk.start()
        c.kiosk.click()
        c.kiosk.advance(.milliseconds(200))
        let texts = c.results().compactMap { try? JSONValue.parse(Array($0.utf8))["text"]?.string }
        #expect(texts == ["scand DataMatrix fixture", "scand second QR", "https://example.org/kiosk?id=42"])
    }
}

/// `scan.accept` through the composed kiosk: the camera shows a URL QR code; a config that
/// accepts only GS1 payloads refuses it with the `rejected` event and count, and no result.
@Suite(.onTestThreads) struct AcceptThroughTheCompositionTests {
    @Test func aRefusedCodeIsAnEventAndACountNotAResult() throws {
        let c = try VirtualCompositionTests.Composed("[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\nfps = 10\n[scan]\naccept = [\"gs1\"]\n")
        c.kiosk.start()
        c.kiosk.advance(.milliseconds(10))
        c.kiosk.click()
        c.kiosk.advance(.milliseconds(600))
        let events = c.events.withLock { $0 }
        #expect(c.results().isEmpty, "\(c.results())")
        #expect(events.contains { $0.hasPrefix("{\"event\":\"rejected\"") && $0.contains("\"payload\":\"url\"") }, "\(events)")
        #expect(events.contains { $0.contains("\"event\":\"feedback\"") && $0.contains("\"outcome\":\"rejected\"") }, "\(events)")
        #expect(c.kiosk.driver.status.metrics.rejected == 1 && c.kiosk.driver.status.phase == "scanning")
    }
}
