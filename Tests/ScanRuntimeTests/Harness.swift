import Decoding
import Foundation
import ImageLoading
import InMemoryLogging
import Logging
import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// A kiosk on simulated hardware in virtual time (a `VirtualKiosk`): frames come from the
/// simulated camera at their due times and are decoded at once; every change of torch, buzzer, LED, camera and serial port lands in one timed trace.
/// Nothing waits for real time: after each call the kiosk is where it will stay.
final class Harness {
    let clock = ManualClock()
    let trace: Trace
    let camera: SimulatedCamera<ManualClock>
    let serial: SimulatedSerialPort
    let logs = InMemoryLogHandler()
    let driver: KioskDriver
    let kiosk: VirtualKiosk
    let speaker: SimulatedSpeaker?
    private(set) lazy var button = VirtualButton(self)

    init(images: [String] = ["qr.png"], repeatEach: Int = 1, keepStreaming: Bool = false,
         settings: (inout KioskSettings) -> Void = { _ in }, torch: Bool = true,
         sameSymbolTimeout: Duration = .zero, onEvent: (@Sendable (String) -> Void)? = nil,
         outputs: ((SimulatedSerialPort) throws -> [any ResultOutput])? = nil,
         torchLine: ((Trace) -> any OutputLine)? = nil, patterns: FeedbackPatterns = .standard,
         speech: SpeechBehaviour? = nil, phrases: SpeechPhrases = SpeechPhrases(), toneBuzzer: Bool = false,
         plainCamera: Bool = false) throws {
        let clock = self.clock
        trace = Trace(now: { clock.now.offset })
        camera = SimulatedCamera(frames: try images.map { try ImageFile.load(Fixture.path($0)) }, fps: 30, repeatEach: repeatEach,
                                 clock: clock, trace: trace)
        serial = SimulatedSerialPort(name: "serial", trace: trace)
        var s = KioskSettings()
        s.hasTorch = torch
        s.sessionTimeout = .seconds(5)
        s.speech = speech
        settings(&s)
        speaker = speech == nil ? nil : SimulatedSpeaker(trace: trace, now: { clock.now.offset })
        let torchOutput: (any OutputLine)? = torch ? (torchLine?(trace) ?? SimulatedLine(name: "torch", trace: trace)) : nil
        let hardware = KioskHardware(camera: plainCamera ? PlainCamera(camera) : camera, button: nil, torch: torchOutput,
                                     buzzer: toneBuzzer ? SimulatedToneLine(name: "buzzer", defaultHz: 2700, trace: trace)
                                         : SimulatedLine(name: "buzzer", trace: trace),
                                     statusLED: SimulatedLine(name: "status_led", trace: trace), speaker: speaker)
        let logs = self.logs
        s.sameSymbolTimeout = sameSymbolTimeout
        driver = KioskDriver(
            hardware: hardware,
            tuning: KioskTuning(settings: s, viewport: .full, decoder: ZBarDecoder(), phrases: phrases),
            outputs: try outputs?(serial) ?? [SerialOutput(port: serial), LogOutput(logger: Logger(label: "test") { _ in logs })],
            logger: { var l = Logger(label: "test") { _ in logs }; l.logLevel = .debug; return l }(), patterns: patterns, keepStreaming: keepStreaming, onEvent: onEvent)
        kiosk = VirtualKiosk(driver: driver, camera: camera, clock: clock, speaker: speaker)
    }

    var now: Duration { clock.now.offset }
    var status: KioskStatus { driver.status }

    func start() { kiosk.start() }
    func stop() { kiosk.stop() }
    func send(_ event: KioskEvent) { kiosk.send(event) }

    /// Moves virtual time forward by `total` (see `VirtualKiosk.advance`).
    func advance(_ total: Duration) { kiosk.advance(total) }

    /// The serial bytes so far, as text.
    func hostReceived() -> String { serial.text }

    /// The timed trace of the lines whose names start with one of `devices`, from `since` (ms).
    func timeline(_ devices: String..., since: Int = 0) -> [String] {
        trace.timeline.filter { entry in
            let parts = entry.split(separator: " ", maxSplits: 1)
            guard let t = Int(parts[0]), t >= since, parts.count == 2 else { return false }
            return devices.isEmpty || devices.contains { parts[1].hasPrefix($0 + " ") }
        }
    }

    /// Whether a log message contains `text`.
    func logged(_ text: String) -> Bool { logs.entries.contains { $0.message.description.contains(text) } }
}

/// The button of a `Harness`: each call is handled before it returns.
struct VirtualButton {
    let h: Harness
    init(_ h: Harness) { self.h = h }
    func press() { h.send(.buttonPressed) }
    func release() { h.send(.buttonReleased) }
    func click() { press(); release() }
}
