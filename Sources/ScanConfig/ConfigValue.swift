import TOMLKit

/// A parsed TOML document as a plain tree, with the line each key was written on.
indirect enum ConfigValue: Equatable {
    case string(String), int(Int), double(Double), bool(Bool), array([ConfigValue]), table([String: ConfigValue])

    var typeName: String {
        switch self {
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number"
        case .bool: return "true or false"
        case .array: return "an array"
        case .table: return "a table"
        }
    }

    init(_ value: TOMLValueConvertible) {
        if let t = value.table {
            var out: [String: ConfigValue] = [:]
            for key in t.keys { if let v = t[key] { out[key] = ConfigValue(v) } }
            self = .table(out)
        } else if let a = value.array {
            self = .array(a.map { ConfigValue($0) })
        } else if let b = value.bool {
            self = .bool(b)
        } else if let i = value.int {
            self = .int(i)
        } else if let d = value.double {
            self = .double(d)
        } else if let s = value.string {
            self = .string(s)
        } else {
            self = .string(String(describing: value))
        }
    }

    /// Parses TOML text. Throws `ConfigError` with the line of a syntax error.
    static func parse(_ text: String, file: String) throws(ConfigError) -> ConfigValue {
        do {
            return ConfigValue(try TOMLTable(string: text))
        } catch let error as TOMLParseError {
            throw ConfigError(file: file, line: error.source.begin.line, key: nil, message: "TOML syntax: \(error.description)")
        } catch {
            throw ConfigError(file: file, line: nil, key: nil, message: "TOML: \(error)")
        }
    }

    /// Parses the value part of a `--set key=value` override: a TOML value when it parses as
    /// one (`true`, `115200`, `"x"`, `[0.1, 0.1, 0.8, 0.8]`), otherwise the text as a string.
    static func parseOverride(_ text: String) -> ConfigValue {
        if let table = try? TOMLTable(string: "v = \(text)"), let v = table["v"] { return ConfigValue(v) }
        return .string(text)
    }

    /// Sets `value` at a dotted `path`, creating tables on the way.
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

/// Where each dotted key was written: `[a.b]` headers and `key =` lines, found by a light scan
/// of the text (TOMLKit's tree carries no positions).
struct LineIndex {
    private(set) var lines: [String: Int] = [:]

    init(_ text: String) {
        var prefix = ""
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                let name = line.drop { $0 == "[" }.prefix { $0 != "]" }
                prefix = name.split(separator: ".").map { $0.trimmingQuotes }.joined(separator: ".")
                if lines[prefix] == nil { lines[prefix] = number + 1 }
            } else if let eq = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = line[..<eq].split(separator: ".").map { $0.trimmingQuotes }.joined(separator: ".")
                guard !key.isEmpty, !key.contains(" ") else { continue }
                let full = prefix.isEmpty ? key : prefix + "." + key
                if lines[full] == nil { lines[full] = number + 1 }
            }
        }
    }

    /// The line of `path` or of its nearest written parent.
    func line(of path: String) -> Int? {
        var p = path
        while true {
            if let l = lines[p] { return l }
            guard let dot = p.lastIndex(of: ".") else { return nil }
            p = String(p[..<dot])
        }
    }
}

extension Substring {
    fileprivate var trimmingQuotes: String {
        var s = self
        while let f = s.first, f == " " || f == "\"" || f == "'" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\"" || l == "'" { s.removeLast() }
        return String(s)
    }
}
