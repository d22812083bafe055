import Foundation
import LinuxHardware
import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware
import Synchronization
import Testing

/// End to end on simulated hardware with a manual clock: no sleeps on the clock, only bounded
/// waits for the runtime's tasks to catch up.
@Suite(.serialized) struct KioskRuntimeTests {
    @Test func pressReadsBeepsAndWritesToTheSerialPort() async throws {
        let h = try Harness()
        try await h.start()
        #expect(await h.status.camera == .available)
        h.button.press()
        try await h.until("torch on") { h.trace.of("torch").last == "active" }
        try await h.until("scanning") { h.camera.isStreaming }
        try await h.advance(.milliseconds(34))
        try await h.until("good read") { await h.status.metrics.goodReads == 1 }
        let mark = max(0, h.trace.of("status_led").count - 1)
        try await h.until("bytes on the pty") { h.hostReceived().hasSuffix("\r\n") }
        #expect(h.trace.of("torch") == ["inactive", "inactive", "active", "inactive"])
        try await h.advance(until: "beep ended") { h.trace.of("buzzer").count >= 2 }
        #expect(h.trace.of("buzzer").prefix(2) == ["active", "inactive"])
        // The LED flash: three quick flashes during the good-read animation, then steady "ready".
        try await h.advance(until: "flash played") {
            h.trace.of("status_led").dropFirst(mark).filter { $0 == "active" }.count >= 4
        }
        #expect(h.trace.of("status_led").last == "active")
        #expect(!h.camera.isStreaming)
        let status = await h.status
        #expect(status.torch == .off && status.metrics.presses == 1 && status.metrics.torchOn == 1)
        #expect(h.logs.entries.contains { $0.message.description.contains("read QR-Code: https://example.org/kiosk?id=42") })
        await h.stop()
    }

