import Logging
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Somewhere a result goes: the serial port, a USB keyboard gadget, stdout, the log.
public protocol ResultOutput: Sendable {
    var name: String { get }
    /// Takes one result (read at `unixMillis`, wall clock); throws when it could not be written
    /// now (it is then kept and retried by `retry()` where the output keeps results). The error
    /// names the result and says what becomes of it.
    func deliver(_ result: ScanResult, unixMillis: Int64) throws
    /// Stores `result` (read at `unixMillis`) where the output keeps results, without sending it
    /// yet: an announcement plays first. `deliver` with the same result sends it, without storing
    /// it again; after a restart it is sent with the other kept results. An output that keeps
    /// nothing does nothing here.
    func hold(_ result: ScanResult, unixMillis: Int64) throws
    /// Results kept for a retry.
    var pendingCount: Int { get }
    /// The file that keeps them across a stop; nil where they are kept in memory only.
    var keptIn: String? { get }
    /// How many more results it takes before it refuses one (`outbox.policy = reject-new`);
    /// nil: it never refuses a result.
    var room: Int? { get }
    /// Calls `changed` (on any thread) when a kept result leaves by itself, outside `deliver`
    /// and `retry` (a broker's acknowledgement): its room is free again.
    func whenDelivered(_ changed: @escaping @Sendable () -> Void)
    /// Results its outbox file could not take (kept in memory and sent) and results it parked
    /// because it can never carry them.
    var counts: OutputCounts { get }
    /// Writes what is kept and due, oldest first, stopping at the first failure.
    func retry() throws
    /// The host acknowledged result `seq`; false when this output did not wait for it.
    func acknowledge(_ seq: Int) -> Bool
    /// A connection's state for the status (`connected`, `disconnected (...)`); nil for outputs
    /// without one.
    var connection: String? { get }
}

/// Per-output counters for the status and metrics.
public struct OutputCounts: Equatable, Sendable {
    public var notStored = 0
    public var parked = 0
    /// Host commands from a broker refused (`ERR busy`: over the rate, or too many waiting).
    public var commandsRefused = 0
    /// Command replies dropped because the broker link was full.
    public var repliesDropped = 0
    public init(notStored: Int = 0, parked: Int = 0, commandsRefused: Int = 0, repliesDropped: Int = 0) {
        self.notStored = notStored
        self.parked = parked
        self.commandsRefused = commandsRefused
        self.repliesDropped = repliesDropped
    }
    public static func + (a: Self, b: Self) -> Self {
        OutputCounts(notStored: a.notStored + b.notStored, parked: a.parked + b.parked, commandsRefused: a.commandsRefused + b.commandsRefused,
                     repliesDropped: a.repliesDropped + b.repliesDropped)
    }
}

extension ResultOutput {
    public func hold(_ result: ScanResult, unixMillis: Int64) throws {}
    public var pendingCount: Int { 0 }
    public var keptIn: String? { nil }
    public var room: Int? { nil }
    public func whenDelivered(_ changed: @escaping @Sendable () -> Void) {}
    public var counts: OutputCounts { OutputCounts() }
    public func retry() throws {}
    public func acknowledge(_ seq: Int) -> Bool { false }
    public var connection: String? { nil }
}

/// A result an output can never carry (a character the HID layout cannot type): thrown by a
/// writer, it parks that result and lets the ones behind it go on.
public struct UndeliverableResult: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// An output whose writes can fail (a port unplugged, a host not reading): every result goes to
/// its outbox first and leaves it only once written — or, with `requiresAck`, once the host
/// acknowledged its sequence number (`ACK n`). Results pending while the host or port is gone
/// are sent, in order, when it is back. An unacknowledged result is sent again only when it is
/// due: `resendAfter` retries (seconds) after it was last sent.
public final class DeliveringOutput: ResultOutput, Sendable {
    public let name: String
    public let format: OutputFormat
    public let outbox: Outbox
    public let requiresAck: Bool
    public let resendAfter: Int
    private let writer: @Sendable ([UInt8]) throws -> Void
    private let logger: Logger
    private struct State {
        /// Sent and waiting for the host's ACK.
        var window: AckWindow
        var parked = 0
    }
    private let state: Locked<State>
    private let lock = ThreadLock()

    public init(name: String, format: OutputFormat, outbox: Outbox = try! Outbox(path: nil, capacity: 100),
                requiresAck: Bool = false, resendAfter: Int = 5, logger: Logger = Logger(label: "scand.output"),
                writer: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.name = name
        self.format = format
        self.outbox = outbox
        self.requiresAck = requiresAck
        self.resendAfter = max(1, resendAfter)
        state = Locked(State(window: AckWindow(resendAfter: resendAfter)))
        self.logger = logger
        self.writer = writer
    }

