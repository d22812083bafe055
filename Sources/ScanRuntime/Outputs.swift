import Logging
import ScanCore
import ScanHardware

/// Somewhere a result goes: the serial port, the log, ...
public protocol ResultOutput: Sendable {
    var name: String { get }
    /// Writes one result; throws when it could not be written.
    func deliver(_ result: ScanResult) throws
}

/// Results as text lines on a serial port: `prefix + text + suffix`, with the payload escaped
/// so that control characters and escape sequences never reach the host raw.
public struct SerialOutput: ResultOutput {
    public let port: any SerialPort
    public let prefix: [UInt8]
    public let suffix: [UInt8]
    public var name: String { "serial \(port.name)" }

    public init(port: any SerialPort, prefix: [UInt8] = [], suffix: [UInt8] = [13, 10]) {
        self.port = port
        self.prefix = prefix
        self.suffix = suffix
    }

    /// The exact bytes written for `result`.
    public func bytes(for result: ScanResult) -> [UInt8] {
        prefix + Array(PayloadText.escaped(result.symbol.text).utf8) + suffix
    }

    public func deliver(_ result: ScanResult) throws { try port.write(bytes(for: result)) }
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
