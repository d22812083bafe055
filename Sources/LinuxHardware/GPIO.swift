import CGPIOD
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// The libgpiod 1.6 calls the GPIO drivers make: the seam where tests script chips, lines and
/// edge events. `.system` is the real library.
// Unchecked: its libgpiod closures are plain functions and C pointers, not @Sendable closures.
public struct GPIOCalls: @unchecked Sendable {
    public var openChip: (_ descriptor: String) -> OpaquePointer?
    public var closeChip: (_ chip: OpaquePointer) -> Void
    public var chipName: (_ chip: OpaquePointer) -> String
    public var getLine: (_ chip: OpaquePointer, _ offset: UInt32) -> OpaquePointer?
    public var requestOutput: (_ line: OpaquePointer, _ flags: Int32, _ initial: Int32) -> Int32
    public var requestEdges: (_ line: OpaquePointer, _ flags: Int32) -> Int32
    public var setValue: (_ line: OpaquePointer, _ value: Int32) -> Int32
    public var getValue: (_ line: OpaquePointer) -> Int32
    public var eventFD: (_ line: OpaquePointer) -> Int32
    /// Reads one edge event: (result, rising, timestamp in ns).
    public var readEvent: (_ line: OpaquePointer) -> (result: Int32, rising: Bool, nanos: UInt64)
    public var release: (_ line: OpaquePointer) -> Void
    /// The consumer name of whoever holds the line, after refreshing the line's info.
    public var holder: (_ line: OpaquePointer) -> String?
    public var syscalls: Syscalls

    public static let system = GPIOCalls(
        openChip: { gpiod_chip_open_lookup($0) },
        closeChip: { gpiod_chip_close($0) },
        chipName: { String(cString: gpiod_chip_name($0)) },
        getLine: { gpiod_chip_get_line($0, $1) },
        requestOutput: { gpiod_line_request_output_flags($0, "scand", $1, $2) },
        requestEdges: { gpiod_line_request_both_edges_events_flags($0, "scand", $1) },
        setValue: { gpiod_line_set_value($0, $1) },
        getValue: { gpiod_line_get_value($0) },
        eventFD: { gpiod_line_event_get_fd($0) },
        readEvent: { line in
            var event = gpiod_line_event()
            let rc = gpiod_line_event_read(line, &event)
            let nanos = UInt64(max(0, event.ts.tv_sec)) * 1_000_000_000 + UInt64(max(0, event.ts.tv_nsec))
            return (rc, event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE), nanos)
        },
        release: { gpiod_line_release($0) },
        holder: { line in
            _ = gpiod_line_update(line)
            return gpiod_line_consumer(line).map { String(cString: $0) }
        },
        syscalls: .system
    )
}

/// How a line is requested: the board config's electrical settings, applied by the driver so that
/// nothing above it knows about volts.
public struct LineSettings: Sendable, Equatable {
    public enum Bias: Sendable, Equatable { case asIs, disabled, pullUp, pullDown }
    /// Chip name, path, label or number, as `gpiod_chip_open_lookup` takes it.
    public var chip: String
    public var offset: UInt32
    public var activeLow: Bool
    public var bias: Bias

    public init(chip: String, offset: UInt32, activeLow: Bool = false, bias: Bias = .asIs) {
        self.chip = chip
        self.offset = offset
        self.activeLow = activeLow
        self.bias = bias
    }

