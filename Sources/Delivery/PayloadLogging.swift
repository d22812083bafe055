import ScanCore

/// How much of a payload the log shows (`log.payloads`): the outputs always get it whole.
public enum PayloadLogging: String, Sendable, Equatable, CaseIterable {
    /// The text as read (control characters escaped).
    case full
    /// The payload's type and the fields scand finds in it, secrets left out (a Wi-Fi
    /// password); a plain text payload shows as its type and length.
    case type
    /// The type and length only: no part of any payload is logged.
    case redacted

    /// Fields never logged unless `full`.
    static let secrets: Set<String> = ["password"]

    /// What the log line shows of `symbol`'s payload.
    public func shown(_ symbol: Symbol) -> String {
        let info = PayloadClassifier.classify(symbol)
        let size = "\(info.kind.rawValue), \(symbol.bytes.count) bytes"
        switch self {
        case .full: return PayloadText.escaped(symbol.text)
        case .redacted: return size
        case .type:
            let fields = info.fields.filter { !Self.secrets.contains($0.0) && $0.1 != symbol.text }
            let hidden = info.fields.contains { Self.secrets.contains($0.0) } ? " (password not logged)" : ""
            guard !fields.isEmpty else { return size + hidden }
            return size + ": " + fields.map { "\($0.0)=\(PayloadText.escaped(String($0.1.prefix(80))))" }.joined(separator: " ") + hidden
        }
    }
}
