/// A JSON document read with bounds (depth, size), for the files scand reads back (its status
/// file, a corpus manifest). Malformed input is an error with its byte offset, never a trap.
public indirect enum JSONValue: Equatable, Sendable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { "byte \(offset): \(message)" }
    }

    public subscript(key: String) -> JSONValue? { if case .object(let o) = self { return o[key] }; return nil }
    public var string: String? { if case .string(let s) = self { return s }; return nil }
    public var number: Double? { if case .number(let n) = self { return n }; return nil }
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }

    /// Parses one JSON value filling the whole input (white space around it allowed).
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 32) throws(ParseError) -> JSONValue {
        var p = JSONReader(bytes: bytes, maxDepth: maxDepth)
        p.space()
        let v = try p.value(depth: 0)
        p.space()
        guard p.pos == bytes.count else { throw p.fail("unexpected data after the value") }
        return v
    }
}

private struct JSONReader {
    let bytes: [UInt8]
    let maxDepth: Int
    var pos = 0

    init(bytes: [UInt8], maxDepth: Int) { self.bytes = bytes; self.maxDepth = maxDepth }

    func fail(_ message: String) -> JSONValue.ParseError { .init(offset: pos, message: message) }
    var current: UInt8? { pos < bytes.count ? bytes[pos] : nil }
    mutating func space() { while let c = current, c == 32 || c == 9 || c == 10 || c == 13 { pos += 1 } }

    mutating func literal(_ word: String, _ v: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let w = Array(word.utf8)
        guard pos + w.count <= bytes.count, Array(bytes[pos..<pos + w.count]) == w else { throw fail("expected \(word)") }
        pos += w.count
        return v
    }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard let c = current else { throw fail("expected a value") }
        switch c {
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            guard depth < maxDepth else { throw fail("nested more than \(maxDepth) deep") }
            pos += 1
            space()
            let close = c == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
            var items: [JSONValue] = [], members: [String: JSONValue] = [:]
            if current == close { pos += 1 } else {
                while true {
                    if c == UInt8(ascii: "{") {
                        guard current == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                        let key = try string()
                        space()
                        guard current == UInt8(ascii: ":") else { throw fail("expected ':'") }
                        pos += 1; space()
                        members[key] = try value(depth: depth + 1)
                    } else {
                        items.append(try value(depth: depth + 1))
                    }
                    space()
                    if current == close { pos += 1; break }
                    guard current == UInt8(ascii: ",") else { throw fail("expected ',' or a closing bracket") }
                    pos += 1; space()
                }
            }
            return c == UInt8(ascii: "[") ? .array(items) : .object(members)
        default: return .number(try number())
        }
    }

    mutating func number() throws(JSONValue.ParseError) -> Double {
        let start = pos
        while let c = current, (c >= 48 && c <= 57) || c == 45 || c == 43 || c == 46 || c == 101 || c == 69 { pos += 1 }
        guard pos > start, pos - start <= 64, let d = Double(String(decoding: bytes[start..<pos], as: UTF8.self)), d.isFinite else {
            pos = start
            throw fail("expected a value")
        }
        return d
    }

    mutating func string() throws(JSONValue.ParseError) -> String {
        pos += 1
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw fail("unterminated string") }
            pos += 1
            if c == UInt8(ascii: "\"") { break }
            guard c >= 0x20 else { throw fail("control character in a string") }
            guard c == UInt8(ascii: "\\") else { out.append(c); continue }
            guard let e = current else { throw fail("unterminated string") }
            pos += 1
            switch e {
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "u"):
                guard pos + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[pos..<pos + 4], as: UTF8.self), radix: 16) else {
                    throw fail("\\u needs four hex digits")
                }
                pos += 4
                out += Array(String(Unicode.Scalar(code).map(Character.init) ?? "\u{FFFD}").utf8)
            default: throw fail("unknown escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
