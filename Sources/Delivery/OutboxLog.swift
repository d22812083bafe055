import ScanCore

/// The outbox file's line format, read back with every field range-checked: a damaged or
/// hostile file gives a list of skipped lines, never a trap.
///
///     P <seq> <base64 of the bytes to write>   a new result
///     D <seq>                                  written (or acknowledged by the host)
///     X <seq>                                  dropped by the capacity policy
///     K <seq>                                  parked: this output can never carry it
public enum OutboxLog {
    /// Sequence numbers are 1 up to this (a result a millisecond for 30,000 years).
    public static let maxSequence = 1_000_000_000_000
    /// The longest result line read back (a result's bytes are far smaller).
    public static let maxLineBytes = 1 << 20

    public struct Contents: Equatable, Sendable {
        /// Results not yet done, in the order they were stored.
        public var pending: [(seq: Int, bytes: [UInt8])]
        /// The highest sequence number on a valid line.
        public var maxSequence: Int
        /// Whole lines read (for compaction).
        public var lines: Int
        /// Lines skipped, as `line N: reason`.
        public var problems: [String]

        public static func == (a: Self, b: Self) -> Bool {
            a.maxSequence == b.maxSequence && a.lines == b.lines && a.problems == b.problems
                && a.pending.map(\.seq) == b.pending.map(\.seq) && a.pending.map(\.bytes) == b.pending.map(\.bytes)
        }
    }

    /// Reads a whole file. A last line without its end was torn by a crash mid-write (its
    /// result was never confirmed to anyone) and is left out silently.
    public static func parse(_ bytes: [UInt8]) -> Contents {
        var pending: [Int: [UInt8]] = [:]
        var order: [Int] = []
        var contents = Contents(pending: [], maxSequence: 0, lines: 0, problems: [])
        var lineStart = 0
        var number = 0
        for (i, b) in bytes.enumerated() where b == 10 {
            number += 1
            contents.lines += 1
            let line = bytes[lineStart..<i]
            lineStart = i + 1
            func skip(_ reason: String) { if contents.problems.count < 20 { contents.problems.append("line \(number): \(reason)") } }
            guard line.count <= maxLineBytes else { skip("longer than \(maxLineBytes) bytes"); continue }
            let parts = line.split(separator: 32, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].count == 1, let kind = parts[0].first else { skip("not an outbox line"); continue }
            guard let seq = decimal(parts[1]), (1...maxSequence).contains(seq) else {
                skip("sequence number not from 1 to \(maxSequence)"); continue
            }
            switch kind {
            case UInt8(ascii: "P"):
                guard parts.count == 3, let payload = Base64.decode(parts[2]) else { skip("result \(seq) is not valid base64"); continue }
                if pending[seq] == nil { order.append(seq) }
                pending[seq] = payload
            case UInt8(ascii: "D"), UInt8(ascii: "X"), UInt8(ascii: "K"):
                guard parts.count == 2 else { skip("extra fields"); continue }
                pending[seq] = nil
            default: skip("unknown line kind"); continue
            }
            contents.maxSequence = max(contents.maxSequence, seq)
        }
        contents.pending = order.compactMap { seq in pending[seq].map { (seq, $0) } }
        return contents
    }

    /// A positive decimal of at most 13 digits, or nil.
    static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 13 else { return nil }
        var v = 0
        for d in digits {
            guard d >= 48 && d <= 57 else { return nil }
            v = v * 10 + Int(d - 48)
        }
        return v
    }
}

/// Base64 (RFC 4648, with or without padding).
public enum Base64 {
    private static let lookup: [Int8] = {
        var t = [Int8](repeating: -1, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(c)] = Int8(i) }
        return t
    }()

    /// The bytes, or nil for a character outside the alphabet.
    public static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var acc = 0, bits = 0
        for c in text {
            if c == UInt8(ascii: "=") { break }
            let v = Int(lookup[Int(c)])
            guard v >= 0 else { return nil }
            acc = (acc << 6 | v) & 0xFFFFFF
            bits += 6
            if bits >= 8 { bits -= 8; out.append(UInt8((acc >> bits) & 0xFF)) }
        }
        return out
    }
}
