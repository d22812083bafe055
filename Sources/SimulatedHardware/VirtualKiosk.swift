import ScanCore
import ScanHardware
import ScanRuntime
import Synchronization

/// A `KioskLoop` on simulated hardware in virtual time: a manual clock moved by `advance`,
/// timers and pattern steps fired at their deadlines, and each frame the camera delivers while
/// capture runs decoded at its due time on the calling thread (the runtime's capture child and
/// decode thread, without threads). After each call the kiosk is where it will stay: tests and
/// the soak benchmark need no sleeps and no polling.
public final class VirtualKiosk {
    public let clock: ManualClock
    public let camera: SimulatedCamera<ManualClock>
    public let loop: KioskLoop
    /// The speaker, when speech is on: its reports are delivered at their virtual times.
    public let speaker: SimulatedSpeaker?
    private let speechInbox = Locked<[LoopInput]>([])
    private let handler = FrameHandler()
    /// Work whose frame failed: no frames for it until the work changes (as the runtime's child).
    private var failed: CaptureWork?

    /// `loop` must use `camera`, which must run on `clock`.
    public init(loop: KioskLoop, camera: SimulatedCamera<ManualClock>, clock: ManualClock, speaker: SimulatedSpeaker? = nil) {
        self.loop = loop
        self.camera = camera
        self.clock = clock
        self.speaker = speaker
        let inbox = speechInbox
        loop.onSpeech = { report in inbox.withLock { $0.append(report) } }
    }

    /// Virtual time since the clock was made.
    public var now: Duration { clock.now.offset }

    public func start() { loop.start(now: now) }
    public func stop() { loop.stop(now: now) }
    public func send(_ event: KioskEvent) {
        loop.handle(.kiosk(event), now: now)
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
            loop.fireDue(now: now)
            captureIfDue()
            speak()
        }
        if end > now { clock.advance(by: end - now) }
        loop.fireDue(now: now)
        speak()
    }

    /// The speaker's reports that are due, handed to the loop (outside its steps, as the
    /// runtime's speech child does).
    private func speak() {
        speaker?.deliverDue(now: now)
        for report in speechInbox.withLock({ r in defer { r = [] }; return r }) { loop.handle(report, now: now) }
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

    /// The next loop deadline or frame due time.
    private func nextEvent() -> Duration? {
        let work = loop.work
        let frameDue: Duration? = work == .none || work == failed ? nil : (camera.nextFrameDue?.offset ?? now)
        return [loop.nextDeadline, frameDue, speaker?.nextDue].compactMap { $0 }.min()
    }

    /// What the capture child does with a frame that is due: the frame handler's inputs, or
    /// the failure.
    private func captureIfDue() {
        let work = loop.work
        if work != failed { failed = nil }
        guard work != .none, work != failed, (camera.nextFrameDue?.offset ?? now) <= now else { return }
        do {
            let frame = try camera.takeFrame()
            for input in handler.inputs(for: frame, work: work, tuning: loop.tuning) { loop.handle(input, now: now) }
        } catch {
            let session: Int? = if case .decode(let s, _) = work { s } else { nil }
            failed = work
            loop.handle(.captureFailed(session: session, state: KioskLoop.cameraState(error), message: "\(error)"), now: now)
        }
    }
}
