/// What a payload is, as the seed's data scanner tells them apart: a web address, an e-mail, a
/// phone number, an SMS, a Wi-Fi join, a contact, a calendar event, a place, GS1 element strings
/// or an ISBN. Anything else is plain text.
public enum PayloadKind: String, Sendable, Equatable, CaseIterable {
    case url, email, telephone, sms, wifi, contact, calendar, geo, gs1, isbn, text
}

/// A classified payload: its kind and the fields found in it.
public struct PayloadInfo: Sendable, Equatable {
    public var kind: PayloadKind
    /// Named fields, e.g. `ssid`, `security` for Wi-Fi; `gtin`, `lot`, `expiry` for GS1.
    public var fields: [(String, String)]

    public init(kind: PayloadKind, fields: [(String, String)] = []) {
        self.kind = kind
        self.fields = fields
    }

    public static func == (a: PayloadInfo, b: PayloadInfo) -> Bool {
        a.kind == b.kind && a.fields.elementsEqual(b.fields, by: { $0 == $1 })
    }

    public func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }

    /// `{"type": "wifi", "ssid": "...", ...}`
    public var json: String {
        var parts = ["\"type\":\(JSONText.string(kind.rawValue))"]
        for (k, v) in fields { parts.append("\(JSONText.string(k)):\(JSONText.string(v))") }
        return "{" + parts.joined(separator: ",") + "}"
    }
}

/// Classifies payloads.
public enum PayloadClassifier {
    public static func classify(_ symbol: Symbol) -> PayloadInfo {
        let text = symbol.text
        if symbol.symbology == .ean13 || symbol.symbology == .isbn13, isBookland(text) {
            return PayloadInfo(kind: .isbn, fields: [("isbn", text)] + (symbol.addOn.map(bookPrice) ?? []))
        }
        if let gs1 = GS1.elementStrings(symbol) { return gs1.payload }
        return classify(text)
    }

    /// Whether an EAN-13's digits are a book's (Bookland: 978, 979).
    public static func isBookland(_ digits: String) -> Bool { digits.hasPrefix("978") || digits.hasPrefix("979") }

