import CZBar
import ScanCore
import ScanHardware

/// The zbar engine (libzbar 0.23): EAN/UPC, Interleaved 2 of 5, Code 39/93/128, Codabar,
/// DataBar and QR. Debian's build has no PDF417, DataMatrix or Aztec decoder.
public final class ZBarDecoder: BarcodeDecoder, @unchecked Sendable {
    public let name = "zbar"
    /// What Debian's libzbar reads (built without its PDF417 decoder).
    public static let supported: Set<Symbology> = [
        .ean13, .ean8, .upcA, .upcE, .isbn10, .isbn13, .itf, .itf14, .code39, .code93, .code128,
        .codabar, .dataBar, .dataBarExpanded, .qrCode,
    ]
    public var supportedSymbologies: Set<Symbology> { Self.supported }
    /// The symbologies this instance reports.
    public let enabled: Set<Symbology>

    private let scanner: Locked<ScannerHandle>
    /// Frames of more pixels than this (640x480 and up) are scanned on every second line each
    /// way (`decode`): on the scenes corpus and both development sets the same codes or more
    /// are read, and zbar's look at a dark or noisy 1080p frame (174 ms on every line, most of
    /// a first look where zxing found nothing) costs a quarter.
    static let denseUpTo = 300_000
    /// Images of more pixels than this (the `resampled` pass's enlargements of 720p and 1080p
    /// frames) are scanned on every third line: the same codes read on every development set,
    /// and a third less of the pass's zbar time.
    static let sparseFrom = 3_000_000

    /// Makes a decoder that reports the `symbologies` zbar supports (others are ignored).
    public init(symbologies: Set<Symbology> = defaultSymbologies) {
        enabled = symbologies.intersection(Self.supported)
        scanner = Locked(ScannerHandle(types: Self.zbarTypes(enabled)))
    }

    /// The zbar symbol types that read `symbologies` (an ISBN is found as an EAN-13 first).
    static func zbarTypes(_ symbologies: Set<Symbology>) -> Set<zbar_symbol_type_t> {
        var types = Set(symbologies.compactMap(zbarType))
        if !symbologies.isDisjoint(with: [.isbn10, .isbn13]) { types.insert(ZBAR_EAN13) }
        return types
    }

    public func decode(_ frame: GrayFrame, viewport: Viewport) -> [Symbol] {
        decode(frame, viewport: viewport, types: nil, lines: nil)
    }

    /// Lines to scan: along the rows (a code whose bars stand up), along the columns, or both.
    enum Lines { case rows, columns }

    /// `s`'s code in `frame` again, looked for only as its symbology (the EAN/UPC family as a
    /// whole) along the lines that cross its bars (rows when its read line runs more across
    /// than down): a second opinion on a read at a fraction of a whole look's cost.
    public func decodeAgain(_ frame: GrayFrame, as s: Symbol) -> [Symbol] {
        let types = Self.zbarTypes(s.symbology.lookAlikes)
        var lines: Lines?
        if let (p, q) = JoinedHalves.readLine(s) {
            let (dx, dy) = (abs(q.x - p.x), abs(q.y - p.y))
            // Within 30° of one axis: the lines along it cross every bar of the code.
            if dx > 1.7 * dy { lines = .rows } else if dy > 1.7 * dx { lines = .columns }
        }
        return decode(frame, viewport: .full, types: types, lines: lines)
    }

    private func decode(_ frame: GrayFrame, viewport: Viewport, types: Set<zbar_symbol_type_t>?, lines: Lines?) -> [Symbol] {
        let roi = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        guard roi.width > 0, roi.height > 0 else { return [] }
        let region = frame.cropped(to: PixelRect(x: roi.x, y: roi.y, width: roi.width, height: roi.height))
        return scanner.withLock { handle -> [Symbol] in
            // A large frame is scanned on every second line each way: a quarter of the work
            // (zbar chases every edge of a noisy or dark scene along every line), and a code
            // still crosses many lines. An image of several megapixels (the `resampled` pass's
            // enlargements: rows between the camera's rows) on every third line.
            let pixels = region.width * region.height
            let density: Int32 = pixels > Self.sparseFrom ? 3 : pixels > Self.denseUpTo ? 2 : 1
            // A scanner of its own for each image: zbar's EAN decoder keeps the halves it found
            // from one image to the next (a new scan does not clear them), so a half left over
            // from the previous frame could complete a code in this one (zxing-cpp's
            // ean13-1/20.png after 14.png reads as 4000539769443, half of each). Making one costs
            // nothing measurable beside a scan.
            guard let pointer = handle.makeScanner(density: density, types: types, lines: lines) else { return [] }
            defer { zbar_image_scanner_destroy(pointer) }
            if region.stride == region.width {
                return region.withUnsafeBytes { scan(pointer, $0, region, offsetX: roi.x, offsetY: roi.y) }
            }
            // zbar wants packed rows: a view with padding or a crop is packed into the decoder's
            // own buffer, reused from frame to frame (no allocation per frame).
            handle.pack(region)
            return handle.scratch.withUnsafeBytes { scan(pointer, $0, region, offsetX: roi.x, offsetY: roi.y) }
        }.map { Self.placedAlong($0, in: frame) }
    }

