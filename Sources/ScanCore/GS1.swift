/// GS1 data: the Application Identifier (AI) element strings of GS1-128, GS1 DataMatrix, GS1 QR,
/// GS1 DataBar and GS1 DotCode, and GS1 Digital Link URIs, split into (AI, value) pairs and
/// checked against the AI table of the GS1 General Specifications: lengths, character sets,
/// check digits, dates, decimal-point AIs, the FNC1 separators. Pure and bounded: any bytes give
/// a `Reading` (or nil: not GS1 data), never a trap.
public enum GS1 {
    /// One element string: an Application Identifier and its data.
    public struct Element: Sendable, Equatable {
        public var ai: String
        public var value: String
        public init(ai: String, value: String) {
            self.ai = ai
            self.value = value
        }
    }

    /// Where GS1 data was found.
    public enum Source: String, Sendable, Equatable {
        /// Element strings, FNC1 in first position (the AIM identifier or a leading 0x1D).
        case elementString
        /// A GS1 Digital Link URI (`https://id.gs1.org/01/09506000134352/10/ABC?17=201231`).
        case digitalLink
    }

    /// A symbol's GS1 data.
    public struct Reading: Sendable, Equatable {
        /// The elements in the order they came.
        public var elements: [Element]
        /// What is wrong, each a sentence naming the AI and the fault; empty when the data is valid.
        public var problems: [String]
        /// Whether the whole payload was split into elements; false when it stopped making sense
        /// (an unknown AI, data cut short), where the first problem says: `elements` holds what
        /// came before.
        public var isComplete: Bool
        public var source: Source

        public var isValid: Bool { problems.isEmpty }

        /// The human-readable interpretation: `(01)09506000134352(17)201231(10)ABC`.
        public var hri: String { elements.map { "(\($0.ai))\($0.value)" }.joined() }

        /// The elements once each (the first of an AI repeated), in order: what a JSON object holds.
        public var distinct: [Element] {
            var seen = Set<String>()
            return elements.filter { seen.insert($0.ai).inserted }
        }
    }

    /// The most bytes taken: GS1 symbols carry far less (a GS1 QR code at most 7089 digits),
    /// a Digital Link URI is a few hundred. Longer data is refused whole, never walked.
    public static let maxLength = 8192

    /// AIM symbology identifiers that say FNC1 is in first position: GS1-128, GS1 DataMatrix,
    /// GS1 QR, GS1 DataBar (always GS1) and GS1 DotCode.
    public static let aimIdentifiers: Set<String> = ["]C1", "]d2", "]Q3", "]e0", "]J1"]

    /// The GS1 data of `symbol`: element strings when its AIM identifier flags GS1 (or the payload
    /// starts with an FNC1 as 0x1D), a Digital Link when its text is one; nil otherwise.
    public static func read(_ symbol: Symbol) -> Reading? {
        elementStrings(symbol) ?? digitalLink(symbol.text)
    }

    /// The element strings of `symbol` when it is flagged GS1 (see `read`), else nil.
    public static func elementStrings(_ symbol: Symbol) -> Reading? {
        let flagged = aimIdentifiers.contains(symbol.aim) || symbol.bytes.first == groupSeparator
        return flagged ? parse(elementString: symbol.bytes) : nil
    }

    /// Splits element strings (FNC1 as 0x1D between them; one leading 0x1D, the FNC1 in first
    /// position, is skipped) into elements and checks each.
    public static func parse(elementString bytes: [UInt8]) -> Reading {
        var reading = Reading(elements: [], problems: [], isComplete: false, source: .elementString)
        guard bytes.count <= maxLength else {
            reading.problems = ["\(bytes.count) bytes is more than GS1 data can be (at most \(maxLength)): not read"]
            return reading
        }
        var i = bytes.first == groupSeparator ? 1 : 0
        while i < bytes.count {
            if bytes[i] == groupSeparator { i += 1; continue }
            guard let (ai, spec) = identifier(bytes, at: i, &reading.problems) else { return reading }
            i += ai.utf8.count
            let end: Int
            if spec.predefined {
                end = min(i + spec.maxLength, bytes.count)
                if end - i < spec.maxLength {
                    reading.problems.append("(\(ai)) needs \(spec.maxLength) characters, the data ends after \(end - i): the code is cut short")
                    reading.elements.append(Element(ai: ai, value: text(bytes[i..<end])))
                    return reading
                }
            } else {
                end = bytes[i...].firstIndex(of: groupSeparator) ?? bytes.count
            }
            let value = Array(bytes[i..<end])
            reading.problems += check(value, of: ai, spec)
            reading.elements.append(Element(ai: ai, value: text(value[...])))
            i = end
        }
        reading.isComplete = !reading.elements.isEmpty
        if reading.elements.isEmpty { reading.problems.append("no element string: the GS1 data is empty") }
        reading.problems += duplicates(reading.elements)
        return reading
    }

