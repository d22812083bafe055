#if canImport(Glibc)
import Glibc
#endif

/// Whole files in and out. Reading has a size bound: config files, images, outboxes and status
/// files come from outside and may be anything. A directory, device, FIFO or socket is refused
/// (opened without blocking and checked before any read), and so is a file over the bound.
/// Writing replaces a file atomically, so a reader never sees half of it.
public enum FileBytes {
    /// The folder `path` is in (`.` for a bare name, `/` for one at the root).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether the folder `path` is in exists.
    public static func folderExists(of path: String) -> Bool {
        var st = stat()
        return stat(folder(of: path), &st) == 0
    }

    /// Why a file was not read or written; `reason` is a phrase to put after the path.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Kind: String, Sendable, Equatable {
            case directory, device = "a device", fifo = "a FIFO", otherType = "not a regular file", tooLarge, system
        }
        public var kind: Kind
        public var reason: String
        /// The errno of the failing call, if one failed.
        public var errno: Int32?
        public var description: String { reason }
    }

    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw systemFailure("cannot open") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw systemFailure("fstat") }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Failure(kind: .directory, reason: "is a directory")
        case S_IFCHR, S_IFBLK: throw Failure(kind: .device, reason: "is a device, not a regular file")
        case S_IFIFO: throw Failure(kind: .fifo, reason: "is a FIFO, not a regular file")
        default: throw Failure(kind: .otherType, reason: "is not a regular file")
        }
        guard st.st_size <= limit else { throw Failure(kind: .tooLarge, reason: "is \(st.st_size) bytes; at most \(limit) are read") }
        // Sized from fstat, grown to the bound where the size is not known (/proc files say 0).
        var bytes = [UInt8](repeating: 0, count: min(limit, Int(st.st_size)) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else { break }
                bytes += [UInt8](repeating: 0, count: min(bytes.count, limit + 1 - count))
            }
            let n = bytes[count...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if Glibc.errno == EINTR { continue }; throw systemFailure("read") }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw Failure(kind: .tooLarge, reason: "grew past \(limit) bytes while being read") }
        return Array(bytes[..<count])
    }

    /// Replaces `path` with `bytes`: a temporary file beside it (fsync'd with `sync`), renamed
    /// over it.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, sync: Bool = false, mode: mode_t = 0o644) throws(Failure) {
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw systemFailure("open \(tmp)") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                let failure = systemFailure("write \(tmp)")
                close(fd)
                throw failure
            }
            written += n
        }
        if sync && fsync(fd) != 0 { let failure = systemFailure("fsync \(tmp)"); close(fd); throw failure }
        close(fd)
        guard rename(tmp, path) == 0 else { throw systemFailure("rename to \(path)") }
    }

    private static func systemFailure(_ call: String) -> Failure {
        let code = Glibc.errno
        return Failure(kind: .system, reason: "\(call): \(String(cString: strerror(code)))", errno: code)
    }
}
