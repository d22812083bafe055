import ScanCore
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

    public static let standard = FeedbackPatterns(
        buzzer: [
            .goodRead: .pulses(1, on: .milliseconds(80), off: .zero),
            .confirmed: .pulses(1, on: .milliseconds(40), off: .zero),
            .noRead: .pulses(2, on: .milliseconds(250), off: .milliseconds(120)),
            .error: .pulses(3, on: .milliseconds(100), off: .milliseconds(80)),
            .cancelled: .pulses(1, on: .milliseconds(30), off: .zero),
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
        ]
    )
}
