#if canImport(Glibc)
import Glibc
#endif

/// A connected socket pair, both ends close-on-exec and non-blocking: a thread's wake-up call.
/// (A socket rather than a pipe so that waking a thread that has already gone is EPIPE, never
/// SIGPIPE: see `wakeUp`.)
public func makeWakePipe() -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return nil }
    for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    return (fds[0], fds[1])
}

/// Wakes the thread waiting on the other end of a wake pipe (harmless when it has gone).
public func wakeUp(_ fd: Int32) {
    var byte: UInt8 = 1
    _ = send(fd, &byte, 1, Int32(MSG_NOSIGNAL))
}
