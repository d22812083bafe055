import ScanCore

/// The setup page's rules for requests, apart from any server: who may ask, what a body may
/// hold, which host commands the web may send. Everything here takes hostile input and answers
/// with a reason, never a crash.
public enum WebRules {
    /// Bodies larger than this are refused (413) before they are read.
    public static let maxBody = RequestHeadLimits.maxBody

    /// Whether a request carrying `presented` (from `Authorization: Bearer ...` or `?token=`)
    /// may pass when the listener requires `token` (nil: no token required). Compared in
    /// constant time.
    public static func tokenAccepted(_ presented: String?, required token: String?) -> Bool {
        guard let token else { return true }
        guard let presented else { return false }
        let a = Array(presented.utf8), b = Array(token.utf8)
        var diff = a.count ^ b.count
        for i in 0..<max(a.count, b.count) { diff |= Int(i < a.count ? a[i] : 0) ^ Int(i < b.count ? b[i] : 0) }
        return diff == 0
    }

    /// The token in an `Authorization` header value (`Bearer TOKEN`), if any.
    public static func bearer(_ header: String?) -> String? {
        guard let header, header.utf8.count <= 512 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return trimmed(parts[1], " ")
    }

    /// A host command line from a request body: one line of printable text (a trailing line
    /// break is dropped), at most `HostCommand.maxLength` bytes; `SET` of a key naming a file, a
    /// path or a device is refused over the web.
    public static func command(from body: [UInt8]) -> Result<String, WebError> {
        // Checked as every door checks a line; answered as the serial port answers it.
        let line: String
        switch HostCommand.line(from: body) {
        case .success(let text): line = text
        case .failure(let error): return .failure(WebError(400, "ERR " + error.message))
        }
        if case .success(.set(let key, _)) = Result(catching: { () throws(HostCommandError) -> HostCommand in try HostCommand.parse(line) }),
           let found = refusedWords.first(where: { key.lowercased().contains($0) }) {
            let word = refusedNouns[found] ?? found
            return .failure(WebError(403, HostCommandError("SET", "\(key): keys naming a \(word) are not set over HTTP; edit the config file").answer))
        }
        return .success(line)
    }

    static let refusedWords = ["device", "path", "file", "dir", "socket", "images", "listen", "token", "pwm", "chip"]
    /// How an answer names what a refused key holds.
    static let refusedNouns = ["device": "device", "path": "path", "file": "file", "dir": "folder", "socket": "socket",
                               "images": "list of image files", "listen": "listener", "token": "token", "pwm": "PWM channel", "chip": "GPIO chip"]

    /// The most bytes a camera control change's body has (`POST /api/controls`).
    public static let controlBodyLimit = 128
    static let controlTooLong = WebError(413, "control change longer than \(controlBodyLimit) bytes")

    /// The refusal a request's head earns by the length of the body it announces, where its
    /// path takes less than the door's 4 KiB: answered before the body is sent (a client that
    /// waits for 100 Continue hears it instead).
    public static func bodyRefusal(method: String, path: String, contentLength: Int?) -> WebError? {
        guard method == "POST", path == "/api/controls", let length = contentLength, length > controlBodyLimit else { return nil }
        return controlTooLong
    }

    /// A camera control change from a form body `name=value` (name: letters and `_`; value: an
    /// integer).
    public static func control(from body: [UInt8]) -> Result<(name: String, value: Int), WebError> {
        guard body.count <= controlBodyLimit else { return .failure(controlTooLong) }
        let text = trimmed(String(decoding: body, as: UTF8.self), "\r\n ")
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .failure(WebError(400, "send name=value, e.g. brightness=10")) }
        let name = String(parts[0])
        guard !name.isEmpty, name.count <= 40, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0 == "_") }) else {
            return .failure(WebError(400, "a control name is lowercase letters and _"))
        }
        let valueText = parts[1]
        guard valueText.count <= 11, let value = Int(valueText), (-2_147_483_648...2_147_483_647).contains(value) else {
            return .failure(WebError(400, "the value of \(name) must be a whole number"))
        }
        return .success((name, value))
    }
}

// MARK: - Who may ask: Host, Origin, token

extension WebRules {
    /// A TCP listener as the rules see it: the address it listens on (a numeric IPv4 or IPv6
    /// literal, or `localhost`), its port and its token.
    public struct Listener: Equatable, Sendable {
        public var host: String
        public var port: UInt16
        public var token: String?
        public init(host: String, port: UInt16, token: String?) {
            self.host = host.lowercased()
            self.port = port
            self.token = token
        }
        /// Listening on a loopback address.
        public var isLoopback: Bool { host == "localhost" || WebRules.isLoopbackIP(host) }
        /// Listening on every address (`0.0.0.0`, `::`): the name a client uses is not known.
        public var isWildcard: Bool { host == "0.0.0.0" || host == "::" || host == "0:0:0:0:0:0:0:0" }
        /// The names a client may put in `Host`.
        public var names: [String] { isLoopback ? [host, "localhost", "127.0.0.1", "::1"] : [host] }
    }

