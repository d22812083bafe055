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
}

extension BarcodeDecoder {
    /// Decodes the whole frame.
    public func decode(_ frame: GrayFrame) -> [Symbol] { decode(frame, viewport: .full) }
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
