/// A barcode symbology, named as people write it.
public enum Symbology: String, CaseIterable, Sendable, Codable, Hashable {
    case ean13 = "EAN-13"
    case ean8 = "EAN-8"
    case upcA = "UPC-A"
    case upcE = "UPC-E"
    case isbn10 = "ISBN-10"
    case isbn13 = "ISBN-13"
    case itf = "ITF"
    case itf14 = "ITF-14"
    case code39 = "Code-39"
    case code93 = "Code-93"
    case code128 = "Code-128"
    case codabar = "Codabar"
    case dataBar = "DataBar"
    case dataBarExpanded = "DataBar-Expanded"
    case pdf417 = "PDF417"
    case qrCode = "QR-Code"
    case microQR = "Micro-QR"
    case dataMatrix = "DataMatrix"
    case aztec = "Aztec"

    /// Symbologies that can only carry digits: the seed's "load immediately" class.
    public var isNumericOnly: Bool {
        switch self {
        case .ean13, .ean8, .upcA, .upcE, .itf, .itf14, .isbn10, .isbn13: return true
        default: return false
        }
    }

    /// The AIM symbology identifier for the usual options (`]E0`, `]Q1`, ...), used when the
    /// engine does not report the exact one.
    public var defaultAIM: String {
        switch self {
        case .ean13, .upcA, .upcE, .isbn13, .isbn10: return "]E0"
        case .ean8: return "]E4"
        case .itf, .itf14: return "]I0"
        case .code39: return "]A0"
        case .code93: return "]G0"
        case .code128: return "]C0"
        case .codabar: return "]F0"
        case .dataBar, .dataBarExpanded: return "]e0"
        case .pdf417: return "]L2"
        case .qrCode: return "]Q1"
        case .microQR: return "]Q1"
        case .dataMatrix: return "]d1"
        case .aztec: return "]z0"
        }
    }

    /// EAN-13, EAN-8, UPC-A, UPC-E (and ISBN): the retail codes with one layout of bars.
    public var isEANFamily: Bool { [.ean13, .ean8, .upcA, .upcE, .isbn10, .isbn13].contains(self) }

    /// One-dimensional (linear) symbologies.
    public var isLinear: Bool {
        switch self {
        case .pdf417, .qrCode, .microQR, .dataMatrix, .aztec: return false
        default: return true
        }
    }

    /// Parses a name as a person may write it: `EAN-13`, `ean13`, `qr`, `QR-Code`, `code128`,
    /// `I2/5`. Case, `-`, `_` and spaces are ignored.
    public init?(name: String) {
        let key = name.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "/" }
        let aliases: [String: Symbology] = [
            "qr": .qrCode, "qrcode": .qrCode, "microqr": .microQR, "i2/5": .itf, "interleaved2of5": .itf,
            "i25": .itf, "code39mod43": .code39, "datamatrix": .dataMatrix, "databarexp": .dataBarExpanded,
            "gs1databar": .dataBar, "pdf417": .pdf417,
        ]
        if let hit = aliases[key] { self = hit; return }
        for candidate in Symbology.allCases {
            let candidateKey = candidate.rawValue.lowercased().filter { $0.isLetter || $0.isNumber }
            if candidateKey == key { self = candidate; return }
        }
        return nil
    }
}

/// A point in frame pixel coordinates.
public struct PixelPoint: Equatable, Sendable, Codable {
    public var x: Int, y: Int
    public init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// A normalized rectangle inside a frame: the viewport. (0, 0, 1, 1) is the whole frame.
public struct Viewport: Equatable, Sendable, Codable {
    public var x: Double, y: Double, width: Double, height: Double

    public static let full = Viewport(x: 0, y: 0, width: 1, height: 1)

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// Why these numbers are not a viewport, or nil when they are one.
    public var problem: String? {
        let all = [x, y, width, height]
        if all.contains(where: { !$0.isFinite }) { return "values must be finite numbers" }
        if x < 0 || y < 0 { return "x and y must be 0 or more" }
        if width <= 0 || height <= 0 { return "width and height must be more than 0" }
        if x + width > 1.000001 || y + height > 1.000001 { return "x + width and y + height must be at most 1" }
        return nil
    }

