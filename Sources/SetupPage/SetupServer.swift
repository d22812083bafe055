#if canImport(Glibc)
import Glibc
#endif
import ImageLoading
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
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
    /// The camera's adjustable controls, and a change to one (answers the value the camera took:
    /// a driver clamps a value out of range).
    public var controls: @Sendable () async throws -> [CameraControlSetting]
    public var setControl: @Sendable (String, Int) async throws -> Int
    /// The kiosk's metrics in Prometheus's text format (`GET /metrics`).
    public var metrics: @Sendable () async -> String

    public init(status: @escaping @Sendable () async -> String, command: @escaping @Sendable (String) async -> String,
                snapshot: @escaping @Sendable () async throws -> Snapshot, frame: @escaping @Sendable () async -> GrayFrame?,
                view: @escaping @Sendable (Bool) async -> Void, controls: @escaping @Sendable () async throws -> [CameraControlSetting],
                setControl: @escaping @Sendable (String, Int) async throws -> Int,
                metrics: @escaping @Sendable () async -> String = { "" }) {
        self.status = status
        self.command = command
        self.snapshot = snapshot
        self.frame = frame
        self.view = view
        self.controls = controls
        self.setControl = setControl
        self.metrics = metrics
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
/// | `GET /metrics` | the kiosk's metrics in Prometheus's text format (as the metrics file) |
///
/// Who may ask, on the TCP listener (checked on the request's head, before any body is read;
/// `WebRules.admit`):
/// - `Host` must name the listen address with its port (on a loopback listener also
///   `localhost`, `127.0.0.1` or `[::1]`; on a wildcard one any name, a token being required
///   there): otherwise 421 (a DNS-rebinding page is not served).
/// - Without `web.token` only loopback clients are served (403); with one, every request needs
///   it (`Authorization: Bearer TOKEN` or `?token=TOKEN`, 401).
/// - A `POST`, and any request for a command or data endpoint (`/api/*`, `/snapshot.png`,
///   `/preview.mjpeg`), from a page of another origin (its `Origin`, or lacking one its
///   `Referer`, is not this listener) is refused (403): a cross-site form cannot send
///   `SET scan.trigger=continuous`. Requests with neither header (curl, scripts) pass.
/// - Over the web, `SET` of keys naming files, paths or devices is refused (403).
/// The control socket is for local programs: its file mode (0660) decides, no other check.
///
/// Limits, on both doors: a request line or header line of at most 8 KiB, at most 100 header
/// lines and 32 KiB of head (431), a body of at most 4 KiB with Content-Length (413, 411),
/// each checked on the bytes before the HTTP parser sees them (`RequestHeadLimits`); a request
/// whole within 5 s of its first byte (408) and at most 30 s idle between requests; at most 32
/// connections a listener (503 to one more), 8 preview viewers and 16 event streams (503). A
/// stream (`/api/events`, `/preview.mjpeg`) writes its next piece only when the last one left
/// (a viewer that does not read misses frames, nothing queues) and ends a client that took
/// nothing for 30 s.
/// Every error answer is text starting with `ERR`; after one that leaves a body unread the
/// connection is closed. The server runs on its own SwiftNIO event-loop thread, never on the
/// kiosk's; a failed `accept` (EMFILE, ENFILE) is retried after a growing pause (50 ms to 2 s).
public final class SetupServer: Sendable {
    let backend: SetupBackend
    let events: EventHub
    let preview: Preview
    let logger: Logger

    /// Connections a listener serves at once; one more is answered 503 and closed.
    public static let maxConnections = 32
    /// A request must be whole this long after its first byte (and a new connection's first request after accept).
    public static let requestDeadline = TimeAmount.seconds(5)
    /// A kept-alive connection may wait this long for its next request.
    public static let idleDeadline = TimeAmount.seconds(30)
    /// The longest Unix socket path (NIO's `SocketAddress` keeps to 103 bytes, the portable
    /// limit, though Linux's `sun_path` holds 107).
    public static let maxSocketPath = 103

    public init(backend: SetupBackend, events: EventHub, logger: Logger) {
        self.backend = backend
        self.events = events
        self.logger = logger
        preview = Preview(frames: backend.frame, view: backend.view)
    }

    /// Serves on TCP `host`:`port` until cancelled. `host`: a numeric IPv4 or IPv6 literal or
    /// `localhost`. `token`: required of every request (nil: none, and then only loopback clients
    /// are served).
    public func serve(host: String, port: UInt16, token: String?) async throws {
        let address = try SocketAddress(ipAddress: host == "localhost" ? "127.0.0.1" : host, port: Int(port))
        let door = Door.tcp(WebRules.Listener(host: host, port: port, token: token))
        try await run(door: door, bind: { $0.serverChannelOption(.socketOption(.so_reuseaddr), value: 1).bind(to: address) }, bound: {})
    }

    /// Serves on the Unix socket at `path` (at most `maxSocketPath` bytes) until cancelled (its
    /// file mode decides who may ask: 0660, the service's group). A stale socket there is
    /// replaced; any other file is left alone; the socket is removed at the end.
    public func serve(unixPath path: String) async throws {
        guard path.utf8.count <= Self.maxSocketPath else {
            throw WebError(500, "control socket \(path): longer than \(Self.maxSocketPath) bytes (choose a shorter control.socket)")
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw WebError(500, "control socket \(path): exists and is not a socket; not removed (choose another control.socket)")
            }
            unlink(path)
        }
        defer {
            var st = stat()
            if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        }
        try await run(door: .unix, bind: { bootstrap in
            // Listening again after a pause: the last listener's socket file goes first.
            var st = stat()
            if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
            return bootstrap.bind(unixDomainSocketPath: path)
        }, bound: { chmod(path, 0o660) })
    }

    enum Door: Sendable {
        case tcp(WebRules.Listener)
        /// The control socket: its file mode already decided.
        case unix

        /// How the log names it.
        var name: String { if case .unix = self { "control socket" } else { "setup page" } }
    }

    /// Listens until cancelled. At the descriptor limit `AcceptWatch` closes the listener; this
    /// listens again after the pause (and again, with a longer pause, while binding fails for
    /// want of descriptors), the connections being served staying as they are.
    private func run(door: Door, bind: (ServerBootstrap) -> EventLoopFuture<Channel>, bound: () -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = Connections()
        let pause = AcceptPause()
        var listening = false
        do {
            while !Task.isCancelled {
                let channel: Channel
                do {
                    channel = try await bind(bootstrap(group, door: door, connections: connections, pause: pause)).get()
                } catch where listening && AcceptPause.isResourceShortage(error) {
                    try? await Task.sleep(nanoseconds: UInt64(pause.next().nanoseconds))
                    continue
                }
                listening = true
                bound()
                try await withTaskCancellationHandler {
                    try await channel.closeFuture.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
                guard let wait = pause.takeRelisten() else { break }
                try? await Task.sleep(nanoseconds: UInt64(wait.nanoseconds))
            }
        } catch {
            await connections.closeAll()
            try? await group.shutdownGracefully()
            throw error
        }
        await connections.closeAll()
        try? await group.shutdownGracefully()
    }

    private func bootstrap(_ group: EventLoopGroup, door: Door, connections: Connections, pause: AcceptPause) -> ServerBootstrap {
        let server = self, logger = self.logger
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelInitializer { channel in
                do {
                    try channel.pipeline.syncOperations.addHandler(AcceptWatch(pause: pause, logger: logger, door: door.name))
                } catch { return channel.eventLoop.makeFailedFuture(error) }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                do {
                    let sync = channel.pipeline.syncOperations
                    guard connections.enter(channel) else {
                        try sync.addHandler(Refuser(status: 503, text: "ERR 503: the setup page serves \(Self.maxConnections) connections at once; try again"))
                        return channel.eventLoop.makeSucceededVoidFuture()
                    }
                    channel.closeFuture.whenComplete { _ in connections.leave(channel) }
                    // A connection being closed (its answer sent, its input dropped for a moment)
                    // no longer counts against the cap.
                    try sync.addHandler(RequestGuard(closing: { connections.leave(channel) }))
                    try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try sync.addHandler(HTTPResponseEncoder())
                    try sync.addHandler(HTTPServerPipelineHandler())
                    try sync.addHandler(RequestHandler(server: server, door: door, connections: connections))
                } catch { return channel.eventLoop.makeFailedFuture(error) }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
    }

    // MARK: - Endpoints

    struct Request: Sendable {
        var method: HTTPMethod
        var path: String
        var query: Substring
        var body: [UInt8]
    }

    enum Reply: Sendable {
        case whole(status: Int, type: String, body: [UInt8], headers: [(String, String)])
        case stream(type: String, first: [UInt8], source: StreamSource)

        static func text(_ status: Int, _ text: String) -> Reply {
            .whole(status: status, type: "text/plain; charset=utf-8", body: Array((text + "\n").utf8), headers: [])
        }
        static func error(_ error: WebError) -> Reply { text(error.status, WebRules.errorText(error)) }

        /// Whether the connection ends after this answer. A 503 (a cap reached, no snapshot): a
        /// refused viewer or stream client must not keep a connection slot while it retries. A
        /// request refused as malformed, too large or from a host or origin not let in (400, 403,
        /// 413, 414, 421, 431): a client out of step or not welcome starts again on a new
        /// connection, as nginx has it. A 401 (the browser asks for the token and sends it on
        /// the same connection) and a 404 keep it.
        var endsConnection: Bool {
            guard case .whole(let status, _, _, _) = self else { return false }
            return [400, 403, 413, 414, 421, 431, 503].contains(status)
        }
    }

    enum StreamSource: Sendable {
        case events(AsyncStream<String>)
        case frames(AsyncStream<[UInt8]>)
    }

    func respond(to request: Request) async -> Reply {
        do { return try await route(request) } catch { return .error(error) }
    }

    private func route(_ request: Request) async throws(WebError) -> Reply {
        let get = request.method == .GET || request.method == .HEAD, post = request.method == .POST
        switch request.path {
        case "/", "/index.html":
            guard get else { throw Self.methodNotAllowed("GET") }
            return .whole(status: 200, type: "text/html; charset=utf-8", body: Array(SetupPageHTML.page.utf8), headers: [])
        case "/api/status":
            guard get else { throw Self.methodNotAllowed("GET") }
            return .whole(status: 200, type: "application/json", body: Array(await backend.status().utf8), headers: [])
        case "/api/results":
            guard get else { throw Self.methodNotAllowed("GET") }
            return .whole(status: 200, type: "application/json", body: Array(("[" + events.results.joined(separator: ",") + "]").utf8), headers: [])
        case "/api/events":
            guard get else { throw Self.methodNotAllowed("GET") }
            guard let stream = events.subscribeIfRoom() else {
                throw WebError(503, "\(EventHub.maxSubscribers) pages already watch the events; close one")
            }
            return .stream(type: "text/event-stream", first: Array(": scand events\n\n".utf8), source: .events(stream))
        case "/api/command":
            guard post else { throw Self.methodNotAllowed("POST") }
            let line = try WebRules.command(from: request.body).get()
            let answer = await backend.command(line)
            return .text(answer.hasPrefix("OK") ? 200 : 400, answer)
        case "/api/controls":
            if get {
                do {
                    let controls = try await backend.controls()
                    return .whole(status: 200, type: "application/json", body: Array(("[" + controls.map(Self.json).joined(separator: ",") + "]").utf8), headers: [])
                } catch { throw WebError(503, "\(error)") }
            }
            guard post else { throw Self.methodNotAllowed("GET, POST") }
            let (name, asked) = try WebRules.control(from: request.body).get()
            let value: Int
            do { value = try await backend.setControl(name, asked) } catch { throw WebError(400, "\(error)") }
            let toml = "\(name) = \(value)"
            logger.notice("camera control \(toml) set from the setup page (not saved: add it under [camera.controls])")
            return .whole(status: 200, type: "application/json",
                          body: Array("{\"name\":\(JSONText.string(name)),\"value\":\(value),\"toml\":\(JSONText.string(toml))}".utf8), headers: [])
        case "/snapshot.png":
            guard get else { throw Self.methodNotAllowed("GET") }
            let snapshot: Snapshot
            do { snapshot = try await backend.snapshot() } catch { throw WebError(503, "\(error)") }
            let raw = WebRules.query(request.query, "raw").map { $0 == "1" || $0 == "true" } ?? false
            let png: [UInt8]
            do { png = try snapshot.png(raw: raw) } catch { throw WebError(500, "\(error)") }
            return .whole(status: 200, type: "image/png", body: png, headers: [("X-Scand-Snapshot", Self.ascii(snapshot.json))])
        case "/metrics":
            guard get else { throw Self.methodNotAllowed("GET") }
            return .whole(status: 200, type: "text/plain; version=0.0.4; charset=utf-8", body: Array(await backend.metrics().utf8), headers: [])
        case "/preview.mjpeg":
            guard get else { throw Self.methodNotAllowed("GET") }
            guard let frames = preview.watchIfRoom() else {
                throw WebError(503, "\(Preview.maxViewers) pages already watch the preview; close one")
            }
            return .stream(type: "multipart/x-mixed-replace; boundary=\(Self.boundary)", first: [], source: .frames(frames))
        default:
            throw WebError(404, "no such page: \(WebRules.printable(String(request.path.prefix(100))))")
        }
    }

    static let boundary = "scandframe"

    static func methodNotAllowed(_ allowed: String) -> WebError { WebError(405, "method not allowed here; use \(allowed)") }

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

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 421: "Misdirected Request"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }

    /// A whole answer as bytes, for the handlers that answer before (or instead of) the HTTP
    /// parser: the connection is closed after it.
    static func rawAnswer(_ status: Int, _ text: String) -> [UInt8] {
        let body = Array((text + "\n").utf8)
        return Array("HTTP/1.1 \(status) \(phrase(status))\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n".utf8) + body
    }
}


extension SetupServer {
    /// Why a door could not be opened, for a person: `address in use (errno 98): another program
    /// listens there`, not SwiftNIO's `bind(descriptor:ptr:bytes:): Address already in use)`.
    public static func reason(_ error: any Error) -> String {
        guard let io = error as? IOError else { return "\(error)" }
        let code = io.errnoCode
        let text = String(cString: strerror(code))
        switch code {
        case EADDRINUSE: return "\(text) (errno \(code)): another program (or another scand) listens there"
        case EADDRNOTAVAIL: return "\(text) (errno \(code)): this machine has no such address"
        case EACCES: return "\(text) (errno \(code)): a port below 1024 needs CAP_NET_BIND_SERVICE"
        default: return "\(text) (errno \(code))"
        }
    }
}
