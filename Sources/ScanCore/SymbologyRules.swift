/// Per-symbology acceptance rules from the config: length limits, check digits and how many
/// agreeing frames a linear code needs. A result that breaks them is not a read.
public struct SymbologyRules: Sendable, Equatable {
    /// What to do with an optional check character (ITF, Code 39).
    public enum CheckDigit: String, Sendable, CaseIterable {
        /// Do not check; transmit as read.
        case none
        /// Reject a read whose check character is wrong; transmit it.
        case verify
        /// Reject a read whose check character is wrong; transmit without it.
        case verifyAndStrip = "verify-and-strip"
    }

    public struct Rule: Sendable, Equatable {
        public var minLength: Int?
        public var maxLength: Int?
        public var checkDigit = CheckDigit.none
        /// Consecutive frames that must agree before a read counts.
        public var agreeingFrames: Int
        /// Code 39 only: read `+A` as `a`, `/A` as `!`, ... (Full ASCII Code 39).
        public var fullASCII = true
        /// Code 39 only: read a Code 32 (Italian Pharmacode) as `A` and its nine digits. Off by
        /// default: one six-character Code 39 label in ten from the Code 32 alphabet passes its
        /// check digit by chance, and would be sent as ten other characters.
        public var code32 = false
        /// EAN-13, UPC-A, UPC-E and EAN-8 only: what to do with an EAN-2/EAN-5 add-on.
        public var addOn = AddOn.ignore
        public init(agreeingFrames: Int = 1) { self.agreeingFrames = agreeingFrames }
    }

    /// An EAN/UPC's EAN-2 or EAN-5 add-on (a book's price, a magazine's issue).
    public enum AddOn: String, Sendable, CaseIterable {
        /// Read the main code alone; an add-on's bars are passed over.
        case ignore
        /// Read the add-on when there is one and send it after the main code.
        case read
        /// A main code without an add-on is not a read.
        case require
    }

    /// The symbologies an add-on may follow (an ISBN is an EAN-13 and follows its rule).
    public static let addOnSymbologies: [Symbology] = [.ean13, .upcA, .upcE, .ean8]

    public var rules: [Symbology: Rule]
    /// What goes between a main code and its add-on in the text sent (`Symbol.transmitted`).
    public var addOnSeparator = ""
    public init(_ rules: [Symbology: Rule] = [:]) { self.rules = rules }

    /// The add-on rule of `s` (an ISBN's is EAN-13's; other symbologies have none).
    public func addOn(_ s: Symbology) -> AddOn {
        switch s {
        case .isbn13, .isbn10: return rule(.ean13).addOn
        case .ean13, .upcA, .upcE, .ean8: return rule(s).addOn
        default: return .ignore
        }
    }

    /// Whether any symbology reads add-ons (the engines then look for them).
    public var readsAddOns: Bool { Self.addOnSymbologies.contains { rule($0).addOn != .ignore } }

    /// The default: linear codes need two agreeing frames (1D misreads are the common
    /// complaint), 2D codes (with their error correction) one.
    public func rule(_ s: Symbology) -> Rule { rules[s] ?? Rule(agreeingFrames: s.isLinear ? 2 : 1) }

    /// The symbols that pass their rules, check characters stripped where configured. A UPC-E
    /// or EAN-8 lying inside a longer EAN/UPC found in the same frame is dropped (a partial read
    /// of the longer code). EAN/UPC/ITF-14 check digits are always verified.
    /// A code read both with and without its add-on at one place (an engine's scan lines that
    /// crossed the add-on and others that did not) is sent once, with it, where add-ons are read.
    public func apply(_ symbols: [Symbol]) -> [Symbol] {
        let ruled = ruledOneByOne(symbols)
        return ruled.filter { s in
            guard s.addOn == nil, addOn(s.symbology) == .read else { return true }
            return !ruled.contains { $0.addOn != nil && $0.symbology == s.symbology && $0.bytes == s.bytes && Symbol.overlap($0, s) }
        }
    }

