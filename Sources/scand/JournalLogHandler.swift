import Logging
import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Logs to the systemd journal through its native protocol, so that `journalctl -u scand` shows
/// levels and structured fields (`SCAND_SEQ`, `SCAND_SYMBOLOGY`, `SCAND_CAMERA`, ... from the log
/// metadata): `journalctl -u scand SCAND_SYMBOLOGY=QR-Code`. Used when systemd runs scand
/// (`$JOURNAL_STREAM` is set); a message the journal refuses goes to stderr instead.
struct JournalLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    let label: String

    static var available: Bool { getenv("JOURNAL_STREAM") != nil && access("/run/systemd/journal/socket", W_OK) == 0 }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        var fields: [(String, String)] = [
            ("MESSAGE", PayloadText.controlsShown(message.description)), ("PRIORITY", "\(Self.priority(level))"), ("SYSLOG_IDENTIFIER", "scand"),
            ("SCAND_SOURCE", source), ("CODE_FILE", file), ("CODE_LINE", "\(line)"),
        ]
        for (k, v) in metadata.merging(extra ?? [:], uniquingKeysWith: { $1 }) {
            let name = "SCAND_" + k.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.map(String.init).joined()
            fields.append((name, PayloadText.invisiblesShown("\(v)")))
        }
        if !Self.send(fields) {
            let text = "<\(Self.priority(level))>\(PayloadText.controlsShown(message.description))\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
        }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// One datagram: `KEY=value\n`, or for values with a newline `KEY\n<64-bit LE length>value\n`.
    static func send(_ fields: [(String, String)]) -> Bool {
        var datagram: [UInt8] = []
        for (k, v) in fields {
            let value = Array(v.utf8)
            datagram += Array(k.utf8)
            if value.contains(10) {
                datagram.append(10)
                var n = UInt64(value.count).littleEndian
                withUnsafeBytes(of: &n) { datagram += $0 }
                datagram += value
            } else {
                datagram.append(UInt8(ascii: "="))
                datagram += value
            }
            datagram.append(10)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in "/run/systemd/journal/socket".utf8.enumerated() { raw[i] = b }
        }
        let sent = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                datagram.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        return sent == datagram.count
    }
}
