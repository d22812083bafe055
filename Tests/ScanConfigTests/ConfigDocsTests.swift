import Foundation
import ScanConfig
import Testing

/// docs/configuration.md against the config reader, so that the page cannot drift: the same
/// keys, the reader's defaults, ranges and allowed words, and `SET` exactly where a running
/// daemon takes the key.
@Suite struct ConfigDocsTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let boards = repo.appendingPathComponent("config/boards").path
    static let page = "docs/configuration.md"

    /// One row of the page's Keys table, its key possibly with a `<name>` placeholder.
    struct Row {
        var key: String, type: String, defaultValue: String, allowed: String, applies: String
    }

    static func read() throws -> (rows: [Row], names: [String: [String]]) {
        let text = try String(contentsOf: repo.appendingPathComponent(page), encoding: .utf8)
        var rows: [Row] = [], names: [String: [String]] = [:]
        var section = ""
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("## ") { section = String(line.dropFirst(3)) }
            if line.hasPrefix("- `<"), let colon = line.range(of: ">`: ") {
                let name = String(line[line.index(line.startIndex, offsetBy: 4)..<colon.lowerBound])
                names[name] = backticked(String(line[colon.upperBound...]))
            } else if section == "Keys", line.hasPrefix("| `") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count == 5 else { Issue.record("\(page): a row of the Keys table needs 5 cells: \(line)"); continue }
                rows.append(Row(key: backticked(cells[0]).first ?? cells[0], type: cells[1], defaultValue: cells[2], allowed: cells[3], applies: cells[4]))
            }
        }
        return (rows, names)
    }

    /// The texts between backticks, in order.
    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// A row's key with each `<name>` replaced by each of its names.
    static func expand(_ key: String, _ names: [String: [String]]) -> [String] {
        var keys = [key]
        for (name, values) in names where key.contains("<\(name)>") {
            keys = keys.flatMap { k in values.map { k.replacingOccurrences(of: "<\(name)>", with: $0) } }
        }
        return keys
    }

    /// The leaf keys the reader knows, from its own tables.
    static func readerKeys() -> Set<String> {
        let tables = ConfigLoader.knownTables(boardsDirectory: boards)
        var keys = Set<String>()
        for (table, names) in tables {
            for name in names ?? [] {
                let key = table.isEmpty ? name : "\(table).\(name)"
                if tables[key] == nil { keys.insert(key) }
            }
        }
        return keys
    }

    /// What a key needs beside it to be read on its own: its table, a line's pin, a broker.
    static func context(_ key: String) -> [String] {
        let parts = key.split(separator: ".").map(String.init)
        var items = parts.count > 1 ? [parts.dropLast().joined(separator: ".") + "={}"] : []
        if parts.count == 3, parts[0] == "gpio", parts[2] != "pin" { items.append("gpio.\(parts[1]).pin=\"GPIO17\"") }
        if key.hasPrefix("output.mqtt."), key != "output.mqtt.url" { items.append("output.mqtt.url=\"mqtt://broker:1883\"") }
        return items
    }

    static func load(_ overrides: [String]) -> Result<ScandConfig, ConfigErrors> {
        Result { () throws(ConfigErrors) -> ScandConfig in
            try ConfigLoader.parse("", file: "docs.toml", overrides: overrides, boardsDirectory: boards)
        }
    }

    @Test func everyKeyTheReaderKnowsIsDocumentedAndNoOther() throws {
        let (rows, names) = try Self.read()
        let known = Self.readerKeys()
        #expect(known.count > 100, "the reader's tables were not found: \(known.count) keys")
        var documented: [String: String] = [:]
        for row in rows {
            for key in Self.expand(row.key, names) {
                #expect(documented[key] == nil, "\(Self.page): \(key) has two rows (\(documented[key] ?? "") and \(row.key))")
                documented[key] = row.key
            }
        }
        for key in known.subtracting(documented.keys).sorted() {
            Issue.record("\(Self.page) is missing key \(key): the config reader (Sources/ScanConfig/Reader.swift) takes it. Add a row `| `\(key)` | type | default | allowed | applies |` to the Keys table of \(Self.page)")
        }
        for key in Set(documented.keys).subtracting(known).sorted() {
            Issue.record("\(Self.page) documents \(key) (row \(documented[key]!)), which the config reader does not know: remove the row, or fix its name")
        }
    }

    /// A default written as a TOML value first in its cell is what the reader takes when the key
    /// is left out: the config with the key set to it equals the config without.
    @Test func documentedDefaultsAreTheReadersDefaults() throws {
        let (rows, names) = try Self.read()
        var checked = 0
        for row in rows {
            guard row.defaultValue.hasPrefix("`"), let value = Self.backticked(row.defaultValue).first else { continue }
            for key in Self.expand(row.key, names) {
                let base = Self.load(Self.context(key)), set = Self.load(Self.context(key) + ["\(key)=\(value)"])
                switch (base, set) {
                case (.success(let without), .success(let with)):
                    let same = without == with
                    #expect(same, "\(Self.page): \(key) is documented with default \(value), but the reader's default differs")
                    checked += 1
                case (.success, .failure(let e)) where e.errors.contains { $0.key == key && $0.message.contains(" only") }:
                    // A key the reader takes for some tables only (Code-39's full_ascii): the row says so.
                    #expect(row.allowed.contains(" only"), "\(Self.page): \(key) is refused (\(e)); its row must say where it applies")
                case (.failure(let e), _), (_, .failure(let e)):
                    Issue.record("\(Self.page): \(key) = \(value) (its documented default) is not accepted: \(e)")
                }
            }
        }
        #expect(checked > 80, "only \(checked) defaults checked")
    }

    /// An integer range `lo..hi` starting the allowed cell: both ends are taken, one past either
    /// end is refused with the key named.
    @Test func documentedRangesAreTheReadersRanges() throws {
        let (rows, names) = try Self.read()
        var checked = 0
        for row in rows where row.type == "integer" {
            let bounds = row.allowed.prefix { $0.isNumber || $0 == "." }.split(separator: ".", omittingEmptySubsequences: true).compactMap { Int($0) }
            guard bounds.count == 2, row.allowed.hasPrefix("\(bounds[0])..\(bounds[1])") else { continue }
            for key in Self.expand(row.key, names) {
                for n in bounds {
                    if case .failure(let e) = Self.load(Self.context(key) + ["\(key)=\(n)"]) {
                        Issue.record("\(Self.page): \(key) allows \(bounds[0])..\(bounds[1]), but the reader refuses \(n): \(e)")
                    }
                }
                for n in [bounds[0] - 1, bounds[1] + 1] {
                    switch Self.load(Self.context(key) + ["\(key)=\(n)"]) {
                    case .success: Issue.record("\(Self.page): \(key) allows \(bounds[0])..\(bounds[1]), but the reader takes \(n)")
                    case .failure(let e): #expect(e.errors.contains { $0.key == key }, "\(key)=\(n): \(e)")
                    }
                }
                checked += 1
            }
        }
        #expect(checked > 40, "only \(checked) ranges checked")
    }

    /// A key of type "one of" lists exactly the words the reader allows (as its error names them).
    @Test func documentedWordsAreTheReadersWords() throws {
        let (rows, names) = try Self.read()
        var checked = 0
        for row in rows where row.type == "one of" {
            let documented = Set(Self.backticked(row.allowed).filter { $0.hasPrefix("\"") && $0.hasSuffix("\"") }.map { String($0.dropFirst().dropLast()) })
            for key in Self.expand(row.key, names) {
                guard case .failure(let e) = Self.load(Self.context(key) + ["\(key)=\"no-such-word\""]),
                      let message = e.errors.first(where: { $0.key == key })?.message, let list = message.range(of: "use one of: ") else {
                    Issue.record("\(key) = \"no-such-word\" was not refused with the allowed words"); continue
                }
                let allowed = Set(message[list.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(allowed == documented, "\(Self.page): \(key) lists \(documented.sorted()), the reader allows \(allowed.sorted())")
                checked += 1
            }
        }
        #expect(checked > 20, "only \(checked) word lists checked")
    }

    /// "SET" in the applies cell exactly for the keys a running daemon takes from a host `SET`.
    @Test func setIsDocumentedForExactlyTheLiveKeys() throws {
        let (rows, names) = try Self.read()
        for row in rows {
            for key in Self.expand(row.key, names) {
                let live = ScandConfig.takesEffectWhileRunning(key.split(separator: ".").map(String.init))
                #expect(row.applies.contains("SET") == live,
                        "\(Self.page): \(key) applies \"\(row.applies)\", but a running daemon \(live ? "takes" : "refuses") a SET of it (ScandConfig.runtimeKeys)")
            }
        }
    }
}