    /// zbar places an EAN/UPC code it read on a few lines where those lines read it, a few
    /// pixels across: such a read is given the line along which its pattern fits the image
    /// (`EANVerifier.fittedLine`), which the checks after it follow (two codes' halves on one
    /// line, an add-on's place). Without it they could not place the read and let it pass: a
    /// line slanted across an EAN-13 printed over another, read as `5901234333931`, the first
    /// code's left half and the second's right (bench/make-addon-stacks.py).
    static func placedAlong(_ s: Symbol, in frame: GrayFrame) -> Symbol {
        guard s.symbology.isEANFamily, let line = EANVerifier.fittedLine(s, in: frame) else { return s }
        var placed = s
        placed.corners = [line.start, line.end].map { PixelPoint(x: Int($0.x.rounded()), y: Int($0.y.rounded())) }
        return placed
    }

    private func scan(_ scanner: OpaquePointer, _ bytes: UnsafeRawBufferPointer, _ region: GrayFrame,
                      offsetX: Int, offsetY: Int) -> [Symbol] {
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, scand_zbar_fourcc_Y800)
        zbar_image_set_size(image, UInt32(region.width), UInt32(region.height))
        zbar_image_set_data(image, bytes.baseAddress, UInt(region.width * region.height), nil)
        guard zbar_scan_image(scanner, image) > 0 else { return [] }
        var symbols: [Symbol] = []
        var node = zbar_image_first_symbol(image)
        while let symbol = node {
            defer { node = zbar_symbol_next(symbol) }
            let length = Int(zbar_symbol_get_data_length(symbol))
            guard length > 0, let data = zbar_symbol_get_data(symbol) else { continue }
            let bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
            guard let symbology = Self.symbology(zbar_symbol_get_type(symbol), bytes: bytes),
                  enabled.contains(symbology) || isExpansion(symbology) else { continue }
            var corners: [PixelPoint] = []
            for i in 0..<zbar_symbol_get_loc_size(symbol) {
                corners.append(PixelPoint(x: Int(zbar_symbol_get_loc_x(symbol, i)) + offsetX,
                                          y: Int(zbar_symbol_get_loc_y(symbol, i)) + offsetY))
            }
            // zbar flags FNC1 in first position (GS1) as a modifier; zxing-cpp gives its AIM
            // identifier, which scand reads GS1 by.
            let gs1 = zbar_symbol_get_modifiers(symbol) & (1 << ZBAR_MOD_GS1.rawValue) != 0
            let aim: String? = !gs1 ? nil : symbology == .code128 ? "]C1" : symbology == .qrCode ? "]Q3" : nil
            symbols.append(Symbol(symbology: symbology, bytes: bytes, corners: Self.outline(corners), aimIdentifier: aim))
        }
        return symbols
    }

    /// zbar reports a linear code's location as every scan line's hit; reduce that to the
    /// bounding box (top left, top right, bottom right, bottom left). Four points or fewer (QR
    /// finder corners) are kept as they are.
    static func outline(_ points: [PixelPoint]) -> [PixelPoint] {
        guard points.count > 4 else { return points }
        let xs = points.map(\.x), ys = points.map(\.y)
        let x0 = xs.min()!, x1 = xs.max()!, y0 = ys.min()!, y1 = ys.max()!
        return [PixelPoint(x: x0, y: y0), PixelPoint(x: x1, y: y0), PixelPoint(x: x1, y: y1), PixelPoint(x: x0, y: y1)]
    }

    /// ITF-14 is reported from zbar's I2/5 when ITF-14 is enabled even if plain ITF is not.
    private func isExpansion(_ s: Symbology) -> Bool { s == .itf && enabled.contains(.itf14) }

    static func zbarType(_ s: Symbology) -> zbar_symbol_type_t? {
        switch s {
        case .ean13: return ZBAR_EAN13
        case .ean8: return ZBAR_EAN8
        case .upcA: return ZBAR_UPCA
        case .upcE: return ZBAR_UPCE
        case .isbn10: return ZBAR_ISBN10
        case .isbn13: return ZBAR_ISBN13
        case .itf, .itf14: return ZBAR_I25
        case .code39: return ZBAR_CODE39
        case .code93: return ZBAR_CODE93
        case .code128: return ZBAR_CODE128
        case .codabar: return ZBAR_CODABAR
        case .dataBar: return ZBAR_DATABAR
        case .dataBarExpanded: return ZBAR_DATABAR_EXP
        case .pdf417: return ZBAR_PDF417
        case .qrCode: return ZBAR_QRCODE
        case .microQR, .dataMatrix, .aztec: return nil
        }
    }

    static func symbology(_ t: zbar_symbol_type_t, bytes: [UInt8]) -> Symbology? {
        switch t {
        case ZBAR_EAN13: return .ean13
        case ZBAR_EAN8: return .ean8
        case ZBAR_UPCA: return .upcA
        case ZBAR_UPCE: return .upcE
        case ZBAR_ISBN10: return .isbn10
        case ZBAR_ISBN13: return .isbn13
        case ZBAR_I25: return ITF14.isValid(bytes) ? .itf14 : .itf
        case ZBAR_CODE39: return .code39
        case ZBAR_CODE93: return .code93
        case ZBAR_CODE128: return .code128
        case ZBAR_CODABAR: return .codabar
        case ZBAR_DATABAR: return .dataBar
        case ZBAR_DATABAR_EXP: return .dataBarExpanded
        case ZBAR_PDF417: return .pdf417
        case ZBAR_QRCODE: return .qrCode
        default: return nil
        }
    }
}

