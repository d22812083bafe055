import ScanHardware

/// A hint for the person aiming a code, from what the pipeline sees in a frame it could not
/// read. Only what a frame can show is said (see `Guidance.assess`).
public struct Advice: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case tooDark = "too-dark", glare, blurred, tooSmall = "too-small", partlyOutside = "partly-outside"
    }
    public var kind: Kind
    /// What to do, for a person.
    public var message: String
    /// Where the code-like region is, in frame pixels (nil for the whole viewport).
    public var region: PixelRect?

    public init(_ kind: Kind, _ message: String, region: PixelRect? = nil) {
        self.kind = kind
        self.message = message
        self.region = region
    }

    /// One JSON object.
    public var json: String {
        "{\"kind\":\(JSONText.string(kind.rawValue)),\"message\":\(JSONText.string(message))"
            + (region.map { ",\"region\":[\($0.x),\($0.y),\($0.width),\($0.height)]" } ?? "") + "}"
    }
}
