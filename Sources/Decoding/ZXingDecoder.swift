import CZXing
import ScanCore
import ScanHardware

/// The zxing-cpp engine (3.1, built by scripts/setup-zxing.sh): every seed symbology, DataMatrix, Aztec and PDF417
/// included. Reentrant: no state is shared between calls.
public final class ZXingDecoder: BarcodeDecoder, @unchecked Sendable {
    public let name: String
    /// What scand asks zxing-cpp for.
    /// (ISBN-13: a book's EAN-13, told by its 978/979 prefix where EAN-13 itself is not read.)
    public static let supported: Set<Symbology> = [
        .ean13, .isbn13, .ean8, .upcA, .upcE, .itf, .itf14, .code39, .code93, .code128, .codabar, .dataBar, .dataBarExpanded,
        .pdf417, .qrCode, .microQR, .dataMatrix, .aztec,
    ]
    public var supportedSymbologies: Set<Symbology> { Self.supported }
    public let enabled: Set<Symbology>

    /// How hard zxing looks.
    public struct Effort: Sendable, Equatable {
        public var tryHarder = true
        public var tryRotate = true
        /// Also read light-on-dark codes (zxing-cpp 3.1 inverts the image itself).
        public var tryInvert = false
        public var tryDownscale = false
        /// Stop at this many codes (0: no limit).
        public var maxSymbols: Int32 = 0
        /// 0 local average (hybrid), 1 global histogram, 2 fixed threshold.
        public var binarizer: Int32 = 0
        /// Also read an EAN/UPC's EAN-2/EAN-5 add-on when there is one (`Symbol.addOn`).
        public var readsAddOns = false
        public init() {}
        public static let standard = Effort()
    }
    public let effort: Effort

    public init(symbologies: Set<Symbology> = defaultSymbologies, effort: Effort = .standard, name: String = "zxing") {
        enabled = symbologies.intersection(Self.supported)
        self.effort = effort
        self.name = name
    }

    public func decode(_ frame: GrayFrame, viewport: Viewport) -> [Symbol] {
        decode(frame, viewport: viewport, only: enabled)
    }

    /// Only `s`'s kind: a linear code's second look runs none of the 2D detectors.
    public func decodeAgain(_ frame: GrayFrame, as s: Symbol) -> [Symbol] {
        decode(frame, viewport: .full, only: enabled.intersection(s.symbology.lookAlikes))
    }