/// What each scan's zbar image scanner is made with, and the buffer a crop is packed into.
private final class ScannerHandle: @unchecked Sendable {
    /// The zbar symbol types to enable.
    let types: Set<zbar_symbol_type_t>
    /// Packed pixels of the last cropped frame.
    var scratch: [UInt8] = []
    init(types: Set<zbar_symbol_type_t>) { self.types = types }

    /// A new scanner for the enabled types (or those of `only` among them), every `density`th
    /// line each way or along `lines` only (nil: out of memory).
    func makeScanner(density: Int32, types only: Set<zbar_symbol_type_t>? = nil, lines: ZBarDecoder.Lines? = nil) -> OpaquePointer? {
        guard let s = zbar_image_scanner_create() else { return nil }
        zbar_image_scanner_set_config(s, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_enable_cache(s, 0)
        let enabled = only.map { types.intersection($0) } ?? types
        for t in enabled { zbar_image_scanner_set_config(s, t, ZBAR_CFG_ENABLE, 1) }
        // Keep QR bytes exactly as encoded instead of zbar's charset guess.
        if enabled.contains(ZBAR_QRCODE) { zbar_image_scanner_set_config(s, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1) }
        // X density spaces the columns scanned, Y density the rows.
        zbar_image_scanner_set_config(s, ZBAR_NONE, ZBAR_CFG_X_DENSITY, lines == .rows ? 0 : density)
        zbar_image_scanner_set_config(s, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, lines == .columns ? 0 : density)
        return s
    }

    func pack(_ f: GrayFrame) {
        let count = f.width * f.height
        if scratch.count < count { scratch = [UInt8](repeating: 0, count: count) }
        f.withUnsafeBytes { src in
            scratch.withUnsafeMutableBytes { dst in
                for row in 0..<f.height {
                    UnsafeMutableRawBufferPointer(rebasing: dst[(row * f.width)..<((row + 1) * f.width)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: src[(row * f.stride)..<(row * f.stride + f.width)]))
                }
            }
        }
    }
}

/// ITF-14 (GTIN-14 in Interleaved 2 of 5): exactly 14 digits with a valid GS1 check digit.
enum ITF14 {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 14, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
        let digits = bytes.map { Int($0 - 48) }
        var sum = 0
        for (i, d) in digits.dropLast().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == digits[13]
    }
}