    /// What the rules need of a request's head.
    public struct Head: Sendable {
        public var method: String
        /// The path without its query.
        public var path: String
        /// Each header's value (nil: absent); a header sent twice counts as foreign.
        public var host: String?
        public var origin: String?
        public var referer: String?
        public var authorization: String?
        public var queryToken: String?
        /// The client's address is a loopback one.
        public var peerIsLoopback: Bool
        public init(method: String, path: String, host: String?, origin: String?, referer: String?, authorization: String?,
                    queryToken: String?, peerIsLoopback: Bool) {
            self.method = method
            self.path = path
            self.host = host
            self.origin = origin
            self.referer = referer
            self.authorization = authorization
            self.queryToken = queryToken
            self.peerIsLoopback = peerIsLoopback
        }
    }

    /// Whether `path` is a command or data endpoint (needs the token or a same-origin page).
    public static func isProtected(_ path: String) -> Bool {
        path.hasPrefix("/api/") || path == "/snapshot.png" || path == "/preview.mjpeg"
    }

    /// Whether a request's head may pass the TCP `listener`, checked before its body is read:
    /// nil, or the refusal. In order: the `Host` header names the listener (421; DNS
    /// rebinding), only loopback clients without a token (403), the token when there is one
    /// (401), and a request from a page of another origin (`Origin`, or lacking it `Referer`)
    /// for a `POST` or a command or data endpoint (403).
    public static func admit(_ head: Head, at listener: Listener) -> WebError? {
        guard let host = head.host else { return WebError(400, "a Host header is required") }
        // Two Host headers come through as "" (which one would a proxy have used?).
        guard !host.isEmpty else { return WebError(400, "one Host header is required, naming this kiosk") }
        guard hostAccepted(host, at: listener) else {
            let name = listener.isWildcard ? "<the kiosk's address>" : listener.host.contains(":") ? "[\(listener.host)]" : listener.host
            return WebError(421, "Host \(printable(host)) is not this kiosk's address; open http://\(name):\(listener.port)/")
        }
        if listener.token == nil && !head.peerIsLoopback { return WebError(403, "only loopback clients are served without web.token") }
        let presented = bearer(head.authorization) ?? head.queryToken
        guard tokenAccepted(presented, required: listener.token) else {
            return WebError(401, presented == nil ? "a token is required (Authorization: Bearer TOKEN or ?token=TOKEN)" : "wrong token")
        }
        if head.method != "GET" && head.method != "HEAD" || isProtected(head.path) {
            if !sameOrigin(origin: head.origin, referer: head.referer, host: host, at: listener) {
                let from = head.origin.map { "Origin \(printable($0))" } ?? "Referer \(printable(head.referer ?? ""))"
                return WebError(403, "a request from a page of another site is refused (\(from))")
            }
        }
        return nil
    }

    /// Whether a `Host` header value names `listener`: one of its names with its port (no port:
    /// only when it listens on 80); any well-formed name on a wildcard listener (a token guards it).
    public static func hostAccepted(_ value: String, at listener: Listener) -> Bool {
        guard let (name, port) = authority(value) else { return false }
        guard port == listener.port || (port == nil && listener.port == 80) else { return false }
        return listener.isWildcard || listener.names.contains(name)
    }

