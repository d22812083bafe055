/// What the kiosk says aloud when speech is on (`[feedback.speech]`): for people who cannot see
/// the LED flash, as the seed scanner does with VoiceOver.
public enum Announcement: Equatable, Sendable {
    /// A good read of these codes.
    case read([Symbol])
    /// A session ended without a code.
    case noRead
    /// The camera cannot serve: gone, busy, not permitted (a press refused, or a running kiosk
    /// interrupted).
    case camera(CameraState)
    /// A press refused because the outputs take no new result.
    case outputsFull

    /// A short name for events: `read`, `no-read`, `camera`, `outputs-full`.
    public var kind: String {
        switch self {
        case .read: return "read"
        case .noRead: return "no-read"
        case .camera: return "camera"
        case .outputsFull: return "outputs-full"
        }
    }
}

/// When a result is delivered while speech is on.
public enum SpeechDelivery: String, Sendable, CaseIterable {
    /// When its announcement has finished (the seed's rule), or when it is cut short.
    case after
    /// At once, while the announcement plays.
    case immediately
}

/// How speech changes the kiosk's behaviour (the rest of `[feedback.speech]` is the runtime's).
public struct SpeechBehaviour: Equatable, Sendable {
    public var deliver: SpeechDelivery = .after
    /// Whether the announcement replaces the good-read LED flash (the beep stays).
    public var replacesFlash = true
    public init(deliver: SpeechDelivery = .after, replacesFlash: Bool = true) {
        self.deliver = deliver
        self.replacesFlash = replacesFlash
    }
}

/// What a good-read announcement says.
public enum SpokenContent: String, Sendable, CaseIterable {
    /// The kind of code: "QR code scanned".
    case type
    /// The result itself when it is numeric or short and printable ("4 0 0 6 ..."); the kind
    /// otherwise.
    case text
    /// Both: "EAN-13: 4 0 0 6 ...".
    case both
}

/// The words of each announcement. Pure: tested without a speech engine.
public struct SpeechPhrases: Equatable, Sendable {
    public var say: SpokenContent = .type
    public var noRead = "No code found"
    public var cameraError = "The scanner cannot see. Please ask for help."
    public var outputsFull = "The scanner cannot send codes now. Please ask for help."
    /// The longest result read out in full; a longer one is named by its kind.
    public static let longestSpoken = 24

    public init(say: SpokenContent = .type, noRead: String? = nil, cameraError: String? = nil, outputsFull: String? = nil) {
        self.say = say
        if let noRead { self.noRead = noRead }
        if let cameraError { self.cameraError = cameraError }
        if let outputsFull { self.outputsFull = outputsFull }
    }

    /// The sentence for `announcement`.
    public func text(for announcement: Announcement) -> String {
        switch announcement {
        case .noRead: return noRead
        case .camera: return cameraError
        case .outputsFull: return outputsFull
        case .read(let symbols): return symbols.map(sentence).joined(separator: ". ")
        }
    }

    private func sentence(_ symbol: Symbol) -> String {
        let kind = Self.spokenName(symbol.symbology)
        guard say != .type, let spoken = Self.spokenText(symbol) else { return kind + " scanned" }
        return say == .text ? spoken : kind + ": " + spoken
    }

    /// How a person calls the symbology: "QR code", "EAN-13 barcode".
    public static func spokenName(_ symbology: Symbology) -> String {
        switch symbology {
        case .qrCode: return "QR code"
        case .microQR: return "Micro QR code"
        case .dataMatrix: return "Data Matrix code"
        case .aztec: return "Aztec code"
        case .pdf417: return "PDF417 code"
        default: return String(symbology.rawValue.map { $0 == "-" ? " " : $0 }) + " barcode"
        }
    }

    /// The result as words a speech engine reads well: digits one by one, a short printable
    /// text as it is; nil when it is long or not printable (then the kind is said instead).
    public static func spokenText(_ symbol: Symbol) -> String? {
        let text = symbol.text
        guard !text.isEmpty, text.count <= longestSpoken else { return nil }
        if text.allSatisfy({ $0.isASCII && $0.isNumber }) { return text.map(String.init).joined(separator: " ") }
        guard text.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control && $0 != "<" && $0 != ">" }) else { return nil }
        return text
    }
}
