// The POSIX layer comes with the HAL: every module that uses hardware uses it.
@_exported import POSIX

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
    /// What happened, in words, where the kind's own words do not say it, e.g. `already
    /// running: another scand (pid 812) holds /var/lib/scand/scand.lock`; nil: the kind's words.
    public var summary: String?

    public init(_ kind: Kind, operation: String, device: String, errno: Int32 = 0, summary: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.operation = operation
        self.device = device
        self.errno = errno
        self.summary = summary
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

    /// What happened: `summary`, or the kind's words about the device.
    public var what: String {
        if let summary { return summary }
        switch kind {
        case .busy: return "\(device) is busy: another program holds it"
        case .notFound: return "\(device) not found"
        case .permissionDenied: return "permission denied on \(device)"
        case .disconnected: return "\(device) disconnected"
        case .timedOut: return "\(device) timed out"
        case .invalidFormat: return "\(device) offers no usable format"
        case .other: return "\(device) failed"
        }
    }

    public var description: String {
        var text = what
        text += " (\(operation)"
        if errno != 0 { text += ": \(ErrnoName.name(errno))" }
        text += ")"
        if let hint { text += "; \(hint)" }
        return text
    }
}

extension HardwareError {
    /// The same failure told as the reason `outcome` did not happen, and what becomes of it:
    /// `result 2 not written: /dev/ttyACM0 disconnected (write: EIO); kept and retried every second`.
    public func failing(_ outcome: String, then next: String) -> HardwareError {
        var error = self
        error.summary = "\(outcome): \(what)"
        error.hint = [hint, next].compactMap { $0 }.joined(separator: "; ")
        return error
    }

    /// A camera that keeps its own frame rate: it has no rate control (or none the driver
    /// offers, `V4L2_CAP_TIMEPERFRAME`).
    public static func noFrameRateControl(operation: String, device: String) -> HardwareError {
        HardwareError(.invalidFormat, operation: operation, device: device, summary: "\(device) has no frame rate control",
                      hint: "it keeps its own rate")
    }

    /// A camera whose lens cannot be put in `mode`: it has no autofocus (or, for `.manual`, no
    /// lens position control).
    public static func noFocusControl(_ mode: FocusMode, operation: String, device: String, errno: Int32 = 0) -> HardwareError {
        let what: String
        if case .manual = mode { what = "no lens position control" } else { what = "no autofocus" }
        return HardwareError(.invalidFormat, operation: operation, device: device, errno: errno, summary: "\(device) has \(what)",
                             hint: "it keeps its lens where it is")
    }

    /// A control the camera does not offer; `known`: the ones it does.
    public static func noSuchControl(_ name: String, operation: String, device: String, known: [String]) -> HardwareError {
        HardwareError(.invalidFormat, operation: operation, device: device, summary: "\(device) has no control \(name)",
                      hint: known.isEmpty ? "the camera has no adjustable controls" : "known: \(known.joined(separator: ", "))")
    }
}
