/// An 8-bit grayscale image: one byte per pixel, rows `stride` bytes apart.
///
/// A frame either owns its pixels or borrows them from a driver's buffer (an mmap'ed V4L2
/// buffer, say) through an owner object that keeps the memory alive. Copying a `GrayFrame`
/// copies a reference, never the pixels; `cropped(to:)` is a view, not a copy.
public struct GrayFrame: @unchecked Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the start of the next (`>= width`).
    public let stride: Int
    /// When the frame was captured, in nanoseconds of the source's monotonic clock (0 if unknown).
    public var timestampNanos: UInt64

    private let storage: PixelStorage
    private let offset: Int

    /// Makes a frame that owns `pixels`, laid out with `stride` bytes per row.
    /// - Precondition: `pixels.count >= stride * (height - 1) + width`.
    public init(width: Int, height: Int, stride: Int? = nil, pixels: [UInt8], timestampNanos: UInt64 = 0) {
        let stride = stride ?? width
        precondition(width >= 0 && height >= 0 && stride >= width, "invalid frame geometry")
        precondition(height == 0 || pixels.count >= stride * (height - 1) + width, "pixel buffer too small")
        self.width = width
        self.height = height
        self.stride = stride
        self.timestampNanos = timestampNanos
        self.storage = OwnedPixels(pixels)
        self.offset = 0
    }

    /// Makes a frame over memory it does not own. `owner` is retained for as long as any copy of
    /// the frame lives and must keep `bytes` valid and unchanged until then.
    public init(width: Int, height: Int, stride: Int, borrowing bytes: UnsafeRawBufferPointer,
                owner: AnyObject, timestampNanos: UInt64 = 0) {
        precondition(width >= 0 && height >= 0 && stride >= width, "invalid frame geometry")
        precondition(height == 0 || bytes.count >= stride * (height - 1) + width, "pixel buffer too small")
        self.width = width
        self.height = height
        self.stride = stride
        self.timestampNanos = timestampNanos
        self.storage = BorrowedPixels(bytes, owner: owner)
        self.offset = 0
    }

    private init(width: Int, height: Int, stride: Int, storage: PixelStorage, offset: Int, timestampNanos: UInt64) {
        self.width = width
        self.height = height
        self.stride = stride
        self.storage = storage
        self.offset = offset
        self.timestampNanos = timestampNanos
    }

    /// Calls `body` with the frame's bytes, starting at pixel (0, 0); row `y` starts at `y * stride`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withBytes { all in
            let length = height == 0 ? 0 : stride * (height - 1) + width
            return try body(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)]))
        }
    }

    /// The pixel at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> UInt8 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of range")
        return storage.withBytes { $0[offset + y * stride + x] }
    }

    /// A view of the pixels inside `rect` (clamped to the frame), sharing this frame's memory.
    public func cropped(to rect: PixelRect) -> GrayFrame {
        let r = rect.clamped(width: width, height: height)
        return GrayFrame(width: r.width, height: r.height, stride: stride, storage: storage,
                         offset: offset + r.y * stride + r.x, timestampNanos: timestampNanos)
    }

    /// The pixels as one packed array (`stride == width`), copied.
    public func packedPixels() -> [UInt8] {
        withUnsafeBytes { bytes in
            if stride == width { return Array(bytes) }
            var out = [UInt8](repeating: 0, count: width * height)
            out.withUnsafeMutableBytes { dst in
                for row in 0..<height {
                    let src = UnsafeRawBufferPointer(rebasing: bytes[(row * stride)..<(row * stride + width)])
                    UnsafeMutableRawBufferPointer(rebasing: dst[(row * width)..<((row + 1) * width)]).copyMemory(from: src)
                }
            }
            return out
        }
    }
}

/// A rectangle in pixel coordinates.
public struct PixelRect: Equatable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    /// The part of the rectangle that lies inside a `width` x `height` frame.
    public func clamped(width frameWidth: Int, height frameHeight: Int) -> PixelRect {
        let x0 = min(max(x, 0), frameWidth), y0 = min(max(y, 0), frameHeight)
        let x1 = min(max(x + width, x0), frameWidth), y1 = min(max(y + height, y0), frameHeight)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

private protocol PixelStorage: AnyObject {
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

private final class OwnedPixels: PixelStorage {
    let pixels: [UInt8]
    init(_ pixels: [UInt8]) { self.pixels = pixels }
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try pixels.withUnsafeBytes(body)
    }
}

private final class BorrowedPixels: PixelStorage {
    let bytes: UnsafeRawBufferPointer
    let owner: AnyObject
    init(_ bytes: UnsafeRawBufferPointer, owner: AnyObject) { self.bytes = bytes; self.owner = owner }
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(bytes) }
}
