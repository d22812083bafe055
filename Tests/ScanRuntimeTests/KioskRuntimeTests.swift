import Foundation
import LinuxHardware
import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// The kiosk loop end to end on simulated hardware, in virtual time: whole timed traces of
/// torch, buzzer, status LED, camera and serial bytes, no sleeps and no polling.
@Suite struct KioskRuntimeTests {
    @Test func pressReadsBeepsFlashesAndWritesToTheSerialPort() throws {
        let h = try Harness()
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.button.click() // at 100 ms
        h.advance(.milliseconds(500))
        #expect(h.trace.timeline == [
            // The lens focuses once the torch is lit (camera.focus = auto-on-press).
            "100 torch inactive", "100 torch active", "100 lens autofocus cycle", "100 camera start", "100 status_led active",
            // The first frame (133 ms) holds the code: capture off, torch off, beep, flash.
            "133 camera stop", "133 torch inactive", "133 buzzer active", "133 status_led active",
            "133 serial https://example.org/kiosk?id=42\\x0D\\x0A",
            "193 status_led inactive", "213 buzzer inactive", "253 status_led active", "313 status_led inactive",
            "373 status_led active", "433 status_led inactive", "433 status_led active",
        ])
        let status = h.status
        #expect(status.torch == .off && status.metrics.presses == 1 && status.metrics.torchOn == 1 && status.metrics.goodReads == 1)
        #expect(h.logged("read QR-Code: https://example.org/kiosk?id=42"))
        #expect(!h.camera.isStreaming)
    }

    /// The integrator's patterns from `[feedback]` are played exactly: a triple chirp and no
    /// flash on a good read, a slow blink while scanning; each feedback is an event with its steps.
    @Test func configuredPatternsArePlayedExactlyAndAnnounced() throws {
        let events = Locked<[String]>([])
        let patterns = FeedbackPatterns.standard.replacing(beep: [.goodRead: [40, 30, 40, 30, 40]], flash: [.goodRead: []],
                                                           led: [.scanning: [300, 300], .ready: [0]])
        let indications = Locked<[String]>([])
        let h = try Harness(onEvent: { line in
            if line.contains("\"feedback\"") { events.withLock { $0.append(line) } }
            if line.contains("\"indication\"") { indications.withLock { $0.append(line) } }
        }, patterns: patterns)
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.button.click() // at 100 ms; the code is read from the first frame, at 133 ms
        h.advance(.milliseconds(500))
        #expect(h.timeline("buzzer", "status_led") == [
            "100 status_led active",
            "133 buzzer active", "133 status_led inactive",
            "173 buzzer inactive", "203 buzzer active", "243 buzzer inactive", "273 buzzer active", "313 buzzer inactive",
        ])
        let sent = events.withLock { $0 }
        #expect(sent.count == 1)
        #expect(sent.first?.contains("\"outcome\":\"good-read\"") == true && sent.first?.contains("\"beep\":[40,30,40,30,40]") == true
                && sent.first?.contains("\"flash\":[]") == true, "\(sent)")
        // The status LED's patterns are announced too: scanning (a 300/300 blink), then ready (off).
        let shown = indications.withLock { $0 }.suffix(2)
        #expect(shown.first?.contains("\"state\":\"scanning\"") == true && shown.first?.contains("\"led\":[300,300]") == true
                && shown.first?.contains("\"repeats\":true") == true, "\(shown)")
        #expect(shown.last?.contains("\"state\":\"ready\"") == true && shown.last?.contains("\"led\":[]") == true, "\(shown)")
    }

    /// The torch as the flash: it blinks after the read (the kiosk has turned it off), and a
    /// press during the blink takes the torch back for the new session.
    @Test func theTorchAsTheFlashGivesWayToTheNextSession() throws {
        let patterns = FeedbackPatterns.standard.replacing(beep: [:], flash: [:], led: [:], torch: [.goodRead: [100, 100, 100]])
        let h = try Harness(patterns: patterns)
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.button.click() // at 100 ms; read at 133 ms
        h.advance(.milliseconds(500))
        #expect(h.timeline("torch") == ["100 torch inactive", "100 torch active", "133 torch inactive",
                                        "133 torch active", "233 torch inactive", "333 torch active", "433 torch inactive"])
        h.trace.clear()
        h.button.click() // at 600 ms; read at 633 ms, flash from 633 ms
        h.advance(.milliseconds(100))
        h.button.click() // at 700 ms, during the flash: a new session, the torch its own
        h.advance(.milliseconds(20))
        #expect(h.status.phase == "scanning" && h.status.torch == .on)
        h.advance(.milliseconds(300))
        // The first flash (633: on, 733 off, 833 on, 933 off) is gone at 700; the second read
        // (733) flashes from 733.
        #expect(h.timeline("torch") == ["600 torch inactive", "600 torch active", "633 torch inactive", "633 torch active",
                                        "700 torch inactive", "700 torch active",
                                        "733 torch inactive", "733 torch active", "833 torch inactive", "933 torch active"])
    }

    @Test func timeoutGivesTheNoReadPattern() throws {
        let h = try Harness(images: ["no-code.png"]) { $0.sessionTimeout = .seconds(1) }
        h.start()
        h.button.click()
        h.advance(.milliseconds(1600))
        #expect(h.timeline("buzzer", "torch", "camera", "serial", since: 1) == [
            "1000 camera stop", "1000 torch inactive",
            "1000 buzzer active", "1250 buzzer inactive", "1370 buzzer active", "1620 buzzer inactive",
        ].filter { Int($0.split(separator: " ")[0])! <= 1600 })
        #expect(h.status.metrics.closedWithoutScan == 1)
        #expect(h.hostReceived().isEmpty)
    }

    @Test func secondPressCancels() throws {
        let h = try Harness(images: ["no-code.png"])
        h.start()
        h.button.click()
        h.advance(.milliseconds(300))
        h.button.click()
        #expect(h.status.metrics.closedWithoutScan == 1)
        #expect(h.trace.of("torch").last == "inactive")
        #expect(!h.camera.isStreaming)
    }

    @Test func unplugMidSessionThenReplugRecoversWithoutRestart() throws {
        let h = try Harness(images: ["no-code.png"])
        h.start()
        h.button.click()
        h.advance(.milliseconds(100))
        h.camera.unplug()
        h.advance(.milliseconds(50))
        #expect(h.status.camera == .disconnected)
        #expect(h.trace.of("torch").last == "inactive")
        #expect(h.status.metrics.errors == 1)
        #expect(h.logged("camera interrupted: disconnected"))
        h.camera.plugIn()
        h.advance(.seconds(1))
        #expect(h.status.camera == .available)
        #expect(h.status.cameraReconnects == 1)
    }

    @Test func busyCameraIsReportedAndAPressGivesTheErrorBeep() throws {
        let h = try Harness()
        h.camera.makeBusy()
        h.start()
        #expect(h.status.camera == .inUse)
        h.button.click()
        #expect(h.status.metrics.errors == 1)
        h.advance(.milliseconds(600))
        #expect(h.trace.of("buzzer").prefix(6) == ["active", "inactive", "active", "inactive", "active", "inactive"])
        #expect(h.logged("camera in-use"))
        h.camera.plugIn()
        h.advance(.seconds(2))
        #expect(h.status.camera == .available)
    }

    /// Issue 13, defect 1: the camera held by another program while idle, then a press. The
    /// failure used to be handled in the middle of the session's start effects: the LED went back
    /// to "scanning" with a session timer nobody ended, for as long as the camera was held.
    @Test func cameraBusyAtSessionStartLeavesTheInUseStateNotScanning() throws {
        let h = try Harness()
        h.start()
        h.advance(.milliseconds(100))
        h.camera.makeBusy() // another program takes it while idle
        h.trace.clear()
        h.button.click()
        #expect(h.status.phase == "idle")
        #expect(h.status.camera == .inUse)
        #expect(h.status.torch == .off)
        #expect(h.status.metrics.errors == 1)
        // Three seconds later: the in-use pattern (3 blinks every 2 s), never the scanning blink,
        // no session timeout, the torch off, nothing on the serial port.
        h.advance(.seconds(3))
        #expect(h.trace.timeline == [
            // The press: torch and scanning blink, then streaming fails (EBUSY); after the step
            // the failure is handled: camera closed, capture and torch off, the error beep.
            "100 torch inactive", "100 torch active", "100 camera start", "100 status_led active",
            "100 camera close", "100 camera stop", "100 torch inactive", "100 buzzer active",
            // The in-use pattern (3 blinks of 150 ms every 2 s) from then on; retries at 0.5 s, 1 s.
            "100 status_led active", "200 buzzer inactive", "250 status_led inactive", "280 buzzer active",
            "380 buzzer inactive", "400 status_led active", "460 buzzer active", "550 status_led inactive",
            "560 buzzer inactive", "600 camera open", "600 camera close", "700 status_led active",
            "850 status_led inactive", "1600 camera open", "1600 camera close", "2100 status_led active",
            "2250 status_led inactive", "2400 status_led active", "2550 status_led inactive",
            "2700 status_led active", "2850 status_led inactive",
        ])
        #expect(h.status.phase == "idle" && h.status.metrics.closedWithoutScan == 0)
        #expect(!h.logged("timed out"))
        h.camera.plugIn()
        h.advance(.seconds(5))
        #expect(h.status.camera == .available)
        #expect(h.trace.of("status_led").last == "active") // ready again
    }

    /// Issue 13, defect 2: an unplugged camera while idle was not noticed until a press.
    @Test func cameraLossWhileIdleIsSeenWithinASecond() throws {
        let h = try Harness()
        h.start()
        h.advance(.seconds(2))
        h.trace.clear()
        h.camera.unplug()
        h.advance(.seconds(1))
        #expect(h.status.camera == .disconnected)
        let led = h.timeline("status_led")
        #expect(!led.isEmpty && Int(led[0].split(separator: " ")[0])! <= 3000)
        #expect(h.logged("camera interrupted: disconnected"))
    }

    /// A host TRIGGER with the camera gone starts no session: the host is told so (it was
    /// answered OK), the press is counted as an error as the button's is.
    @Test func aTriggerWithoutACameraIsAnsweredWithAnError() throws {
        let h = try Harness()
        h.start()
        h.advance(.seconds(2))
        #expect(h.driver.answer(.trigger, now: h.now) == "OK TRIGGER")
        #expect(h.driver.answer(.trigger, now: h.now) == "OK TRIGGER") // a second one cancels it
        h.camera.unplug()
        h.advance(.seconds(1))
        #expect(h.driver.answer(.trigger, now: h.now) == "ERR TRIGGER: camera disconnected: no session started")
        #expect(h.status.phase == "idle" && h.status.metrics.errors == 1)
    }

    /// Issue 13, defect 3: a press every 0.6 s at one QR code for 5 s gave 8 good-read beeps and
    /// 1 result. A press is a new intent: each read is reported, with consecutive `seq`, and
    /// every beep has its result.
    @Test func aPressAtTheSameCodeIsANewReadWithItsOwnSequenceNumber() throws {
        let events = Locked<[String]>([])
        let h = try Harness(sameSymbolTimeout: .seconds(2),
                            onEvent: { line in if line.contains("\"result\"") { events.withLock { $0.append(line) } } })
        h.start()
        for _ in 0..<8 {
            h.button.click()
            h.advance(.milliseconds(600))
        }
        let beeps = h.trace.of("buzzer").filter { $0 == "active" }.count
        #expect(beeps == 8)
        #expect(h.hostReceived() == String(repeating: "https://example.org/kiosk?id=42\r\n", count: 8))
        #expect(events.withLock { $0 }.map { $0.contains("\"seq\":") } == Array(repeating: true, count: 8))
        let seqs = events.withLock { $0 }.compactMap { line -> Int? in
            guard let r = line.range(of: "\"seq\":") else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber })
        }
        #expect(seqs == Array(1...8))
        #expect(h.status.metrics.goodReads == 8 && h.status.duplicatesSuppressed == 0)
    }

    /// Issue 13, defect 6: the long-press torch toggle worked only on the press that started a
    /// session; a long press during a session cancelled it instead.
    @Test func aLongPressDuringASessionTogglesTheTorch() throws {
        let h = try Harness(images: ["no-code.png"]) { $0.longPressAction = .torch; $0.longPressAfter = .milliseconds(800) }
        h.start()
        h.button.click() // session, torch on
        h.advance(.milliseconds(500))
        h.button.press() // held during the session
        h.advance(.milliseconds(900))
        h.button.release()
        #expect(h.status.phase == "scanning")
        #expect(h.status.torch == .off)
        h.button.press() // held again: back on
        h.advance(.milliseconds(900))
        h.button.release()
        #expect(h.status.torch == .on && h.status.phase == "scanning")
        h.button.click() // a short press still cancels
        #expect(h.status.phase == "idle" && h.status.metrics.closedWithoutScan == 1)
        #expect(h.status.metrics.presses == 4)
    }

    /// Issue 13, defect 11: a failed torch write was logged while the state said "on" and
    /// `TORCH ON` answered OK.
    @Test func aTorchThatCannotBeDrivenIsReportedNotBelievedOn() throws {
        let failing = FailingLine()
        let h = try Harness(images: ["no-code.png"], torchLine: { _ in failing })
        h.start() // the torch is driven off at start: already that fails
        #expect(h.status.torch == .failed && h.status.metrics.errors == 1)
        #expect(h.logged("torch state unknown"))
        h.button.click() // the session tries it again (off, then on): one more failed step
        #expect(h.status.torch == .failed)
        #expect(h.status.metrics.torchOn == 1 && h.status.metrics.errors == 2)
        let answer = h.driver.answer(.torch(.on), now: h.now)
        #expect(answer?.hasPrefix("ERR TORCH: ON: ") == true, "\(answer ?? "nil")")
        failing.works.withLock { $0 = true }
        #expect(h.driver.answer(.torch(.on), now: h.now) == "OK TORCH ON")
        #expect(h.status.torch == .on)
    }

    /// Issue 13, defect 10: the `camera` event was sent again on every reopen attempt.
    @Test func theCameraEventIsSentOncePerChangeNotPerRetry() throws {
        let events = Locked<[String]>([])
        let h = try Harness(onEvent: { line in if line.contains("\"camera\"") { events.withLock { $0.append(line) } } })
        h.camera.makeBusy()
        h.start()
        h.advance(.seconds(12)) // 0.5 s, 1 s, 2 s, then every 4 s: five retries
        #expect(h.trace.of("camera").filter { $0 == "open" }.count == 6)
        h.camera.plugIn()
        h.advance(.seconds(5))
        #expect(events.withLock { $0 } == ["{\"event\":\"camera\",\"state\":\"in-use\"}", "{\"event\":\"camera\",\"state\":\"available\"}"])
    }

    @Test func permissionDeniedIsReportedWithTheFix() throws {
        let h = try Harness()
        h.camera.forbid()
        h.start()
        #expect(h.status.camera == .permissionDenied)
        #expect(h.logged("group video"))
    }

    @Test func confirmModeHoldsTheResultUntilAPress() throws {
        let h = try Harness { $0.alphanumeric = .confirm }
        h.start()
        h.button.click()
        h.advance(.milliseconds(100))
        #expect(h.status.phase == "awaiting-confirmation")
        #expect(h.hostReceived().isEmpty)
        h.button.click()
        #expect(h.hostReceived() == "https://example.org/kiosk?id=42\r\n")
    }

    @Test func noTorchLineIsNeverDriven() throws {
        let h = try Harness(torch: false)
        h.start()
        h.button.click()
        h.advance(.milliseconds(100))
        #expect(h.status.metrics.goodReads == 1)
        #expect(h.status.torch == .unavailable)
        #expect(h.trace.of("torch").isEmpty)
    }

    @Test func stopTurnsEverythingOff() throws {
        let h = try Harness(images: ["no-code.png"])
        h.start()
        h.button.click()
        h.advance(.milliseconds(150))
        h.stop()
        #expect(h.trace.of("torch").last == "inactive")
        #expect(h.trace.of("buzzer").last == "inactive")
        #expect(h.trace.of("status_led").last == "inactive")
        #expect(h.trace.of("camera").last == "close")
        #expect(!h.camera.isStreaming)
        #expect(h.driver.nextDeadline == nil)
    }

    @Test func termiosDriverWritesToARealPty() async throws {
        let pty = try PseudoTerminal()
        let port = try TermiosSerialPort(path: pty.hostPath, baud: 9600)
        let output = SerialOutput(port: port, prefix: [0x02], suffix: [0x03])
        let payload = Symbol(symbology: .code128, bytes: Array("ok\u{1B}[2J".utf8))
        try output.deliver(ScanResult(sequence: 1, session: 1, symbol: payload), unixMillis: 0)
        var got: [UInt8] = []
        for _ in 0..<200 where got.count < 10 {
            got += pty.readFromHost()
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(got == [0x02] + Array("ok\\x1B[2J".utf8) + [0x03])
    }
}

/// An output line whose writes fail until `works` is set.
final class FailingLine: OutputLine, Sendable {
    let name = "torch (failing)"
    let works = Locked(false)
    func set(_ value: LineValue) throws(HardwareError) {
        guard works.withLock({ $0 }) else {
            throw HardwareError(.other, operation: "gpiod_line_set_value", device: name, errno: 5)
        }
    }
}
