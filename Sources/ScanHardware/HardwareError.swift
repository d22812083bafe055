#if canImport(Glibc)
import Glibc
#endif

/// The one error type of every driver: what went wrong in terms the kiosk reacts to (`kind`),
/// and everything a person needs to fix it (the call, the device, the errno).
public struct HardwareError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the kiosk does about it depends only on this.
    public enum Kind: String, Sendable, Equatable {
        /// The device is held by another program (EBUSY).
        case busy
        /// No such device (ENOENT, ENXIO).
        case notFound
        /// The service user may not open the device (EACCES, EPERM).
        case permissionDenied
        /// The device went away while in use (ENODEV, EIO mid-stream).
        case disconnected
        /// A bounded wait ran out.
        case timedOut
        /// The device cannot deliver anything we can use (no capture, no usable pixel format).
        case invalidFormat
        /// Anything else.
        case other
    }

    public var kind: Kind
    /// The failing call, e.g. `VIDIOC_DQBUF`, `gpiod_chip_open_lookup`, `tcsetattr`.
    public var operation: String
    /// The device path or line name.
    public var device: String
    /// The errno the call left, or 0.
    public var errno: Int32
    /// A hint a person can act on, e.g. "add the service user to group video".
    public var hint: String?

    public init(_ kind: Kind, operation: String, device: String, errno: Int32 = 0, hint: String? = nil) {
        self.kind = kind
        self.operation = operation
        self.device = device
        self.errno = errno
        self.hint = hint
    }

    /// Maps an errno to a kind: the same mapping for every driver.
    public static func kind(forErrno code: Int32) -> Kind {
        switch code {
        case 16: return .busy                      // EBUSY
        case 2, 6: return .notFound                // ENOENT, ENXIO
        case 13, 1: return .permissionDenied       // EACCES, EPERM
        case 19, 5: return .disconnected           // ENODEV, EIO
        case 110, 11: return .timedOut             // ETIMEDOUT, EAGAIN
        case 22: return .invalidFormat             // EINVAL
        default: return .other
        }
    }

    public var description: String {
        var text: String
        switch kind {
        case .busy: text = "\(device) is busy: another program holds it"
        case .notFound: text = "\(device) not found"
        case .permissionDenied: text = "permission denied on \(device)"
        case .disconnected: text = "\(device) disconnected"
        case .timedOut: text = "\(device) timed out"
        case .invalidFormat: text = "\(device) offers no usable format"
        case .other: text = "\(device) failed"
        }
        text += " (\(operation)"
        if errno != 0 { text += ": \(ErrnoName.name(errno))" }
        text += ")"
        if let hint { text += "; \(hint)" }
        return text
    }
}

/// Symbolic names for the errno values drivers meet; numbers are Linux's on every architecture
/// Debian supports for these boards.
public enum ErrnoName {
    public static func name(_ code: Int32) -> String {
        let names: [Int32: String] = [
            1: "EPERM", 2: "ENOENT", 4: "EINTR", 5: "EIO", 6: "ENXIO", 9: "EBADF", 11: "EAGAIN",
            12: "ENOMEM", 13: "EACCES", 16: "EBUSY", 19: "ENODEV", 22: "EINVAL", 25: "ENOTTY",
            28: "ENOSPC", 32: "EPIPE", 110: "ETIMEDOUT",
        ]
        return names[code] ?? "errno \(code)"
    }

    /// The system's text and the name: `Too many open files (errno 24)`, `Permission denied (EACCES)`.
    public static func describe(_ code: Int32) -> String { "\(String(cString: strerror(code))) (\(name(code)))" }
}
