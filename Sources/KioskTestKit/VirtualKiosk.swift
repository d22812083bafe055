import ScanCore
import ScanHardware
import ScanRuntime
import SimulatedHardware
import Synchronization

/// A kiosk on simulated hardware in virtual time: the runtime's own driver (`KioskDriver`: the
/// pure core and the hardware) and capture pipeline (`CapturePipeline`), scheduled by a manual
/// clock moved by `advance` instead of by threads: timers and pattern steps fire at their
/// deadlines, and each frame the camera delivers while capture runs gets its first look at its
/// due time and, when that found nothing, its deep passes at once (the runtime gives them on a
/// second thread to the newest such frame). After each call the kiosk is where it will stay:
/// tests and the soak benchmark need no sleeps and no polling.
public final class VirtualKiosk {
    public let clock: ManualClock
    public let camera: SimulatedCamera<ManualClock>
    public let driver: KioskDriver
    /// The speaker, when speech is on: its reports are delivered at their virtual times.
    public let speaker: SimulatedSpeaker?
    private let speechInbox = Locked<[KioskCore.Input]>([])
    private let pipeline = CapturePipeline()
    /// Work whose frame failed: no frames for it until the work changes (as the runtime's child).
    private var failed: CaptureWork?

    /// `driver` must use `camera`, which must run on `clock`.
    public init(driver: KioskDriver, camera: SimulatedCamera<ManualClock>, clock: ManualClock, speaker: SimulatedSpeaker? = nil) {
        self.driver = driver
        self.camera = camera
        self.clock = clock
        self.speaker = speaker
        let inbox = speechInbox
        driver.onSpeech = { report in inbox.withLock { $0.append(report) } }
    }

    /// Virtual time since the clock was made.
    public var now: Duration { clock.now.offset }

    public func start() { driver.start(now: now) }
    public func stop() { driver.stop(now: now) }
    public func send(_ event: KioskEvent) {
        driver.handle(.kiosk(event), now: now)
        speak()
    }
    public func press() { send(.buttonPressed) }
    public func release() { send(.buttonReleased) }
    public func click() { press(); release() }

    /// Moves virtual time forward by `total`, firing what falls due in deadline order.
    public func advance(_ total: Duration) {
        let end = now + total
        while let next = nextEvent(), next <= end {
            if next > now { clock.advance(by: next - now) }
            driver.fireDue(now: now)
            captureIfDue()
            speak()
        }
        if end > now { clock.advance(by: end - now) }
        driver.fireDue(now: now)
        speak()
    }

    /// The speaker's reports that are due, handed to the driver (outside its steps, as the
    /// runtime's speech child does).
    private func speak() {
        speaker?.deliverDue(now: now)
        for report in speechInbox.withLock({ r in defer { r = [] }; return r }) { driver.handle(report, now: now) }
    }

    /// Advances in steps of `step` until `condition` holds or `limit` has passed; whether it held.
    @discardableResult
    public func advance(until condition: () -> Bool, step: Duration = .milliseconds(10), limit: Duration) -> Bool {
        var spent = Duration.zero
        while !condition() {
            guard spent < limit else { return false }
            advance(step)
            spent += step
        }
        return true
    }

    /// The next deadline or frame due time.
    private func nextEvent() -> Duration? {
        let work = driver.work
        let frameDue: Duration? = work == .none || work == failed ? nil : (camera.nextFrameDue?.offset ?? now)
        return [driver.nextDeadline, frameDue, speaker?.nextDue].compactMap { $0 }.min()
    }

    /// A frame that is due, through the runtime's capture pipeline: its first look, then its
    /// deep passes; or the failure.
    private func captureIfDue() {
        let work = driver.work
        if work != failed { failed = nil }
        guard work != .none, work != failed, (camera.nextFrameDue?.offset ?? now) <= now else { return }
        do {
            let frame = try camera.takeFrame()
            let (inputs, deep) = pipeline.firstLook(for: frame, work: work, tuning: driver.tuning)
            for input in inputs { driver.handle(input, now: now) }
            guard let deep else { return }
            let driver = self.driver
            let found = pipeline.deepLook(deep, current: { driver.work == deep.work }, now: now,
                                          torchOn: driver.core.machine.torch == .on)
            for input in found { driver.handle(input, now: now) }
        } catch {
            let session: Int? = if case .decode(let s, _) = work { s } else { nil }
            failed = work
            driver.handle(.captureFailed(session: session, state: KioskDriver.cameraState(error),
                                         message: "camera \(camera.name): \(error)"), now: now)
        }
    }
}
