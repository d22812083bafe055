import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// The calls the outbox makes on its file and folder, in one place: the system's, or a test's
/// faults (ENOSPC after a short write, EIO on fsync). Each returns as the C function does
/// (`-1` and `errno` on failure).
public struct OutboxCalls: Sendable {
    public var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    public var write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int
    public var fsync: @Sendable (_ fd: Int32) -> Int32
    /// `lseek(fd, 0, SEEK_END)`: the file's length.
    public var length: @Sendable (_ fd: Int32) -> off_t
    public var ftruncate: @Sendable (_ fd: Int32, _ length: off_t) -> Int32
    public var rename: @Sendable (_ from: String, _ to: String) -> Int32
    public var unlink: @Sendable (_ path: String) -> Int32
    public var close: @Sendable (_ fd: Int32) -> Int32

    public init(open: @escaping @Sendable (String, Int32, mode_t) -> Int32, write: @escaping @Sendable (Int32, UnsafeRawBufferPointer) -> Int,
                fsync: @escaping @Sendable (Int32) -> Int32, length: @escaping @Sendable (Int32) -> off_t,
                ftruncate: @escaping @Sendable (Int32, off_t) -> Int32, rename: @escaping @Sendable (String, String) -> Int32,
                unlink: @escaping @Sendable (String) -> Int32, close: @escaping @Sendable (Int32) -> Int32) {
        self.open = open; self.write = write; self.fsync = fsync; self.length = length
        self.ftruncate = ftruncate; self.rename = rename; self.unlink = unlink; self.close = close
    }

    /// The kernel's.
    public static let system = OutboxCalls(
        open: { Glibc.open($0, $1, $2) }, write: { Glibc.write($0, $1.baseAddress, $1.count) }, fsync: { Glibc.fsync($0) },
        length: { Glibc.lseek($0, 0, SEEK_END) }, ftruncate: { Glibc.ftruncate($0, $1) }, rename: { Glibc.rename($0, $1) },
        unlink: { Glibc.unlink($0) }, close: { Glibc.close($0) })
}

/// The outbox's file on disk. An append is whole lines or nothing: a write that fails part-way
/// (a full disk) is cut back to the file's length before it, so the next line never follows a
/// partial one. A new file and a rewritten one (renamed over) are made durable in their folder
/// too (the folder is fsync'd), so that a power cut cannot take the file's name away.
struct OutboxFile: Sendable {
    let path: String
    let calls: OutboxCalls

    /// Appends `bytes` (whole lines), fsync'd with `sync`. nil when done; else what failed and
    /// what became of the file.
    func append(_ bytes: [UInt8], sync: Bool) -> String? {
        var fd = calls.open(path, O_WRONLY | O_APPEND | O_CLOEXEC, 0)
        if fd < 0 && errno == ENOENT {
            fd = calls.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            // The new file's name is made durable before anything is stored in it.
            if fd >= 0, let problem = syncFolder() { _ = calls.close(fd); return problem }
        }
        guard fd >= 0 else { return "open \(path): \(ErrnoName.describe(errno))" }
        defer { _ = calls.close(fd) }
        let before = calls.length(fd)
        guard before >= 0 else { return "lseek \(path): \(ErrnoName.describe(errno))" }
        var written = 0
        var failure: String?
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { calls.write(fd, $0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                failure = "write \(path): \(n == 0 ? "nothing written" : ErrnoName.describe(errno)) after \(written) of \(bytes.count) bytes"
                break
            }
            written += n
        }
        if failure == nil, sync, calls.fsync(fd) != 0 { failure = "fsync \(path): \(ErrnoName.describe(errno))" }
        guard let failure else { return nil }
        return failure + cutBack(fd, to: before)
    }

    /// Cuts the file back to `length` (and fsyncs that): the text to add to the failure.
    private func cutBack(_ fd: Int32, to length: off_t) -> String {
        guard calls.ftruncate(fd, length) == 0 else {
            return "; cutting the file back to its \(length) bytes failed (ftruncate: \(ErrnoName.describe(errno))): the next start skips the damaged line"
        }
        _ = calls.fsync(fd)
        return "; the file was cut back to its \(length) bytes before the write"
    }

    /// Replaces the file with `bytes`: a temporary file beside it, fsync'd, renamed over it,
    /// the folder fsync'd. nil when done; else what failed and its errno (the file is then as it
    /// was, unless only the folder's fsync failed).
    func replace(with bytes: [UInt8]) -> (reason: String, errno: Int32)? {
        let tmp = path + ".tmp"
        let fd = calls.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return ("open \(tmp): \(ErrnoName.describe(errno))", errno) }
        var written = 0
        var failure: String?
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { calls.write(fd, $0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = "write \(tmp): \(n == 0 ? "nothing written" : ErrnoName.describe(errno))"; break }
            written += n
        }
        if failure == nil, calls.fsync(fd) != 0 { failure = "fsync \(tmp): \(ErrnoName.describe(errno))" }
        let code = errno
        _ = calls.close(fd)
        errno = code
        if failure == nil, calls.rename(tmp, path) != 0 { failure = "rename \(tmp) to \(path): \(ErrnoName.describe(errno))" }
        if let failure {
            let code = errno
            _ = calls.unlink(tmp) // its blocks back to a full disk
            return (failure, code)
        }
        return syncFolder().map { ($0, errno) }
    }

    /// Cuts a last line without its end (torn by a crash mid-write) off the file, which is
    /// `length` bytes long and whose last complete line ends at `keep`: what follows is then
    /// never glued to it. nil when done.
    func cutTornTail(keep: Int) -> String? {
        let fd = calls.open(path, O_WRONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return "open \(path): \(ErrnoName.describe(errno))" }
        defer { _ = calls.close(fd) }
        guard calls.ftruncate(fd, off_t(keep)) == 0 else { return "ftruncate \(path): \(ErrnoName.describe(errno))" }
        _ = calls.fsync(fd)
        return nil
    }

    /// fsyncs the folder the file is in (a new name in it, a rename). nil when done.
    private func syncFolder() -> String? {
        let folder = FileBytes.folder(of: path)
        let fd = calls.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return "open folder \(folder): \(ErrnoName.describe(errno))" }
        defer { _ = calls.close(fd) }
        return calls.fsync(fd) == 0 ? nil : "fsync folder \(folder): \(ErrnoName.describe(errno))"
    }
}