    /// Results on a serial port.
    public convenience init(port: any SerialPort, format: OutputFormat, outbox: Outbox = try! Outbox(path: nil, capacity: 100),
                            requiresAck: Bool = false, logger: Logger = Logger(label: "scand.output")) {
        // A name goes into log lines and host answers: a device path's control characters as
        // `\xNN` (a newline in it would split an answer line in two).
        self.init(name: "serial \(PayloadText.escaped(port.name))", format: format, outbox: outbox, requiresAck: requiresAck, logger: logger) { try port.write($0) }
    }

    public var pendingCount: Int { outbox.pending.count }
    public var keptIn: String? { outbox.path }
    public var room: Int? { outbox.room }
    public var counts: OutputCounts { OutputCounts(notStored: outbox.notStored, parked: state.withLock { $0.parked }) }

    public func deliver(_ result: ScanResult, unixMillis: Int64) throws {
        try outbox.keep(Outbox.Entry(seq: result.sequence, bytes: format.render(result, unixMillis: unixMillis)), for: name, logger: logger)
        try flush()
    }

    public func hold(_ result: ScanResult, unixMillis: Int64) throws {
        try outbox.keep(Outbox.Entry(seq: result.sequence, bytes: format.render(result, unixMillis: unixMillis)), held: true,
                        for: name, logger: logger)
    }

    /// Writes every pending result not yet sent, in order; parks what can never be written.
    func flush() throws {
        try lock.withLock {
            for entry in outbox.pending where !state.withLock({ $0.window.isWaiting(entry.seq) }) {
                try send(entry)
            }
        }
    }

    private func send(_ entry: Outbox.Entry) throws {
        do { try writer(entry.bytes) } catch let error as UndeliverableResult {
            outbox.park(entry.seq)
            state.withLock { $0.parked += 1 }
            logger.error("output \(name): result \(entry.seq) parked, never written: \(error); the results after it go on")
            return
        } catch {
            let failure = error as? HardwareError ?? HardwareError(.other, operation: "write", device: name, summary: "\(error)")
            throw failure.failing("result \(entry.seq) not written", then: "kept and retried every second")
        }
        if requiresAck { state.withLock { $0.window.sent(entry.seq) } } else { outbox.done(entry.seq) }
    }

    /// The periodic retry (every second): what was never sent, and with `requiresAck` what the
    /// host has not acknowledged within `resendAfter` retries.
    public func retry() throws {
        // What is due again leaves the window: it goes out with what was never sent, oldest first.
        if requiresAck { _ = state.withLock { $0.window.tick() } }
        try flush()
    }

    /// Under the flush's lock: between leaving the window and leaving the outbox (which waits
    /// for the file, e.g. the next result's fsync), a flush would find `seq` pending and not
    /// awaited, and send it again.
    public func acknowledge(_ seq: Int) -> Bool {
        guard requiresAck else { return false }
        return lock.withLock {
            guard state.withLock({ $0.window.acknowledge(seq) }) else { return false }
            outbox.done(seq)
            return true
        }
    }
}

extension Outbox {
    /// Adds a result for output `name` (`held`: not to be sent until it is kept again), saying
    /// in the log what the outbox could not do (store it on disk; keep it without dropping the
    /// oldest).
    public func keep(_ entry: Entry, held: Bool = false, for name: String, logger: Logger) throws {
        let added = try add(entry, held: held)
        if let problem = added.notStored {
            logger.error("output \(name): result \(entry.seq) not stored in the outbox (\(problem)); kept in memory and sent")
        }
        for dropped in added.dropped {
            logger.error("output \(name): outbox full, the oldest pending result \(dropped.seq) was dropped")
        }
    }
}

