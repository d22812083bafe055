/// UPC-E, the zero-suppressed form of UPC-A, and the UPC-A number it stands for.
public enum UPCE {
    /// The 12-digit UPC-A for an 8-digit UPC-E (number system 0 or 1, six digits, check digit),
    /// or nil when `digits` is not one. The check digit is the same in both forms.
    public static func upcA(_ digits: String) -> String? {
        let d = Array(digits.utf8).map { Int($0) - 48 }
        guard d.count == 8, d.allSatisfy({ (0...9).contains($0) }), d[0] <= 1 else { return nil }
        let m = Array(d[1...6])
        let body: [Int]
        switch m[5] {
        case 0...2: body = [m[0], m[1], m[5], 0, 0, 0, 0, m[2], m[3], m[4]]
        case 3: body = [m[0], m[1], m[2], 0, 0, 0, 0, 0, m[3], m[4]]
        case 4: body = [m[0], m[1], m[2], m[3], 0, 0, 0, 0, 0, m[4]]
        default: body = [m[0], m[1], m[2], m[3], m[4], 0, 0, 0, 0, m[5]]
        }
        let a = [d[0]] + body + [d[7]]
        // The UPC-A check digit over the first eleven: odd positions weigh 3.
        let sum = a[0..<11].enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 3 : 1) }
        guard (10 - sum % 10) % 10 == a[11] else { return nil }
        return String(a.map { Character(String($0)) })
    }

    /// `symbol` with a UPC-E payload replaced by its UPC-A number; any other symbol as it is.
    public static func expanded(_ symbol: Symbol) -> Symbol {
        guard symbol.symbology == .upcE, let a = upcA(symbol.text) else { return symbol }
        var s = symbol
        s.bytes = Array(a.utf8)
        s.engineText = nil
        return s
    }
}