    private func decode(_ frame: GrayFrame, viewport: Viewport, only formats: Set<Symbology>) -> [Symbol] {
        let roi = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        guard roi.width > 0, roi.height > 0, !formats.isEmpty else { return [] }
        let region = frame.cropped(to: PixelRect(x: roi.x, y: roi.y, width: roi.width, height: roi.height))
        var options = scand_zx_options(formats: Self.formats(formats), try_harder: effort.tryHarder ? 1 : 0,
                                       try_rotate: effort.tryRotate ? 1 : 0, try_invert: effort.tryInvert ? 1 : 0,
                                       try_downscale: effort.tryDownscale ? 1 : 0,
                                       binarizer: effort.binarizer, max_symbols: effort.maxSymbols, is_pure: 0,
                                       ean_addon: effort.readsAddOns ? 1 : 0)
        var list: UnsafeMutablePointer<scand_zx_result>?
        var message = [CChar](repeating: 0, count: 160)
        // A crop is a view: zxing reads it in place through its row stride.
        let count = region.withUnsafeBytes { bytes in
            scand_zx_read(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(region.width), Int32(region.height),
                          Int32(region.stride), &options, &list, &message, Int32(message.count))
        }
        guard count > 0, let list else { return [] }
        defer { scand_zx_free(list, count) }
        var symbols: [Symbol] = []
        for i in 0..<Int(count) {
            let r = list[i]
            let bytes = r.bytes.map { Array(UnsafeBufferPointer(start: $0, count: Int(r.bytes_length))) } ?? []
            guard !bytes.isEmpty, var symbology = Self.symbology(r.format, bytes: bytes) else { continue }
            // A book's EAN-13 where ISBN-13 is read and EAN-13 is not: zbar's ISBN-13 (with the
            // add-on that zbar does not read).
            if symbology == .ean13, !enabled.contains(.ean13), enabled.contains(.isbn13), PayloadClassifier.isBookland(String(decoding: bytes, as: UTF8.self)) {
                symbology = .isbn13
            }
            guard enabled.contains(symbology) || (symbology == .itf && enabled.contains(.itf14)) else { continue }
            let c = r.corners
            let xs = [c.0, c.2, c.4, c.6], ys = [c.1, c.3, c.5, c.7]
            let corners = (0..<4).map { PixelPoint(x: Int(xs[$0]) + roi.x, y: Int(ys[$0]) + roi.y) }
            // zxing's text for binary content is no reading of it (often empty): keep the bytes' own.
            let engineText = r.content_type == 1 ? nil : r.text.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            let aim = withUnsafeBytes(of: r.symbology_id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var symbol = Symbol(symbology: symbology, bytes: bytes, corners: corners, engineText: engineText,
                                hasECI: r.has_eci != 0, aimIdentifier: aim.isEmpty ? nil : aim)
            symbol.spareErrorCorrection = r.spare_ec_permille >= 0 ? Double(r.spare_ec_permille) / 1000 : nil
            let addOn = withUnsafeBytes(of: r.addon) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !addOn.isEmpty, symbology.isEANFamily { symbol.addOn = addOn }
            symbols.append(symbol)
        }
        return symbols
    }

    static func formats(_ set: Set<Symbology>) -> UInt32 {
        var bits: UInt32 = 0
        for s in set {
            switch s {
            case .aztec: bits |= UInt32(SCAND_ZX_AZTEC)
            case .codabar: bits |= UInt32(SCAND_ZX_CODABAR)
            case .code39: bits |= UInt32(SCAND_ZX_CODE39)
            case .code93: bits |= UInt32(SCAND_ZX_CODE93)
            case .code128: bits |= UInt32(SCAND_ZX_CODE128)
            case .dataBar: bits |= UInt32(SCAND_ZX_DATABAR)
            case .dataBarExpanded: bits |= UInt32(SCAND_ZX_DATABAR_EXP)
            case .dataMatrix: bits |= UInt32(SCAND_ZX_DATAMATRIX)
            case .ean8: bits |= UInt32(SCAND_ZX_EAN8)
            case .ean13, .isbn10, .isbn13: bits |= UInt32(SCAND_ZX_EAN13)
            case .itf, .itf14: bits |= UInt32(SCAND_ZX_ITF)
            case .pdf417: bits |= UInt32(SCAND_ZX_PDF417)
            case .qrCode: bits |= UInt32(SCAND_ZX_QRCODE)
            case .microQR: bits |= UInt32(SCAND_ZX_MICROQR)
            case .upcA: bits |= UInt32(SCAND_ZX_UPCA)
            case .upcE: bits |= UInt32(SCAND_ZX_UPCE)
            }
        }
        return bits
    }

    static func symbology(_ format: UInt32, bytes: [UInt8]) -> Symbology? {
        switch Int(format) {
        case SCAND_ZX_AZTEC: return .aztec
        case SCAND_ZX_CODABAR: return .codabar
        case SCAND_ZX_CODE39: return .code39
        case SCAND_ZX_CODE93: return .code93
        case SCAND_ZX_CODE128: return .code128
        case SCAND_ZX_DATABAR: return .dataBar
        case SCAND_ZX_DATABAR_EXP: return .dataBarExpanded
        case SCAND_ZX_DATAMATRIX: return .dataMatrix
        case SCAND_ZX_EAN8: return .ean8
        case SCAND_ZX_EAN13: return .ean13
        case SCAND_ZX_ITF: return ITF14.isValid(bytes) ? .itf14 : .itf
        case SCAND_ZX_PDF417: return .pdf417
        case SCAND_ZX_QRCODE: return .qrCode
        case SCAND_ZX_MICROQR: return .microQR
        case SCAND_ZX_UPCA: return .upcA
        case SCAND_ZX_UPCE: return .upcE
        default: return nil
        }
    }
}
