import ScanCore

/// Text as USB HID boot-keyboard reports for a keyboard-wedge output (`/dev/hidg0`), in the
/// host's keyboard layout: what a character needs is the key at its place on *that* layout.
public enum KeyboardLayout: String, Sendable, CaseIterable {
    case us, de

    /// Modifier bits.
    static let shift: UInt8 = 0x02, altGr: UInt8 = 0x40

    /// The (modifier, key usage) that types `c`, or nil when the layout cannot type it.
    public func key(for c: Character) -> (modifier: UInt8, usage: UInt8)? {
        if let letter = c.asciiValue, (97...122).contains(letter) || (65...90).contains(letter) {
            var usage = UInt8(4) + (letter | 0x20) - 97
            if self == .de && (letter | 0x20) == UInt8(ascii: "y") { usage = 0x1D } // QWERTZ: y and z swap
            if self == .de && (letter | 0x20) == UInt8(ascii: "z") { usage = 0x1C }
            return ((65...90).contains(letter) ? Self.shift : 0, usage)
        }
        if let d = c.wholeNumberValue, c.isASCII, c.isNumber { return (0, d == 0 ? 0x27 : UInt8(0x1E + d - 1)) }
        let table = self == .us ? Self.usTable : Self.deTable
        return table[c]
    }

    static let usTable: [Character: (UInt8, UInt8)] = [
        "\n": (0, 0x28), "\r": (0, 0x28), "\t": (0, 0x2B), " ": (0, 0x2C), "-": (0, 0x2D), "=": (0, 0x2E), "[": (0, 0x2F),
        "]": (0, 0x30), "\\": (0, 0x31), ";": (0, 0x33), "'": (0, 0x34), "`": (0, 0x35), ",": (0, 0x36), ".": (0, 0x37),
        "/": (0, 0x38), "!": (shift, 0x1E), "@": (shift, 0x1F), "#": (shift, 0x20), "$": (shift, 0x21), "%": (shift, 0x22),
        "^": (shift, 0x23), "&": (shift, 0x24), "*": (shift, 0x25), "(": (shift, 0x26), ")": (shift, 0x27), "_": (shift, 0x2D),
        "+": (shift, 0x2E), "{": (shift, 0x2F), "}": (shift, 0x30), "|": (shift, 0x31), ":": (shift, 0x33), "\"": (shift, 0x34),
        "~": (shift, 0x35), "<": (shift, 0x36), ">": (shift, 0x37), "?": (shift, 0x38),
    ]

    static let deTable: [Character: (UInt8, UInt8)] = [
        "\n": (0, 0x28), "\r": (0, 0x28), "\t": (0, 0x2B), " ": (0, 0x2C), "ß": (0, 0x2D), "ü": (0, 0x2F), "+": (0, 0x30),
        "#": (0, 0x32), "ö": (0, 0x33), "ä": (0, 0x34), "^": (0, 0x35), ",": (0, 0x36), ".": (0, 0x37), "-": (0, 0x38),
        "!": (shift, 0x1E), "\"": (shift, 0x1F), "§": (shift, 0x20), "$": (shift, 0x21), "%": (shift, 0x22), "&": (shift, 0x23),
        "/": (shift, 0x24), "(": (shift, 0x25), ")": (shift, 0x26), "=": (shift, 0x27), "?": (shift, 0x2D), "*": (shift, 0x30),
        "'": (shift, 0x32), ";": (shift, 0x36), ":": (shift, 0x37), "_": (shift, 0x38), "Ü": (shift, 0x2F), "Ö": (shift, 0x33),
        "Ä": (shift, 0x34), "°": (shift, 0x35), ">": (shift, 0x64), "<": (0, 0x64), "|": (altGr, 0x64), "@": (altGr, 0x14),
        "€": (altGr, 0x08), "{": (altGr, 0x24), "[": (altGr, 0x25), "]": (altGr, 0x26), "}": (altGr, 0x27), "\\": (altGr, 0x2D),
        "~": (altGr, 0x30), "`": (shift, 0x2E),
    ]

    /// The 8-byte reports that type `text`: a key press and a release for each character.
    /// Characters the layout cannot type are reported in `untypable`, not guessed.
    public func reports(for text: String) -> (reports: [[UInt8]], untypable: [Character]) {
        var out: [[UInt8]] = []
        var missing: [Character] = []
        for c in text {
            guard let k = key(for: c) else { missing.append(c); continue }
            out.append([k.modifier, 0, k.usage, 0, 0, 0, 0, 0])
            out.append([0, 0, 0, 0, 0, 0, 0, 0])
        }
        return (out, missing)
    }
}
