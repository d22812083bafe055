/// UPC and EAN number forms.
public enum UPC {
    /// The UPC-A expansion of an 8-digit UPC-E (number system, six digits, check digit), or nil.
    public static func expandUPCE(_ short: String) -> String? {
        let d = Array(short)
        guard d.count == 8, d.allSatisfy(\.isASCIIDigit) else { return nil }
        let ns = d[0], x = Array(d[1...6]), check = d[7]
        let body: [Character]
        switch x[5] {
        case "0", "1", "2": body = [x[0], x[1], x[5], "0", "0", "0", "0", x[2], x[3], x[4]]
        case "3": body = [x[0], x[1], x[2], "0", "0", "0", "0", "0", x[3], x[4]]
        case "4": body = [x[0], x[1], x[2], x[3], "0", "0", "0", "0", "0", x[4]]
        default: body = [x[0], x[1], x[2], x[3], x[4], "0", "0", "0", "0", x[5]]
        }
        return String([ns] + body + [check])
    }

    /// Whether the last digit of a GTIN (EAN-8, UPC-A, EAN-13, GTIN-14) is its mod-10 check digit.
    public static func hasValidCheckDigit(_ digits: String) -> Bool {
        let d = digits.compactMap { $0.wholeNumberValue }
        guard d.count == digits.count, d.count >= 2 else { return false }
        var sum = 0
        for (i, v) in d.dropLast().reversed().enumerated() { sum += v * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == d.last!
    }
}
