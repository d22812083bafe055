import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware
import Testing

/// `camera.focus` through the driver to the simulated camera's lens, in virtual time: the lens's
/// mode when the camera opens, one cycle per press after the torch, and a camera without
/// autofocus that is told once and works as before.
@Suite struct FocusRuntimeTests {
    @Test func aPressFocusesOnceAfterTheTorchAndTheStatusCountsIt() throws {
        let h = try Harness()
        h.start()
        h.advance(.milliseconds(100))
        #expect(h.trace.of("lens") == ["on-request"])
        #expect(h.logged("camera focus: one autofocus cycle per press"))
        h.button.click() // at 100 ms
        h.advance(.milliseconds(500))
        #expect(h.timeline("torch", "lens", "camera", since: 100).prefix(4) == ["100 torch inactive", "100 torch active", "100 lens autofocus cycle", "100 camera start"])
        #expect(h.camera.autofocusCycles == 1 && h.status.autofocusCycles == 1)
        #expect(h.status.json.contains("\"focus\":\"auto-on-press\",\"autofocusCycles\":1"), "\(h.status.json)")
        #expect(h.hostReceived().contains("https://example.org/kiosk?id=42"))
    }

    @Test func presentationKeepsTheLensFocusingContinuously() throws {
        let h = try Harness(images: ["no-code.png", "qr.png"], repeatEach: 60, settings: { $0.trigger = .presentation })
        h.start()
        h.advance(.milliseconds(2500)) // watching, then the code wakes a session
        #expect(h.trace.of("lens") == ["continuous"])
        #expect(h.camera.focusMode == .continuous && h.camera.autofocusCycles == 0)
        // The status says what the lens does, not the setting's word (auto-on-press has no press here).
        #expect(h.status.json.contains("\"focus\":\"continuous\""), "\(h.status.json)")
    }

    @Test func fixedHoldsTheLensAtItsPositionFromTheStart() throws {
        let h = try Harness(settings: { $0.focus = .fixed; $0.lensPosition = 2.5 })
        h.start()
        h.advance(.milliseconds(100))
        #expect(h.trace.of("lens") == ["fixed 2.5"])
        h.button.click()
        h.advance(.milliseconds(500))
        #expect(h.trace.of("lens") == ["fixed 2.5"] && h.status.metrics.goodReads == 1)
    }

    /// A camera whose driver has no focus controls (the HAL's defaults): one notice a person
    /// understands, no error, the read as before.
    @Test func aCameraWithoutAutofocusIsToldOnceAndReadsAsBefore() throws {
        let h = try Harness(plainCamera: true)
        h.start()
        h.advance(.milliseconds(100))
        for _ in 0..<2 {
            h.button.click()
            h.advance(.milliseconds(500))
        }
        let said = h.logs.entries.filter { $0.message.description.contains("autofocus") && $0.level > .debug }.map(\.message.description)
        #expect(said == ["camera has no autofocus: camera.focus = auto-on-press has no effect"], "\(said)")
        #expect(h.status.metrics.goodReads == 2 && h.status.metrics.errors == 0 && h.status.autofocusCycles == 0)
        #expect(h.trace.of("lens") == [])
    }
}
