#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole regular file with a size bound: config files, images, outboxes and status
/// files come from outside and may be anything. A directory, device, FIFO or socket is refused
/// (opened without blocking and checked before any read), and so is a file over the bound.
public enum FileBytes {
    /// Why a file was not read; `reason` is a phrase to put after the path.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        /// The errno of the failing call, if one failed.
        public var errno: Int32?
        public var description: String { reason }
    }

    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        func fail(_ call: String) -> Failure {
            let code = Glibc.errno
            return Failure(reason: "\(call): \(String(cString: strerror(code)))", errno: code)
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw fail("cannot open") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw fail("fstat") }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Failure(reason: "is a directory")
        case S_IFCHR, S_IFBLK: throw Failure(reason: "is a device, not a regular file")
        case S_IFIFO: throw Failure(reason: "is a FIFO, not a regular file")
        default: throw Failure(reason: "is not a regular file")
        }
        guard st.st_size <= limit else { throw Failure(reason: "is \(st.st_size) bytes; at most \(limit) are read") }
        // Sized from fstat, grown to the bound where the size is not known (/proc files say 0).
        var bytes = [UInt8](repeating: 0, count: min(limit, Int(st.st_size)) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else { break }
                bytes += [UInt8](repeating: 0, count: min(bytes.count, limit + 1 - count))
            }
            let n = bytes[count...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if Glibc.errno == EINTR { continue }; throw fail("read") }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw Failure(reason: "grew past \(limit) bytes while being read") }
        return Array(bytes[..<count])
    }
}
