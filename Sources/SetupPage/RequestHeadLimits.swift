/// The byte-level limits on HTTP/1.1 requests, checked before a parser sees the bytes (the
/// setup page's first line of defence; pure, so it can be fuzzed).
///
/// Fed a connection's bytes one at a time, it holds back a request head until the head is
/// whole and within the limits, then releases it together with its body (at most `maxBody`
/// bytes, `Content-Length` only). Work and memory are linear in the bytes fed and bounded per
/// request: a line longer than `maxLine`, more than `maxHeaders` header lines or a head over
/// `maxHead` bytes is refused at the byte that crosses the limit (431); a larger body, a
/// chunked one or an unreadable `Content-Length` when the head ends (413, 411, 400). After a
/// refusal every byte is refused: the connection is answered and closed, so a refused body is
/// never read as the next request.
public struct RequestHeadLimits: Sendable {
    public static let maxLine = 8192
    public static let maxHeaders = 100
    public static let maxHead = 32768
    public static let maxBody = 4096

    /// Why a request was refused: an HTTP status and a reason for a person.
    public enum Refusal: Equatable, Sendable {
        case lineTooLong, tooManyHeaders, headTooLarge
        case bodyTooLarge(Int)
        case chunkedBody
        case badLength
        /// A POST or PUT without Content-Length: its body would be read as the next request.
        case lengthRequired

        public var status: Int {
            switch self {
            case .lineTooLong, .tooManyHeaders, .headTooLarge: 431
            case .bodyTooLarge: 413
            case .chunkedBody, .lengthRequired: 411
            case .badLength: 400
            }
        }

        public var reason: String {
            switch self {
            case .lineTooLong: "a request line or header line over \(RequestHeadLimits.maxLine) bytes"
            case .tooManyHeaders: "more than \(RequestHeadLimits.maxHeaders) header lines"
            case .headTooLarge: "a request head over \(RequestHeadLimits.maxHead) bytes"
            case .bodyTooLarge(let n): "body of \(n) bytes; at most \(RequestHeadLimits.maxBody)"
            case .chunkedBody: "a chunked body is not taken; send Content-Length"
            case .badLength: "Content-Length is not one whole number"
            case .lengthRequired: "a POST or PUT needs Content-Length (0 for no body), as curl --data sends it"
            }
        }
    }

    /// What may happen to a byte just fed.
    public enum Step: Equatable, Sendable {
        /// Hold it (part of a head not yet whole).
        case hold
        /// It, and every byte held before it, may go on; `completed`: it ends a request.
        case release(completed: Bool)
        /// The request is refused; nothing held (nor this byte) goes on, nor anything after.
        case refuse(Refusal)
    }

    private enum Phase: Equatable, Sendable {
        /// Reading a head: nothing of it seen yet (`started` false) or some.
        case head
        /// Passing `remaining` (> 0) body bytes.
        case body(remaining: Int)
        case refused(Refusal)
    }

    private var phase = Phase.head
    /// The current line's bytes so far (its CR and LF not counted).
    private var line = 0
    private var lastWasCR = false
    /// A request line was seen in this head.
    private var started = false
    private var headers = 0
    private var head = 0
    /// The start of the current header line, lowercased (enough to know the header and read a
    /// Content-Length).
    private var prefix: [UInt8] = []
    private var prefixOverflow = false
    private var length: Int?
    private var lengthBad = false
    private var chunked = false
    /// The request line's first bytes (enough for its method).
    private var method: [UInt8] = []

    public init() {}

    /// A request has begun and is not whole yet (its head or its body is being read).
    public var isMidRequest: Bool {
        switch phase {
        case .head: started || head > 0
        case .body: true
        case .refused: false
        }
    }

    /// The refusal, once there is one.
    public var refusal: Refusal? {
        if case .refused(let r) = phase { return r }
        return nil
    }

    static let prefixKeep = 48

    public mutating func consume(_ byte: UInt8) -> Step {
        switch phase {
        case .refused(let r):
            return .refuse(r)
        case .body(let remaining):
            if remaining == 1 {
                phase = .head
                return .release(completed: true)
            }
            phase = .body(remaining: remaining - 1)
            return .release(completed: false)
        case .head:
            head += 1
            if head > Self.maxHead { return refuse(.headTooLarge) }
            if byte == 10 { return endOfLine() }
            if lastWasCR {
                // A CR inside a line counts as a byte of it.
                line += 1
                keep(13)
            }
            lastWasCR = byte == 13
            if !lastWasCR {
                line += 1
                keep(byte)
            }
            if line > Self.maxLine { return refuse(.lineTooLong) }
            return .hold
        }
    }

    private mutating func keep(_ byte: UInt8) {
        guard started else {
            if method.count < 5 { method.append(byte) }
            return
        }
        if prefix.count < Self.prefixKeep {
            prefix.append(byte >= 65 && byte <= 90 ? byte + 32 : byte)
        } else {
            prefixOverflow = true
        }
    }

    private mutating func refuse(_ r: Refusal) -> Step {
        phase = .refused(r)
        prefix = []
        return .refuse(r)
    }

    private mutating func endOfLine() -> Step {
        defer {
            line = 0
            lastWasCR = false
            prefix.removeAll(keepingCapacity: true)
            prefixOverflow = false
        }
        if !started {
            // Empty lines before a request line are skipped (RFC 9112 2.2).
            if line > 0 { started = true } else { method = [] }
            return .hold
        }
        if line > 0 {
            headers += 1
            if headers > Self.maxHeaders { return refuse(.tooManyHeaders) }
            header()
            return .hold
        }
        // The head is whole.
        if chunked { return refuse(.chunkedBody) }
        if lengthBad { return refuse(.badLength) }
        if length == nil, method.starts(with: Array("POST ".utf8)) || method.starts(with: Array("PUT ".utf8)) { return refuse(.lengthRequired) }
        method = []
        let body = length ?? 0
        if body > Self.maxBody { return refuse(.bodyTooLarge(body)) }
        started = false
        headers = 0
        head = 0
        length = nil
        phase = body > 0 ? .body(remaining: body) : .head
        return .release(completed: body == 0)
    }

    /// Notes a Content-Length or Transfer-Encoding header of the line just ended.
    private mutating func header() {
        let te = Array("transfer-encoding:".utf8), cl = Array("content-length:".utf8)
        if prefix.starts(with: te) {
            chunked = true // any transfer coding: only Content-Length bodies are taken
            return
        }
        guard prefix.starts(with: cl) else {
            // `Content-Length : 4`: no header name has a space before its colon (RFC 9112 5.1).
            if prefix.starts(with: cl.dropLast()), let next = prefix.dropFirst(cl.count - 1).first, next == 32 || next == 9 { lengthBad = true }
            return
        }
        var value = prefix[cl.count...]
        while let f = value.first, f == 32 || f == 9 { value.removeFirst() }
        while let l = value.last, l == 32 || l == 9 { value.removeLast() }
        guard !prefixOverflow, !value.isEmpty, value.count <= 9, value.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            lengthBad = true
            return
        }
        let n = value.reduce(0) { $0 * 10 + Int($1 - 48) }
        if let length, length != n { lengthBad = true }
        length = n
    }
}
