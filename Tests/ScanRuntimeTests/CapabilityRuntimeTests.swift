import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// A camera with no frame rate control and no controls: the simulated camera behind only what
/// every `FrameSource` must do, so that the protocol's defaults answer the rest.
final class PlainCamera: FrameSource, Sendable {
    let camera: SimulatedCamera<ManualClock>
    init(_ camera: SimulatedCamera<ManualClock>) { self.camera = camera }
    var name: String { camera.name }
    func open() throws(HardwareError) { try camera.open() }
    func close() { camera.close() }
    func check() throws(HardwareError) { try camera.check() }
    func startCapture() throws(HardwareError) { try camera.startCapture() }
    func stopCapture() { camera.stopCapture() }
    func nextFrame() async throws -> GrayFrame { try await camera.nextFrame() }
    var droppedFrames: Int { camera.droppedFrames }
    var summary: String { camera.summary }
}

/// Capabilities a driver lacks, through the kiosk: declared (a camera keeps its rate) or
/// emulated (a plain buzzer keeps its one pitch), never found by casting.
@Suite struct CapabilityRuntimeTests {
    /// `watch_fps` on a camera without rate control: declared once, watched at the full rate,
    /// the code read all the same.
    @Test func aCameraWithoutRateControlWatchesAtTheFullRate() throws {
        let h = try Harness(images: ["no-code.png", "qr.png"], repeatEach: 60, settings: {
            $0.trigger = .presentation
            $0.watchFPS = 10
        }, plainCamera: true)
        h.start()
        h.advance(.milliseconds(1900))
        #expect(h.status.phase == "watching")
        #expect(h.camera.framesDelivered >= 55, "the full rate: \(h.camera.framesDelivered) frames in 1.9 s")
        let said = h.logs.entries.filter { $0.message.description.contains("watching at the full rate") }.map(\.message.description)
        #expect(said == ["camera simulated-camera: watching at the full rate: simulated-camera has no frame rate control (setFrameRate); it keeps its own rate"])
        #expect(!h.trace.of("camera").contains { $0.hasPrefix("rate") })
        h.advance(.milliseconds(400))
        #expect(h.hostReceived() == TriggerModeRuntimeTests.line)
    }

    /// A camera without controls offers none, and asked for one names itself and the control.
    @Test func aCameraWithoutControlsOffersNone() throws {
        let h = try Harness(plainCamera: true)
        let camera: any FrameSource = PlainCamera(h.camera)
        try camera.open()
        #expect(try camera.controlSettings() == [])
        #expect { try camera.setControl("brightness", to: 3) } throws: { e in
            "\(e)" == "simulated-camera has no control brightness (setControl); the camera has no adjustable controls"
        }
    }

    /// Tones per outcome on a plain (on/off) buzzer: the beeps sound, no pitch is asked of it
    /// that it could not give, nothing fails.
    @Test func aPlainBuzzerGivenTonesStaysAnOnOffLine() throws {
        let patterns = FeedbackPatterns.standard.replacing(beep: [:], flash: [:], led: [:], tone: [.goodRead: 3200])
        let h = try Harness(images: ["qr.png", "no-code.png"], patterns: patterns)
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.button.click()
        h.advance(.milliseconds(200))
        #expect(h.timeline("buzzer") == ["133 buzzer active", "213 buzzer inactive"])
        #expect(!h.logs.entries.contains { $0.level >= .error })
    }

    /// The same tones reach a tone line held as a plain `OutputLine`: its own pitch, not the default.
    @Test func aToneLineHeldAsAnOutputLineChangesPitch() throws {
        let trace = Trace(now: { .zero })
        let tone = SimulatedToneLine(name: "buzzer", defaultHz: 2700, trace: trace)
        let line: any OutputLine = tone
        try line.setPitch(3200)
        #expect(tone.pitch == 3200)
        try line.setPitch(nil)
        #expect(tone.pitch == 2700)
        #expect(trace.of("buzzer") == ["pitch 3200", "pitch 2700"])
    }
}