    /// Whether a request comes from a page of the kiosk itself: its `Origin` (or, lacking it,
    /// its `Referer`) is `http://` and the request's own Host, or another name of the listener.
    /// Neither header: not a browser's cross-site request (curl, scripts): accepted.
    public static func sameOrigin(origin: String?, referer: String?, host: String, at listener: Listener) -> Bool {
        let source: String
        if let origin { source = origin } else if let referer { source = referer } else { return true }
        guard source.utf8.count <= 2048, source.lowercased().hasPrefix("http://") else { return false }
        var rest = Substring(source).dropFirst(7)
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            if origin != nil { return false } // an Origin has no path
            rest = rest[..<end]
        }
        let authority = String(rest)
        if authority.lowercased() == host.lowercased() { return true }
        return !listener.isWildcard && hostAccepted(authority, at: listener)
    }

    /// A `Host`-style authority split into its lowercased name (brackets dropped) and port;
    /// nil when malformed.
    public static func authority(_ value: String) -> (name: String, port: UInt16?)? {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty, bytes.count <= 260 else { return nil }
        var name: ArraySlice<UInt8>, portText: ArraySlice<UInt8>?
        if bytes[0] == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return nil }
            name = bytes[1..<close]
            guard name.allSatisfy({ isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return nil }
            let after = bytes[(close + 1)...]
            if after.isEmpty { portText = nil } else {
                guard after.first == UInt8(ascii: ":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                name = bytes[..<colon]
                portText = bytes[(colon + 1)...]
            } else {
                name = bytes[...]
                portText = nil
            }
            guard !name.isEmpty, name.allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) else { return nil }
        }
        var port: UInt16?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            let n = portText.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard n > 0 && n <= 65535 else { return nil }
            port = UInt16(n)
        }
        return (String(decoding: name, as: UTF8.self).lowercased(), port)
    }

    /// An IPv4 address in 127.0.0.0/8, `::1`, or an IPv4-mapped loopback address.
    public static func isLoopbackIP(_ ip: String) -> Bool {
        let ip = ip.lowercased()
        if ip == "::1" || ip == "0:0:0:0:0:0:0:1" { return true }
        let v4 = ip.hasPrefix("::ffff:") ? String(ip.dropFirst(7)) : ip
        let parts = v4.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && Int($0).map { (0...255).contains($0) } == true })
        else { return false }
        return parts[0] == "127"
    }

    /// The value of `name` in a query string (`a=1&token=x`), percent-decoded; nil when absent
    /// or malformed.
    public static func query(_ query: Substring, _ name: String) -> String? {
        guard query.utf8.count <= 4096 else { return nil }
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv[0] == name else { continue }
            return kv.count == 2 ? percentDecoded(kv[1]) : ""
        }
        return nil
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: "+") { out.append(32); continue }
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard bytes.count >= 2, let h = hexValue(bytes.removeFirst()), let l = hexValue(bytes.removeFirst()) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }

    /// The text of an error answer: `reason` if it is already an `ERR` line, else `ERR status: reason`.
    /// One line, whatever the reason holds (a camera path from the config, an error about it).
    public static func errorText(_ error: WebError) -> String {
        PayloadText.controlsShown(error.reason.hasPrefix("ERR") ? error.reason : "ERR \(error.status): \(error.reason)")
    }

    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(80).map { $0.isASCII && $0.value >= 32 && $0.value < 127 ? $0 : "?" }))
    }

    private static func isHex(_ b: UInt8) -> Bool { hexValue(b) != nil }
    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }
    private static func isAlnum(_ b: UInt8) -> Bool { (48...57).contains(b) || (65...90).contains(b) || (97...122).contains(b) }
}

/// A refused request: its HTTP status and the reason (the response body).
public struct WebError: Error, Equatable, Sendable {
    public var status: Int
    public var reason: String
    public init(_ status: Int, _ reason: String) { self.status = status; self.reason = reason }
}

/// `text` without the characters of `set` at either end.
func trimmed<S: StringProtocol>(_ text: S, _ set: String) -> String {
    let drop = Set(set.unicodeScalars)
    var s = Substring(text).unicodeScalars[...]
    while let f = s.first, drop.contains(f) { s.removeFirst() }
    while let l = s.last, drop.contains(l) { s.removeLast() }
    return String(String.UnicodeScalarView(s))
}

/// The head of an HTTP/1.x response (what `scand snapshot` reads from the control socket).
public struct HTTPResponseHead: Equatable, Sendable {
    public var status: Int
    /// Header names in lowercase; a repeated header keeps its last value.
    public var headers: [String: String]
    /// Where the body starts in the bytes parsed.
    public var bodyOffset: Int

    /// The head at the start of `data`; nil while it is incomplete. Throws for what is not an
    /// HTTP answer or a head over `limit` bytes.
    public static func parse(_ data: [UInt8], limit: Int = 65536) throws(WebError) -> HTTPResponseHead? {
        var end: Int?
        if data.count >= 4 {
            for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
                end = i
                break
            }
        }
        guard let end else {
            if data.count > limit { throw WebError(502, "answer head over \(limit) bytes") }
            return nil
        }
        guard end <= limit else { throw WebError(502, "answer head over \(limit) bytes") }
        let lines = String(decoding: data[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), statusParts[1].count == 3,
              let status = Int(statusParts[1]), (100...599).contains(status) else {
            throw WebError(502, "not an HTTP answer: \(String((lines.first ?? "").prefix(80).map { $0.isASCII && !$0.isNewline ? $0 : "?" }))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = trimmed(line[line.index(after: colon)...], " \t")
        }
        return HTTPResponseHead(status: status, headers: headers, bodyOffset: end + 4)
    }
}
