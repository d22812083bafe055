import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A Unix stream socket that sends every kiosk event to every connected local client, one JSON
/// object per line (for a kiosk's own screen: scanning started/stopped, code located with its
/// corners, result, camera and torch state). A client that does not keep up is disconnected,
/// never waited for.
public final class EventSocket: @unchecked Sendable {
    public let path: String
    private let listener: Int32
    private let source: DispatchSourceRead
    private let clients = Mutex<[Int32]>([])

    public init(path: String) throws(HardwareErrorLike) {
        self.path = path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw HardwareErrorLike("event socket: socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd); throw HardwareErrorLike("event socket: path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw HardwareErrorLike("event socket \(path): bind/listen: \(message)")
        }
        chmod(path, 0o660)
        listener = fd
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "scand.events"))
        source.setEventHandler { [weak self] in self?.acceptClients() }
        source.resume()
    }

    deinit {
        source.cancel()
        close(listener)
        clients.withLock { for c in $0 { close(c) } }
        unlink(path)
    }

    /// Connected clients.
    public var clientCount: Int { clients.withLock { $0.count } }

    private func acceptClients() {
        while true {
            let c = accept(listener, nil, nil)
            if c < 0 { return }
            _ = fcntl(c, F_SETFD, FD_CLOEXEC)
            _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
            clients.withLock { $0.append(c) }
        }
    }

    /// Sends one line to every client; drops those that are gone or full.
    public func publish(_ json: String) {
        let line = Array((json + "\n").utf8)
        clients.withLock { list in
            list.removeAll { fd in
                let n = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n == line.count { return false }
                close(fd)
                return true
            }
        }
    }
}
