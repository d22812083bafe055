/// A TOML 1.0 parser written for hostile input: memory-safe Swift, bounded in size, nesting and
/// key length, and every error a `TOMLError` with line and column, never a trap.
///
/// Its table-definition rules follow the reference parser tomli (Debian's `python3-tomli`),
/// which the tests run against it on every case they have and on random documents.

/// What one parse may cost at most.
public struct TOMLLimits: Sendable, Equatable {
    /// Bytes of the whole document.
    public var maxBytes = 1 << 20
    /// Arrays and inline tables inside each other.
    public var maxDepth = 32
    /// Parts of one dotted key or table header.
    public var maxKeyParts = 32
    /// Bytes of one string after escapes.
    public var maxStringBytes = 1 << 16
    public init() {}
}

/// A syntax or definition error, at a 1-based line and column (in characters).
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "\(line):\(column): \(message)" }
    public init(line: Int, column: Int, message: String) { self.line = line; self.column = column; self.message = message }
}

/// A parsed document: the tree and the line each key was written on.
public struct TOMLDocument: Sendable, Equatable {
    public var root: [String: ConfigValue]
    /// Dotted key path (`output.serial.baud`) to its first line; the items of an array a key
    /// gives as `key[0]`, `key[1]`, ... (nested arrays' items left out).
    public var lines: [String: Int]
}

public enum TOML {
    /// Parses a whole document.
    public static func parse(_ bytes: [UInt8], limits: TOMLLimits = TOMLLimits()) throws(TOMLError) -> TOMLDocument {
        var parser = try TOMLParser(bytes, limits: limits)
        return try parser.document()
    }

    /// Parses one value as written after `key =` (`true`, `115200`, `"x"`, `[0.1, 0.2]`, `{a = 1}`).
    public static func parseValue(_ text: String, limits: TOMLLimits = TOMLLimits()) throws(TOMLError) -> ConfigValue {
        var parser = try TOMLParser(Array(text.utf8), limits: limits)
        return try parser.soleValue()
    }
}

/// A mutable table while the document is read; inline tables and arrays are frozen values.
final class TOMLTable {
    enum Item { case value(ConfigValue), table(TOMLTable), tables([TOMLTable]) }
    var items: [String: Item] = [:]

    var value: ConfigValue {
        .table(items.mapValues { item in
            switch item {
            case .value(let v): return v
            case .table(let t): return t.value
            case .tables(let list): return .array(list.map(\.value))
            }
        })
    }

    /// The table at `key`, created on the way (tomli's `get_or_create_nest`); nil where a value is.
    func nest(_ key: ArraySlice<String>, accessLists: Bool = true) -> TOMLTable? {
        var cont = self
        for k in key {
            switch cont.items[k] {
            case nil: let t = TOMLTable(); cont.items[k] = .table(t); cont = t
            case .table(let t): cont = t
            case .tables(let list):
                guard accessLists, let last = list.last else { return nil }
                cont = last
            case .value: return nil
            }
        }
        return cont
    }
}

/// tomli's namespace flags: which tables are frozen (inline tables, arrays) and which were
/// declared explicitly (a header, or a dotted key in an earlier section).
struct TOMLFlags {
    static let frozen: UInt8 = 1, explicitNest: UInt8 = 2
    final class Node { var flags: UInt8 = 0; var recursive: UInt8 = 0; var nested: [String: Node] = [:] }
    private let root = Node()
    private var pending: [[String]] = []

    mutating func addPending(_ key: [String]) { pending.append(key) }

    mutating func finalizePending() {
        for key in pending { set(key, Self.explicitNest, recursive: false) }
        pending.removeAll()
    }

    func unsetAll(_ key: [String]) {
        var cont = root
        for k in key.dropLast() { guard let next = cont.nested[k] else { return }; cont = next }
        cont.nested[key[key.count - 1]] = nil
    }

