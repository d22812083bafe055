import CGPIOD
import CV4L2
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// What `scand probe` finds on a board: cameras, GPIO chips, serial ports.
public enum Probe {
    public struct Camera: Sendable {
        public var path: String
        public var card: String
        public var driver: String
        /// Pixel formats with their sizes and frame rates, e.g. `YUYV 640x480 (30, 15 fps)`.
        public var formats: [String]
        public var controls: [String]
        public var error: String?
    }

    public struct Chip: Sendable {
        public var name: String
        public var label: String
        /// `offset name [used by consumer]` per line.
        public var lines: [String]
    }

    /// Every /dev/video* node that is a capture device (others are listed with the reason).
    public static func cameras(syscalls sys: Syscalls = .system) -> [Camera] {
        devices(prefix: "video", in: "/dev").map { camera(at: $0, sys) }
    }

    static func camera(at path: String, _ sys: Syscalls) -> Camera {
        var result = Camera(path: path, card: "", driver: "", formats: [], controls: [])
        let fd = sys.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = sys.errno()
            result.error = HardwareError(HardwareError.kind(forErrno: code), operation: "open", device: path, errno: code, hint: Hints.camera(code)).description
            return result
        }
        defer { _ = sys.close(fd) }
        var cap = v4l2_capability()
        guard sys.ioctl(fd, scand_VIDIOC_QUERYCAP, &cap) == 0 else { result.error = "VIDIOC_QUERYCAP: \(ErrnoName.name(sys.errno()))"; return result }
        result.card = withUnsafeBytes(of: cap.card) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        result.driver = withUnsafeBytes(of: cap.driver) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else { result.error = "not a capture node"; return result }
        for index in 0..<64 {
            var desc = v4l2_fmtdesc()
            desc.index = UInt32(index)
            desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard sys.ioctl(fd, scand_VIDIOC_ENUM_FMT, &desc) == 0 else { break }
            var sizes: [String] = []
            for s in 0..<64 {
                var size = v4l2_frmsizeenum()
                size.index = UInt32(s)
                size.pixel_format = desc.pixelformat
                guard sys.ioctl(fd, scand_VIDIOC_ENUM_FRAMESIZES, &size) == 0 else { break }
                if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                    let w = size.discrete.width, h = size.discrete.height
                    sizes.append("\(w)x\(h)" + rates(fd, sys, desc.pixelformat, w, h))
                } else {
                    let sw = size.stepwise
                    sizes.append("\(sw.min_width)x\(sw.min_height)..\(sw.max_width)x\(sw.max_height)")
                    break
                }
            }
            result.formats.append("\(fourccString(desc.pixelformat)) \(sizes.joined(separator: ", "))")
        }
        var query = v4l2_queryctrl()
        query.id = scand_V4L2_CTRL_FLAG_NEXT_CTRL
        for _ in 0..<256 where sys.ioctl(fd, scand_VIDIOC_QUERYCTRL, &query) == 0 {
            if query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 && query.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue {
                let name = withUnsafeBytes(of: query.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                let known = CameraControl.ids.first { $0.value == query.id }?.key
                result.controls.append("\(known ?? name) [\(query.minimum)..\(query.maximum), default \(query.default_value)]")
            }
            query.id |= scand_V4L2_CTRL_FLAG_NEXT_CTRL
        }
        return result
    }

    static func rates(_ fd: Int32, _ sys: Syscalls, _ format: UInt32, _ w: UInt32, _ h: UInt32) -> String {
        var fps: [String] = []
        for i in 0..<16 {
            var ival = v4l2_frmivalenum()
            ival.index = UInt32(i)
            ival.pixel_format = format
            ival.width = w
            ival.height = h
            guard sys.ioctl(fd, scand_VIDIOC_ENUM_FRAMEINTERVALS, &ival) == 0, ival.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue else { break }
            let d = ival.discrete
            if d.numerator > 0 { fps.append(d.numerator == 1 ? "\(d.denominator)" : "\(d.denominator)/\(d.numerator)") }
        }
        return fps.isEmpty ? "" : " (\(fps.joined(separator: ", ")) fps)"
    }

    /// What `scand probe` prints about libcamera's cameras: each camera's id and model, its
    /// formats and its controls (with the `camera.controls` name that sets each, if any).
    public static func libcameraLines(_ shim: any LibcameraShim = SystemLibcamera(), version: String = SystemLibcamera.version) -> [String] {
        let cameras: [LibcameraCameraInfo]
        do { cameras = try shim.cameras() } catch {
            return ["libcamera cameras (libcamera \(version)): cannot list them: \(error.call): \(error.message)"]
        }
        guard !cameras.isEmpty else {
            return ["libcamera cameras (libcamera \(version)): none; \(Hints.libcameraCheck)"]
        }
        var lines = ["libcamera cameras (libcamera \(version)):"]
        for camera in cameras {
            lines.append("  \(camera.id)" + (camera.model.isEmpty ? "" : ": \(camera.model)"))
            lines += camera.formats.map { "    format \($0)" }
            for c in camera.controls {
                let names = LibcameraControlMapping.all.filter { $0.libcameraName == c.name }.map { "camera.controls.\($0.configName)" }
                lines.append("    control \(c.name) [\(number(c.minimum))..\(number(c.maximum)), default \(number(c.defaultValue))]"
                             + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))"))
            }
        }
        return lines
    }

    private static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    /// Every gpiochip with its lines, through libgpiod.
    public static func chips() -> [Chip] {
        var out: [Chip] = []
        for path in devices(prefix: "gpiochip", in: "/dev") {
            guard let chip = gpiod_chip_open(path) else {
                out.append(Chip(name: path, label: "cannot open: \(ErrnoName.name(errno))", lines: []))
                continue
            }
            defer { gpiod_chip_close(chip) }
            var lines: [String] = []
            for offset in 0..<gpiod_chip_num_lines(chip) {
                guard let line = gpiod_chip_get_line(chip, offset) else { continue }
                let name = gpiod_line_name(line).map { String(cString: $0) } ?? "unnamed"
                var text = "\(offset) \(name)"
                if gpiod_line_is_used(line) {
                    text += " [used by \(gpiod_line_consumer(line).map { String(cString: $0) } ?? "kernel")]"
                }
                lines.append(text)
            }
            out.append(Chip(name: String(cString: gpiod_chip_name(chip)), label: String(cString: gpiod_chip_label(chip)), lines: lines))
        }
        return out
    }

    /// Serial ports: USB adapters, the Pi's UARTs, stable names.
    public static func serialPorts() -> [String] {
        let dev = ["ttyUSB", "ttyACM", "ttyAMA", "ttyS", "serial"].flatMap { devices(prefix: $0, in: "/dev") }
        let stable = devices(prefix: "", in: "/dev/serial/by-id")
        // ttyS0..31 exist on every PC; list only those a driver backs.
        return dev.filter { !$0.hasPrefix("/dev/ttyS") || hasUART($0) } + stable
    }

    static func hasUART(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var t = termios()
        return tcgetattr(fd, &t) == 0
    }

    static func devices(prefix: String, in folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(prefix) && name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }.map { folder + "/" + $0 }
    }
}
