import ScanCore

/// How a result is written on an output.
public enum OutputFormat: Sendable, Equatable {
    /// `prefix + [AIM identifier] + text + suffix`, the text escaped (control characters as `\xNN`);
    /// an EAN/UPC's add-on follows the main code after `symbology.addon_separator`, as boxed
    /// scanners send it (AIM `]E3`). GS1 data as decoded, or with `gs1: .hri` as
    /// `(01)09506000134352(10)ABC`.
    case text(prefix: [UInt8], suffix: [UInt8], aim: Bool, gs1: GS1Text = .raw)
    /// One JSON object per line:
    /// `{"seq","time","symbology","aim","text","bytesBase64","numericOnly",["addon",]"payload":{...}[,"gs1":{...}[,"gs1Errors":[...]]]}`:
    /// `text` and `bytesBase64` the main code, `addon` its EAN-2/EAN-5 digits where one was read,
    /// `gs1` the AIs of GS1 data (element strings or a Digital Link) as an object in their order,
    /// `gs1Errors` what is wrong with them.
    case jsonLines

    /// The bytes for `result`, read at `unixMillis` (wall clock, for the `time` field).
    public func render(_ result: ScanResult, unixMillis: Int64) -> [UInt8] {
        let s = result.symbol
        switch self {
        case .text(let prefix, let suffix, let aim, let gs1):
            let reading = gs1 == .hri ? GS1.read(s) : nil
            let text = reading.flatMap { $0.isComplete ? $0.hri : nil } ?? s.transmitted
            return prefix + Array(((aim ? s.aim : "") + PayloadText.escaped(text)).utf8) + suffix
        case .jsonLines:
            let line = "{\"seq\":\(result.sequence),\"time\":\(JSONText.string(Self.iso8601(unixMillis))),"
                + "\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"aim\":\(JSONText.string(s.aim)),"
                + "\"text\":\(JSONText.string(s.text)),\"bytesBase64\":\(JSONText.string(PayloadText.base64(s.bytes))),"
                + "\"numericOnly\":\(s.numericOnly),\(s.addOn.map { "\"addon\":\(JSONText.string($0))," } ?? "")"
                + Self.payloadJSON(s) + "}\n"
            return Array(line.utf8)
        }
    }

    /// `"payload":{...}` and, for GS1 data, its AIs after it: what a read says, in every JSON
    /// that carries one (this output, `scand decode --json`).
    public static func payloadJSON(_ s: Symbol) -> String {
        "\"payload\":\(PayloadClassifier.classify(s).json)\(GS1.read(s).map(gs1JSON) ?? "")"
    }

    /// `,"gs1":{"01":"09506000134352","10":"ABC"}` and, when something is wrong,
    /// `,"gs1Errors":["(01) 09506000134353: check digit 3 is wrong, 2 expected: ..."]`.
    static func gs1JSON(_ reading: GS1.Reading) -> String {
        let fields = reading.distinct.map { "\(JSONText.string($0.ai)):\(JSONText.string($0.value))" }
        let errors = reading.problems.map(JSONText.string)
        return ",\"gs1\":{" + fields.joined(separator: ",") + "}" + (errors.isEmpty ? "" : ",\"gs1Errors\":[" + errors.joined(separator: ",") + "]")
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
