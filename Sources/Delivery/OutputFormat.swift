import ScanCore

/// How a result is written on an output.
public enum OutputFormat: Sendable, Equatable {
    /// `prefix + [AIM identifier] + text + suffix`, the text escaped (control characters as `\xNN`);
    /// an EAN/UPC's add-on follows the main code after `symbology.addon_separator`, as boxed
    /// scanners send it (AIM `]E3`).
    case text(prefix: [UInt8], suffix: [UInt8], aim: Bool)
    /// One JSON object per line:
    /// `{"seq","time","symbology","aim","text","bytesBase64","numericOnly",["addon",]"payload":{...}}`:
    /// `text` and `bytesBase64` the main code, `addon` its EAN-2/EAN-5 digits where one was read.
    case jsonLines

    /// The bytes for `result`, read at `unixMillis` (wall clock, for the `time` field).
    public func render(_ result: ScanResult, unixMillis: Int64) -> [UInt8] {
        let s = result.symbol
        switch self {
        case .text(let prefix, let suffix, let aim):
            return prefix + Array(((aim ? s.aim : "") + PayloadText.escaped(s.transmitted)).utf8) + suffix
        case .jsonLines:
            let line = "{\"seq\":\(result.sequence),\"time\":\(JSONText.string(Self.iso8601(unixMillis))),"
                + "\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"aim\":\(JSONText.string(s.aim)),"
                + "\"text\":\(JSONText.string(s.text)),\"bytesBase64\":\(JSONText.string(PayloadText.base64(s.bytes))),"
                + "\"numericOnly\":\(s.numericOnly),\(s.addOn.map { "\"addon\":\(JSONText.string($0))," } ?? "")"
                + "\"payload\":\(PayloadClassifier.classify(s).json)}\n"
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
