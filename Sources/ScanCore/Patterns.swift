import ScanHardware

/// A timed sequence of line levels: a beep, a blink, a steady light.
public struct Pattern: Equatable, Sendable {
    public var steps: [Step]
    /// Whether the steps repeat until something else is played.
    public var repeats: Bool

    public struct Step: Equatable, Sendable {
        public var value: LineValue
        public var duration: Duration
        public init(_ value: LineValue, _ duration: Duration) { self.value = value; self.duration = duration }
    }

    public init(_ steps: [Step], repeats: Bool = false) { self.steps = steps; self.repeats = repeats }

    /// A line held at `value`.
    public static func steady(_ value: LineValue) -> Pattern { Pattern([Step(value, .zero)]) }

    /// `count` pulses of `on`, `off` apart, then off; repeating every `period` when given.
    public static func pulses(_ count: Int, on: Duration, off: Duration, period: Duration? = nil) -> Pattern {
        var steps: [Step] = []
        for i in 0..<count {
            steps.append(Step(.active, on))
            steps.append(Step(.inactive, i == count - 1 ? .zero : off))
        }
        if let period {
            let used = on * count + off * (count - 1)
            steps[steps.count - 1].duration = max(period - used, .milliseconds(1))
            return Pattern(steps, repeats: true)
        }
        return Pattern(steps)
    }
}

/// How each feedback and status indication looks and sounds. Distinct for every camera state.
public struct FeedbackPatterns: Sendable {
    public var buzzer: [Feedback: Pattern]
    /// The LED's one-shot animation for a feedback (the good-read flash), played over the status.
    public var ledFlash: [Feedback: Pattern]
    public var status: [StatusIndication: Pattern]
    /// The torch as the flash, per feedback (none by default).
    public var torchFlash: [Feedback: Pattern] = [:]
    /// The buzzer's pitch per feedback, in Hz (a tone line only; missing: its own pitch).
    public var tone: [Feedback: Int] = [:]
    /// A beep when the kiosk enters an indication (none built in: the camera states have LED
    /// patterns and, with speech, announcements).
    public var entryBeep: [StatusIndication: Pattern] = [:]

    public static let standard = FeedbackPatterns(
        buzzer: [
            .goodRead: .pulses(1, on: .milliseconds(80), off: .zero),
            .confirmed: .pulses(1, on: .milliseconds(40), off: .zero),
            .noRead: .pulses(2, on: .milliseconds(250), off: .milliseconds(120)),
            .error: .pulses(3, on: .milliseconds(100), off: .milliseconds(80)),
            .cancelled: .pulses(1, on: .milliseconds(30), off: .zero),
            .rejected: .pulses(2, on: .milliseconds(60), off: .milliseconds(60)),
        ],
        ledFlash: [
            .goodRead: .pulses(3, on: .milliseconds(60), off: .milliseconds(60)),
            .confirmed: .pulses(1, on: .milliseconds(120), off: .zero),
        ],
        status: [
            .starting: .steady(.inactive),
            .ready: .steady(.active),
            .scanning: .pulses(1, on: .milliseconds(100), off: .zero, period: .milliseconds(200)),
            .awaitingConfirmation: .pulses(1, on: .milliseconds(500), off: .zero, period: .milliseconds(1000)),
            .cameraUnavailable: .pulses(2, on: .milliseconds(150), off: .milliseconds(150), period: .seconds(2)),
            .cameraInUse: .pulses(3, on: .milliseconds(150), off: .milliseconds(150), period: .seconds(2)),
            .cameraPermissionDenied: .pulses(4, on: .milliseconds(150), off: .milliseconds(150), period: .seconds(2)),
            .cameraDisconnected: .pulses(1, on: .milliseconds(50), off: .zero, period: .milliseconds(250)),
            .outputsFull: .pulses(2, on: .milliseconds(500), off: .milliseconds(250), period: .seconds(2)),
        ]
    )
}

extension FeedbackPatterns {
    /// These patterns with the integrator's (on/off milliseconds, starting with on): `beep`,
    /// `flash` and `torch` (the torch as the flash) are one-shot per outcome, `led` repeats per indication (`[1]` steady on, `[0]`
    /// off). What is not given keeps its pattern.
    public func replacing(beep: [Feedback: [Int]], flash: [Feedback: [Int]], led: [StatusIndication: [Int]],
                          torch: [Feedback: [Int]] = [:], tone: [Feedback: Int] = [:],
                          entryBeep: [StatusIndication: [Int]] = [:]) -> FeedbackPatterns {
        var p = self
        p.tone.merge(tone) { $1 }
        for (indication, ms) in entryBeep { p.entryBeep[indication] = ms.isEmpty ? nil : Pattern(onOff: ms, repeats: false) }
        for (outcome, ms) in torch { p.torchFlash[outcome] = ms.isEmpty ? nil : Pattern(onOff: ms, repeats: false) }
        // `[]`: none at all (the status pattern is not interrupted).
        for (outcome, ms) in beep { p.buzzer[outcome] = ms.isEmpty ? nil : Pattern(onOff: ms, repeats: false) }
        for (outcome, ms) in flash { p.ledFlash[outcome] = ms.isEmpty ? nil : Pattern(onOff: ms, repeats: false) }
        for (indication, ms) in led {
            p.status[indication] = ms == [1] ? .steady(.active) : ms == [0] ? .steady(.inactive) : Pattern(onOff: ms, repeats: true)
        }
        return p
    }
}

extension Pattern {
    /// Alternating on and off steps of `milliseconds`, starting with on; a one-shot ends off.
    public init(onOff milliseconds: [Int], repeats: Bool) {
        var steps = milliseconds.enumerated().map { i, ms in Step(i % 2 == 0 ? .active : .inactive, .milliseconds(ms)) }
        if !repeats { steps.append(Step(.inactive, .zero)) }
        self.init(steps, repeats: repeats)
    }

    /// `pattern`'s on/off milliseconds as a JSON array (`[]` for none), for events.
    public static func stepsJSON(_ pattern: Pattern?) -> String {
        "[" + (pattern?.onOffMilliseconds ?? []).map(String.init).joined(separator: ",") + "]"
    }

    /// The pattern as on/off milliseconds (what the `feedback` event carries).
    public var onOffMilliseconds: [Int] {
        steps.filter { $0.duration > .zero }.map { Int($0.duration.components.seconds * 1000 + $0.duration.components.attoseconds / 1_000_000_000_000_000) }
    }
}