    var flags: Int32 {
        var f: UInt = 0
        if activeLow { f |= UInt(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) }
        switch bias {
        case .asIs: break
        case .disabled: f |= UInt(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
        case .pullUp: f |= UInt(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
        case .pullDown: f |= UInt(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        }
        return Int32(f)
    }

    var label: String { "\(chip):\(offset)" }
}

/// A requested line: owns the chip handle and the request, releases both in `deinit`.
// Unchecked: it holds libgpiod's C handles (OpaquePointer, not Sendable), never reassigned after init.
final class RequestedLine: @unchecked Sendable {
    let gpio: GPIOCalls
    let chip: OpaquePointer
    let line: OpaquePointer
    let device: String

    /// Opens the chip, finds the line and requests it with `request` (which returns the libgpiod
    /// result). A line held by another program names its holder.
    init(_ settings: LineSettings, role: String, gpio: GPIOCalls, operation: String,
         request: (OpaquePointer) -> Int32) throws(HardwareError) {
        self.gpio = gpio
        device = "\(role) (\(settings.label))"
        guard let chip = gpio.openChip(settings.chip) else {
            let code = gpio.syscalls.errno()
            throw HardwareError(HardwareError.kind(forErrno: code), operation: "gpiod_chip_open_lookup", device: settings.chip,
                                errno: code, hint: Hints.gpio(code) ?? "list chips with `gpiodetect` or `scand probe`")
        }
        guard let line = gpio.getLine(chip, settings.offset) else {
            let code = gpio.syscalls.errno()
            gpio.closeChip(chip)
            throw HardwareError(.notFound, operation: "gpiod_chip_get_line", device: settings.label, errno: code,
                                hint: "the chip has no line \(settings.offset); `gpioinfo` lists its lines")
        }
        if request(line) < 0 {
            let code = gpio.syscalls.errno()
            var hint = Hints.gpio(code)
            if code == EBUSY, let holder = gpio.holder(line), !holder.isEmpty {
                hint = "held by \"\(holder)\"; stop that program or choose another pin"
            }
            gpio.closeChip(chip)
            throw HardwareError(HardwareError.kind(forErrno: code), operation: operation, device: "\(role) (\(settings.label))",
                                errno: code, hint: hint)
        }
        self.chip = chip
        self.line = line
    }

    deinit {
        gpio.release(line)
        gpio.closeChip(chip)
    }
}

/// An output line through libgpiod: torch, buzzer, status LED. Requested inactive.
public final class GPIOOutputLine: OutputLine, Sendable {
    public let name: String
    private let requested: RequestedLine

    /// Requests the line as an output, initially inactive (`gpiod_line_request_output_flags`).
    public init(role: String, settings: LineSettings, gpio: GPIOCalls = .system) throws(HardwareError) {
        requested = try RequestedLine(settings, role: role, gpio: gpio, operation: "gpiod_line_request_output_flags") {
            gpio.requestOutput($0, settings.flags, 0)
        }
        name = requested.device
    }

    /// Drives the line (`gpiod_line_set_value`; active-low is applied by the request).
    public func set(_ value: LineValue) throws(HardwareError) {
        let gpio = requested.gpio
        try gpio.syscalls.check("gpiod_line_set_value", device: name) { gpio.setValue(requested.line, value.isActive ? 1 : 0) }
    }
}

/// The trigger button through libgpiod: both-edge events from the request's file descriptor,
/// waited for with poll(2) on a thread of its own (no sysfs, no polling loop), debounced in
/// software with the board config's period.
public final class GPIOButton: Button, Sendable {
    public let name: String
    private let requested: RequestedLine
    private let debounce: Duration
    private let stream: AsyncStream<ButtonEvent>
    private let continuation: AsyncStream<ButtonEvent>.Continuation
    private let wake: (read: Int32, write: Int32)
    private let started = Locked(false)
    /// The level when the line was requested: the kernel queues every edge from then on, so a
    /// press before anyone reads the events is still seen.
    private let initiallyPressed: Bool

    /// Requests the line for both-edge events (`gpiod_line_request_both_edges_events_flags`).
    public init(settings: LineSettings, debounce: Duration, gpio: GPIOCalls = .system) throws(HardwareError) {
        requested = try RequestedLine(settings, role: "button", gpio: gpio, operation: "gpiod_line_request_both_edges_events_flags") {
            gpio.requestEdges($0, settings.flags)
        }
        name = requested.device
        initiallyPressed = gpio.getValue(requested.line) == 1
        self.debounce = debounce
        (stream, continuation) = AsyncStream.makeStream(of: ButtonEvent.self)
        guard let pipe = makeWakePipe() else { throw HardwareError(.other, operation: "pipe", device: name, errno: errno) }
        wake = pipe
    }

    deinit {
        wakeUp(wake.write)
        // The thread closes the read end; the write end is ours.
        if !started.withLock({ $0 }) { close(wake.read) }
        close(wake.write)
        continuation.finish()
    }

    public func events() -> AsyncStream<ButtonEvent> {
        let first = started.withLock { s -> Bool in defer { s = true }; return !s }
        if first {
            let line = requested, wakeFD = wake.read, debounce = self.debounce, continuation = self.continuation
            let initial = initiallyPressed
            spawnThread { Self.loop(line, wake: wakeFD, debounce: debounce, initiallyPressed: initial, continuation) }
        }
        return stream
    }

    /// Waits for edges and feeds them through the debouncer until woken through the pipe.
    static func loop(_ line: RequestedLine, wake: Int32, debounce: Duration, initiallyPressed: Bool,
                     _ out: AsyncStream<ButtonEvent>.Continuation) {
        let gpio = line.gpio
        let sys = gpio.syscalls
        var debouncer = Debouncer(period: debounce, initiallyPressed: initiallyPressed)
        let eventFD = gpio.eventFD(line.line)
        defer { close(wake) }
        while true {
            var fds = [pollfd(fd: eventFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let now = monotonicNanos()
            let timeout = debouncer.settleDelay(now: now).map { Int32(min($0 / 1_000_000 + 1, 10_000)) } ?? -1
            let n = fds.withUnsafeMutableBufferPointer { sys.poll($0.baseAddress, 2, timeout) }
            if n < 0 {
                if sys.errno() == EINTR { continue }
                out.finish(); return
            }
            if fds[1].revents != 0 { out.finish(); return }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { out.finish(); return }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let e = gpio.readEvent(line.line)
                if e.result < 0 { out.finish(); return }
                if let event = debouncer.edge(toPressed: e.rising, at: e.nanos) { out.yield(event) }
            } else if n == 0, debouncer.settleDelay(now: monotonicNanos()) != nil {
                let level = gpio.getValue(line.line)
                if level >= 0, let event = debouncer.settle(levelPressed: level == 1, at: monotonicNanos()) { out.yield(event) }
            }
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds (libgpiod 1.6 stamps edge events with it).
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