    /// A GS1 Digital Link URI's elements: its primary key and key qualifiers from the path (after
    /// any prefix of the path: custom domains and folders are allowed), its data attributes from
    /// the query (other parameters are ignored), values percent-decoded. nil unless the path
    /// holds a primary-key AI whose value passes its checks (a GTIN's check digit, ...), with
    /// only its key qualifiers after it, in their order: then `text` is an ordinary URL.
    public static func digitalLink(_ text: String) -> Reading? {
        let utf8 = Array(text.utf8)
        guard utf8.count <= maxLength else { return nil }
        let head = utf8.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }
        let scheme = head.starts(with: "https://".utf8) ? 8 : head.starts(with: "http://".utf8) ? 7 : 0
        guard scheme > 0 else { return nil }
        let rest = utf8[scheme...].split(separator: UInt8(ascii: "#"), maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = rest.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)
        guard let slash = parts[0].firstIndex(of: UInt8(ascii: "/")), slash > parts[0].startIndex else { return nil }
        let segments = parts[0][slash...].split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
        for start in segments.indices where (segments.count - start) % 2 == 0 {
            guard let key = dlKeys[segments[start]], var reading = pathElements(Array(segments[start...]), qualifiers: key) else { continue }
            if parts.count > 1 { attributes(parts[1], into: &reading) }
            reading.problems += duplicates(reading.elements)
            return reading
        }
        return nil
    }

    /// The element string of `elements`: each AI and its value, an FNC1 (0x1D) after each one
    /// whose length is not predefined, except the last.
    public static func elementString(_ elements: [Element]) -> [UInt8] {
        var out: [UInt8] = []
        for (n, e) in elements.enumerated() {
            out += Array(e.ai.utf8) + e.value.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
            if n < elements.count - 1, table[e.ai]?.predefined != true { out.append(groupSeparator) }
        }
        return out
    }

    // MARK: - The parts

    static let groupSeparator: UInt8 = 0x1D

    /// The AI starting at `i` (2 to 4 digits, the table's prefix-free codes), or nil with the reason.
    static func identifier(_ bytes: [UInt8], at i: Int, _ problems: inout [String]) -> (String, Spec)? {
        let digits = bytes[i...].prefix(4).prefix { $0 >= 0x30 && $0 <= 0x39 }
        for length in 2...4 where digits.count >= length {
            let ai = String(decoding: digits.prefix(length), as: UTF8.self)
            if let spec = table[ai] { return (ai, spec) }
        }
        if digits.count < 2 {
            problems.append("byte \(i + 1): \(describe(bytes[i])) where an Application Identifier (2 to 4 digits) should start")
        } else if digits.count == 4, let places = decimalFamilies[String(decoding: digits.prefix(3), as: UTF8.self)] {
            let family = String(decoding: digits.prefix(3), as: UTF8.self)
            problems.append("(\(family)n) with n = \(Character(UnicodeScalar(digits.last!))) decimal places: \(family)n allows n from 0 to \(places)")
        } else {
            problems.append("byte \(i + 1): no Application Identifier starts \(String(decoding: digits, as: UTF8.self)) in the GS1 General Specifications")
        }
        return nil
    }

    /// The problems of `value` as the data of `ai`.
    static func check(_ value: [UInt8], of ai: String, _ spec: Spec) -> [String] {
        let shown = PayloadText.escaped(text(value[...]))
        if value.count < spec.minLength || value.count > spec.maxLength {
            let wanted = spec.minLength == spec.maxLength ? "\(spec.maxLength)" : "\(spec.minLength) to \(spec.maxLength)"
            var reason = "(\(ai)) \(shown): \(value.count) characters, \(wanted) expected"
            if value.count > spec.maxLength && !spec.predefined { reason += " (is the FNC1 separator after it missing?)" }
            return [reason]
        }
        var problems: [String] = []
        var at = 0
        for (n, part) in spec.parts.enumerated() {
            let length = n == spec.parts.count - 1 ? value.count - at : part.max
            let slice = Array(value[at..<at + length])
            at += length
            if slice.isEmpty { continue }
            if slice.count < part.min {
                problems.append("(\(ai)) \(shown): its last part has \(slice.count) characters, \(part.min) expected\(part.optional ? " or none" : "")")
                continue
            }
            if let bad = slice.first(where: { !part.charset.contains($0) }) {
                problems.append("(\(ai)) \(shown): \(describe(bad)) is not allowed (\(part.charset.name))")
                continue
            }
            if let fault = part.check?.fault(slice) { problems.append("(\(ai)) \(shown): \(fault)") }
        }
        return problems
    }

    /// The path's AI/value pairs from a primary key on, or nil when they are no Digital Link.
    static func pathElements(_ segments: [String], qualifiers: [[String]]) -> Reading? {
        var reading = Reading(elements: [], problems: [], isComplete: true, source: .digitalLink)
        var remaining = qualifiers
        for pair in stride(from: 0, to: segments.count, by: 2) {
            let ai = segments[pair]
            guard let spec = table[ai], let decoded = percentDecoded(segments[pair + 1]) else { return nil }
            var value = decoded
            // The path may carry a GTIN-8, -12 or -13: it is the GTIN-14 with leading zeros.
            if ai == "01", [8, 12, 13].contains(value.count) { value = Array(repeating: 0x30, count: 14 - value.count) + value }
            let problems = check(value, of: ai, spec)
            if pair == 0 {
                guard problems.isEmpty else { return nil }
            } else {
                // Each qualifier in its order: what may still follow is what came after it.
                remaining = remaining.compactMap { sequence in sequence.firstIndex(of: ai).map { Array(sequence[($0 + 1)...]) } }
                guard !remaining.isEmpty else { return nil }
                reading.problems += problems
            }
            reading.elements.append(Element(ai: ai, value: text(value[...])))
        }
        return reading
    }

    /// The query's `AI=value` data attributes; parameters that are not AIs (`linkType`, ...)
    /// are not GS1 data.
    static func attributes(_ query: ArraySlice<UInt8>, into reading: inout Reading) {
        for parameter in query.split(separator: UInt8(ascii: "&")) {
            let kv = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(decoding: kv[0], as: UTF8.self)
            guard (2...4).contains(key.utf8.count), key.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { continue }
            // Data that is not split into elements makes the reading incomplete: the HRI would
            // leave it out, so text outputs send the link as decoded.
            guard let spec = table[key] else {
                reading.problems.append("?\(PayloadText.escaped(key))=: no such Application Identifier in the GS1 General Specifications")
                reading.isComplete = false
                continue
            }
            guard let value = percentDecoded(kv.count > 1 ? String(decoding: kv[1], as: UTF8.self) : "") else {
                reading.problems.append("(\(key)): a broken percent-encoding (% not followed by two hex digits)")
                reading.isComplete = false
                continue
            }
            reading.problems += check(value, of: key, spec)
            reading.elements.append(Element(ai: key, value: text(value[...])))
        }
    }

    /// `%2F` to `/`; nil for a `%` without two hex digits.
    static func percentDecoded(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        var bytes = Array(s.utf8)[...]
        while let b = bytes.popFirst() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard bytes.count >= 2, let hi = hex(bytes.removeFirst()), let lo = hex(bytes.removeFirst()) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x37
        case 0x61...0x66: b - 0x57
        default: nil
        }
    }

    /// An AI given twice with different values (the same value twice is allowed).
    static func duplicates(_ elements: [Element]) -> [String] {
        var first: [String: String] = [:], problems: [String] = []
        for e in elements {
            if let earlier = first[e.ai], earlier != e.value {
                problems.append("(\(e.ai)) given twice with different values, \(PayloadText.escaped(earlier)) and \(PayloadText.escaped(e.value))")
            } else if first[e.ai] == nil { first[e.ai] = e.value }
        }
        return problems
    }

    /// Bytes as text for a value: UTF-8 where they are (a Digital Link percent-encodes UTF-8),
    /// each other byte as Latin-1 (none is lost, and a stray byte does not turn the characters
    /// around it into mojibake). Never more characters than bytes.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        if let whole = String(validating: bytes, as: UTF8.self) { return whole }
        var scalars = String.UnicodeScalarView()
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let lead = bytes[i]
            let length = lead < 0xC2 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 1
            if length > 1, i + length <= bytes.endIndex, let character = String(validating: bytes[i..<(i + length)], as: UTF8.self) {
                scalars.append(contentsOf: character.unicodeScalars)
                i += length
            } else {
                scalars.append(UnicodeScalar(lead))
                i += 1
            }
        }
        return String(scalars)
    }

    static func describe(_ b: UInt8) -> String {
        b >= 0x21 && b < 0x7F ? "'\(Character(UnicodeScalar(b)))'" : b == 0x20 ? "a space" : "byte 0x" + String(b, radix: 16, uppercase: true)
    }
}
