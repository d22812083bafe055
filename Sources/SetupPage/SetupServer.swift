import FlyingFox
import FlyingSocks
import Foundation
import ImageLoading
import Logging
import ScanConfig
import ScanCore
import ScanHardware
import Viewfinder

/// What the setup page and the control socket ask of the running daemon (the composition root
/// builds it from the kiosk runtime and the live config).
public struct SetupBackend: Sendable {
    /// `scand status --json`'s object.
    public var status: @Sendable () async -> String
    /// One line of the host command language, answered as on the serial port.
    public var command: @Sendable (String) async -> String
    /// The next frame as the pipeline sees it.
    public var snapshot: @Sendable () async throws -> Snapshot
    /// The camera's next frame (nil: none came); the preview asks only between `view` calls.
    public var frame: @Sendable () async -> GrayFrame?
    /// A viewer starts (true) or stops wanting frames.
    public var view: @Sendable (Bool) async -> Void
    /// The camera's adjustable controls, and a change to one.
    public var controls: @Sendable () async throws -> [CameraControlSetting]
    public var setControl: @Sendable (String, Int) async throws -> Void

    public init(status: @escaping @Sendable () async -> String, command: @escaping @Sendable (String) async -> String,
                snapshot: @escaping @Sendable () async throws -> Snapshot, frame: @escaping @Sendable () async -> GrayFrame?,
                view: @escaping @Sendable (Bool) async -> Void, controls: @escaping @Sendable () async throws -> [CameraControlSetting],
                setControl: @escaping @Sendable (String, Int) async throws -> Void) {
        self.status = status
        self.command = command
        self.snapshot = snapshot
        self.frame = frame
        self.view = view
        self.controls = controls
        self.setControl = setControl
    }
}

/// The daemon's HTTP face: the setup page (`[web] listen`) and the control socket (a Unix
/// socket that `scand snapshot` and `curl --unix-socket` use). Endpoints:
///
/// | | |
/// |---|---|
/// | `GET /` | the setup page |
/// | `GET /api/status` | the `scand status --json` object |
/// | `GET /api/results` | the last 20 results (JSON array of result events) |
/// | `GET /api/events` | server-sent events: the event socket's events |
/// | `GET /api/controls` | the camera's adjustable controls (JSON) |
/// | `POST /api/controls` | `name=value`: a control changed now; answers its TOML line |
/// | `POST /api/command` | one host command line (TRIGGER, STOP, TORCH ON, SET ...), answered as on the serial port |
/// | `GET /snapshot.png` | the next frame with the overlay (`?raw=1`: the frame only); header `X-Scand-Snapshot`: its JSON |
/// | `GET /preview.mjpeg` | the live preview, at most 5 frames a second |
///
/// On a TCP listener with a token, every request needs it (`Authorization: Bearer TOKEN` or
/// `?token=TOKEN`); without a token only loopback clients are served. Over the web, `SET` of keys
/// naming files, paths or devices is refused.
public final class SetupServer: Sendable {
    let backend: SetupBackend
    let events: EventHub
    let preview: Preview
    let logger: Logger

    public init(backend: SetupBackend, events: EventHub, logger: Logger) {
        self.backend = backend
        self.events = events
        self.logger = logger
        preview = Preview(frames: backend.frame, view: backend.view)
    }

    /// Serves on TCP `host`:`port` until cancelled. `token`: required of every request (nil:
    /// none, and then only loopback clients are served).
    public func serve(host: String, port: UInt16, token: String?) async throws {
        let address: any SocketAddress = host.contains(":") ? try sockaddr_in6.inet6(ip6: host, port: port)
                                                            : try sockaddr_in.inet(ip4: host == "localhost" ? "127.0.0.1" : host, port: port)
        let server = HTTPServer(config: .init(address: address, timeout: 10, logger: .disabled),
                                handler: Handler(server: self, token: token, trusted: false))
        try await server.run()
    }

