import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Reads a TOML config file (and the board profile it names) into a `ScandConfig`.
public enum ConfigLoader {
    /// The largest config or board file read.
    public static let maxFileBytes = 1 << 20

    /// Loads `path`, applies `overrides` (`dotted.key=value`, as `scand run --set` gives them;
    /// a later one for the same key replaces an earlier one) and validates everything. Throws
    /// `ConfigErrors` listing every problem found.
    /// - Parameters:
    ///   - boardsDirectory: where board profiles live; default: `boards/` beside the file.
    ///   - knownVoice: whether the speech engine has a voice (`feedback.speech.voice`, checked
    ///     when speech is enabled); nil: not checked here.
    public static func load(path: String, overrides: [String] = [], boardsDirectory: String? = nil,
                            knownVoice: ((String) -> Bool)? = nil) throws(ConfigErrors) -> ScandConfig {
        try load(bytes: fileBytes(path), path: path, overrides: overrides, boardsDirectory: boardsDirectory, knownVoice: knownVoice)
    }

    /// Loads the config that `bytes` are (the file at `path` as it was read earlier: a running
    /// daemon's `SET` applies to the file it runs with, not to unsaved edits), as `load` does.
    public static func load(bytes: [UInt8], path: String, overrides: [String] = [], boardsDirectory: String? = nil,
                            knownVoice: ((String) -> Bool)? = nil) throws(ConfigErrors) -> ScandConfig {
        try parse(bytes, file: path, overrides: overrides, boardsDirectory: boardsDirectory ?? FileBytes.folder(of: path) + "/boards",
                  knownVoice: knownVoice)
    }

    /// The file at `path`, as `load` reads it (bounded).
    public static func fileBytes(_ path: String) throws(ConfigErrors) -> [UInt8] {
        do { return try readFile(path) } catch { throw ConfigErrors(errors: [error]) }
    }

    /// Where a daemon started from the file at `path` answers (control.socket, status.file),
    /// read from the TOML alone: for `scand status` when another key of the file is wrong (the
    /// daemon may well run with the file as it was). Nil when the file is not TOML at all.
    public static func statusPlaces(path: String) -> (controlSocket: String?, statusFile: String?)? {
        guard let bytes = try? FileBytes.read(path, limit: 1 << 20), let document = try? ConfigValue.parse(bytes, file: path) else { return nil }
        func value(_ table: String, _ key: String) -> String?? {
            guard case .table(let t)? = document.root[table], let v = t[key] else { return .none }
            guard case .string(let s) = v else { return .some(nil) }
            return .some(s.isEmpty ? nil : s)
        }
        let defaults = ScandConfig()
        return (value("control", "socket") ?? defaults.controlSocket, value("status", "file") ?? defaults.statusFile)
    }

    /// The line of the file at `path` where `key` (dotted; `camera.images[1]` for an array's item) or its nearest parent was
    /// written, for a problem found after loading (`scand check-config`: an image of
    /// `camera.images` that does not load). Nil when the file does not say it.
    public static func line(of key: String, inFile path: String) -> Int? {
        guard let document = document(path) else { return nil }
        return LineIndex(lines: document.lines).line(of: key)
    }

    /// The file at `path` parsed as a config's TOML, nothing checked; nil when it is not.
    static func document(_ path: String) -> TOMLDocument? {
        guard let bytes = try? FileBytes.read(path, limit: 1 << 20) else { return nil }
        return try? ConfigValue.parse(bytes, file: path)
    }

    /// The value of dotted `key` as the file at `path` writes it, `overrides` on top, read
    /// without checking the rest: for a check that still has a say when the file has other
    /// problems (`scand check-config` loads the simulated camera's images anyway). Nil when the
    /// file is not TOML or does not give the key.
    public static func rawValue(of key: String, inFile path: String, overrides: [String] = []) -> ConfigValue? {
        guard let document = document(path) else { return nil }
        var root = ConfigValue.table(document.root)
        for item in overrides { if let o = try? Override(item) { root.set(o.key[...], to: o.value) } }
        return root.value(at: key.split(separator: ".").map(String.init))
    }

    /// Parses config text; `file` names it in errors.
    public static func parse(_ text: String, file: String, overrides: [String] = [], boardsDirectory: String,
                             knownVoice: ((String) -> Bool)? = nil) throws(ConfigErrors) -> ScandConfig {
        try parse(Array(text.utf8), file: file, overrides: overrides, boardsDirectory: boardsDirectory, knownVoice: knownVoice)
    }