    /// A book's EAN-5 add-on (Bookland): its first digit names the currency, the other four
    /// the price in hundredths (`52495`: US$24.95); `90000` is no price, `9999x` marks a book
    /// given away or used, other `9xxxx` are the publisher's own. An EAN-2 (rare on books) is
    /// given as it is.
    static func bookPrice(_ addOn: String) -> [(String, String)] {
        var fields = [("addon", addOn)]
        let digits = Array(addOn.utf8)
        guard digits.count == 5, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return fields }
        let amount = Int(String(decoding: digits.dropFirst(), as: UTF8.self)) ?? 0
        let currencies: [UInt8: String] = [48: "GBP", 49: "GBP", 51: "AUD", 52: "NZD", 53: "USD", 54: "CAD"]
        if let currency = currencies[digits[0]] {
            let cents = amount % 100
            fields += [("currency", currency), ("price", "\(amount / 100).\(cents < 10 ? "0" : "")\(cents)")]
        } else if digits[0] == 57 {
            fields.append(("price", addOn == "90000" ? "none" : addOn.hasPrefix("9999") ? (addOn == "99990" ? "used" : "complimentary") : "publisher"))
        }
        return fields
    }

    public static func classify(_ text: String) -> PayloadInfo {
        let lower = text.lowercased()
        func after(_ prefix: String) -> String { String(text.dropFirst(prefix.count)) }
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let host = after(lower.hasPrefix("https://") ? "https://" : "http://").split(separator: "/").first.map(String.init) ?? ""
            return PayloadInfo(kind: .url, fields: [("url", text), ("host", host)])
        }
        if lower.hasPrefix("mailto:") {
            let rest = after("mailto:")
            let parts = rest.split(separator: "?", maxSplits: 1)
            var fields = [("address", String(parts.first ?? ""))]
            if parts.count > 1 { fields += query(String(parts[1])).filter { ["subject", "body", "cc"].contains($0.0) } }
            return PayloadInfo(kind: .email, fields: fields)
        }
        if lower.hasPrefix("matmsg:") {
            let f = fields(after("MATMSG:"), separator: ";")
            return PayloadInfo(kind: .email, fields: [("address", f["TO"] ?? ""), ("subject", f["SUB"] ?? ""), ("body", f["BODY"] ?? "")].filter { !$0.1.isEmpty })
        }
        if lower.hasPrefix("tel:") { return PayloadInfo(kind: .telephone, fields: [("number", after("tel:"))]) }
        if lower.hasPrefix("smsto:") || lower.hasPrefix("sms:") {
            let rest = lower.hasPrefix("smsto:") ? after("smsto:") : after("sms:")
            let parts = rest.split(separator: lower.hasPrefix("smsto:") ? ":" : "?", maxSplits: 1).map(String.init)
            var fields = [("number", parts.first ?? "")]
            if parts.count > 1 { fields.append(("body", parts[1].hasPrefix("body=") ? String(parts[1].dropFirst(5)) : parts[1])) }
            return PayloadInfo(kind: .sms, fields: fields)
        }
        if lower.hasPrefix("wifi:") {
            let f = fields(after("WIFI:"), separator: ";")
            var out: [(String, String)] = [("ssid", f["S"] ?? "")]
            out.append(("security", f["T"].map { $0.isEmpty ? "nopass" : $0 } ?? "nopass"))
            if let p = f["P"] { out.append(("password", p)) }
            if f["H"]?.lowercased() == "true" { out.append(("hidden", "true")) }
            return PayloadInfo(kind: .wifi, fields: out)
        }
        if lower.hasPrefix("mecard:") {
            let f = fields(after("MECARD:"), separator: ";")
            let name = (f["N"] ?? "").split(separator: ",").reversed().joined(separator: " ")
            return PayloadInfo(kind: .contact, fields: [("name", name), ("telephone", f["TEL"] ?? ""), ("email", f["EMAIL"] ?? ""),
                                                      ("organization", f["ORG"] ?? ""), ("url", f["URL"] ?? "")].filter { !$0.1.isEmpty })
        }
        if lower.hasPrefix("begin:vcard") {
            let f = vfields(text)
            return PayloadInfo(kind: .contact, fields: [("name", f["FN"] ?? f["N"]?.split(separator: ";").reversed().joined(separator: " ") ?? ""),
                                                      ("telephone", f["TEL"] ?? ""), ("email", f["EMAIL"] ?? ""),
                                                      ("organization", f["ORG"] ?? ""), ("url", f["URL"] ?? "")].filter { !$0.1.isEmpty })
        }
        if lower.hasPrefix("begin:vevent") || lower.hasPrefix("begin:vcalendar") {
            let f = vfields(text)
            return PayloadInfo(kind: .calendar, fields: [("summary", f["SUMMARY"] ?? ""), ("start", f["DTSTART"] ?? ""),
                                                       ("end", f["DTEND"] ?? ""), ("location", f["LOCATION"] ?? "")].filter { !$0.1.isEmpty })
        }
        if lower.hasPrefix("geo:") {
            let coords = after("geo:").split(separator: "?").first.map { $0.split(separator: ",").map(String.init) } ?? []
            if coords.count >= 2, Double(coords[0]) != nil, Double(coords[1]) != nil {
                return PayloadInfo(kind: .geo, fields: [("latitude", coords[0]), ("longitude", coords[1])] + (coords.count > 2 ? [("altitude", coords[2])] : []))
            }
        }
        if text.count == 10, text.dropLast().allSatisfy(\.isASCIIDigit), text.last!.isASCIIDigit || text.last == "X", isbn10Valid(text) {
            return PayloadInfo(kind: .isbn, fields: [("isbn", text)])
        }
        return PayloadInfo(kind: .text)
    }

    /// `K:v;K:v;` with backslash escapes (MECARD, WIFI, MATMSG).
    static func fields(_ s: String, separator: Character) -> [String: String] {
        var out: [String: String] = [:]
        var key = "", value = "", inKey = true, escaped = false
        for c in s {
            if escaped { if inKey { key.append(c) } else { value.append(c) }; escaped = false; continue }
            if c == "\\" { escaped = true; continue }
            if inKey && c == ":" { inKey = false; continue }
            if c == separator {
                if !key.isEmpty && out[key.uppercased()] == nil { out[key.uppercased()] = value }
                key = ""; value = ""; inKey = true
                continue
            }
            if inKey { key.append(c) } else { value.append(c) }
        }
        if !key.isEmpty && !inKey && out[key.uppercased()] == nil { out[key.uppercased()] = value }
        return out
    }

    /// vCard/iCalendar `NAME;params:value` lines.
    static func vfields(_ s: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in s.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].split(separator: ";").first.map { $0.uppercased() } ?? ""
            if out[name] == nil { out[name] = String(line[line.index(after: colon)...]) }
        }
        return out
    }

    static func query(_ s: String) -> [(String, String)] {
        s.split(separator: "&").compactMap { pair in
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            return kv.count == 2 ? (kv[0].lowercased(), kv[1]) : nil
        }
    }

    static func isbn10Valid(_ s: String) -> Bool {
        var sum = 0
        for (i, c) in s.enumerated() { sum += (10 - i) * (c == "X" ? 10 : c.wholeNumberValue ?? 0) }
        return sum % 11 == 0
    }
}

extension GS1.Reading {
    /// Payload names of the common AIs (the rest are `ai<AI>`), as the payload JSON has given them.
    static let fieldNames: [String: String] = [
        "00": "sscc", "01": "gtin", "02": "content", "10": "lot", "11": "production", "13": "packaged", "15": "bestBefore",
        "17": "expiry", "21": "serial", "30": "count", "37": "units", "400": "order", "410": "shipTo", "414": "location",
    ]

    /// The payload fields: named AIs (an AI given twice: its first value, as in `gs1`), dates
    /// of 11, 13, 15 and 17 as `2026-12-31` (day 00, the month's end, as its last day; a date
    /// that is none, as written), the others as `ai<AI>`.
    public var payload: PayloadInfo {
        PayloadInfo(kind: .gs1, fields: distinct.map { e in
            var value = e.value
            if ["11", "13", "15", "17"].contains(e.ai), let date = Self.isoDate(e.value) { value = date }
            return (Self.fieldNames[e.ai] ?? "ai\(e.ai)", value)
        })
    }

    /// `YYMMDD` as `20YY-MM-DD`, day 00 as the month's last day; nil when it is no date.
    static func isoDate(_ yymmdd: String) -> String? {
        let digits = yymmdd.compactMap { $0.isASCIIDigit ? $0.wholeNumberValue : nil }
        guard yymmdd.count == 6, digits.count == 6 else { return nil }
        let year = 2000 + digits[0] * 10 + digits[1], month = digits[2] * 10 + digits[3], day = digits[4] * 10 + digits[5]
        guard (1...12).contains(month) else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let last = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard day <= last else { return nil }
        let shown = day == 0 ? last : day
        return "\(year)-" + (month < 10 ? "0" : "") + "\(month)-" + (shown < 10 ? "0" : "") + "\(shown)"
    }
}

extension Character {
    /// 0-9 only: `isNumber` also takes Arabic-Indic and other digits, which no code we classify
    /// (ISBN, GS1) is written in.
    public var isASCIIDigit: Bool { isASCII && isNumber }
}
