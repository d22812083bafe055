import ScanHardware

/// A speaker that takes `perCharacter` per character of text (espeak-ng at 175 words a minute
/// says about 14 characters a second) and records what it says in the trace:
/// `speaker say <text>`, `speaker said <text>`, `speaker cut <text>`.
///
/// Its reports never come from inside `say` or `cutShort` (a real speaker reports from its own
/// thread): they wait for `deliverDue(now:)` (virtual time, `VirtualKiosk`) or, with
/// `selfTimed`, are delivered by a task of their own on the real clock (the demo).
public final class SimulatedSpeaker: Speaker, Sendable {
    public let name: String
    private let trace: Trace
    private let perCharacter: Duration
    private let now: @Sendable () -> Duration
    private let selfTimed: Bool
    private let onSay: (@Sendable (String) -> Void)?

    private struct Saying {
        var text: String
        var ends: Duration
        var started: (@Sendable () -> Void)?
        var ended: @Sendable (SpeechEnd) -> Void
    }
    private struct State {
        var saying: Saying?
        /// Reports due now (cuts, failures), delivered with the next `deliverDue`.
        var reports: [@Sendable () -> Void] = []
        var failNext: String?
    }
    private let state = Locked(State())

    /// - Parameters:
    ///   - now: the time (virtual or real) since some start.
    ///   - onSay: told each text when it starts (the demo prints it).
    public init(name: String = "speaker", trace: Trace, perCharacter: Duration = .milliseconds(70),
                now: @escaping @Sendable () -> Duration, selfTimed: Bool = false, onSay: (@Sendable (String) -> Void)? = nil) {
        self.name = name
        self.trace = trace
        self.perCharacter = perCharacter
        self.now = now
        self.selfTimed = selfTimed
        self.onSay = onSay
    }

    /// The next `say` fails with `reason` (a broken audio device).
    public func failNext(_ reason: String) { state.withLock { $0.failNext = reason } }

    public func say(_ text: String, started: @escaping @Sendable () -> Void, ended: @escaping @Sendable (SpeechEnd) -> Void) {
        let length = perCharacter * text.count
        let failed = state.withLock { s -> Bool in
            if let cut = s.saying {
                s.reports.append { cut.ended(.cutShort) }
                trace.record("speaker cut \(cut.text)")
            }
            s.saying = nil
            if let reason = s.failNext {
                s.failNext = nil
                s.reports.append { ended(.failed(reason)) }
                return true
            }
            s.saying = Saying(text: text, ends: now() + length, started: started, ended: ended)
            return false
        }
        trace.record(failed ? "speaker failed \(text)" : "speaker say \(text)")
        if !failed { onSay?(text) }
        if selfTimed { deliverLater(after: failed ? .zero : length) }
    }

    public func cutShort() {
        let cut = state.withLock { s -> Bool in
            guard let cut = s.saying else { return false }
            s.saying = nil
            s.reports.append { cut.ended(.cutShort) }
            trace.record("speaker cut \(cut.text)")
            return true
        }
        if cut, selfTimed { deliverLater(after: .zero) }
    }

    /// When the next report is due (nil: none).
    public var nextDue: Duration? {
        state.withLock { s in s.reports.isEmpty && s.saying?.started == nil ? s.saying?.ends : now() }
    }

    /// Delivers the reports due by `now`: starts, cuts, failures, and the end of what has been
    /// said to its end.
    public func deliverDue(now: Duration) {
        let due = state.withLock { s -> [@Sendable () -> Void] in
            var due = s.reports
            s.reports = []
            if let started = s.saying?.started {
                due.append(started)
                s.saying?.started = nil
            }
            if let saying = s.saying, saying.ends <= now {
                s.saying = nil
                trace.record("speaker said \(saying.text)")
                due.append { saying.ended(.said) }
            }
            return due
        }
        for report in due { report() }
    }

    private func deliverLater(after: Duration) {
        let now = self.now
        Task {
            deliverDue(now: now())
            try? await Task.sleep(for: after)
            deliverDue(now: now())
        }
    }
}
