/// Which codes count as results (`scan.accept`, `scan.accept_pattern`), as the seed's data
/// scanner filters what it recognises by content type. A code the filter refuses is not a
/// result: it gets the `rejected` feedback, an event and a count, and the session goes on.
public struct PayloadFilter: Equatable, Sendable {
    /// The payload types taken (nil: every type).
    public var kinds: Set<PayloadKind>?
    /// A regular expression the text must contain a match of (nil: any text).
    public var pattern: AcceptPattern?

    public init(kinds: Set<PayloadKind>? = nil, pattern: AcceptPattern? = nil) {
        self.kinds = kinds
        self.pattern = pattern
    }

    /// Whether every code is taken.
    public var acceptsAll: Bool { kinds == nil && pattern == nil }

    /// Why `symbol` is not taken, or nil when it is.
    public func refusal(_ symbol: Symbol) -> String? {
        if let kinds {
            let kind = PayloadClassifier.classify(symbol).kind
            if !kinds.contains(kind) { return "a \(kind.rawValue) payload is not in scan.accept" }
        }
        if let pattern, !pattern.matches(symbol.text) { return "the text does not match scan.accept_pattern" }
        return nil
    }
}

/// A bounded regular expression on a payload's text: at most `maxLength` characters, no
/// repetition of a repeated group (`(a+)+`, the shape that backtracks exponentially), matched
/// against at most `maxText` bytes of text (a longer payload does not match).
public struct AcceptPattern: Equatable, @unchecked Sendable, CustomStringConvertible {
    public let source: String
    // Regex is a value with no shared mutable state once built; it is only read here.
    private let regex: Regex<AnyRegexOutput>

    public static let maxLength = 256
    public static let maxText = 4096

    public init(_ source: String) throws(AcceptPatternError) {
        guard !source.isEmpty else { throw AcceptPatternError("is empty; leave it out to accept any text") }
        guard source.count <= Self.maxLength else {
            throw AcceptPatternError("has \(source.count) characters; at most \(Self.maxLength)")
        }
        if let problem = Self.nestedRepetition(source) { throw AcceptPatternError(problem) }
        do { regex = try Regex(source) } catch { throw AcceptPatternError("is not a regular expression: \(error)") }
        self.source = source
    }

    /// Whether the text contains a match (anchor with `^...$` for the whole text).
    public func matches(_ text: String) -> Bool {
        guard text.utf8.count <= Self.maxText else { return false }
        return (try? regex.firstMatch(in: text)) != nil
    }

    public var description: String { source }

    public static func == (a: AcceptPattern, b: AcceptPattern) -> Bool { a.source == b.source }

    /// A group that holds a quantifier and is itself repeated (`(a+)+`, `(\d*x)*`, `(a{2,})+`).
    static func nestedRepetition(_ source: String) -> String? {
        let chars = Array(source)
        var groups: [Bool] = [] // per open group: whether it holds a quantifier
        var i = 0
        var inClass = false
        while i < chars.count {
            let c = chars[i]
            if c == "\\" { i += 2; continue }
            if inClass { if c == "]" { inClass = false }; i += 1; continue }
            switch c {
            case "[": inClass = true
            case "(": groups.append(false)
            case ")":
                let held = groups.popLast() ?? false
                let next = i + 1 < chars.count ? chars[i + 1] : " "
                if held && (next == "+" || next == "*" || next == "{") {
                    return "repeats a repeated group (\(String(chars[max(0, i - 12)...min(chars.count - 1, i + 1)]))), which can take exponential time; write it without the nesting"
                }
                if held || next == "+" || next == "*" || next == "{" || next == "?" {
                    if !groups.isEmpty { groups[groups.count - 1] = true }
                }
            case "+", "*", "{":
                if !groups.isEmpty { groups[groups.count - 1] = true }
            default: break
            }
            i += 1
        }
        return nil
    }
}

public struct AcceptPatternError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