    func set(_ key: [String], _ flag: UInt8, recursive: Bool) {
        var cont = root
        for k in key {
            if cont.nested[k] == nil { cont.nested[k] = Node() }
            cont = cont.nested[k]!
        }
        if recursive { cont.recursive |= flag } else { cont.flags |= flag }
    }

    func isSet(_ key: [String], _ flag: UInt8) -> Bool {
        guard let stem = key.last else { return false }
        var cont = root
        for k in key.dropLast() {
            guard let inner = cont.nested[k] else { return false }
            if inner.recursive & flag != 0 { return true }
            cont = inner
        }
        guard let inner = cont.nested[stem] else { return false }
        return (inner.flags | inner.recursive) & flag != 0
    }
}

struct TOMLParser {
    let src: [UInt8]
    let limits: TOMLLimits
    var pos = 0
    var lines: [String: Int] = [:]
    /// The line of each item of the last array given as a key's value.
    var itemLines: [Int] = []
    /// Offsets where each line starts, for positions in errors and key lines (binary search).
    let lineStarts: [Int]

    init(_ bytes: [UInt8], limits: TOMLLimits) throws(TOMLError) {
        self.limits = limits
        guard bytes.count <= limits.maxBytes else {
            throw TOMLError(line: 1, column: 1, message: "document is \(bytes.count) bytes; at most \(limits.maxBytes) are read")
        }
        // Lines end in \n or \r\n; a lone \r is an error where it stands.
        var normalized: [UInt8] = []
        normalized.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 13, i + 1 < bytes.count, bytes[i + 1] == 10 { i += 1; continue }
            normalized.append(bytes[i]); i += 1
        }
        src = normalized
        lineStarts = [0] + normalized.indices.filter { normalized[$0] == 10 }.map { $0 + 1 }
        if let bad = Self.firstInvalidUTF8(src) { pos = bad; throw error("not valid UTF-8") }
    }

    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    // MARK: - Errors and scanning

    /// The 1-based line of the current position.
    var line: Int {
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= pos { low = mid } else { high = mid - 1 }
        }
        return low + 1
    }

    func error(_ message: String) -> TOMLError {
        let at = min(pos, src.count)
        let line = self.line
        let lineStart = lineStarts[line - 1]
        let column = 1 + src[lineStart..<at].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        return TOMLError(line: line, column: column, message: message)
    }

    var current: UInt8? { pos < src.count ? src[pos] : nil }

    func starts(with text: StaticString, at p: Int? = nil) -> Bool {
        let p = p ?? pos
        let n = text.utf8CodeUnitCount
        guard p + n <= src.count else { return false }
        let t = text.utf8Start
        for i in 0..<n where src[p + i] != t[i] { return false }
        return true
    }

    mutating func skipSpaces() { while let c = current, c == 32 || c == 9 { pos += 1 } }

    static func isControl(_ c: UInt8) -> Bool { c < 32 || c == 127 }
    static func isBareKey(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 45 || c == 95
    }

    mutating func skipComment() throws(TOMLError) {
        guard current == 35 else { return }
        pos += 1
        while let c = current, c != 10 {
            if c != 9 && Self.isControl(c) { throw error("control character \(Self.show(c)) in a comment") }
            pos += 1
        }
    }

    static func show(_ c: UInt8) -> String {
        let hex = String(c, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    // MARK: - Statements

    mutating func document() throws(TOMLError) -> TOMLDocument {
        let root = TOMLTable()
        var flags = TOMLFlags()
        var header: [String] = []
        while true {
            skipSpaces()
            guard let c = current else { break }
            if c == 10 { pos += 1; continue }
            if Self.isBareKey(c) || c == 34 || c == 39 {
                try keyValue(root, &flags, header: header)
                skipSpaces()
            } else if c == 91 {
                flags.finalizePending()
                header = starts(with: "[[") ? try arrayTableHeader(root, &flags) : try tableHeader(root, &flags)
                skipSpaces()
            } else if c != 35 {
                throw error("expected a key, a [table] or a comment, found \(describe(c))")
            }
            try skipComment()
            guard let end = current else { break }
            if end != 10 { throw error("expected the end of the line after a statement, found \(describe(end))") }
            pos += 1
        }
        return TOMLDocument(root: TOMLTable.root(root), lines: lines)
    }

    mutating func soleValue() throws(TOMLError) -> ConfigValue {
        skipSpaces()
        let v = try value(depth: 0)
        skipSpaces()
        try skipComment()
        if let c = current { throw error("unexpected \(describe(c)) after the value") }
        return v
    }

    func describe(_ c: UInt8) -> String {
        if c == 10 { return "the end of the line" }
        if Self.isControl(c) { return Self.show(c) }
        if c == 0xEF, c == current, src[pos...].starts(with: [0xEF, 0xBB, 0xBF]) { return "a byte order mark (U+FEFF, invisible in most editors)" }
        if c >= 128 { return "a non-ASCII character" }
        return "'\(Character(Unicode.Scalar(c)))'"
    }

    mutating func note(_ key: [String]) {
        let path = key.joined(separator: ".")
        if lines[path] == nil { lines[path] = line }
    }

    mutating func tableHeader(_ root: TOMLTable, _ flags: inout TOMLFlags) throws(TOMLError) -> [String] {
        pos += 1
        skipSpaces()
        let key = try self.key()
        if flags.isSet(key, TOMLFlags.explicitNest) || flags.isSet(key, TOMLFlags.frozen) {
            throw error("table [\(key.joined(separator: "."))] is defined twice")
        }
        flags.set(key, TOMLFlags.explicitNest, recursive: false)
        guard root.nest(key[...]) != nil else { throw error("[\(key.joined(separator: "."))] would overwrite a value") }
        guard current == 93 else { throw error("expected ']' at the end of the table header") }
        note(key)
        pos += 1
        return key
    }

    mutating func arrayTableHeader(_ root: TOMLTable, _ flags: inout TOMLFlags) throws(TOMLError) -> [String] {
        pos += 2
        skipSpaces()
        let key = try self.key()
        if flags.isSet(key, TOMLFlags.frozen) { throw error("[[\(key.joined(separator: "."))]] cannot extend a fixed array or inline table") }
        flags.unsetAll(key)
        flags.set(key, TOMLFlags.explicitNest, recursive: false)
        guard let parent = root.nest(key.dropLast()) else { throw error("[[\(key.joined(separator: "."))]] would overwrite a value") }
        let stem = key[key.count - 1]
        switch parent.items[stem] {
        case nil: parent.items[stem] = .tables([TOMLTable()])
        case .tables(let list): parent.items[stem] = .tables(list + [TOMLTable()])
        default: throw error("[[\(key.joined(separator: "."))]]: \(stem) is already a value or a table")
        }
        guard starts(with: "]]") else { throw error("expected ']]' at the end of the array-of-tables header") }
        note(key)
        pos += 2
        return key
    }

    mutating func keyValue(_ root: TOMLTable, _ flags: inout TOMLFlags, header: [String]) throws(TOMLError) {
        let line = self.line
        itemLines = []
        let (key, value) = try keyValuePair(depth: 0)
        for i in 1..<key.count {
            let container = header + key[..<i]
            if flags.isSet(container, TOMLFlags.explicitNest) {
                throw error("\(container.joined(separator: ".")) is a table defined elsewhere; it cannot be extended with a dotted key here")
            }
            flags.addPending(container)
        }
        let parentKey = header + key.dropLast()
        if flags.isSet(parentKey, TOMLFlags.frozen) { throw error("\(parentKey.joined(separator: ".")) is fixed and cannot take more keys") }
        guard let nest = root.nest(parentKey[...]) else { throw error("\(key.joined(separator: ".")) would overwrite a value") }
        let stem = key[key.count - 1]
        guard nest.items[stem] == nil else { throw error("\((header + key).joined(separator: ".")) is defined twice") }
        if value.isContainer { flags.set(header + key, TOMLFlags.frozen, recursive: true) }
        nest.items[stem] = .value(value)
        let path = (header + key).joined(separator: ".")
        if lines[path] == nil { lines[path] = line }
        if case .array = value { for (i, l) in itemLines.enumerated() { lines["\(path)[\(i)]"] = l } }
    }

    mutating func keyValuePair(depth: Int) throws(TOMLError) -> ([String], ConfigValue) {
        let key = try self.key()
        guard current == 61 else { throw error("expected '=' after the key \(key.joined(separator: "."))") }
        pos += 1
        skipSpaces()
        return (key, try value(depth: depth))
    }

    mutating func key() throws(TOMLError) -> [String] {
        var parts = [try keyPart()]
        skipSpaces()
        while current == 46 {
            pos += 1
            skipSpaces()
            parts.append(try keyPart())
            if parts.count > limits.maxKeyParts { throw error("key has more than \(limits.maxKeyParts) parts") }
            skipSpaces()
        }
        return parts
    }

    mutating func keyPart() throws(TOMLError) -> String {
        guard let c = current else { throw error("expected a key, found the end of the document") }
        if Self.isBareKey(c) {
            let start = pos
            while let d = current, Self.isBareKey(d) { pos += 1 }
            return String(decoding: src[start..<pos], as: UTF8.self)
        }
        if c == 39 { return try literalString() }
        if c == 34 { pos += 1; return try basicString(multiline: false) }
        throw error("a key cannot start with \(describe(c)); use letters, digits, '-', '_' or a quoted key")
    }

    // MARK: - Arrays and inline tables

    mutating func array(depth: Int) throws(TOMLError) -> ConfigValue {
        pos += 1
        var items: [ConfigValue] = []
        try skipArraySpace()
        if current == 93 { pos += 1; return .array(items) }
        while true {
            if current == nil { throw error("unclosed array: expected ']'") }
            if depth == 1 { itemLines.append(line) }
            items.append(try value(depth: depth))
            try skipArraySpace()
            if current == 93 { pos += 1; return .array(items) }
            guard current == 44 else { throw error(current == nil ? "unclosed array" : "expected ',' or ']' in the array, found \(describe(current!))") }
            pos += 1
            try skipArraySpace()
            if current == 93 { pos += 1; return .array(items) }
        }
    }

    mutating func skipArraySpace() throws(TOMLError) {
        while true {
            while let c = current, c == 32 || c == 9 || c == 10 { pos += 1 }
            guard current == 35 else { return }
            try skipComment()
        }
    }

    mutating func inlineTable(depth: Int) throws(TOMLError) -> ConfigValue {
        pos += 1
        let table = TOMLTable()
        let flags = TOMLFlags()
        skipSpaces()
        if current == 125 { pos += 1; return table.value }
        while true {
            let (key, value) = try keyValuePair(depth: depth)
            if flags.isSet(key, TOMLFlags.frozen) { throw error("\(key.joined(separator: ".")) is fixed and cannot take more keys") }
            guard let nest = table.nest(key.dropLast(), accessLists: false) else {
                throw error("\(key.joined(separator: ".")) would overwrite a value")
            }
            let stem = key[key.count - 1]
            guard nest.items[stem] == nil else { throw error("\(key.joined(separator: ".")) is defined twice in the inline table") }
            nest.items[stem] = .value(value)
            skipSpaces()
            if current == 125 { pos += 1; return table.value }
            guard current == 44 else { throw error(current == nil ? "unclosed inline table" : "expected ',' or '}' in the inline table, found \(describe(current!))") }
            if value.isContainer { flags.set(key, TOMLFlags.frozen, recursive: true) }
            pos += 1
            skipSpaces()
        }
    }
}

extension TOMLTable {
    static func root(_ t: TOMLTable) -> [String: ConfigValue] {
        guard case .table(let d) = t.value else { return [:] }
        return d
    }
}

extension ConfigValue {
    var isContainer: Bool {
        switch self {
        case .array, .table: return true
        default: return false
        }
    }
}
