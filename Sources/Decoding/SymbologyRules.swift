import ScanCore

/// Per-symbology acceptance rules from the config: length limits and check digits. A result
/// that breaks them is not a read.
public struct SymbologyRules: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        public var minLength: Int?
        public var maxLength: Int?
        /// Verify the check digit where the symbology has an optional one (ITF, Code 39); EAN/UPC
        /// digits are always verified.
        public var verifyCheckDigit = false
        /// Keep the check digit in the transmitted text (false strips it where it is optional).
        public var transmitCheckDigit = true
        /// Agreeing frames needed before a read counts (linear codes; the kiosk applies it).
        public var agreeingFrames = 1
        public init() {}
    }

    public var rules: [Symbology: Rule] = [:]
    public init(_ rules: [Symbology: Rule] = [:]) { self.rules = rules }

    public func rule(_ s: Symbology) -> Rule { rules[s] ?? Rule() }

    /// The symbols that pass their rules; a UPC-E or EAN-8 lying inside a longer EAN/UPC found in
    /// the same frame is dropped (a partial read of the longer code).
    public func filter(_ symbols: [Symbol]) -> [Symbol] {
        symbols.filter { s in
            let r = rule(s.symbology)
            let n = s.bytes.count
            if let min = r.minLength, n < min { return false }
            if let max = r.maxLength, n > max { return false }
            switch s.symbology {
            case .ean13, .ean8, .upcA, .itf14:
                if !UPC.hasValidCheckDigit(s.text) { return false }
            case .upcE:
                guard let a = UPC.expandUPCE(s.text), UPC.hasValidCheckDigit(a) else { return false }
            case .itf where r.verifyCheckDigit:
                if !UPC.hasValidCheckDigit(s.text) { return false }
            default: break
            }
            if s.symbology == .upcE || s.symbology == .ean8 {
                let longer = symbols.filter { [.ean13, .upcA, .itf14].contains($0.symbology) }
                if longer.contains(where: { Self.overlaps($0, s) }) { return false }
            }
            return true
        }
    }

    static func overlaps(_ a: Symbol, _ b: Symbol) -> Bool {
        guard let ca = b.center, !a.corners.isEmpty else { return true }
        let xs = a.corners.map(\.x), ys = a.corners.map(\.y)
        return Double(xs.min()! - 5) <= ca.x && ca.x <= Double(xs.max()! + 5) && Double(ys.min()! - 20) <= ca.y && ca.y <= Double(ys.max()! + 20)
    }
}
