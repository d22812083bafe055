import ScanCore

/// A problem in a config file, precise enough to fix without reading code:
/// `scand.toml:12:21: scan.alphanumeric: "later" is not allowed; use one of: immediate, confirm`.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// 1-based, in characters; set for syntax errors.
    public var column: Int?
    /// The dotted key, e.g. `output.serial.baud`.
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, column: Int? = nil, key: String?, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// `FILE:LINE:COLUMN: key: message`, with control characters from the file shown as `\xNN`
    /// so that a config value never drives the terminal that prints it, and invisible ones (a
    /// byte order mark or zero-width space inside a value, a direction override) as `\u{FEFF}`
    /// so that a value that looks right in the message is seen not to be.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let column { text += ":\(column)" }
        text += ": "
        if let key { text += "\(key): " }
        return Self.printable(text + message)
    }

    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else { out.unicodeScalars.append(scalar) }
        }
        return PayloadText.invisiblesShown(out)
    }
}

/// Several config problems at once: a person fixes them all in one go.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigError]
    public init(errors: [ConfigError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
