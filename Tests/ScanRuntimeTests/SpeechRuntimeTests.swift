import Foundation
import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// Speech through the kiosk loop in virtual time: whole traces of speaker, LED, buzzer and
/// serial port. The simulated speaker takes 70 ms per character.
@Suite struct SpeechRuntimeTests {
    /// The seed's rule: the announcement replaces the flash and the result goes out when it has
    /// been said ("QR code scanned": 15 characters, 1050 ms).
    @Test func theResultIsSentWhenTheAnnouncementEndsAndTheFlashIsReplaced() throws {
        let events = Locked<[String]>([])
        let h = try Harness(onEvent: { line in if line.contains("\"announcement\"") { events.withLock { $0.append(line) } } },
                            speech: SpeechBehaviour())
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.button.click() // at 100 ms; read from the first frame at 133 ms
        h.advance(.milliseconds(1000))
        #expect(h.hostReceived().isEmpty, "not before the announcement's end")
        h.advance(.milliseconds(500))
        #expect(h.timeline("speaker", "status_led", "buzzer", "serial") == [
            "100 status_led active",
            "133 buzzer active", "133 speaker say QR code scanned", "133 status_led active",
            "213 buzzer inactive",
            "1183 speaker said QR code scanned", "1183 serial https://example.org/kiosk?id=42\\x0D\\x0A",
        ])
        #expect(h.status.metrics.goodReads == 1)
        let said = events.withLock { $0 }
        #expect(said.count == 1 && said[0].contains("\"kind\":\"read\"") && said[0].contains("\"text\":\"QR code scanned\""), "\(said)")
        #expect(h.driver.core.lastSpeechDelay == .zero, "the simulated speaker starts at once")
    }

    @Test func aPressCutsTheAnnouncementShortDeliversAndScansAgain() throws {
        let h = try Harness(speech: SpeechBehaviour())
        h.start()
        h.advance(.milliseconds(100))
        h.button.click()
        h.advance(.milliseconds(300)) // said from 133 ms
        #expect(h.hostReceived().isEmpty)
        h.trace.clear()
        h.button.click() // at 400 ms
        #expect(!h.hostReceived().isEmpty, "the held result goes out at the press")
        h.advance(.milliseconds(100))
        let spoken = h.timeline("speaker")
        #expect(spoken.first == "400 speaker cut QR code scanned", "\(spoken)")
        #expect(spoken.contains("433 speaker say QR code scanned"), "the new session reads and announces again: \(spoken)")
        #expect(h.status.metrics.goodReads == 2)
    }

    @Test func deliverImmediatelyKeepsTheFlashWhenAsked() throws {
        let h = try Harness(speech: SpeechBehaviour(deliver: .immediately, replacesFlash: false))
        h.start()
        h.advance(.milliseconds(100))
        h.button.click()
        h.advance(.milliseconds(50))
        #expect(!h.hostReceived().isEmpty, "at once")
        h.advance(.milliseconds(300))
        // The good-read flash (60 ms on, 60 off, three times) plays over the ready LED.
        #expect(h.timeline("status_led", since: 133).prefix(4) == ["133 status_led active", "193 status_led inactive", "253 status_led active", "313 status_led inactive"],
                "\(h.timeline("status_led"))")
    }

    /// A speaker that fails: the result is not lost, the failure is logged.
    @Test func aFailingSpeakerLosesNoResult() throws {
        let h = try Harness(speech: SpeechBehaviour())
        h.speaker?.failNext("ALSA default: no such device")
        h.start()
        h.advance(.milliseconds(100))
        h.button.click()
        h.advance(.milliseconds(100))
        #expect(!h.hostReceived().isEmpty)
        #expect(h.logged("announcement 1 not said: ALSA default: no such device"))
    }

    @Test func noReadAndCameraProblemsAreSpokenWithTheConfiguredPhrases() throws {
        let h = try Harness(images: ["no-code.png"], speech: SpeechBehaviour(),
                            phrases: SpeechPhrases(noRead: "Nothing found", cameraError: "Camera trouble"))
        h.start()
        h.advance(.milliseconds(100))
        h.button.click()
        h.advance(.seconds(6)) // the 5 s session timeout
        #expect(h.timeline("speaker").contains { $0.hasSuffix("speaker say Nothing found") })
        h.camera.unplug()
        h.advance(.seconds(2))
        #expect(h.timeline("speaker").contains { $0.hasSuffix("speaker say Camera trouble") }, "\(h.timeline("speaker"))")
    }

    /// A pitch per outcome on a tone buzzer; outcomes without one go back to the buzzer's own.
    @Test func tonesPerOutcomeOnAPWMBuzzer() throws {
        let patterns = FeedbackPatterns.standard.replacing(beep: [:], flash: [:], led: [:], tone: [.goodRead: 3200])
        let h = try Harness(images: ["qr.png", "no-code.png"], patterns: patterns, toneBuzzer: true)
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.button.click()
        h.advance(.milliseconds(200))
        #expect(h.timeline("buzzer") == ["133 buzzer pitch 3200", "133 buzzer active", "213 buzzer inactive"])
        h.trace.clear()
        h.button.click() // a press that cancels nothing starts a session; a second press cancels it
        h.button.click()
        h.advance(.milliseconds(100))
        #expect(h.timeline("buzzer").prefix(2).map { $0.split(separator: " ", maxSplits: 1)[1] } == ["buzzer pitch 2700", "buzzer active"],
                "\(h.timeline("buzzer"))")
    }

    /// A camera state with a beep of its own sounds it once on entering the state.
    @Test func aCameraStateCanBeepOnceWhenEntered() throws {
        let patterns = FeedbackPatterns.standard.replacing(beep: [:], flash: [:], led: [:], entryBeep: [.cameraDisconnected: [500]])
        let h = try Harness(patterns: patterns)
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.camera.unplug()
        h.advance(.seconds(3))
        let beeps = h.timeline("buzzer")
        #expect(beeps.count == 2 && beeps[0].hasSuffix("buzzer active") && beeps[1].hasSuffix("buzzer inactive"), "\(beeps)")
        if beeps.count == 2, let on = Int(beeps[0].split(separator: " ")[0]), let off = Int(beeps[1].split(separator: " ")[0]) {
            #expect(off - on == 500)
        }
    }
}
