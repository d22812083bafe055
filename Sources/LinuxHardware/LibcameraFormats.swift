import ScanCore
import ScanHardware

/// libcamera's frames as gray: which of its pixel formats scand takes and how a frame's luma
/// is copied out of the first plane (pure; tested on synthetic buffers).
public enum LibcameraFrames {
    /// The scand format for libcamera's pixel format name (`PixelFormat::toString`): gray and
    /// planar YUV give their first plane as it is (YVU420's luma is YUV420's), packed YUV its Y
    /// bytes. Nil for RGB (see `layout(named:)`) and the formats scand does not take (raw Bayer,
    /// MJPEG).
    public static func format(named name: String) -> CameraFormat? {
        switch name {
        case "R8": return .grey
        case "NV12": return .nv12
        case "NV21": return .nv21
        case "YUV420", "YVU420": return .yu12
        case "YUYV": return .yuyv
        case "UYVY": return .uyvy
        default: return nil
        }
    }

    /// Where a libcamera format keeps a frame's luma.
    public enum Layout: Sendable, Equatable {
        /// A format scand knows by its V4L2 name: the luma plane as it is, or packed YUV's Y bytes.
        case yuv(CameraFormat)
        /// Packed 24-bit RGB, the luma computed per pixel (BT.601 weights, full range); `red` and
        /// `blue` are the byte offsets in a pixel. libcamera's RGB888 is B, G, R in memory and
        /// BGR888 R, G, B; vimc's pipeline gives only these two.
        case rgb24(red: Int, blue: Int)
    }

    /// The layout of libcamera's pixel format `name`: the YUV and gray formats of
    /// `format(named:)`, then RGB888 and BGR888. Nil for raw Bayer, MJPEG and the rest.
    public static func layout(named name: String) -> Layout? {
        if let format = format(named: name) { return .yuv(format) }
        switch name {
        case "RGB888": return .rgb24(red: 2, blue: 0)
        case "BGR888": return .rgb24(red: 0, blue: 2)
        default: return nil
        }
    }

    /// Copies the luma of a frame in `plane` into `out` as `copyLuma(_:format:...)` does, RGB
    /// computed from each pixel.
    public static func copyLuma(_ plane: UnsafeRawBufferPointer, layout: Layout, width: Int, height: Int, stride: Int,
                                into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard case .rgb24(let red, let blue) = layout else {
            guard case .yuv(let format) = layout else { return false }
            return copyLuma(plane, format: format, width: width, height: height, stride: stride, into: out)
        }
        guard width > 0, height > 0, out.count >= width * height, stride >= width * 3,
              plane.count >= stride * (height - 1) + width * 3 else { return false }
        for row in 0..<height {
            var at = row * stride
            for x in 0..<width {
                let r = Int(plane[at + red]), g = Int(plane[at + 1]), b = Int(plane[at + blue])
                out[row * width + x] = UInt8((77 * r + 150 * g + 29 * b + 128) >> 8)
                at += 3
            }
        }
        return true
    }

    /// The bytes the first plane must hold for a `width` x `height` frame with rows `stride`
    /// bytes apart.
    public static func planeBytesNeeded(_ format: CameraFormat, width: Int, height: Int, stride: Int) -> Int {
        guard height > 0 else { return 0 }
        let rowBytes = format == .yuyv || format == .uyvy ? width * 2 : width
        return stride * (height - 1) + rowBytes
    }

    /// Copies the luma of a frame in `plane` (the buffer's first plane, rows `stride` bytes
    /// apart) into `out`, packed (`width` bytes per row). False when the plane is too short for
    /// the size, `out` too small, or the format is not one `format(named:)` gives.
    public static func copyLuma(_ plane: UnsafeRawBufferPointer, format: CameraFormat, width: Int, height: Int, stride: Int,
                                into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard width > 0, height > 0, out.count >= width * height,
              plane.count >= planeBytesNeeded(format, width: width, height: height, stride: stride) else { return false }
        switch format {
        case .grey, .nv12, .nv21, .yu12:
            guard stride >= width else { return false }
            for row in 0..<height {
                let src = UnsafeRawBufferPointer(rebasing: plane[(row * stride)..<(row * stride + width)])
                UnsafeMutableRawBufferPointer(rebasing: out[(row * width)..<((row + 1) * width)]).copyMemory(from: src)
            }
            return true
        case .yuyv, .uyvy:
            guard stride >= width * 2 else { return false }
            GrayConversion.lumaOfPacked422(plane, width: width, height: height, bytesPerLine: stride,
                                           lumaOffset: format == .yuyv ? 0 : 1, into: out)
            return true
        case .mjpeg, .jpeg:
            return false
        }
    }
}

