/// A parsed TOML value, as a plain tree.
public indirect enum ConfigValue: Equatable, Sendable {
    case string(String), int(Int), double(Double), bool(Bool), datetime(TOMLDateTime)
    case array([ConfigValue]), table([String: ConfigValue])

    var typeName: String {
        switch self {
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a decimal number"
        case .bool: return "true or false"
        case .datetime: return "a date or time"
        case .array: return "an array"
        case .table: return "a table"
        }
    }

    /// Parses a config document. Throws `ConfigError` with the line of a syntax error. A UTF-8
    /// byte order mark at the start (Notepad writes one) is skipped: the TOML parser itself
    /// refuses it, as tomli does.
    static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> TOMLDocument {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        if let other = otherEncoding(text) {
            throw ConfigError(file: file, line: 1, column: 1, key: nil, message: "not valid UTF-8: \(other) (save it as UTF-8)")
        }
        do { return try TOML.parse(text) } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, key: nil, message: error.message)
        }
    }

    /// What a file in another Unicode encoding is, said from its start: Windows' "Unicode"
    /// (UTF-16) and UTF-32 by their byte order marks (UTF-32's is UTF-16's with two zero bytes
    /// more), and without one by the zero bytes between ASCII characters, a quarter of its first
    /// 64 bytes or more (the parser would stop at the first, far from the cause; one stray NUL
    /// is the parser's to name). Nil for anything else.
    static func otherEncoding(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xFE, 0, 0]) || bytes.starts(with: [0, 0, 0xFE, 0xFF]) { return "the file is UTF-32" }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return "the file is UTF-16" }
        let head = bytes.prefix(64)
        guard head.count >= 4, head.filter({ $0 == 0 }).count * 4 >= head.count else { return nil }
        return "zero bytes between the characters (a UTF-16 or UTF-32 file)"
    }

    /// Sets `value` at a dotted `path`, creating tables on the way; a later value for the same
    /// key replaces the earlier one.
    /// The value at a dotted path, if there is one.
    func value(at path: [String]) -> ConfigValue? {
        var here = self
        for part in path {
            guard case .table(let t) = here, let next = t[part] else { return nil }
            here = next
        }
        return here
    }

    mutating func set(_ path: ArraySlice<String>, to value: ConfigValue) {
        guard let head = path.first else { self = value; return }
        var table: [String: ConfigValue]
        if case .table(let t) = self { table = t } else { table = [:] }
        var child = table[head] ?? .table([:])
        child.set(path.dropFirst(), to: value)
        table[head] = child
        self = .table(table)
    }
}

/// Where each dotted key was written, from the parser.
struct LineIndex {
    let lines: [String: Int]

    /// The line of `path` (`camera.images[2]` for an array's item) or of its nearest written parent.
    func line(of path: String) -> Int? {
        var p = path
        while true {
            if let l = lines[p] { return l }
            if p.hasSuffix("]"), let open = p.lastIndex(of: "[") { p = String(p[..<open]); continue }
            guard let dot = p.lastIndex(of: ".") else { return nil }
            p = String(p[..<dot])
        }
    }
}
