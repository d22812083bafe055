/// How a result is written on an output.
public enum OutputFormat: Sendable, Equatable {
    /// `prefix + [AIM identifier] + text + suffix`, the text escaped (control characters as `\xNN`).
    case text(prefix: [UInt8], suffix: [UInt8], aim: Bool)
    /// One JSON object per line:
    /// `{"seq","time","symbology","aim","text","bytesBase64","numericOnly","payload":{...}}`.
    case jsonLines

    /// The bytes for `result`, read at `unixMillis` (wall clock, for the `time` field).
    public func render(_ result: ScanResult, unixMillis: Int64) -> [UInt8] {
        let s = result.symbol
        switch self {
        case .text(let prefix, let suffix, let aim):
            return prefix + Array(((aim ? s.aim : "") + PayloadText.escaped(s.text)).utf8) + suffix
        case .jsonLines:
            let line = "{\"seq\":\(result.sequence),\"time\":\(JSONText.string(Self.iso8601(unixMillis))),"
                + "\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"aim\":\(JSONText.string(s.aim)),"
                + "\"text\":\(JSONText.string(s.text)),\"bytesBase64\":\(JSONText.string(PayloadText.base64(s.bytes))),"
                + "\"numericOnly\":\(s.numericOnly),\"payload\":\(PayloadClassifier.classify(s).json)}\n"
            return Array(line.utf8)
        }
    }

    /// `2026-11-22T12:00:00.123Z` from milliseconds since 1970 (UTC; no calendar library needed).
    public static func iso8601(_ ms: Int64) -> String {
        let days = Int(ms / 86_400_000), msOfDay = Int(ms % 86_400_000)
        // Civil from days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let h = msOfDay / 3_600_000, mi = msOfDay / 60000 % 60, sec = msOfDay / 1000 % 60, milli = msOfDay % 1000
        let mss = milli < 10 ? "00\(milli)" : milli < 100 ? "0\(milli)" : "\(milli)"
        return "\(y)-\(two(m))-\(two(d))T\(two(h)):\(two(mi)):\(two(sec)).\(mss)Z"
    }
}

/// Holds back a code that is still in view (boxed scanners' "same symbol timeout"): a code is
/// reported again only after it has been out of view (a looked-at frame without it) for at
/// least `window` since its last sighting, so a code left on the scanner is reported once
/// whatever the window, 0 included. Time is an input.
public struct SameSymbolFilter: Sendable {
    public var window: Duration
    private struct Code: Hashable { let symbology: Symbology; let bytes: [UInt8] }
    private struct Sighting { var at: Duration; var outOfView: Bool }
    private var recent: [Code: Sighting] = [:]
    /// Codes remembered at most (several codes in view at once, `scan.multiple`).
    static let capacity = 32

    public init(window: Duration) { self.window = window }

    /// Forgets every code: the next ones are reported whatever they are (a press).
    public mutating func forget() { recent = [:] }

    /// A frame was looked at and showed `codes` at `now`: those are sighted again, the others
    /// are out of view from their last sighting. Codes out of view longer than the window are
    /// forgotten.
    public mutating func frame(showing codes: [Symbol], at now: Duration) {
        let shown = Set(codes.map { Code(symbology: $0.symbology, bytes: $0.bytes) })
        for (code, sighting) in recent {
            if shown.contains(code) {
                recent[code] = Sighting(at: now, outOfView: false)
            } else if sighting.outOfView && now - sighting.at >= window {
                recent[code] = nil
            } else {
                recent[code]?.outOfView = true
            }
        }
    }

    /// Whether `symbol`, read at `now` (any monotonic time), is reported; either way it is
    /// sighted now.
    public mutating func admit(_ symbol: Symbol, at now: Duration) -> Bool {
        let code = Code(symbology: symbol.symbology, bytes: symbol.bytes)
        let previous = recent[code]
        recent[code] = Sighting(at: now, outOfView: false)
        if recent.count > Self.capacity, let oldest = recent.min(by: { $0.value.at < $1.value.at })?.key, oldest != code {
            recent[oldest] = nil
        }
        guard let previous else { return true }
        return previous.outOfView && now - previous.at >= window
    }
}