    @Test func serialBytesAreTheTextAndCRLF() async throws {
        let h = try Harness()
        try await h.start()
        h.button.press()
        try await h.until("scanning") { h.camera.isStreaming }
        try await h.advance(.milliseconds(34))
        try await h.until("good read") { await h.status.metrics.goodReads == 1 }
        try await h.until("line on the pty") { h.hostReceived().hasSuffix("\r\n") }
        #expect(h.hostReceived() == "https://example.org/kiosk?id=42\r\n")
        await h.stop()
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

    @Test func timeoutGivesTheNoReadPattern() async throws {
        let h = try Harness(images: ["no-code.png"]) { $0.sessionTimeout = .seconds(1) }
        try await h.start()
        h.button.press()
        try await h.until("scanning") { h.camera.isStreaming }
        try await h.advance(.milliseconds(1100), step: .milliseconds(100))
        try await h.until("closed without scan") { await h.status.metrics.closedWithoutScan == 1 }
        try await h.advance(until: "no-read pattern") { h.trace.of("buzzer").count >= 4 }
        #expect(h.trace.of("buzzer").prefix(4) == ["active", "inactive", "active", "inactive"])
        #expect(h.trace.of("torch").last == "inactive")
        #expect(!h.camera.isStreaming)
        #expect(h.hostReceived().isEmpty)
        await h.stop()
    }

    @Test func secondPressCancels() async throws {
        let h = try Harness(images: ["no-code.png"])
        try await h.start()
        h.button.click()
        try await h.until("scanning") { h.camera.isStreaming }
        h.button.press()
        try await h.until("cancelled") { await h.status.metrics.closedWithoutScan == 1 }
        #expect(h.trace.of("torch").last == "inactive")
        #expect(!h.camera.isStreaming)
        await h.stop()
    }

    @Test func unplugMidSessionThenReplugRecoversWithoutRestart() async throws {
        let h = try Harness()
        try await h.start()
        h.button.press()
        try await h.until("scanning") { await h.status.phase == "scanning" }
        h.camera.unplug()
        try await h.advance(.milliseconds(34))
        try await h.until("disconnected") { await h.status.camera == .disconnected }
        #expect(h.trace.of("torch").last == "inactive")
        #expect(await h.status.metrics.errors == 1)
        #expect(h.logs.entries.contains { $0.message.description.contains("camera interrupted: disconnected") })
        h.camera.plugIn()
        try await h.advance(until: "available again", limit: .seconds(10), step: .milliseconds(250)) { await h.status.camera == .available }
        #expect(await h.status.cameraReconnects == 1)
        h.button.release()
        h.button.press()
        try await h.until("scanning again") { h.camera.isStreaming }
        try await h.advance(.milliseconds(34))
        try await h.until("good read after replug") { await h.status.metrics.goodReads == 1 }
        await h.stop()
    }

    @Test func busyCameraIsReportedAndAPressGivesTheErrorBeep() async throws {
        let h = try Harness()
        h.camera.makeBusy()
        try await h.start()
        #expect(await h.status.camera == .inUse)
        h.button.click()
        try await h.until("error counted") { await h.status.metrics.errors == 1 }
        try await h.advance(until: "error pattern") { h.trace.of("buzzer").count >= 6 }
        #expect(h.trace.of("buzzer").prefix(6) == ["active", "inactive", "active", "inactive", "active", "inactive"])
        #expect(h.logs.entries.contains { $0.message.description.contains("camera in-use") })
        h.camera.plugIn()
        try await h.advance(until: "recovered", limit: .seconds(10), step: .milliseconds(250)) { await h.status.camera == .available }
        await h.stop()
    }

    /// Issue 13, defect 10: the `camera` event was sent again on every reopen attempt.
    @Test func theCameraEventIsSentOncePerChangeNotPerRetry() async throws {
        let events = Mutex<[String]>([])
        let h = try Harness(onEvent: { line in if line.contains("\"camera\"") { events.withLock { $0.append(line) } } })
        h.camera.makeBusy()
        try await h.start()
        try await h.advance(.seconds(12), step: .milliseconds(250)) // 0.5 s, 1 s, 2 s, then every 4 s: five retries
        h.camera.plugIn()
        try await h.advance(until: "recovered", limit: .seconds(10), step: .milliseconds(250)) { await h.status.camera == .available }
        #expect(events.withLock { $0 } == ["{\"event\":\"camera\",\"state\":\"in-use\"}", "{\"event\":\"camera\",\"state\":\"available\"}"])
        await h.stop()
    }

    @Test func permissionDeniedIsReportedWithTheFix() async throws {
        let h = try Harness()
        h.camera.forbid()
        try await h.start()
        #expect(await h.status.camera == .permissionDenied)
        #expect(h.logs.entries.contains { $0.message.description.contains("group video") })
        await h.stop()
    }

    @Test func confirmModeHoldsTheResultUntilAPress() async throws {
        let h = try Harness { $0.alphanumeric = .confirm }
        try await h.start()
        h.button.press()
        h.button.release()
        try await h.until("scanning") { h.camera.isStreaming }
        try await h.advance(.milliseconds(34))
        try await h.until("held") { await h.status.phase == "awaiting-confirmation" }
        #expect(h.hostReceived().isEmpty)
        h.button.press()
        try await h.until("delivered after confirming") { h.hostReceived().hasSuffix("\r\n") }
        #expect(h.hostReceived() == "https://example.org/kiosk?id=42\r\n")
        await h.stop()
    }

    @Test func noTorchLineIsNeverDriven() async throws {
        let h = try Harness(torch: false)
        try await h.start()
        h.button.press()
        try await h.until("scanning") { h.camera.isStreaming }
        try await h.advance(.milliseconds(34))
        try await h.until("good read") { await h.status.metrics.goodReads == 1 }
        #expect(await h.status.torch == .unavailable)
        #expect(h.trace.of("torch").isEmpty)
        await h.stop()
    }

    @Test func stopTurnsEverythingOff() async throws {
        let h = try Harness(images: ["no-code.png"])
        try await h.start()
        h.button.press()
        try await h.until("scanning") { h.camera.isStreaming }
        await h.stop()
        #expect(h.trace.of("torch").last == "inactive")
        #expect(h.trace.of("buzzer").last ?? "inactive" == "inactive")
        #expect(h.trace.of("status_led").last == "inactive")
        #expect(!h.camera.isStreaming)
    }
}
