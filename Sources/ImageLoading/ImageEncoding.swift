import CImageCodecs
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// An 8-bit RGB image (three bytes a pixel, rows packed): what a snapshot draws on.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Red, green, blue for each pixel, row by row.
    public var pixels: [UInt8]

    /// A `width` x `height` image of one colour.
    public init(width: Int, height: Int, fill: RGB = RGB(0, 0, 0)) {
        precondition(width >= 0 && height >= 0, "invalid image size")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        if fill != RGB(0, 0, 0) { for i in 0..<(width * height) { self[i] = fill } }
    }

    /// The gray frame in colour (each gray level as R = G = B).
    public init(gray frame: GrayFrame) {
        let width = frame.width, height = frame.height
        self.width = width
        self.height = height
        var out = [UInt8](repeating: 0, count: width * height * 3)
        frame.withUnsafeBytes { src in
            var o = 0
            for y in 0..<height {
                let row = y * frame.stride
                for x in 0..<width {
                    let v = src[row + x]
                    out[o] = v; out[o + 1] = v; out[o + 2] = v
                    o += 3
                }
            }
        }
        pixels = out
    }

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    private subscript(index: Int) -> RGB {
        get { RGB(pixels[index * 3], pixels[index * 3 + 1], pixels[index * 3 + 2]) }
        set { pixels[index * 3] = newValue.r; pixels[index * 3 + 1] = newValue.g; pixels[index * 3 + 2] = newValue.b }
    }

    /// The pixel at (`x`, `y`); nil outside the image.
    public func pixel(x: Int, y: Int) -> RGB? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        return self[y * width + x]
    }

    /// Sets the pixel at (`x`, `y`); points outside the image are ignored (drawing clips).
    public mutating func set(x: Int, y: Int, _ colour: RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        self[y * width + x] = colour
    }

    /// The image as a PNG file's bytes.
    public func png() throws(ImageLoadError) -> [UInt8] {
        try ImageEncoding.encode("PNG") { out, length, message in
            pixels.withUnsafeBufferPointer {
                scand_png_encode($0.baseAddress, Int32(width), Int32(height), Int32(width * 3), 3, &out, &length, message, 256)
            }
        }
    }

    /// Decodes a PNG to RGB (tests and tools read snapshots back with it).
    public static func decodePNG(_ data: [UInt8], maxPixels: Int = 40_000_000) throws(ImageLoadError) -> RGBImage {
        var out: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = data.withUnsafeBufferPointer { buf in
            scand_png_to_rgb(buf.baseAddress, buf.count, maxPixels, &out, &width, &height, &message, message.count)
        }
        guard rc == 0, let out else {
            throw ImageLoadError(path: "", reason: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        defer { free(out) }
        return RGBImage(width: Int(width), height: Int(height),
                        pixels: Array(UnsafeBufferPointer(start: out, count: Int(width) * Int(height) * 3)))
    }
}

/// A colour.
public struct RGB: Sendable, Equatable, Hashable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }
}

/// Encoders for what scand shows of its camera: PNG snapshots and the setup page's JPEG preview.
public enum ImageEncoding {
    /// A gray frame as a PNG file's bytes.
    public static func png(_ frame: GrayFrame) throws(ImageLoadError) -> [UInt8] {
        try encode("PNG") { out, length, message in
            frame.withUnsafeBytes {
                scand_png_encode($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(frame.width), Int32(frame.height),
                                 Int32(frame.stride), 1, &out, &length, message, 256)
            }
        }
    }

    /// A gray frame as a baseline JPEG of `quality` (1-100).
    public static func jpeg(_ frame: GrayFrame, quality: Int = 70) throws(ImageLoadError) -> [UInt8] {
        try encode("JPEG") { out, length, message in
            frame.withUnsafeBytes {
                scand_jpeg_from_gray($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(frame.width), Int32(frame.height),
                                     Int32(frame.stride), Int32(min(100, max(1, quality))), &out, &length, message, 256)
            }
        }
    }

    static func encode(_ kind: String, _ body: (inout UnsafeMutablePointer<UInt8>?, inout Int, UnsafeMutablePointer<CChar>) -> Int32)
        throws(ImageLoadError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = message.withUnsafeMutableBufferPointer { body(&out, &length, $0.baseAddress!) }
        guard rc == 0, let out else {
            throw ImageLoadError(path: "", reason: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
