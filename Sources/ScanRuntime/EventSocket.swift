import Dispatch
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A Unix stream socket that sends every kiosk event to every connected local client, one JSON
/// object per line (for a kiosk's own screen: scanning started/stopped, code located with its
/// corners, result, camera and torch state). A client that does not keep up is disconnected,
/// never waited for. At most `maxClients` are served; one more is told so and closed. When the
/// process runs out of descriptors, accepting pauses for a second instead of spinning.
// Unchecked: Dispatch does not mark `DispatchSourceRead` Sendable; it is made in init and used on `queue`.
public final class EventSocket: @unchecked Sendable {
    public let path: String
    public let maxClients: Int
    private let listener: Int32
    private let source: DispatchSourceRead
    private let queue = DispatchQueue(label: "scand.events")
    private struct State { var clients: [Int32] = []; var refused = 0; var paused = false }
    private let state = Locked(State())
    /// Told each time accepting pauses for lack of descriptors (for the log).
    private let onPause: @Sendable () -> Void

    /// Listens at `path`. A stale socket there is replaced; any other kind of file is left alone
    /// and reported. Hold a `StateLock` beside it first, so that a live daemon's socket is
    /// never taken over.
    public init(path: String, maxClients: Int = 64, onPause: @escaping @Sendable () -> Void = {}) throws(HardwareError) {
        self.path = path
        self.onPause = onPause
        self.maxClients = max(1, maxClients)
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw HardwareError(.busy, operation: "lstat", device: path, errno: EEXIST,
                                    summary: "event socket \(path): exists and is not a socket; not removed", hint: "choose another events.socket")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Self.failure("socket", path, errno) }
        guard var address = unixSocketAddress(path) else {
            close(fd)
            throw HardwareError(.invalidFormat, operation: "bind", device: path, errno: ENAMETOOLONG,
                                summary: "event socket \(path): path too long", hint: "a Unix socket path has at most 107 bytes")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let failure = Self.failure(bound == 0 ? "listen" : "bind", path, errno)
            close(fd)
            throw failure
        }
        chmod(path, 0o660)
        listener = fd
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptClients() }
        source.resume()
    }

    /// A call on the socket that failed: `permission denied on event socket PATH (bind: EACCES)`.
    private static func failure(_ operation: String, _ path: String, _ code: Int32) -> HardwareError {
        HardwareError(HardwareError.kind(forErrno: code), operation: operation, device: "event socket \(path)", errno: code)
    }

    deinit {
        source.cancel()
        close(listener)
        state.withLock { for c in $0.clients { close(c) } }
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
    }

    /// Connected clients.
    public var clientCount: Int { state.withLock { $0.clients.count } }
    /// Clients turned away because `maxClients` were connected.
    public var refusedCount: Int { state.withLock { $0.refused } }

    private func acceptClients() {
        while true {
            let c = accept(listener, nil, nil)
            if c < 0 {
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { pauseAccepting() }
                return
            }
            _ = fcntl(c, F_SETFD, FD_CLOEXEC)
            _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
            let admitted = state.withLock { s -> Bool in
                guard s.clients.count < maxClients else { s.refused += 1; return false }
                s.clients.append(c)
                return true
            }
            if !admitted {
                let line = Array("{\"event\":\"refused\",\"reason\":\"\(maxClients) clients are connected already\"}\n".utf8)
                _ = line.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(c)
            }
        }
    }

    /// Out of descriptors: the listener stays readable, so stop watching it for a second.
    private func pauseAccepting() {
        guard state.withLock({ s -> Bool in defer { s.paused = true }; return !s.paused }) else { return }
        source.suspend()
        onPause()
        queue.asyncAfter(deadline: .now() + 1) { [self] in
            state.withLock { $0.paused = false }
            source.resume()
        }
    }

    /// Sends one line to every client; drops those that are gone or full.
    public func publish(_ json: String) {
        let line = Array((json + "\n").utf8)
        state.withLock { s in
            s.clients.removeAll { fd in
                let n = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n == line.count { return false }
                close(fd)
                return true
            }
        }
    }
}
