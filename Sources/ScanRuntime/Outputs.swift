import Logging
import ScanCore
import ScanHardware
import Synchronization

/// Somewhere a result goes: the serial port, the log, ...
public protocol ResultOutput: Sendable {
    var name: String { get }
    /// Writes one result; throws when it could not be written.
    func deliver(_ result: ScanResult) throws
}

/// Results as text lines on a serial port: `prefix + text + suffix`, with the payload escaped
/// so that control characters and escape sequences never reach the host raw.
///
/// A line that could not be written (port unplugged, host not reading) is kept, in order, and
/// written before the next result once the port is back (at most `keep` lines; the oldest go
/// first when more pile up, and the log says so).
public final class SerialOutput: ResultOutput, @unchecked Sendable {
    public let port: any SerialPort
    public let prefix: [UInt8]
    public let suffix: [UInt8]
    public let keep: Int
    public var name: String { "serial \(port.name)" }
    private let pending = Mutex<[[UInt8]]>([])

    public init(port: any SerialPort, prefix: [UInt8] = [], suffix: [UInt8] = [13, 10], keep: Int = 100) {
        self.port = port
        self.prefix = prefix
        self.suffix = suffix
        self.keep = keep
    }

    /// The exact bytes written for `result`.
    public func bytes(for result: ScanResult) -> [UInt8] {
        prefix + Array(PayloadText.escaped(result.symbol.text).utf8) + suffix
    }

    /// Lines waiting for the port.
    public var pendingCount: Int { pending.withLock { $0.count } }

    public func deliver(_ result: ScanResult) throws {
        let dropped = pending.withLock { p -> Int in
            p.append(bytes(for: result))
            let over = max(0, p.count - keep)
            p.removeFirst(over)
            return over
        }
        try flush()
        if dropped > 0 {
            throw HardwareError(.other, operation: "queue", device: port.name, hint: "\(dropped) older unsent line(s) discarded (limit \(keep))")
        }
    }

    /// Writes what is pending, oldest first, stopping at the first failure.
    public func flush() throws {
        while let line = pending.withLock({ $0.first }) {
            try port.write(line)
            pending.withLock { _ = $0.removeFirst() }
        }
    }
}

/// Results in the log, with structured metadata.
public struct LogOutput: ResultOutput {
    public let logger: Logger
    public var name: String { "log" }
    public init(logger: Logger) { self.logger = logger }

    public func deliver(_ result: ScanResult) throws {
        let s = result.symbol
        logger.notice("read \(s.symbology.rawValue): \(PayloadText.escaped(s.text))", metadata: [
            "seq": "\(result.sequence)", "symbology": "\(s.symbology.rawValue)",
            "numericOnly": "\(s.numericOnly)", "bytes": "\(s.bytes.count)",
        ])
    }
}
