#if canImport(Glibc)
import Glibc
#endif

/// A TCP address to listen on, from the config (`web.listen`), parsed once by the rules the
/// server binds by: `host` is canonical and handed to the server as it is.
///
/// The host is one of: a numeric IPv4 address of four decimal parts, each 0 to 255, without
/// leading zeros (`127.0.0.1`, `0.0.0.0`); an IPv6 address in brackets (`[::1]`, `[::]`; kept in
/// its short form, `::1`); or `localhost` (any case; kept as `localhost`). No other names: a
/// name would be looked up in DNS when the page starts, and `127.1` or `0x7f.1` are spelled
/// differently by different parsers. The port is 1 to 65535.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) { self.host = host; self.port = port }

    /// What `web.listen` takes, for error messages.
    public static let allowed = "host:port with a numeric IPv4 address of four parts (e.g. 127.0.0.1:8080), "
        + "an IPv6 address in brackets (e.g. [::1]:8080) or localhost (e.g. localhost:8080); port 1 to 65535"

    /// Why a text is not a listen address.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text` by the rules above; nil when it breaks them.
    public init?(_ text: String) {
        guard let address = try? Self.parse(text) else { return nil }
        self = address
    }

    /// Parses `text` by the rules above, or says which part breaks them.
    public static func parse(_ text: String) throws(Problem) -> ListenAddress {
        guard text.utf8.count <= 64 else { throw Problem(description: "longer than 64 bytes") }
        guard let colon = text.lastIndex(of: ":") else { throw Problem(description: "no port: use \(allowed)") }
        let hostText = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let port = UInt16(portText), port > 0 else {
            throw Problem(description: "port \"\(portText)\" is not a number from 1 to 65535")
        }
        guard let host = canonicalHost(hostText) else {
            let shown = hostText.unicodeScalars.allSatisfy({ $0.value >= 32 && $0.value < 127 }) ? "\"\(hostText)\"" : "with control characters"
            throw Problem(description: "host \(shown) is not allowed: use \(allowed)")
        }
        return ListenAddress(host: host, port: port)
    }

    /// The host as the server binds it, or nil when it is not one the rules allow.
    static func canonicalHost(_ text: String) -> String? {
        if text.lowercased() == "localhost" { return "localhost" }
        if text.hasPrefix("[") && text.hasSuffix("]") && text.utf8.count > 2 {
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(text.dropFirst().dropLast()), &address) == 1 else { return nil }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        // glibc's inet_pton takes exactly four decimal parts, each 0-255, without leading zeros.
        var address = in_addr()
        guard text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }), inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return text
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