    /// Serves on the Unix socket at `path` until cancelled (its file mode decides who may ask:
    /// 0660, the service's group). A stale socket there is replaced; any other file is left alone.
    public func serve(unixPath path: String) async throws {
        // FlyingSocks cuts longer paths short (and would bind elsewhere).
        guard path.utf8.count <= 100 else { throw WebError(500, "control socket \(path): longer than 100 bytes") }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw WebError(500, "control socket \(path): exists and is not a socket; not removed (choose another control.socket)")
            }
            unlink(path)
        }
        let server = HTTPServer(config: .init(address: sockaddr_un.unix(path: path), timeout: 10, logger: .disabled),
                                handler: Handler(server: self, token: nil, trusted: true))
        let chmodder = Task {
            try? await server.waitUntilListening(timeout: 5)
            chmod(path, 0o660)
        }
        defer {
            chmodder.cancel()
            var st = stat()
            if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        }
        try await server.run()
    }

    /// Requests of one listener.
    struct Handler: HTTPHandler {
        let server: SetupServer
        let token: String?
        /// The Unix socket: its file mode already decided.
        let trusted: Bool

        func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
            do {
                try admit(request)
                return try await server.respond(to: request)
            } catch {
                return Self.text(error.status, error.reason)
            }
        }

        private func admit(_ request: HTTPRequest) throws(WebError) {
            guard !trusted else { return }
            if token == nil {
                switch request.remoteAddress {
                case .ip4(let ip, _) where ListenAddress.isLoopback(ip): return
                case .ip6(let ip, _) where ListenAddress.isLoopback(ip): return
                default: throw WebError(403, "only loopback clients are served without web.token")
                }
            }
            let presented = WebRules.bearer(request.headers[.authorization]) ?? request.query["token"]
            guard WebRules.tokenAccepted(presented, required: token) else {
                throw WebError(401, presented == nil ? "a token is required (Authorization: Bearer TOKEN or ?token=TOKEN)" : "wrong token")
            }
        }

        static func text(_ status: Int, _ body: String) -> HTTPResponse {
            HTTPResponse(statusCode: HTTPStatusCode(status, phrase: phrase(status)),
                         headers: [.contentType: "text/plain; charset=utf-8", .init("Cache-Control"): "no-store"],
                         body: Data((body + "\n").utf8))
        }

        static func phrase(_ status: Int) -> String {
            switch status {
            case 200: "OK"
            case 400: "Bad Request"
            case 401: "Unauthorized"
            case 403: "Forbidden"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 413: "Content Too Large"
            case 503: "Service Unavailable"
            default: "Error"
            }
        }
    }

    // MARK: - Endpoints

    func respond(to request: HTTPRequest) async throws(WebError) -> HTTPResponse {
        let get = request.method == .GET || request.method == .HEAD, post = request.method == .POST
        switch request.path {
        case "/", "/index.html":
            guard get else { throw Self.methodNotAllowed("GET") }
            return Self.body(200, "text/html; charset=utf-8", Array(SetupPageHTML.page.utf8))
        case "/api/status":
            guard get else { throw Self.methodNotAllowed("GET") }
            return Self.body(200, "application/json", Array(await backend.status().utf8))
        case "/api/results":
            guard get else { throw Self.methodNotAllowed("GET") }
            return Self.body(200, "application/json", Array(("[" + events.results.joined(separator: ",") + "]").utf8))
        case "/api/events":
            guard get else { throw Self.methodNotAllowed("GET") }
            return eventStream()
        case "/api/command":
            guard post else { throw Self.methodNotAllowed("POST") }
            let line = try WebRules.command(from: try await Self.readBody(request)).get()
            let answer = await backend.command(line)
            return Handler.text(answer.hasPrefix("OK") ? 200 : 400, answer)
        case "/api/controls":
            if get {
                do {
                    let controls = try await backend.controls()
                    return Self.body(200, "application/json", Array(("[" + controls.map(Self.json).joined(separator: ",") + "]").utf8))
                } catch { throw WebError(503, "\(error)") }
            }
            guard post else { throw Self.methodNotAllowed("GET, POST") }
            let (name, value) = try WebRules.control(from: try await Self.readBody(request)).get()
            do { try await backend.setControl(name, value) } catch { throw WebError(400, "\(error)") }
            let toml = "\(name) = \(value)"
            logger.notice("camera control \(toml) set from the setup page (not saved: add it under [camera.controls])")
            return Self.body(200, "application/json", Array("{\"name\":\(JSONText.string(name)),\"value\":\(value),\"toml\":\(JSONText.string(toml))}".utf8))
        case "/snapshot.png":
            guard get else { throw Self.methodNotAllowed("GET") }
            let snapshot: Snapshot
            do { snapshot = try await backend.snapshot() } catch { throw WebError(503, "\(error)") }
            let raw = request.query["raw"].map { $0 == "1" || $0 == "true" } ?? false
            let png: [UInt8]
            do { png = raw ? try ImageEncoding.png(snapshot.frame) : try snapshot.render().png() } catch { throw WebError(500, "\(error)") }
            var response = Self.body(200, "image/png", png)
            response.headers[.init("X-Scand-Snapshot")] = Self.ascii(snapshot.json)
            return response
        case "/preview.mjpeg":
            guard get else { throw Self.methodNotAllowed("GET") }
            return previewStream()
        default:
            throw WebError(404, "no such page: \(String(request.path.prefix(100)))")
        }
    }

    static func methodNotAllowed(_ allowed: String) -> WebError { WebError(405, "method not allowed here; use \(allowed)") }

    static func body(_ status: Int, _ type: String, _ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(statusCode: HTTPStatusCode(status, phrase: Handler.phrase(status)),
                     headers: [.contentType: type, .init("Cache-Control"): "no-store"], body: Data(bytes))
    }

    /// The body, refused (413) beyond `WebRules.maxBody` without reading the rest.
    static func readBody(_ request: HTTPRequest) async throws(WebError) -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > WebRules.maxBody {
            throw WebError(413, "body of \(length) bytes; at most \(WebRules.maxBody)")
        }
        var out: [UInt8] = []
        do {
            for try await chunk in request.bodySequence {
                out += chunk
                if out.count > WebRules.maxBody { throw WebError(413, "body over \(WebRules.maxBody) bytes") }
            }
        } catch let error as WebError { throw error } catch { throw WebError(400, "body not read: \(error)") }
        return out
    }

    static func json(_ c: CameraControlSetting) -> String {
        "{\"name\":\(JSONText.string(c.name)),\"min\":\(c.minimum),\"max\":\(c.maximum),\"step\":\(c.step),"
            + "\"default\":\(c.defaultValue),\"value\":\(c.value)}"
    }

    /// JSON with every non-ASCII character escaped (for a header).
    static func ascii(_ json: String) -> String {
        var out = ""
        for unit in json.utf16 {
            if unit < 0x80 { out.unicodeScalars.append(Unicode.Scalar(UInt8(unit))) } else {
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    private func eventStream() -> HTTPResponse {
        let stream = events.subscribe()
        let bytes = ChunkSequence(stream.map { Array("data: \($0)\n\n".utf8) }, first: Array(": scand events\n\n".utf8))
        return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/event-stream", .init("Cache-Control"): "no-store"],
                            body: HTTPBodySequence(from: bytes))
    }

    private func previewStream() -> HTTPResponse {
        let boundary = "scandframe"
        let frames = preview.watch().map { jpeg in
            Array("--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8) + jpeg + Array("\r\n".utf8)
        }
        return HTTPResponse(statusCode: .ok,
                            headers: [.contentType: "multipart/x-mixed-replace; boundary=\(boundary)", .init("Cache-Control"): "no-store"],
                            body: HTTPBodySequence(from: ChunkSequence(frames, first: [])))
    }
}

/// An async sequence of byte chunks as FlyingFox's body stream (sent chunked).
struct ChunkSequence: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let chunks: AsyncStream<[UInt8]>
    let first: [UInt8]

    init<S: AsyncSequence & Sendable>(_ source: S, first: [UInt8]) where S.Element == [UInt8] {
        self.first = first
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(4))
        let pump = Task {
            do { for try await chunk in source { continuation.yield(chunk) } } catch {}
            continuation.finish()
        }
        continuation.onTermination = { _ in pump.cancel() }
        chunks = stream
    }

    func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks.makeAsyncIterator(), pending: first[...]) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var chunks: AsyncStream<[UInt8]>.Iterator
        var pending: ArraySlice<UInt8>

        mutating func next() async throws -> UInt8? {
            guard let buffer = try await nextBuffer(suggested: 1) else { return nil }
            return buffer.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> ArraySlice<UInt8>? {
            while pending.isEmpty {
                guard let chunk = await chunks.next() else { return nil }
                pending = chunk[...]
            }
            let n = Swift.min(Swift.max(1, count), pending.count)
            defer { pending = pending.dropFirst(n) }
            return pending.prefix(n)
        }
    }
}