    static func parse(_ bytes: [UInt8], file: String, overrides: [String], boardsDirectory: String,
                      knownVoice: ((String) -> Bool)? = nil) throws(ConfigErrors) -> ScandConfig {
        let document: TOMLDocument
        do { document = try ConfigValue.parse(bytes, file: file) } catch { throw ConfigErrors(errors: [error]) }
        var root = ConfigValue.table(document.root)
        var overrideErrors: [ConfigError] = []
        var overridden: [String: Override] = [:]
        for item in overrides {
            do {
                let o = try Override(item)
                root.set(o.key[...], to: o.value)
                overridden[o.name] = o
            } catch { overrideErrors.append(error) }
        }
        var reader = Reader(file: file, lines: LineIndex(lines: document.lines), boardsDirectory: boardsDirectory)
        reader.errors = overrideErrors
        reader.overrides = overridden
        reader.knownVoice = knownVoice
        let config = reader.read(root)
        // In the file's order (a person fixes them top to bottom); those of no line after them,
        // each group in the order found.
        let ordered = reader.errors.enumerated().sorted { ($0.element.line ?? .max, $0.offset) < ($1.element.line ?? .max, $1.offset) }
        if !ordered.isEmpty { throw ConfigErrors(errors: ordered.map(\.element)) }
        return config
    }

    /// The keys the reader knows, from the reader itself: every table it reads (`""` for the
    /// top level, `camera`, `gpio.button`, `symbology.QR-Code`, ...) with the names it takes
    /// there (nil: any name it checks itself, as `[symbology]` takes symbology names). Found by
    /// reading a tree that holds a table at every name the reader takes, until no new table is
    /// read; the docs' test (`ConfigDocsTests`) compares docs/configuration.md with it.
    public static func knownTables(boardsDirectory: String) -> [String: [String]?] {
        var root = ConfigValue.table([:])
        var known: [String: [String]?] = [:]
        while true {
            var reader = Reader(file: "keys", lines: LineIndex(lines: [:]), boardsDirectory: boardsDirectory)
            _ = reader.read(root)
            guard reader.tablesRead.count > known.count else { return known }
            known = reader.tablesRead
            for (table, names) in known {
                let prefix = table.isEmpty ? [] : table.split(separator: ".").map(String.init)
                for name in names ?? (table == "symbology" ? Symbology.allCases.map(\.rawValue) : []) {
                    if root.value(at: prefix + [name]) == nil { root.set((prefix + [name])[...], to: .table([:])) }
                }
            }
        }
    }

    /// Reads a config file: a regular file of at most `maxFileBytes`, never a device, FIFO or
    /// directory (opened without blocking, checked before reading).
    static func readFile(_ path: String) throws(ConfigError) -> [UInt8] {
        do { return try FileBytes.read(path, limit: maxFileBytes) } catch {
            let reason: String
            switch error.kind {
            case .directory, .device, .fifo: reason = "is \(error.kind == .directory ? "a directory" : error.kind.rawValue), not a config file"
            default: reason = error.reason
            }
            throw ConfigError(file: path, line: nil, key: nil, message: reason)
        }
    }
}

/// One `key=value` override (`scand run --set`, host `SET`): the value is a TOML value
/// (`true`, `115200`, `"x"`, `[0.1, 0.1, 0.8, 0.8]`), or bare text taken as a string
/// (`/dev/pts/3`). A key whose type is a string takes its text as written whatever it looks
/// like (`web.listen=0.0.0.0:8080`, `camera.device=0`); for other keys, text that starts like a
/// TOML value but does not parse is refused with the parser's reason (by the config reader,
/// which knows each key's type).
public struct Override: Equatable, Sendable {
    public var key: [String]
    public var value: ConfigValue
    /// The value as written (without surrounding spaces).
    public var text: String
    /// Why `text` is not the TOML it starts like (`value` is then the text as a string).
    public var problem: String?
    /// The dotted key as written.
    public var name: String { key.joined(separator: ".") }

    public init(_ item: String) throws(ConfigError) {
        guard let eq = item.firstIndex(of: "=") else {
            throw ConfigError(file: "--set", line: nil, key: nil, message: "\"\(item)\" is not key=value")
        }
        try self.init(key: String(item[..<eq]).trimmingSpaces, value: String(item[item.index(after: eq)...]))
    }

    public init(key name: String, value text: String) throws(ConfigError) {
        func fail(_ message: String) -> ConfigError { ConfigError(file: "--set", line: nil, key: name.isEmpty ? nil : name, message: message) }
        guard !name.isEmpty else { throw fail("name a key: the whole config cannot be set at once") }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 16, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(TOMLParser.isBareKey) }) else {
            throw fail("not a key: use dotted parts of letters, digits, '_' and '-', e.g. scan.session_timeout_ms")
        }
        key = parts
        let trimmed = text.trimmingSpaces
        self.text = trimmed
        do { value = try TOML.parseValue(trimmed) } catch {
            value = .string(trimmed)
            if let first = trimmed.unicodeScalars.first, "[{\"'+-.0123456789".unicodeScalars.contains(first) {
                problem = "the value \(trimmed.prefix(40)) is not valid TOML: column \(error.column): \(error.message)"
            }
        }
    }
}
