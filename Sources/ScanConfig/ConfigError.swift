/// A problem in a config file, precise enough to fix without reading code:
/// `scand.toml:12: scan.alphanumeric: "later" is not allowed; use one of: immediate, confirm`.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// The dotted key, e.g. `output.serial.baud`.
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(key): " }
        return text + message
    }
}

/// Several config problems at once: a person fixes them all in one go.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
