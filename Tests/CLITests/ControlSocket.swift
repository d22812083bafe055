import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// HTTP over a daemon's control socket (a Unix socket), as `curl --unix-socket` speaks it: one
/// request a connection, the answer read to its end (bounded by a 10 s receive timeout).
enum ControlSocket {
    struct Answer {
        var status: Int
        var head: String
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The value of header `name` (case-insensitive), if any.
        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// No answer within `timeout` seconds (or a connection closed before one).
    struct NoAnswer: Error {}

    static func request(_ path: String, _ request: String, body: [UInt8] = [], timeout seconds: Int = 10) throws -> Answer {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let out = Array(request.utf8) + body
        _ = out.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard let answer = readAnswer(fd) else { throw NoAnswer() }
        return answer
    }

    /// Reads an HTTP answer from `fd` to its end (the peer closes, or Content-Length bytes came);
    /// nil when no whole head came before the end or the socket's receive timeout.
    static func readAnswer(_ fd: Int32) -> Answer? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            // With a receive timeout set, recv is never restarted after a signal: it fails with
            // EINTR whenever another test starts a process (glibc signals every thread). That
            // is not the end of the answer.
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            data += buffer[0..<n]
            if let end = SetupPageTests.headEnd(data) {
                let head = String(decoding: data[..<end], as: UTF8.self)
                if let length = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") })
                    .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }), data.count - end - 4 >= length { break }
            }
        }
        guard let end = SetupPageTests.headEnd(data) else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self)
        return Answer(status: Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, head: head, body: Array(data[(end + 4)...]))
    }

    static func get(_ path: String, _ target: String, timeout: Int = 10) throws -> Answer {
        try request(path, "GET \(target) HTTP/1.1\r\nHost: scand\r\nConnection: close\r\n\r\n", timeout: timeout)
    }

    static func command(_ path: String, _ line: String) throws -> Answer {
        let body = Array(line.utf8)
        return try request(path, "POST /api/command HTTP/1.1\r\nHost: scand\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n", body: body)
    }
}
