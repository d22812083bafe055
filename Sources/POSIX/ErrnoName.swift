#if canImport(Glibc)
import Glibc
#endif

/// Symbolic names for the errno values drivers meet; numbers are Linux's on every architecture
/// Debian supports for these boards.
public enum ErrnoName {
    public static func name(_ code: Int32) -> String {
        let names: [Int32: String] = [
            1: "EPERM", 2: "ENOENT", 4: "EINTR", 5: "EIO", 6: "ENXIO", 9: "EBADF", 11: "EAGAIN",
            12: "ENOMEM", 13: "EACCES", 16: "EBUSY", 17: "EEXIST", 19: "ENODEV", 20: "ENOTDIR", 21: "EISDIR",
            22: "EINVAL", 23: "ENFILE", 24: "EMFILE", 25: "ENOTTY", 28: "ENOSPC", 30: "EROFS", 32: "EPIPE",
            36: "ENAMETOOLONG", 40: "ELOOP", 95: "ENOTSUP", 98: "EADDRINUSE", 110: "ETIMEDOUT",
        ]
        return names[code] ?? "errno \(code)"
    }

    /// The system's text and the name: `Too many open files (errno 24)`, `Permission denied (EACCES)`.
    public static func describe(_ code: Int32) -> String { "\(String(cString: strerror(code))) (\(name(code)))" }
}
