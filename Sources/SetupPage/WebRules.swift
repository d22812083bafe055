import ScanCore

/// The setup page's rules for requests, apart from any server: who may ask, what a body may
/// hold, which host commands the web may send. Everything here takes hostile input and answers
/// with a reason, never a crash.
public enum WebRules {
    /// Bodies larger than this are refused (413) before they are read.
    public static let maxBody = 4096

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
           let word = refusedWords.first(where: { key.lowercased().contains($0) }) {
            return .failure(WebError(403, "ERR SET \(key): keys naming a \(word) are not set over the web; edit the config file"))
        }
        return .success(line)
    }

    static let refusedWords = ["device", "path", "file", "dir", "socket", "images", "listen", "token", "pwm", "chip"]

    /// A camera control change from a form body `name=value` (name: letters and `_`; value: an
    /// integer).
    public static func control(from body: [UInt8]) -> Result<(name: String, value: Int), WebError> {
        guard body.count <= 128 else { return .failure(WebError(413, "control change longer than 128 bytes")) }
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

/// A refused request: its HTTP status and the reason (the response body).
public struct WebError: Error, Equatable, Sendable {
    public var status: Int
    public var reason: String
    public init(_ status: Int, _ reason: String) { self.status = status; self.reason = reason }
}

/// `text` without the characters of `set` at either end.
private func trimmed<S: StringProtocol>(_ text: S, _ set: String) -> String {
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
