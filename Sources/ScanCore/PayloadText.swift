/// Turning payload bytes into text that is safe to show or send.
public enum PayloadText {
    /// UTF-8 when valid, otherwise Latin-1 byte by byte (lossless).
    public static func decode(_ bytes: [UInt8]) -> String {
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// The text with its control characters (C0, DEL, C1) written as `\xNN` and its invisible
    /// ones as `\u{NNNN}` (`invisiblesShown`), backslashes left as they are: for a line made of
    /// scand's own words and names from outside (a device path from the config, an error text
    /// about it), which must stay one line (a host's answer, a log line). Text without them is
    /// returned as it is.
    public static func controlsShown(_ text: String) -> String { shown(text, controls: true) }

    /// A C0 control, DEL or a C1 control.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) }

    /// The text with every control character (C0, DEL, C1) written as `\xNN` (or `\u{NNNN}` for
    /// line and paragraph separators and bidi controls) and a backslash as `\\`, so that a payload
    /// can never break a line protocol or drive a terminal, and the original stays recoverable.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if scalar == "\\" {
                out += "\\\\"
            } else if isControl(scalar) {
                out += "\\x" + hex2(v)
            } else if v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
                out += unicodeEscape(v)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The text with its invisible characters written as `\u{NNNN}`: format characters (a byte
    /// order mark, a zero-width space, a direction override) and line and paragraph separators.
    /// For the log and for messages that quote a config value: a value that looks right there is
    /// seen not to be, and a direction override cannot turn the rest of a line around.
    public static func invisiblesShown(_ text: String) -> String { shown(text, controls: false) }

    /// `text` with its invisible characters as `\u{NNNN}`, and with `controls` its control
    /// characters as `\xNN`; the text itself where it has none.
    private static func shown(_ text: String, controls: Bool) -> String {
        let control = { (s: Unicode.Scalar) in controls && isControl(s) }
        guard text.unicodeScalars.contains(where: { control($0) || isInvisible($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if control(scalar) { out += "\\x" + hex2(scalar.value) }
            else if isInvisible(scalar) { out += unicodeEscape(scalar.value) }
            else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    private static func unicodeEscape(_ v: UInt32) -> String { "\\u{" + String(v, radix: 16, uppercase: true) + "}" }

    /// A format character or a line or paragraph separator (`invisiblesShown`).
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private static func hex2(_ v: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(v >> 4)], digits[Int(v & 0xF)]])
    }

    /// Standard base64 (RFC 4648, with padding).
    public static func base64(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(table[Int(n >> 18 & 63)]); out.append(table[Int(n >> 12 & 63)])
            out.append(table[Int(n >> 6 & 63)]); out.append(table[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out.append(table[Int(n >> 18 & 63)]); out.append(table[Int(n >> 12 & 63)]); out += "=="
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out.append(table[Int(n >> 18 & 63)]); out.append(table[Int(n >> 12 & 63)])
            out.append(table[Int(n >> 6 & 63)]); out += "="
        }
        return out
    }
}
