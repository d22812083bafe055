// TOML values: strings, numbers, booleans, dates and times, and the dispatch between them.

/// A TOML date, time or date-time as written (to the microsecond, as tomli keeps it).
public struct TOMLDateTime: Equatable, Sendable {
    public var date: (year: Int, month: Int, day: Int)?
    public var time: (hour: Int, minute: Int, second: Int, microsecond: Int)?
    /// Minutes east of UTC for an offset date-time; nil for local ones.
    public var offsetMinutes: Int?

    public static func == (a: Self, b: Self) -> Bool {
        a.date?.year == b.date?.year && a.date?.month == b.date?.month && a.date?.day == b.date?.day
            && a.time?.hour == b.time?.hour && a.time?.minute == b.time?.minute && a.time?.second == b.time?.second
            && a.time?.microsecond == b.time?.microsecond && a.offsetMinutes == b.offsetMinutes
    }
}

extension TOMLParser {
    mutating func value(depth: Int) throws(TOMLError) -> ConfigValue {
        guard let c = current else { throw error("expected a value, found the end of the input") }
        switch c {
        case 34:
            if starts(with: "\"\"\"") { return .string(try multilineString(literal: false)) }
            pos += 1
            return .string(try basicString(multiline: false))
        case 39:
            if starts(with: "'''") { return .string(try multilineString(literal: true)) }
            return .string(try literalString())
        case 116 where starts(with: "true"): pos += 4; return .bool(true)
        case 102 where starts(with: "false"): pos += 5; return .bool(false)
        case 91, 123:
            guard depth < limits.maxDepth else { throw error("arrays and inline tables nested more than \(limits.maxDepth) deep") }
            return c == 91 ? try array(depth: depth + 1) : try inlineTable(depth: depth + 1)
        default: break
        }
        if let dt = try dateTime() { return .datetime(dt) }
        if let number = try number() { return number }
        for (word, value) in [("inf", Double.infinity), ("nan", Double.nan)] {
            for sign in ["", "+", "-"] where matches(sign + word) {
                pos += sign.utf8.count + 3
                return .double(sign == "-" ? -value : value)
            }
        }
        throw error("expected a value (a string, number, true/false, date, array or inline table), found \(describe(c))")
    }

    func matches(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return pos + bytes.count <= src.count && Array(src[pos..<pos + bytes.count]) == bytes
    }

    // MARK: - Strings

    mutating func literalString() throws(TOMLError) -> String {
        pos += 1
        let start = pos
        while true {
            guard let c = current else { throw error("unterminated string: expected '") }
            if c == 39 { break }
            if c != 9 && Self.isControl(c) { throw error("control character \(Self.show(c)) in a string") }
            pos += 1
        }
        let text = try checked(src[start..<pos])
        pos += 1
        return text
    }

    func checked(_ bytes: ArraySlice<UInt8>) throws(TOMLError) -> String {
        guard bytes.count <= limits.maxStringBytes else { throw error("string longer than \(limits.maxStringBytes) bytes") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A basic string after its opening quote(s), up to and past the closing ones.
    mutating func basicString(multiline: Bool) throws(TOMLError) -> String {
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw error("unterminated string") }
            if c == 34 {
                if !multiline { pos += 1; break }
                if starts(with: "\"\"\"") { pos += 3; break }
                out.append(c); pos += 1
            } else if c == 92 {
                try escape(into: &out, multiline: multiline)
            } else {
                if Self.isControl(c) && c != 9 && !(multiline && c == 10) {
                    throw error("control character \(Self.show(c)) in a string; write it as an escape")
                }
                out.append(c); pos += 1
            }
            if out.count > limits.maxStringBytes { throw error("string longer than \(limits.maxStringBytes) bytes") }
        }
        return String(decoding: out, as: UTF8.self)
    }

    mutating func escape(into out: inout [UInt8], multiline: Bool) throws(TOMLError) {
        pos += 1
        guard let e = current else { throw error("unterminated string") }
        if multiline && (e == 32 || e == 9 || e == 10) {
            // A line-ending backslash: white space up to the next non-blank is dropped.
            if e != 10 {
                skipSpaces()
                guard let after = current else { return }
                guard after == 10 else { throw error("a backslash in a string must start an escape or end the line") }
            }
            while let c = current, c == 32 || c == 9 || c == 10 { pos += 1 }
            return
        }
        pos += 1
        switch e {
        case 98: out.append(8)
        case 116: out.append(9)
        case 110: out.append(10)
        case 102: out.append(12)
        case 114: out.append(13)
        case 34: out.append(34)
        case 92: out.append(92)
        case 117, 85:
            let count = e == 117 ? 4 : 8
            guard pos + count <= src.count,
                  src[pos..<pos + count].allSatisfy({ Self.hexValue($0) != nil }) else {
                throw error("\\\(e == 117 ? "u" : "U") needs \(count) hex digits")
            }
            let code = src[pos..<pos + count].reduce(UInt32(0)) { $0 << 4 | UInt32(Self.hexValue($1)!) }
            pos += count
            guard let scalar = Unicode.Scalar(code) else { throw error("escape is not a Unicode scalar value") }
            out += Array(String(Character(scalar)).utf8)
        default:
            pos -= 1
            throw error("unknown escape \\\(describe(e)); use \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX or \\UXXXXXXXX")
        }
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }

