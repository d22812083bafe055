import ScanCore
import ScanHardware

/// A barcode decoding engine.
///
/// Implementations are safe to call from any task; calls on one instance may be serialized.
public protocol BarcodeDecoder: Sendable {
    /// The engine's name for logs and benchmarks, e.g. `zbar`.
    var name: String { get }
    /// The symbologies this engine can read at all.
    var supportedSymbologies: Set<Symbology> { get }
    /// Every code found inside `viewport` of `frame`, with corners in frame coordinates.
    /// Codes outside the viewport are never returned. Empty payloads are dropped.
    func decode(_ frame: GrayFrame, viewport: Viewport) -> [Symbol]
    /// `s`'s code looked for again in `frame` (a crop around it, resampled or not, in the
    /// orientation it was read in), for a second opinion: an engine may look only for its kind
    /// and along its bars. Whatever else it finds is no matter.
    func decodeAgain(_ frame: GrayFrame, as s: Symbol) -> [Symbol]
}

/// A decoder whose work on a frame comes in two parts: a first look, cheap enough for every
/// frame, and deeper passes for a frame whose first look found nothing, which may be abandoned
/// between passes (the kiosk gives every new frame its first look while an older one gets the
/// deep passes). `firstLook` then `deepLook` give what `decode` gives.
public protocol StagedDecoder: BarcodeDecoder {
    /// The first look at `viewport` of `frame`: its codes, and what the deep passes need.
    func firstLook(_ frame: GrayFrame, viewport: Viewport) -> FirstLook
    /// The deeper passes after a first look that found nothing; `abandon` is asked between
    /// passes (true: give up, return nothing).
    func deepLook(_ look: FirstLook, abandon: () -> Bool) -> [Symbol]
}

/// The result of a first look, handed to the deep passes (possibly on another thread).
public struct FirstLook: @unchecked Sendable {
    /// The codes found, nearest the viewport's centre first, in frame coordinates.
    public var symbols: [Symbol]
    let region: GrayFrame
    let origin: (x: Int, y: Int)
    let doubts: AnyObject?
    /// Whether the engines after the first have yet to look at the region (the deep look starts
    /// with them: `DecodePipeline.decode` on several threads).
    let deferred: Bool
    init(symbols: [Symbol], region: GrayFrame, origin: (x: Int, y: Int), doubts: AnyObject?, deferred: Bool = false) {
        self.deferred = deferred
        self.symbols = symbols
        self.region = region
        self.origin = origin
        self.doubts = doubts
    }
}

extension BarcodeDecoder {
    /// Decodes the whole frame.
    public func decode(_ frame: GrayFrame) -> [Symbol] { decode(frame, viewport: .full) }
    public func decodeAgain(_ frame: GrayFrame, as s: Symbol) -> [Symbol] { decode(frame) }
}

extension Symbology {
    /// The symbologies a read of this one may come back as from another look: the EAN/UPC
    /// family as a whole (a UPC-A is an EAN-13 with a leading 0; a book's EAN-13 an ISBN), an
    /// ITF-14 as ITF.
    var lookAlikes: Set<Symbology> {
        if isEANFamily { return [.ean13, .ean8, .upcA, .upcE, .isbn10, .isbn13] }
        if self == .itf || self == .itf14 { return [.itf, .itf14] }
        return [self]
    }
}

/// The symbologies scand reads by default: the seed's list (UPC-E, EAN-8, EAN-13, UPC-A,
/// Interleaved 2 of 5, ITF-14, Code 39, Code 93, Code 128, PDF417, Aztec, DataMatrix, QR).
public let defaultSymbologies: Set<Symbology> = [
    .upcE, .ean8, .ean13, .upcA, .itf, .itf14, .code39, .code93, .code128, .pdf417, .aztec,
    .dataMatrix, .qrCode,
]

extension Array where Element == Symbol {
    /// Orders symbols by the distance of their centre from `point` (nearest first); symbols
    /// without corners go last, in their original order.
    public func sortedByDistance(toX x: Double, y: Double) -> [Symbol] {
        enumerated().sorted { a, b in
            switch (a.element.center, b.element.center) {
            case let (ca?, cb?):
                let da = (ca.x - x) * (ca.x - x) + (ca.y - y) * (ca.y - y)
                let db = (cb.x - x) * (cb.x - x) + (cb.y - y) * (cb.y - y)
                return da == db ? a.offset < b.offset : da < db
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element)
    }
}
