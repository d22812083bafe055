import CImageCodecs
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Why an image file could not be turned into a frame.
public struct ImageLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path as given.
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// What one image may cost: checked before anything is allocated for it.
public struct ImageLimits: Sendable, Equatable {
    /// Width × height; the default takes a 1920x1080 camera frame many times over.
    public var maxPixels = 40_000_000
    /// Bytes of the file.
    public var maxFileBytes = 64 << 20
    public init(maxPixels: Int = 40_000_000, maxFileBytes: Int = 64 << 20) {
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
    }
}

/// Loads PNG, JPEG and PGM (binary P5 and plain P2) files as 8-bit gray frames, through libpng
/// and libjpeg-turbo. Images over the limits (a decompression bomb) are refused from their
/// header; only regular files are read (a link to `/dev/zero` is refused).
public enum ImageFile {
    /// The image formats recognised by their first bytes.
    public enum Format: String, Sendable { case png, jpeg, pgm }

    /// Reads and decodes the file at `path`.
    public static func load(_ path: String, limits: ImageLimits = ImageLimits()) throws(ImageLoadError) -> GrayFrame {
        let data = try readFile(path, limit: limits.maxFileBytes)
        do {
            return try decode(data, limits: limits)
        } catch {
            throw ImageLoadError(path: path, reason: error.reason)
        }
    }

    /// Decodes an image held in memory.
    public static func decode(_ data: [UInt8], limits: ImageLimits = ImageLimits()) throws(ImageLoadError) -> GrayFrame {
        guard let format = sniff(data) else {
            throw ImageLoadError(path: "", reason: data.isEmpty ? "empty file" : "not a PNG, JPEG or PGM image")
        }
        switch format {
        case .png: return try decodeWith(scand_png_to_gray, data, maxPixels: limits.maxPixels)
        case .jpeg: return try decodeWith(scand_jpeg_to_gray, data, maxPixels: limits.maxPixels)
        case .pgm:
            do { return try PGM.decode(data, maxPixels: limits.maxPixels) } catch { throw ImageLoadError(path: "", reason: "PGM: \(error.reason)") }
        }
    }

    /// The format `data` starts like, or nil.
    public static func sniff(_ data: [UInt8]) -> Format? {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if data.count >= 2, data[0] == 0x50, data[1] == 0x35 || data[1] == 0x32 { return .pgm }
        return nil
    }

    private typealias CDecoder = (UnsafePointer<UInt8>?, Int, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                  UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                  UnsafeMutablePointer<CChar>?, Int) -> Int32

    private static func decodeWith(_ fn: CDecoder, _ data: [UInt8], maxPixels: Int) throws(ImageLoadError) -> GrayFrame {
        var out: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = data.withUnsafeBufferPointer { buf in
            fn(buf.baseAddress, buf.count, maxPixels, &out, &width, &height, &message, message.count)
        }
        guard rc == 0, let out else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageLoadError(path: "", reason: text)
        }
        defer { free(out) }
        let count = Int(width) * Int(height)
        let pixels = Array(UnsafeBufferPointer(start: out, count: count))
        return GrayFrame(width: Int(width), height: Int(height), pixels: pixels)
    }

    private static func readFile(_ path: String, limit: Int) throws(ImageLoadError) -> [UInt8] {
        do { return try FileBytes.read(path, limit: limit) } catch { throw ImageLoadError(path: path, reason: error.reason) }
    }
}

/// Netpbm graymap: P5 (binary, 8 or 16 bits) and P2 (plain).
enum PGM {
    static func decode(_ data: [UInt8], maxPixels: Int) throws(ImageLoadError) -> GrayFrame {
        var index = 2
        func fail(_ reason: String) -> ImageLoadError { ImageLoadError(path: "", reason: reason) }
        func number() throws(ImageLoadError) -> Int {
            // Skip white space and comments.
            while index < data.count {
                if data[index] == UInt8(ascii: "#") {
                    while index < data.count && data[index] != 10 { index += 1 }
                } else if [9, 10, 13, 32].contains(data[index]) {
                    index += 1
                } else { break }
            }
            var value = 0, digits = 0
            while index < data.count, data[index] >= 48, data[index] <= 57 {
                if digits < 10 { value = value * 10 + Int(data[index] - 48) }
                index += 1; digits += 1
            }
            guard digits > 0 else { throw fail("malformed header") }
            guard digits <= 9 else { throw fail("number \(digits > 10 ? "of \(digits) digits" : String(value)) is too large") }
            return value
        }
        let plain = data[1] == UInt8(ascii: "2")
        let width = try number(), height = try number(), maxValue = try number()
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else { throw fail("bad size \(width)x\(height)") }
        guard width * height <= maxPixels else { throw fail("\(width)x\(height) is more than \(maxPixels) pixels; not decoded") }
        guard maxValue > 0, maxValue < 65536 else { throw fail("bad maximum value \(maxValue)") }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let scale = { (v: Int) -> UInt8 in UInt8(min(255, v * 255 / maxValue)) }
        if plain {
            for i in 0..<pixels.count { pixels[i] = scale(try number()) }
        } else {
            index += 1 // the single white space after maxval
            let bytesPer = maxValue < 256 ? 1 : 2
            guard data.count - index >= pixels.count * bytesPer else { throw fail("truncated pixel data") }
            for i in 0..<pixels.count {
                let v = bytesPer == 1 ? Int(data[index + i]) : Int(data[index + 2 * i]) << 8 | Int(data[index + 2 * i + 1])
                pixels[i] = maxValue == 255 ? UInt8(v) : scale(v)
            }
        }
        return GrayFrame(width: width, height: height, pixels: pixels)
    }
}