/// Writers for the outputs scand has.
public enum Writers {
    /// Standard output (a pipe, a terminal, the journal).
    public static let stdout: @Sendable ([UInt8]) throws -> Void = { bytes in
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HardwareError(HardwareError.kind(forErrno: errno), operation: "write", device: "stdout", errno: errno)
            }
            rest = rest.dropFirst(n)
        }
    }

    /// A USB HID keyboard gadget (`/dev/hidg0`): the text typed in `layout`, one press and one
    /// release report per character. A character the layout cannot type fails the write (nothing
    /// is typed), so that a wrong code never reaches the host's input field half-typed.
    ///
    /// Each report waits at most `reportTimeout` for the host to take the one before (poll for
    /// POLLOUT; the gadget's write would block for as long as the host does not poll, asleep or
    /// not enumerated): the write then fails, and the result is kept and retried, instead of the
    /// output work (and with it the results behind it and the watchdog) waiting forever. Typing
    /// cut short by the timeout keeps its place: the retry of the same text goes on from the
    /// next report, and other text first finishes it (the retry then has nothing left to type),
    /// so the host never gets a code half-typed and then typed again whole.
    public static func hidKeyboard(path: String, layout: KeyboardLayout,
                                   reportTimeout: Duration = .seconds(2)) -> @Sendable ([UInt8]) throws -> Void {
        struct Torn: Sendable { var text: [UInt8]; var reports: Int }
        let torn = Locked<Torn?>(nil)
        let finished = Locked<[UInt8]?>(nil)
        let timeoutMs = Int32(min(Double(Int32.max), max(0, reportTimeout / .milliseconds(1))))

        /// Types `text`'s reports from `start` on `fd`; a timeout leaves its place in `torn`.
        @Sendable func type(_ text: [UInt8], _ reports: [[UInt8]], from start: Int, on fd: Int32) throws {
            for i in start..<reports.count {
                let report = reports[i]
                while true {
                    let n = report.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    if n == 8 { break }
                    if n < 0 && errno == EINTR { continue }
                    guard n < 0 && errno == EAGAIN else {
                        throw HardwareError(HardwareError.kind(forErrno: n < 0 ? errno : EIO), operation: "write", device: path, errno: n < 0 ? errno : EIO)
                    }
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    let ready = poll(&p, 1, timeoutMs)
                    if ready < 0 && errno == EINTR { continue }
                    guard ready > 0 else {
                        let code = ready < 0 ? errno : ETIMEDOUT
                        if i > 0 { torn.withLock { $0 = Torn(text: text, reports: i) } }
                        throw HardwareError(.timedOut, operation: "poll", device: path, errno: code,
                                            summary: "\(path): the host took no report for \(reportTimeout) (\(i / 2) of \(reports.count / 2) characters typed)",
                                            hint: "is the USB host awake and the gadget enumerated?")
                    }
                }
            }
        }

        return { bytes in
            if finished.withLock({ f -> Bool in defer { if f == bytes { f = nil } }; return f == bytes }) { return }
            let (reports, untypable) = layout.reports(for: String(decoding: bytes, as: UTF8.self))
            guard untypable.isEmpty else {
                throw UndeliverableResult("\(path): layout \(layout.rawValue) cannot type \(untypable.map { "U+" + String($0.unicodeScalars.first!.value, radix: 16, uppercase: true) }.joined(separator: " "))")
            }
            let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else {
                torn.withLock { $0 = nil } // the gadget is gone: a new connection starts afresh
                throw HardwareError(HardwareError.kind(forErrno: errno), operation: "open", device: path, errno: errno,
                                    hint: "is the USB gadget (g_hid / configfs hid function) set up?")
            }
            defer { close(fd) }
            if let t = torn.withLock({ t -> Torn? in defer { t = nil }; return t }) {
                if t.text == bytes { return try type(bytes, reports, from: t.reports, on: fd) }
                try type(t.text, layout.reports(for: String(decoding: t.text, as: UTF8.self)).reports, from: t.reports, on: fd)
                finished.withLock { $0 = t.text }
            }
            try type(bytes, reports, from: 0, on: fd)
        }
    }
}

/// Text lines on a serial port: the plain-text format over a `DeliveringOutput`.
public func SerialOutput(port: any SerialPort, prefix: [UInt8] = [], suffix: [UInt8] = [13, 10], keep: Int = 100) -> DeliveringOutput {
    DeliveringOutput(port: port, format: .text(prefix: prefix, suffix: suffix, aim: false), outbox: try! Outbox(path: nil, capacity: keep))
}

/// Results in the log, one line each, with structured metadata; how much of the payload the
/// line shows is `log.payloads`.
public struct LogOutput: ResultOutput {
    public let logger: Logger
    public let payloads: PayloadLogging
    public var name: String { "log" }
    public init(logger: Logger, payloads: PayloadLogging = .full) {
        self.logger = logger
        self.payloads = payloads
    }

    public func deliver(_ result: ScanResult, unixMillis: Int64) throws {
        let s = result.symbol
        var metadata: Logger.Metadata = [
            "seq": "\(result.sequence)", "symbology": "\(s.symbology.rawValue)",
            "numericOnly": "\(s.numericOnly)", "bytes": "\(s.bytes.count)",
            "payload": "\(PayloadClassifier.classify(s).kind.rawValue)",
        ]
        // An EAN/UPC add-on (a book's price, a magazine's issue) is part of what was read.
        if let addOn = s.addOn { metadata["addon"] = "\(addOn)" }
        logger.notice("read \(s.symbology.rawValue): \(payloads.shown(s))", metadata: metadata)
    }
}
