import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on a file beside scand's state (the outbox folder, the event socket), held
/// for the daemon's life: a second daemon pointed at the same state is told who holds it and
/// does not start. The lock goes with the process, so a `kill -9` never leaves a stale one.
public final class StateLock: Sendable {
    public let path: String
    private let fd: Int32

    /// Takes the lock at `path` (created if missing; the holder's pid is written into it).
    public init(path: String) throws(HardwareError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw HardwareError(HardwareError.kind(forErrno: code), operation: "open", device: path, errno: code,
                                summary: "lock \(path) not taken: \(ErrnoName.describe(code))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            close(fd)
            if code == EWOULDBLOCK {
                let pid = String(decoding: buffer.prefix(max(0, n)).filter { $0 >= 48 && $0 <= 57 }, as: UTF8.self)
                throw HardwareError(.busy, operation: "flock", device: path, errno: code,
                                    summary: "already running: another scand\(pid.isEmpty ? "" : " (pid \(pid))") holds \(path)",
                                    hint: "one daemon per outbox folder, event and control socket")
            }
            throw HardwareError(HardwareError.kind(forErrno: code), operation: "flock", device: path, errno: code,
                                summary: "lock \(path) not taken: \(ErrnoName.describe(code))")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = fd
    }

    deinit { close(fd) }
}
