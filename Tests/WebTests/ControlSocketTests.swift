import Logging
import POSIX
import ScanHardware
import SetupPage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The control socket served in process: a path of up to 103 bytes (SwiftNIO's limit), mode
/// 0660, a stale socket replaced, another file left alone, the socket removed at the end.
// The limit ends a hang, never a slow run: in the parallel phase every test starts at once and
// waits while the decoding suites hold the test threads, minutes on a loaded two-core machine
// (1 minute failed CI in a 444 s phase).
@Suite(.timeLimit(.minutes(10))) struct ControlSocketTests {
    struct NoCamera: Error {}

    static func server() -> SetupServer {
        let backend = SetupBackend(status: { "{\"phase\":\"idle\"}" }, command: { "OK " + $0 }, snapshot: { throw NoCamera() },
                                   frame: { nil }, view: { _ in }, controls: { [] }, setControl: { _, v in v })
        return SetupServer(backend: backend, events: EventHub(), logger: Logger(label: "test"))
    }

    /// Sends `request` over the Unix socket at `path`; the whole answer (the server closes).
    static func ask(_ path: String, _ request: String) -> String? {
        guard var address = unixSocketAddress(path) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let ok = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard ok == 0 else { return nil }
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            // A receive timeout makes recv end at any signal (another test's child process
            // started or ended): not the end of the answer.
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func folder() -> String {
        var template = Array("/tmp/scand-ctl-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    @Test func aSocketPathOf103BytesIsServedAndRemovedAtTheEnd() async throws {
        let dir = Self.folder()
        let path = dir + "/" + String(repeating: "s", count: 103 - dir.utf8.count - 1)
        #expect(path.utf8.count == 103)
        // A stale socket there is replaced.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = try #require(unixSocketAddress(path))
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(stale)
        let server = Self.server()
        let serving = Task { try await server.serve(unixPath: path) }
        // Served once bound and given its mode (the mode follows the bind: on a loaded machine a
        // client may connect in between; see the session note of 2026-11-26 on an empty answer
        // seen once at start-up under load).
        var answer: String?
        var st = stat()
        for _ in 0..<1000 {
            answer = Self.ask(path, "GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            if answer?.hasPrefix("HTTP/1.1 200") == true, lstat(path, &st) == 0, st.st_mode & 0o777 == 0o660 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true && answer?.hasSuffix("{\"phase\":\"idle\"}") == true, "\(answer ?? "no answer")")
        #expect(lstat(path, &st) == 0 && st.st_mode & 0o777 == 0o660)
        // The same limits as the page: a 512 KiB header line is refused at 8 KiB.
        let long = Self.ask(path, "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 512 * 1024))
        #expect(long?.hasPrefix("HTTP/1.1 431") == true && long?.contains("ERR 431") == true, "\(long?.prefix(200) ?? "no answer")")
        serving.cancel()
        _ = await serving.result
        #expect(lstat(path, &st) != 0, "removed at the end")
        rmdir(dir)
    }

    @Test func aLongerPathOrAnotherFileIsRefused() async throws {
        let dir = Self.folder()
        let long = dir + "/" + String(repeating: "s", count: 104 - dir.utf8.count - 1)
        await #expect(throws: WebError.self) { try await Self.server().serve(unixPath: long) }
        let file = dir + "/file"
        let fd = open(file, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        await #expect(throws: WebError.self) { try await Self.server().serve(unixPath: file) }
        var st = stat()
        #expect(lstat(file, &st) == 0 && st.st_mode & S_IFMT == S_IFREG, "another file is left alone")
        unlink(file)
        rmdir(dir)
    }
}
