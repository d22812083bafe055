import CImageCodecs
import CV4L2
import ScanCore
import ScanHardware

/// The capture formats scand takes, in its default order of preference, and how each becomes
/// 8-bit gray: GREY and the planar YUV formats are borrowed as they are (their first plane is
/// the gray image), packed YUV gives up its Y bytes, MJPEG is decoded straight to gray.
public typealias CaptureFormat = CameraFormat

extension CameraFormat {
    public var fourcc: UInt32 {
        switch self {
        case .grey: return scand_V4L2_PIX_FMT_GREY
        case .yuyv: return scand_V4L2_PIX_FMT_YUYV
        case .uyvy: return scand_V4L2_PIX_FMT_UYVY
        case .nv12: return scand_V4L2_PIX_FMT_NV12
        case .nv21: return scand_V4L2_PIX_FMT_NV21
        case .yu12: return scand_V4L2_PIX_FMT_YUV420
        case .mjpeg: return scand_V4L2_PIX_FMT_MJPEG
        case .jpeg: return scand_V4L2_PIX_FMT_JPEG
        }
    }

    public init?(fourcc: UInt32) {
        guard let f = CaptureFormat.allCases.first(where: { $0.fourcc == fourcc }) else { return nil }
        self = f
    }

    /// The default preference: no conversion first, no decoding last.
    public static let preference: [CaptureFormat] = [.grey, .yuyv, .uyvy, .nv12, .nv21, .yu12, .mjpeg, .jpeg]

    /// Whether the gray image can be borrowed from the buffer without a copy.
    var borrowsLuma: Bool { [.grey, .nv12, .nv21, .yu12].contains(self) }
}

/// A fourcc as its four characters, e.g. `YUYV`.
public func fourccString(_ code: UInt32) -> String {
    String(decoding: [UInt8(code & 0xFF), UInt8((code >> 8) & 0xFF), UInt8((code >> 16) & 0xFF), UInt8((code >> 24) & 0xFF)],
           as: UTF8.self)
}

/// Gray conversions, into a caller's buffer (no allocation per frame).
public enum GrayConversion {
    /// Takes the Y bytes of packed 4:2:2 YUV (YUYV: offset 0; UYVY: offset 1) into `out`
    /// (`width * height` bytes, packed).
    public static func lumaOfPacked422(_ src: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int,
                                       lumaOffset: Int, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= width * height && src.count >= bytesPerLine * (height - 1) + width * 2)
        let s = src.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let d = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            let row = s + y * bytesPerLine + lumaOffset
            let dst = d + y * width
            var x = 0
            while x < width {
                dst[x] = row[2 * x]
                x += 1
            }
        }
    }

    /// Decodes a JPEG/MJPEG frame to gray into `out` (stride `width`). Returns the size, or
    /// throws the decoder's message.
    public static func jpeg(_ src: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer,
                            stride: Int) throws(HardwareError) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let rc = scand_jpeg_to_gray_into(src.baseAddress?.assumingMemoryBound(to: UInt8.self), src.count,
                                         out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, Int32(stride),
                                         &w, &h, &message, message.count)
        guard rc == 0 else {
            throw HardwareError(.invalidFormat, operation: "MJPEG decode", device: "frame",
                                hint: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return (Int(w), Int(h))
    }
}
