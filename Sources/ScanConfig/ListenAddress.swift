/// A TCP address to listen on, from the config (`web.listen`).
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) { self.host = host; self.port = port }

    /// Parses `127.0.0.1:8080`, `[::1]:8080`, `localhost:8080`, `0.0.0.0:80`; nil when malformed.
    public init?(_ text: String) {
        guard text.utf8.count <= 64, let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = UInt16(portText), port > 0 else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "." || $0 == ":" || $0.isLetter || $0 == "-") }) else {
            return nil
        }
        self.host = host
        self.port = port
    }

    /// Whether the address is a loopback one (only this machine can connect).
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// Whether `host` is a loopback address (127.x.x.x, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h.hasPrefix("127.") || h.hasPrefix("::ffff:127.")
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
