import ScanHardware

/// An output line that records every change in a trace and can report to a callback (the
/// demo prints them).
public final class SimulatedLine: OutputLine, Sendable {
    public let name: String
    private let trace: Trace
    private let value = Locked(LineValue.inactive)
    private let onChange: (@Sendable (String, LineValue) -> Void)?

    /// A line that starts inactive, like a real one requested with an initial value.
    public init(name: String, trace: Trace, onChange: (@Sendable (String, LineValue) -> Void)? = nil) {
        self.name = name
        self.trace = trace
        self.onChange = onChange
    }

    public func set(_ newValue: LineValue) throws(HardwareError) {
        let changed = value.withLock { v -> Bool in defer { v = newValue }; return v != newValue }
        trace.record("\(name) \(newValue.rawValue)")
        if changed { onChange?(name, newValue) }
    }

    /// The line's current level.
    public var current: LineValue { value.withLock { $0 } }
}

/// A buzzer with a pitch (a passive buzzer on PWM): level changes and pitch changes
/// (`buzzer pitch 3200`) go to the trace.
public final class SimulatedToneLine: OutputLine, Sendable {
    public let name: String
    /// The pitch it was set up with (`buzzer.frequency_hz`).
    public let defaultHz: Int
    private let line: SimulatedLine
    private let trace: Trace
    private let hz: Locked<Int>

    public init(name: String, defaultHz: Int, trace: Trace, onChange: (@Sendable (String, LineValue) -> Void)? = nil) {
        self.name = name
        self.defaultHz = defaultHz
        self.trace = trace
        hz = Locked(defaultHz)
        line = SimulatedLine(name: name, trace: trace, onChange: onChange)
    }

    public func set(_ value: LineValue) throws(HardwareError) { try line.set(value) }

    /// Records `buzzer pitch 3200` (nil: back to `defaultHz`).
    public func setPitch(_ hz: Int?) throws(HardwareError) {
        let hz = hz ?? defaultHz
        self.hz.withLock { $0 = hz }
        trace.record("\(name) pitch \(hz)")
    }

    /// The pitch now.
    public var pitch: Int { hz.withLock { $0 } }
    public var current: LineValue { line.current }
}

/// A push button driven from code: `press()`, `release()`, `click()`.
public final class SimulatedButton: Button, Sendable {
    public let name: String
    private let stream: AsyncStream<ButtonEvent>
    private let continuation: AsyncStream<ButtonEvent>.Continuation

    public init(name: String = "button") {
        self.name = name
        (stream, continuation) = AsyncStream.makeStream(of: ButtonEvent.self)
    }

    public func events() -> AsyncStream<ButtonEvent> { stream }
    public func press() { continuation.yield(ButtonEvent(.pressed)) }
    public func release() { continuation.yield(ButtonEvent(.released)) }
    /// A press and its release.
    public func click() { press(); release() }
}
