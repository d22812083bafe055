import ScanHardware

/// Plays feedback and status patterns on the buzzer and the status LED. Pure: it says which
/// line goes to which level, and when it next wants to be asked (`nextDeadline`); time is an
/// input. The LED shows the status pattern; a feedback flash (the good-read animation) plays
/// over it and the status pattern comes back when the flash is over.
public struct IndicatorPlayer: Sendable {
    public enum Channel: String, Sendable, CaseIterable { case buzzer, statusLED = "status_led", torch }

    public struct Change: Equatable, Sendable {
        public var channel: Channel
        public var value: LineValue
        /// Before the level: the buzzer's pitch changes (Hz; nil inside: back to its own pitch).
        public var pitch: Int??
        public init(_ channel: Channel, _ value: LineValue, pitch: Int?? = nil) {
            self.channel = channel
            self.value = value
            self.pitch = pitch
        }
    }

    private struct Playing: Sendable {
        var pattern: Pattern
        var step: Int
        /// When the current step ends; nil while a step holds until something else plays.
        var ends: Duration?
    }

    public let patterns: FeedbackPatterns
    private var playing: [Channel: Playing] = [:]
    /// The LED's status pattern, shown whenever no flash plays.
    private var status = Pattern.steady(.inactive)
    private var flashing = false
    /// The buzzer's pitch as last set (nil: its own).
    private var pitch: Int?
    /// The indication shown last.
    private var shown: StatusIndication?

    public init(patterns: FeedbackPatterns) { self.patterns = patterns }

    /// When the next step is due, if any pattern is timed.
    public var nextDeadline: Duration? { playing.values.compactMap(\.ends).min() }

    /// The one-shot feedback: its beep, and (unless `flash` is false) its LED flash over the
    /// status pattern.
    public mutating func feedback(_ feedback: Feedback, flash: Bool = true, now: Duration) -> [Change] {
        var changes: [Change] = []
        if let p = patterns.buzzer[feedback] { changes += beepChanges(p, pitch: patterns.tone[feedback], now: now) }
        if flash, let p = patterns.ledFlash[feedback] {
            flashing = true
            changes += start(.statusLED, p, now: now)
        }
        if let p = patterns.torchFlash[feedback] { changes += start(.torch, p, now: now) }
        return changes
    }

    /// Stops what plays on `channel` without touching the line (the torch, when the kiosk
    /// drives it itself).
    public mutating func release(_ channel: Channel) {
        playing[channel] = nil
    }

    /// The LED's steady indication; a running flash finishes first.
    /// Entering an indication with a beep of its own (`[feedback.camera_disconnected] beep`)
    /// sounds it once; the same indication again does not.
    public mutating func indicate(_ indication: StatusIndication, now: Duration) -> [Change] {
        status = patterns.status[indication] ?? .steady(.inactive)
        var changes = flashing ? [] : start(.statusLED, status, now: now)
        if indication != shown, let beep = patterns.entryBeep[indication] { changes += beepChanges(beep, pitch: nil, now: now) }
        shown = indication
        return changes
    }

    /// The steps that are due by `now`, in time order.
    public mutating func advance(to now: Duration) -> [Change] {
        var changes: [Change] = []
        while let (channel, due) = playing.compactMap({ c, p in p.ends.map { (c, $0) } }).min(by: { $0.1 < $1.1 }), due <= now {
            changes += next(channel, at: due)
        }
        return changes
    }

    /// Everything off (shutdown); the torch only if a flash was playing on it (the kiosk
    /// turns its own torch off).
    public mutating func stop() -> [Change] {
        let channels = Channel.allCases.filter { $0 != .torch || playing[.torch] != nil }
        playing = [:]
        flashing = false
        return channels.map { Change($0, .inactive) }
    }

    // MARK: - Steps

    /// A beep at `pitch` (nil: the buzzer's own), the pitch changed only when it differs.
    private mutating func beepChanges(_ pattern: Pattern, pitch wanted: Int?, now: Duration) -> [Change] {
        var beep = start(.buzzer, pattern, now: now)
        if wanted != pitch, !beep.isEmpty {
            pitch = wanted
            beep[0].pitch = .some(wanted)
        }
        return beep
    }

    private mutating func start(_ channel: Channel, _ pattern: Pattern, now: Duration) -> [Change] {
        playing[channel] = Playing(pattern: pattern, step: 0, ends: nil)
        return enter(channel, at: now)
    }

    /// Sets the level of the current step; zero-length steps other than a final hold pass at once.
    private mutating func enter(_ channel: Channel, at now: Duration) -> [Change] {
        var changes: [Change] = []
        while var p = playing[channel] {
            let step = p.pattern.steps[p.step]
            changes.append(Change(channel, step.value))
            if step.duration > .zero {
                p.ends = now + step.duration
                playing[channel] = p
                return changes
            }
            if p.step + 1 < p.pattern.steps.count {
                p.step += 1
                playing[channel] = p
                continue
            }
            // A final zero-length step holds its level (a steady light) or ends a one-shot.
            p.ends = nil
            playing[channel] = p
            if !p.pattern.repeats { changes += finished(channel, at: now) }
            return changes
        }
        return changes
    }

    private mutating func next(_ channel: Channel, at now: Duration) -> [Change] {
        guard var p = playing[channel] else { return [] }
        p.step += 1
        if p.step >= p.pattern.steps.count {
            guard p.pattern.repeats else {
                p.ends = nil
                playing[channel] = p
                return finished(channel, at: now)
            }
            p.step = 0
        }
        playing[channel] = p
        return enter(channel, at: now)
    }

    private mutating func finished(_ channel: Channel, at now: Duration) -> [Change] {
        guard channel == .statusLED, flashing else { return [] }
        flashing = false
        return start(.statusLED, status, now: now)
    }
}
