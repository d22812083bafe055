import Logging
import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to standard error (file descriptor 2, unbuffered).
func printError(_ line: String) {
    let text = line + "\n"
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        bytes = bytes.dropFirst(n)
    }
}

/// The log on standard error when scand runs outside systemd (a terminal, a file): one line per
/// message, the message first after its time and level, then the metadata:
/// `2026-11-26 11:20:03.512 notice read QR-Code: hello [bytes=5 payload=text seq=1 symbology=QR-Code]`.
struct TerminalLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    init(logLevel: Logger.Level) { self.logLevel = logLevel }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        printError(Self.line(time: Self.now(), level: level, message: message.description,
                             metadata: metadata.merging(extra ?? [:], uniquingKeysWith: { $1 })))
    }

    /// One log line: time, level, message, then the metadata sorted by key.
    static func line(time: String, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var text = "\(time) \(level) \(message)"
        if !metadata.isEmpty {
            text += " [" + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + "]"
        }
        // A value from outside (a config path, a device name, an error about it) with a control
        // character, a direction override or a byte order mark in it shows as such: one line.
        return PayloadText.controlsShown(text)
    }

    /// The local time, to the millisecond: `2026-11-26 11:20:03.512`.
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = Int(spec.tv_nsec / 1_000_000)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))."
            + (ms < 10 ? "00" : ms < 100 ? "0" : "") + "\(ms)"
    }
}

/// `bytes` on standard output as they are (after anything `print` buffered).
func writeStandardOutput(_ bytes: [UInt8]) {
    fflush(nil)
    var rest = bytes[...]
    while !rest.isEmpty {
        let n = rest.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        rest = rest.dropFirst(n)
    }
}