/// How a camera control's config name (`[camera.controls]`, V4L2's names) maps to libcamera's
/// control and its value. libcamera's controls are floats in physical units; the config's are
/// integers, so a factor carries them (`gain = 200` is an AnalogueGain of 2.0).
public struct LibcameraControlMapping: Sendable, Equatable {
    /// How a config value becomes libcamera's.
    public enum Conversion: Sendable, Equatable {
        /// libcamera's value = the config's × factor.
        case scaled(Double)
        /// Listed config values and libcamera's, first match wins going back.
        case values([ValuePair])
    }
    public struct ValuePair: Sendable, Equatable {
        public var config: Int
        public var libcamera: Double
        public init(_ config: Int, _ libcamera: Double) { self.config = config; self.libcamera = libcamera }
    }

    /// The name under `[camera.controls]`, e.g. `exposure_absolute`.
    public var configName: String
    /// libcamera's control, e.g. `ExposureTime`.
    public var libcameraName: String
    public var conversion: Conversion

    public init(_ configName: String, _ libcameraName: String, _ conversion: Conversion) {
        self.configName = configName
        self.libcameraName = libcameraName
        self.conversion = conversion
    }

    /// Every mapping; the config's names (`[camera.controls]`) first, in the order the setup page
    /// shows them, then the short names `exposure` and `focus` (`setControl` takes them too).
    /// `exposure_absolute` keeps V4L2's unit (100 µs), `exposure` is in µs; `gain`,
    /// `brightness`, `contrast`, `sharpness` in hundredths (100 = 1.0; brightness -100...100);
    /// `focus_absolute` and `focus` in hundredths of a dioptre (LensPosition: 0 infinity,
    /// 200 = 0.5 m); `exposure_auto` (1 manual, 3 auto) and `focus_auto` (0 manual, 1
    /// continuous) as in V4L2.
    public static let all: [LibcameraControlMapping] = [
        .init("exposure_auto", "AeEnable", .values([.init(1, 0), .init(3, 1), .init(2, 1)])),
        .init("exposure_absolute", "ExposureTime", .scaled(100)),
        .init("gain", "AnalogueGain", .scaled(0.01)),
        .init("brightness", "Brightness", .scaled(0.01)),
        .init("contrast", "Contrast", .scaled(0.01)),
        .init("sharpness", "Sharpness", .scaled(0.01)),
        .init("focus_auto", "AfMode", .values([.init(0, 0), .init(1, 2)])),
        .init("focus_absolute", "LensPosition", .scaled(0.01)),
        .init("exposure", "ExposureTime", .scaled(1)),
        .init("focus", "LensPosition", .scaled(0.01)),
    ]

    /// The mapping for a config name, or nil when libcamera has no such control.
    public static func forConfig(_ name: String) -> LibcameraControlMapping? { all.first { $0.configName == name } }

    /// libcamera's value for a config value; nil for a value a listed mapping does not have.
    public func libcameraValue(_ value: Int) -> Double? {
        switch conversion {
        case .scaled(let factor): return Double(value) * factor
        case .values(let pairs): return pairs.first { $0.config == value }?.libcamera
        }
    }

    /// The config value for libcamera's value (rounded; for a listed mapping the first pair with
    /// that value, else the nearest).
    public func configValue(_ value: Double) -> Int {
        switch conversion {
        case .scaled(let factor): return Int((value / factor).rounded())
        case .values(let pairs):
            return pairs.min { abs($0.libcamera - value) < abs($1.libcamera - value) }?.config ?? Int(value.rounded())
        }
    }

    /// The setting the setup page shows for a libcamera control, in config terms.
    public func setting(_ info: LibcameraControlInfo, value: Double?) -> CameraControlSetting {
        let a = configValue(info.minimum), b = configValue(info.maximum)
        return CameraControlSetting(name: configName, minimum: min(a, b), maximum: max(a, b), step: 1,
                                    defaultValue: configValue(info.defaultValue), value: configValue(value ?? info.defaultValue))
    }
}