    private func ruledOneByOne(_ symbols: [Symbol]) -> [Symbol] {
        symbols.compactMap { s -> Symbol? in
            let r = rule(s.symbology)
            var s = s
            switch s.symbology {
            case .ean13, .ean8, .upcA, .itf14:
                // Its own length too: an 11-digit "EAN-13" may pass the check by chance (1 in 10).
                if s.text.utf8.count != Self.gtinLength(s.symbology) || !UPC.hasValidCheckDigit(s.text) { return nil }
            case .upcE:
                guard let a = UPC.expandUPCE(s.text), UPC.hasValidCheckDigit(a) else { return nil }
            case .itf where r.checkDigit != .none:
                if !UPC.hasValidCheckDigit(s.text) { return nil }
                if r.checkDigit == .verifyAndStrip { s.bytes.removeLast() }
            case .code39:
                // A Code 32 carries its own check digit and no modulo-43 character: the
                // check_digit rule is for the other Code 39s (and for one printed with it).
                if r.code32, let digits = Code39.code32(s.bytes) { s.bytes = digits; s.engineText = nil; break }
                if r.checkDigit != .none {
                    guard Code39.hasValidMod43(s.bytes) else { return nil }
                    if r.checkDigit == .verifyAndStrip { s.bytes.removeLast() }
                }
                if r.code32, let digits = Code39.code32(s.bytes) { s.bytes = digits; s.engineText = nil }
                else if r.fullASCII, let full = Code39.fullASCII(s.bytes) { s.bytes = full; s.engineText = nil }
            default: break
            }
            let n = s.bytes.count
            if let min = r.minLength, n < min { return nil }
            if let max = r.maxLength, n > max { return nil }
            if s.symbology == .upcE || s.symbology == .ean8 {
                let longer = symbols.filter { [.ean13, .upcA, .itf14].contains($0.symbology) }
                if longer.contains(where: { Self.overlaps($0, s) }) { return nil }
            }
            switch addOn(s.symbology) {
            case .ignore: s.addOn = nil
            case .read: if let a = s.addOn, !Self.isAddOn(a) { s.addOn = nil }
            case .require: guard let a = s.addOn, Self.isAddOn(a) else { return nil }
            }
            s.addOnSeparator = addOnSeparator
            return s
        }
    }

    /// The digits of an EAN-13, EAN-8, UPC-A or ITF-14.
    static func gtinLength(_ symbology: Symbology) -> Int {
        switch symbology { case .ean8: 8; case .upcA: 12; case .itf14: 14; default: 13 }
    }

    /// Two or five digits: an EAN-2 or EAN-5.
    static func isAddOn(_ a: String) -> Bool { (a.utf8.count == 2 || a.utf8.count == 5) && a.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }

    static func overlaps(_ a: Symbol, _ b: Symbol) -> Bool {
        guard let ca = b.center, !a.corners.isEmpty else { return true }
        let xs = a.corners.map(\.x), ys = a.corners.map(\.y)
        return Double(xs.min()! - 5) <= ca.x && ca.x <= Double(xs.max()! + 5) && Double(ys.min()! - 20) <= ca.y && ca.y <= Double(ys.max()! + 20)
    }
}

/// Code 39's optional modulo-43 check character.
public enum Code39 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%".utf8)

    /// Full ASCII Code 39: the pairs `$X`, `%X`, `/X`, `+X` read as one character. Nil when the
    /// text has no pair, or a pair that Full ASCII does not define (then it is plain Code 39).
    public static func fullASCII(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var i = 0, pairs = 0
        while i < bytes.count {
            let c = bytes[i]
            guard [UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: "+")].contains(c) else {
                out.append(c); i += 1; continue
            }
            guard i + 1 < bytes.count else { return nil }
            let n = bytes[i + 1]
            guard n >= 65 && n <= 90 else { return nil } // A...Z
            let k = n - 65
            switch c {
            case UInt8(ascii: "$"): out.append(1 + k)                 // $A..$Z: SOH..SUB
            case UInt8(ascii: "+"): out.append(97 + k)                // +A..+Z: a..z
            case UInt8(ascii: "/"):
                if k <= 14 { out.append(33 + k) }                     // /A../O: ! .. /
                else if k == 25 { out.append(58) }                    // /Z: :
                else { return nil }
            default:                                                  // %
                let table: [UInt8] = [27, 28, 29, 30, 31, 59, 60, 61, 62, 63, 91, 92, 93, 94, 95, 123, 124, 125, 126, 127, 0, 64, 96, 127, 127, 127]
                out.append(table[Int(k)])
            }
            pairs += 1
            i += 2
        }
        return pairs > 0 ? out : nil
    }

    /// Code 32 (Italian Pharmacode, AIFA): six Code 39 characters from a 32-symbol alphabet are a
    /// number in base 32, printed as `A` and nine digits whose last is a check digit over the
    /// first eight (odd places as they are, even places doubled and their digits summed).
    /// Nil when the text is not a valid Code 32.
    public static func code32(_ bytes: [UInt8]) -> [UInt8]? {
        let symbols = Array("0123456789BCDFGHJKLMNPQRSTUVWXYZ".utf8)
        guard bytes.count == 6 else { return nil }
        var value = 0
        for b in bytes {
            guard let v = symbols.firstIndex(of: b) else { return nil }
            value = value * 32 + v
        }
        guard value < 1_000_000_000 else { return nil }
        var digits = Array(String(value).utf8).map { Int($0) - 48 }
        digits = Array(repeating: 0, count: 9 - digits.count) + digits
        var sum = 0
        for (i, d) in digits.prefix(8).enumerated() {
            if i % 2 == 0 { sum += d } else { sum += (2 * d) / 10 + (2 * d) % 10 }
        }
        guard sum % 10 == digits[8] else { return nil }
        return [UInt8(ascii: "A")] + digits.map { UInt8($0 + 48) }
    }

    public static func hasValidMod43(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        var sum = 0
        for b in bytes.dropLast() {
            guard let v = alphabet.firstIndex(of: b) else { return false }
            sum += v
        }
        return alphabet[sum % 43] == bytes.last!
    }
}
