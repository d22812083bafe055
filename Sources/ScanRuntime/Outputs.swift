import Logging
import ScanCore
import ScanHardware
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Somewhere a result goes: the serial port, a USB keyboard gadget, stdout, the log.
public protocol ResultOutput: Sendable {
    var name: String { get }
    /// Takes one result (read at `unixMillis`, wall clock); throws when it could not be written
    /// now (it is then kept and retried by `flush()` where the output keeps results).
    func deliver(_ result: ScanResult, unixMillis: Int64) throws
    /// Results kept for a retry.
    var pendingCount: Int { get }
    /// Writes what is kept, oldest first, stopping at the first failure.
    func flush() throws
    /// The periodic retry: `flush()`, and whatever else the output sends again on its own.
    func retry() throws
    /// The host acknowledged result `seq`; false when this output did not wait for it.
    func acknowledge(_ seq: Int) -> Bool
}

extension ResultOutput {
    public var pendingCount: Int { 0 }
    public func flush() throws {}
    public func retry() throws { try flush() }
    public func acknowledge(_ seq: Int) -> Bool { false }
}

/// An output whose writes can fail (a port unplugged, a host not reading): every result goes to
/// its outbox first and leaves it only once written — or, with `requiresAck`, once the host
/// acknowledged its sequence number (`ACK n`). Results pending while the host or port is gone
/// are sent, in order, when it is back.
public final class DeliveringOutput: ResultOutput, @unchecked Sendable {
    public let name: String
    public let format: OutputFormat
    public let outbox: Outbox
    public let requiresAck: Bool
    private let writer: @Sendable ([UInt8]) throws -> Void
    /// Sent and waiting for the host's ACK.
    private let awaitingAck = Mutex(Set<Int>())
    private let lock = Mutex(())

    public init(name: String, format: OutputFormat, outbox: Outbox = try! Outbox(path: nil, capacity: 100),
                requiresAck: Bool = false, writer: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.name = name
        self.format = format
        self.outbox = outbox
        self.requiresAck = requiresAck
        self.writer = writer
    }

    /// Results on a serial port.
    public convenience init(port: any SerialPort, format: OutputFormat, outbox: Outbox = try! Outbox(path: nil, capacity: 100),
                            requiresAck: Bool = false) {
        self.init(name: "serial \(port.name)", format: format, outbox: outbox, requiresAck: requiresAck) { try port.write($0) }
    }

    public var pendingCount: Int { outbox.pending.count }

    public func deliver(_ result: ScanResult, unixMillis: Int64) throws {
        let dropped = try outbox.add(Outbox.Entry(seq: result.sequence, bytes: format.render(result, unixMillis: unixMillis)))
        try flush()
        if let dropped {
            throw HardwareErrorLike("\(name): outbox full, the oldest pending result \(dropped.seq) was dropped")
        }
    }

    public func flush() throws {
        try lock.withLock { _ in
            for entry in outbox.pending where !awaitingAck.withLock({ $0.contains(entry.seq) }) {
                try writer(entry.bytes)
                if requiresAck { awaitingAck.withLock { _ = $0.insert(entry.seq) } } else { try outbox.done(entry.seq) }
            }
        }
    }

    /// With `requiresAck`, also sends again what the host has not acknowledged yet.
    public func retry() throws {
        if requiresAck { try resendUnacknowledged() } else { try flush() }
    }

    /// Sends again what the host has not acknowledged (called when the ACK did not come in time).
    public func resendUnacknowledged() throws {
        awaitingAck.withLock { $0.removeAll() }
        try flush()
    }

    public func acknowledge(_ seq: Int) -> Bool {
        guard requiresAck, awaitingAck.withLock({ $0.remove(seq) != nil }) else { return false }
        try? outbox.done(seq)
        return true
    }
}

/// Writers for the outputs scand has.
public enum Writers {
    /// Standard output (a pipe, a terminal, the journal).
    public static let stdout: @Sendable ([UInt8]) throws -> Void = { bytes in
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw HardwareErrorLike("stdout: \(String(cString: strerror(errno)))") }
            rest = rest.dropFirst(n)
        }
    }

    /// A USB HID keyboard gadget (`/dev/hidg0`): the text typed in `layout`, one press and one
    /// release report per character. A character the layout cannot type fails the write (nothing
    /// is typed), so that a wrong code never reaches the host's input field half-typed.
    public static func hidKeyboard(path: String, layout: KeyboardLayout) -> @Sendable ([UInt8]) throws -> Void {
        { bytes in
            let (reports, untypable) = layout.reports(for: String(decoding: bytes, as: UTF8.self))
            guard untypable.isEmpty else {
                throw HardwareErrorLike("\(path): layout \(layout.rawValue) cannot type \(untypable.map { "U+" + String($0.unicodeScalars.first!.value, radix: 16, uppercase: true) }.joined(separator: " "))")
            }
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw HardwareError(HardwareError.kind(forErrno: errno), operation: "open", device: path, errno: errno,
                                                     hint: "is the USB gadget (g_hid / configfs hid function) set up?") }
            defer { close(fd) }
            for report in reports {
                let n = report.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n != 8 { throw HardwareError(HardwareError.kind(forErrno: errno), operation: "write", device: path, errno: errno) }
            }
        }
    }
}

/// Text lines on a serial port: the plain-text format over a `DeliveringOutput`.
public func SerialOutput(port: any SerialPort, prefix: [UInt8] = [], suffix: [UInt8] = [13, 10], keep: Int = 100) -> DeliveringOutput {
    DeliveringOutput(port: port, format: .text(prefix: prefix, suffix: suffix, aim: false), outbox: try! Outbox(path: nil, capacity: keep))
}

/// Results in the log, with structured metadata.
public struct LogOutput: ResultOutput {
    public let logger: Logger
    public var name: String { "log" }
    public init(logger: Logger) { self.logger = logger }

    public func deliver(_ result: ScanResult, unixMillis: Int64) throws {
        let s = result.symbol
        logger.notice("read \(s.symbology.rawValue): \(PayloadText.escaped(s.text))", metadata: [
            "seq": "\(result.sequence)", "symbology": "\(s.symbology.rawValue)",
            "numericOnly": "\(s.numericOnly)", "bytes": "\(s.bytes.count)",
            "payload": "\(PayloadClassifier.classify(s).kind.rawValue)",
        ])
    }
}