    mutating func multilineString(literal: Bool) throws(TOMLError) -> String {
        pos += 3
        if current == 10 { pos += 1 }
        var text: String
        if literal {
            let start = pos
            while !starts(with: "'''") {
                guard let c = current else { throw error("unterminated string: expected '''") }
                if c != 9 && c != 10 && Self.isControl(c) { throw error("control character \(Self.show(c)) in a string") }
                pos += 1
            }
            text = try checked(src[start..<pos])
            pos += 3
        } else {
            text = try basicString(multiline: true)
        }
        // Up to two quotes right before the closing three belong to the string.
        let quote: UInt8 = literal ? 39 : 34
        for _ in 0..<2 where current == quote { text.append(Character(Unicode.Scalar(quote))); pos += 1 }
        return text
    }

    // MARK: - Numbers

    static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// Digits of the accepted kind with single underscores between them, from `p`; returns the end.
    func digits(from p: Int, _ accept: (UInt8) -> Bool) -> Int? {
        guard p < src.count, accept(src[p]) else { return nil }
        var end = p + 1
        while end < src.count {
            if accept(src[end]) { end += 1 } else if src[end] == 95, end + 1 < src.count, accept(src[end + 1]) { end += 2 } else { break }
        }
        return end
    }

    mutating func number() throws(TOMLError) -> ConfigValue? {
        let start = pos
        if current == 48, pos + 1 < src.count {
            let radix: Int?, accept: (UInt8) -> Bool
            switch src[pos + 1] {
            case 120: radix = 16; accept = { Self.hexValue($0) != nil }
            case 111: radix = 8; accept = { $0 >= 48 && $0 <= 55 }
            case 98: radix = 2; accept = { $0 == 48 || $0 == 49 }
            default: radix = nil; accept = { _ in false }
            }
            if let radix, let end = digits(from: pos + 2, accept) {
                pos = end
                return .int(try integer(src[start + 2..<end], radix: radix, negative: false))
            }
        }
        var p = pos
        if p < src.count, src[p] == 43 || src[p] == 45 { p += 1 }
        let intStart = p
        guard p < src.count, Self.isDigit(src[p]) else { return nil }
        if src[p] == 48 { p += 1 } else { p = digits(from: p, Self.isDigit)! }
        let intEnd = p
        var isFloat = false
        if p < src.count, src[p] == 46, let end = digits(from: p + 1, Self.isDigit) { p = end; isFloat = true }
        if p < src.count, src[p] == 101 || src[p] == 69 {
            var q = p + 1
            if q < src.count, src[q] == 43 || src[q] == 45 { q += 1 }
            if let end = digits(from: q, Self.isDigit) { p = end; isFloat = true }
        }
        pos = p
        if isFloat {
            let text = String(decoding: src[start..<p].filter { $0 != 95 }, as: UTF8.self)
            guard let d = Double(text) else { throw error("\(text) is not a number") }
            return .double(d)
        }
        return .int(try integer(src[intStart..<intEnd], radix: 10, negative: src[start] == 45))
    }

    func integer(_ digits: ArraySlice<UInt8>, radix: Int, negative: Bool) throws(TOMLError) -> Int {
        var value = 0
        for c in digits where c != 95 {
            let d = Int(Self.hexValue(c)!)
            let (times, o1) = value.multipliedReportingOverflow(by: radix)
            let (next, o2) = negative ? times.subtractingReportingOverflow(d) : times.addingReportingOverflow(d)
            if o1 || o2 { throw error("integer out of range (a 64-bit signed integer)") }
            value = next
        }
        return value
    }

    // MARK: - Dates and times

    func fixed(_ p: Int, _ count: Int) -> Int? {
        guard p + count <= src.count else { return nil }
        var v = 0
        for c in src[p..<p + count] { guard Self.isDigit(c) else { return nil }; v = v * 10 + Int(c - 48) }
        return v
    }

    func byte(_ p: Int, _ c: UInt8) -> Bool { p < src.count && src[p] == c }

    /// `HH:MM:SS[.fraction]` at `p`: the time and where it ends.
    func time(at p: Int) -> ((Int, Int, Int, Int), Int)? {
        guard let h = fixed(p, 2), h < 24, byte(p + 2, 58), let m = fixed(p + 3, 2), m < 60,
              byte(p + 5, 58), let s = fixed(p + 6, 2), s < 60 else { return nil }
        var end = p + 8, micro = 0
        if byte(end, 46), end + 1 < src.count, Self.isDigit(src[end + 1]) {
            end += 1
            var n = 0
            while end < src.count, Self.isDigit(src[end]) {
                if n < 6 { micro = micro * 10 + Int(src[end] - 48); n += 1 }
                end += 1
            }
            for _ in n..<6 { micro *= 10 }
        }
        return ((h, m, s, micro), end)
    }

    mutating func dateTime() throws(TOMLError) -> TOMLDateTime? {
        let p = pos
        if let y = fixed(p, 4), byte(p + 4, 45), let mo = fixed(p + 5, 2), (1...12).contains(mo), byte(p + 7, 45),
           let d = fixed(p + 8, 2), (1...31).contains(d) {
            var result = TOMLDateTime(date: (y, mo, d))
            var end = p + 10
            if end < src.count, [84, 116, 32].contains(src[end]), let (t, tEnd) = time(at: end + 1) {
                result.time = t
                end = tEnd
                if byte(end, 90) || byte(end, 122) {
                    result.offsetMinutes = 0; end += 1
                } else if byte(end, 43) || byte(end, 45), let oh = fixed(end + 1, 2), oh < 24, byte(end + 3, 58),
                          let om = fixed(end + 4, 2), om < 60 {
                    result.offsetMinutes = (byte(end, 45) ? -1 : 1) * (oh * 60 + om)
                    end += 6
                }
            }
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
            guard y >= 1, d <= days else { throw error("\(y)-\(mo)-\(d) is not a date") }
            pos = end
            return result
        }
        if let (t, end) = time(at: p) {
            pos = end
            return TOMLDateTime(time: t)
        }
        return nil
    }
}
