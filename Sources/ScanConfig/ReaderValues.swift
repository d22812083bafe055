import ScanCore

// Typed access to the parsed tree: each value checked for its type and range, a problem
// recorded with its line (or its `--set`) and the default taken.
extension Reader {
    mutating func table(_ value: ConfigValue?, _ key: String, allowed: [String]?) -> [String: ConfigValue] {
        tablesRead[key] = .some(allowed)
        guard let value else { return [:] }
        guard case .table(let t) = value else { fail(key, "must be a table, not \(value.typeName)"); return [:] }
        if let allowed {
            for k in t.keys.sorted() where !allowed.contains(k) {
                let full = key.isEmpty ? k : "\(key).\(k)"
                fail(full, "unknown key; known keys here: " + allowed.joined(separator: ", "))
            }
        }
        return t
    }

    mutating func string(_ t: [String: ConfigValue], _ key: String, default d: String) -> String {
        guard let v = t[leaf(key)] else { return d }
        if overrides[key] != nil { takenAsText.insert(key) }
        if case .string(let s) = v { return withoutNUL(s, key) ? s : d }
        if let o = overrides[key] { return o.text } // --set camera.device=0, web.token=1234...
        fail(key, "must be a string, not \(v.typeName)")
        return d
    }

    mutating func strings(_ t: [String: ConfigValue], _ key: String, default d: [String]) -> [String] {
        guard let v = t[leaf(key)] else { return d }
        if case .string(let s) = v { return withoutNUL(s, key) ? [s] : d }
        guard case .array(let items) = v else { fail(key, "must be an array of strings, not \(v.typeName)"); return d }
        var out: [String] = []
        for item in items {
            if case .string(let s) = item { out.append(s) } else { fail(key, "must be an array of strings"); return d }
        }
        // Refused, but the list kept: not also taken for empty (`camera.images`: "needs image files").
        if let bad = out.first(where: { $0.utf8.contains(0) }) { _ = withoutNUL(bad, key) }
        return out
    }

    /// A NUL (`\u0000`) ends a path or a name where the system reads it: `"a\u0000b"` opened
    /// `a`. No key takes one.
    mutating func withoutNUL(_ s: String, _ key: String) -> Bool {
        guard s.utf8.contains(0) else { return true }
        fail(key, "\"\(PayloadText.escaped(s))\" holds a NUL character (\\u0000), which no path or name can hold")
        return false
    }

    mutating func int(_ t: [String: ConfigValue], _ key: String, default d: Int, range: ClosedRange<Int>) -> Int {
        guard let v = t[leaf(key)] else { return d }
        guard case .int(let n) = v else { fail(key, "must be an integer, not \(v.typeName)"); return d }
        guard range.contains(n) else { fail(key, "\(n) is out of range; allowed: \(range.lowerBound) to \(range.upperBound)"); return d }
        return n
    }

    /// A number (integer or not) within `range`; out of range, the error names the range in `unit`.
    mutating func number(_ t: [String: ConfigValue], _ key: String, default d: Double, range: ClosedRange<Double>, unit: String) -> Double {
        guard let v = t[leaf(key)] else { return d }
        let n: Double
        switch v {
        case .int(let i): n = Double(i)
        case .double(let x): n = x
        default: fail(key, "must be a number, not \(v.typeName)"); return d
        }
        guard n.isFinite else { fail(key, "\(n) is not a finite number; allowed: \(JSONText.number(range.lowerBound)) to \(JSONText.number(range.upperBound)) \(unit)"); return d }
        guard range.contains(n) else {
            // As written, not rounded: 32.0000001 is not shown as 32 beside "allowed: 0 to 32".
            fail(key, "\(n) is out of range; allowed: \(JSONText.number(range.lowerBound)) to \(JSONText.number(range.upperBound)) \(unit)")
            return d
        }
        return n
    }

    mutating func millis(_ t: [String: ConfigValue], _ key: String, default d: Duration, range: ClosedRange<Int>) -> Duration {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        return .milliseconds(int(t, key, default: Int(ms), range: range))
    }

    mutating func bool(_ t: [String: ConfigValue], _ key: String, default d: Bool) -> Bool {
        guard let v = t[leaf(key)] else { return d }
        if case .bool(let b) = v { return b }
        fail(key, "must be true or false, not \(v.typeName)")
        return d
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ t: [String: ConfigValue], _ key: String, default d: T) -> T where T.RawValue == String {
        guard let v = t[leaf(key)] else { return d }
        let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
        if case .string = v, overrides[key] != nil { takenAsText.insert(key) }
        guard case .string(let s) = v else { fail(key, "must be one of: \(allowed)"); return d }
        guard let value = T(rawValue: s) else { fail(key, "\"\(s)\" is not allowed; use one of: \(allowed)"); return d }
        return value
    }


    mutating func numbersArray(_ v: ConfigValue, _ key: String) -> [Double] {
        guard case .array(let items) = v else { fail(key, "must be [x, y, width, height]"); return [] }
        var out: [Double] = []
        for item in items {
            switch item {
            case .int(let n): out.append(Double(n))
            case .double(let d): out.append(d)
            default: fail(key, "must be numbers"); return []
            }
        }
        return out
    }

    /// A string with `\r`, `\n`, `\t`, `\\` and `\xNN` escapes, as bytes.
    mutating func escapes(_ t: [String: ConfigValue], _ key: String, default d: [UInt8]) -> [UInt8] {
        guard t[leaf(key)] != nil else { return d }
        let text = string(t, key, default: "")
        var out: [UInt8] = []
        var chars = Array(text.utf8)[...]
        while let c = chars.popFirst() {
            guard c == UInt8(ascii: "\\"), let e = chars.popFirst() else { out.append(c); continue }
            switch e {
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "\\"): out.append(92)
            case UInt8(ascii: "x"):
                let hex = chars.prefix(2)
                if hex.count == 2, let v = UInt8(String(decoding: hex, as: UTF8.self), radix: 16) {
                    out.append(v); chars = chars.dropFirst(2)
                } else { fail(key, "\\x needs two hex digits, e.g. \\x02"); return d }
            default: fail(key, "unknown escape \\\(Character(Unicode.Scalar(e))); use \\r \\n \\t \\\\ or \\xNN"); return d
            }
        }
        return out
    }

    func leaf(_ key: String) -> String { String(key.split(separator: ".").last ?? "") }
}
