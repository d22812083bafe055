import ScanHardware
import Synchronization

/// An output line that records every change in a trace and can report to a callback (the
/// demo prints them).
public final class SimulatedLine: OutputLine, Sendable {
    public let name: String
    private let trace: Trace
    private let value = Mutex(LineValue.inactive)
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