    /// The viewport in pixels of a `frameWidth` x `frameHeight` frame.
    public func pixels(frameWidth: Int, frameHeight: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let x0 = Int((x * Double(frameWidth)).rounded(.down))
        let y0 = Int((y * Double(frameHeight)).rounded(.down))
        let x1 = Int(((x + width) * Double(frameWidth)).rounded(.up))
        let y1 = Int(((y + height) * Double(frameHeight)).rounded(.up))
        let cx0 = max(0, min(x0, frameWidth)), cy0 = max(0, min(y0, frameHeight))
        return (cx0, cy0, max(0, min(x1, frameWidth) - cx0), max(0, min(y1, frameHeight) - cy0))
    }
}

/// One decoded code.
public struct Symbol: Equatable, Sendable {
    public var symbology: Symbology
    /// The payload exactly as decoded.
    public var bytes: [UInt8]
    /// Corner points in frame pixel coordinates, in the decoder's order.
    public var corners: [PixelPoint]
    /// The engine's reading of the bytes as text, by the symbol's ECI designators or its
    /// symbology's character set rules (QR Kanji mode as Shift_JIS, say); nil when the engine
    /// gives none.
    public var engineText: String?
    /// Whether the symbol carries ECI designators (then `engineText` is authoritative).
    public var hasECI = false
    /// The AIM symbology identifier (`]Q1`, `]E0`, `]C1`, ...), when the engine gives it.
    public var aimIdentifier: String?
    /// A linear code checked within its own frame beyond its check characters: an EAN/UPC whose
    /// bars fit the image digit by digit, or a code two different engines read alike. The kiosk
    /// counts such a read as two agreeing frames. (Not part of equality: the same code.)
    public var verifiedInFrame = false
    /// The share of its error correction a 2D read left unused (0: all of it spent, so the
    /// message may be a damaged code "corrected" into another; 1: none needed), when the engine
    /// says (zxing-cpp). Not part of equality.
    public var spareErrorCorrection: Double?
    /// An EAN/UPC's EAN-2 or EAN-5 add-on (its 2 or 5 digits), when one was read beside the
    /// main code (`symbology.<name>.addon`); `bytes` hold the main code's digits alone.
    public var addOn: String?
    /// What goes between the main code and its add-on in the text sent (`transmitted`); from
    /// `symbology.addon_separator`, none by default, as boxed scanners send them. Not part of
    /// equality.
    public var addOnSeparator = ""

    public static func == (a: Symbol, b: Symbol) -> Bool {
        a.symbology == b.symbology && a.bytes == b.bytes && a.corners == b.corners && a.engineText == b.engineText
            && a.hasECI == b.hasECI && a.aimIdentifier == b.aimIdentifier && a.addOn == b.addOn
    }

    public init(symbology: Symbology, bytes: [UInt8], corners: [PixelPoint] = [], engineText: String? = nil,
                hasECI: Bool = false, aimIdentifier: String? = nil) {
        self.symbology = symbology
        self.bytes = bytes
        self.corners = corners
        self.engineText = engineText
        self.hasECI = hasECI
        self.aimIdentifier = aimIdentifier
    }

    public init(symbology: Symbology, text: String, corners: [PixelPoint] = []) {
        self.init(symbology: symbology, bytes: Array(text.utf8), corners: corners)
    }

    /// The payload as text: as its ECI designators say when it has any; else UTF-8 when the
    /// bytes are valid UTF-8; else the engine's reading by the symbology's rules (Shift_JIS for
    /// QR Kanji); else each byte read as Latin-1 (so no byte is lost or replaced). The exact
    /// bytes are always in `bytes`. Control characters are kept: use `PayloadText.escaped`
    /// before writing it to a terminal or a line protocol.
    public var text: String {
        if hasECI, let engineText { return engineText }
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        return engineText ?? PayloadText.decode(bytes)
    }

    /// The text as a text output sends it: the payload, then the add-on after its separator
    /// (`9780306406157` and `52495`: `978030640615752495` by default).
    public var transmitted: String { addOn.map { text + addOnSeparator + $0 } ?? text }

    /// Whether the payload is valid UTF-8 (false for binary payloads).
    public var isUTF8: Bool { String(validating: bytes, as: UTF8.self) != nil }

    public var numericOnly: Bool { symbology.isNumericOnly }

    /// The AIM symbology identifier: the engine's, or the symbology's usual one; `]E3` for an
    /// EAN/UPC sent with its add-on (ISO/IEC 15424: the main code and the add-on as one).
    public var aim: String {
        if addOn != nil, symbology.isEANFamily { return "]E3" }
        if let aimIdentifier, aimIdentifier == "]E3" { return symbology.defaultAIM }
        return aimIdentifier ?? symbology.defaultAIM
    }

    /// Whether there is anything in it.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The centre of the corner points, or nil without corners.
    public var center: (x: Double, y: Double)? {
        guard !corners.isEmpty else { return nil }
        let sx = corners.reduce(0) { $0 + $1.x }, sy = corners.reduce(0) { $0 + $1.y }
        return (Double(sx) / Double(corners.count), Double(sy) / Double(corners.count))
    }

    /// Whether two reads lie in one place: the centres of their corners' bounding boxes closer
    /// than half the longer side of either box (false where one has no corners). Two reads of
    /// one code from different scan lines are in one place; the same product beside it is not.
    public static func overlap(_ a: Symbol, _ b: Symbol) -> Bool {
        guard let p = a.box, let q = b.box else { return false }
        let dx = Double(p.minX + p.maxX - q.minX - q.maxX) / 2, dy = Double(p.minY + p.maxY - q.minY - q.maxY) / 2
        let side = max(p.maxX - p.minX, p.maxY - p.minY, q.maxX - q.minX, q.maxY - q.minY)
        return (dx * dx + dy * dy).squareRoot() < Double(side) / 2
    }

    private var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        guard !corners.isEmpty else { return nil }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return (xs.min()!, ys.min()!, xs.max()!, ys.max()!)
    }
}

/// A code's identity, whatever its position or read: its symbology and bytes. The same code seen
/// again (the same-symbol filter, decode statistics) is the same identity.
public struct CodeIdentity: Hashable, Sendable {
    public let symbology: Symbology
    public let bytes: [UInt8]

    public init(_ symbol: Symbol) {
        symbology = symbol.symbology
        bytes = symbol.bytes
    }
}
