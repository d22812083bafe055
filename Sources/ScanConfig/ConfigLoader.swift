import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a TOML config file (and the board profile it names) into a `ScandConfig`.
public enum ConfigLoader {
    /// Loads `path`, applies `overrides` (`dotted.key=value`, as `scand run --set` gives them)
    /// and validates everything. Throws `ConfigErrors` listing every problem found.
    /// - Parameter boardsDirectory: where board profiles live; default: `boards/` beside the file.
    public static func load(path: String, overrides: [String] = [], boardsDirectory: String? = nil) throws(ConfigErrors) -> ScandConfig {
        let text: String
        do { text = try readText(path) } catch { throw ConfigErrors(errors: [error]) }
        let dir = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        return try parse(text, file: path, overrides: overrides, boardsDirectory: boardsDirectory ?? dir + "/boards")
    }

    /// Parses config text; `file` names it in errors.
    public static func parse(_ text: String, file: String, overrides: [String] = [], boardsDirectory: String) throws(ConfigErrors) -> ScandConfig {
        var root: ConfigValue
        do { root = try ConfigValue.parse(text, file: file) } catch { throw ConfigErrors(errors: [error]) }
        var overrideErrors: [ConfigError] = []
        for item in overrides {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                overrideErrors.append(ConfigError(file: "--set", line: nil, key: nil, message: "\"\(item)\" is not key=value"))
                continue
            }
            let key = item[..<eq].split(separator: ".").map(String.init)
            root.set(key[...], to: ConfigValue.parseOverride(String(item[item.index(after: eq)...])))
        }
        var reader = Reader(file: file, lines: LineIndex(text), boardsDirectory: boardsDirectory)
        reader.errors = overrideErrors
        let config = reader.read(root)
        if !reader.errors.isEmpty { throw ConfigErrors(errors: reader.errors) }
        return config
    }

    static func readText(_ path: String) throws(ConfigError) -> String {
        guard let f = fopen(path, "r") else {
            throw ConfigError(file: path, line: nil, key: nil, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(file: path, line: nil, key: nil, message: "not UTF-8 text")
        }
        return text
    }
}
