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

// The setup page's channel pipeline: the connection cap, the paused accept, the request head's
// limits and deadlines before llhttp, and the requests handed to SetupServer's endpoints.


/// The connections of one listener: at most `SetupServer.maxConnections`, all closed at the end.
final class Connections: Sendable {
    private let open = Locked<[ObjectIdentifier: Channel]>([:])

    func enter(_ channel: Channel) -> Bool {
        open.withLock { open in
            guard open.count < SetupServer.maxConnections else { return false }
            open[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    func leave(_ channel: Channel) { _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }

    /// The tasks that may still complete a promise or write on a channel (answers being made,
    /// streams being written), by number, until each ends.
    private let pumps = Locked<(next: Int, running: [Int: Task<Void, Never>])>((0, [:]))

    /// Runs `work` on a task of its own, which `closeAll` waits for.
    @discardableResult
    func track(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        pumps.withLock { p in
            let id = p.next
            p.next += 1
            let task = Task { [pumps] in
                await work()
                _ = pumps.withLock { $0.running.removeValue(forKey: id) }
            }
            p.running[id] = task
            return task
        }
    }

    /// Writes `source` to `channel` on a task of its own (`RequestHandler.pump`), which
    /// `closeAll` waits for.
    func stream(_ source: SetupServer.StreamSource, to channel: Channel) -> Task<Void, Never> {
        track { await RequestHandler.pump(source, to: channel) }
    }

    /// Closes every connection and waits until they are closed, their streams have ended and
    /// the answers being made (a snapshot waiting for its decode) are in: after it the event
    /// loops may shut down (a stream still writing, or an answer's promise completed, then
    /// logged "Cannot schedule tasks on an EventLoop that has already shut down" at a clean
    /// stop).
    func closeAll() async {
        let channels = open.withLock { Array($0.values) }
        for channel in channels { channel.close(promise: nil) }
        for channel in channels { try? await channel.closeFuture.get() }
        while case let tasks = pumps.withLock({ Array($0.running.values) }), !tasks.isEmpty {
            for task in tasks {
                task.cancel()
                await task.value
            }
        }
    }
}

/// The listener's pause after `accept` failed for want of descriptors (EMFILE, ENFILE) or
/// memory: 50 ms, doubling to 2 s while it keeps failing, back to 50 ms once a connection is
/// accepted. Shared by the listeners one after another (`run` listens again after each pause).
final class AcceptPause: Sendable {
    private struct State { var pause = TimeAmount.milliseconds(50); var failures = 0; var relisten: TimeAmount? }
    private let state = Locked(State())

    /// Failed accepts (and failed binds while listening again) since the last good accept.
    var failures: Int { state.withLock { $0.failures } }

    /// Counts a failure; the pause to wait before listening again.
    func next() -> TimeAmount {
        state.withLock { s in
            s.failures += 1
            defer { s.pause = min(s.pause * 2, .seconds(2)) }
            return s.pause
        }
    }

    /// A connection came: the failures before it, and the pause back to its start.
    func reset() -> Int {
        state.withLock { s in defer { s.pause = .milliseconds(50); s.failures = 0 }; return s.failures }
    }

    /// Set when the listener was closed for a pause; taken by `run` once it has closed.
    func closedFor(_ pause: TimeAmount) { state.withLock { $0.relisten = pause } }
    func takeRelisten() -> TimeAmount? { state.withLock { s in defer { s.relisten = nil }; return s.relisten } }

    /// Whether `error` is an accept (or bind) that failed for want of descriptors or memory.
    static func isResourceShortage(_ error: Error) -> Bool {
        guard let io = error as? IOError else { return false }
        return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(io.errnoCode)
    }
}

/// At the descriptor limit, closes the listener for a pause (`run` listens again after it).
/// NIO's own `AcceptBackoffHandler` only holds back the next read: the failed accept leaves the
/// read pending, the listening socket stays readable, and the event loop spun on `accept` at a
/// full core. Closing the listener also frees a descriptor. Logs the first failure of a run and
/// every 100th, and resets the pause when a connection comes.
final class AcceptWatch: ChannelInboundHandler {
    typealias InboundIn = Channel
    let pause: AcceptPause
    let logger: Logger
    /// Which listener: "setup page" or "control socket".
    let door: String

    init(pause: AcceptPause, logger: Logger, door: String) {
        self.pause = pause
        self.logger = logger
        self.door = door
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let failures = pause.reset()
        if failures > 0 { logger.notice("\(door): accepting connections again after \(failures) failed accepts") }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard AcceptPause.isResourceShortage(error) else { context.fireErrorCaught(error); return }
        let wait = pause.next()
        let failures = pause.failures
        if failures == 1 || failures % 100 == 0 {
            logger.warning("\(door): accept failed (\(error)); not listening for \(wait.nanoseconds / 1_000_000) ms, then again")
        }
        pause.closedFor(wait)
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension AcceptWatch: Sendable {}

/// Closes a connection after its answer: output first (the answer reaches the client), input
/// read and dropped for up to 2 s (so the client sees the answer, not a reset), then all.
func closeAfterAnswer(_ context: ChannelHandlerContext) {
    context.close(mode: .output, promise: nil)
    let context = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.value.eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { context.value.close(promise: nil) }
}

/// Answers a connection over the cap and closes it.
final class Refuser: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let status: Int
    let text: String

    init(status: Int, text: String) {
        self.status = status
        self.text = text
    }

    func channelActive(context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: SetupServer.rawAnswer(status, text)))).assumeIsolated()
            .whenComplete { _ in closeAfterAnswer(bound.value) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {} // dropped
}

@available(*, unavailable)
extension Refuser: Sendable {}

/// One connection's requests, after the parser: who may ask (on the head), the endpoint (on the
/// backend, off the event loop), the answer written back; a stream written one piece at a time,
/// each only after the one before it left (a client that does not read gets pieces dropped, not
/// queued).
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: SetupServer
    let door: SetupServer.Door
    let connections: Connections
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    /// Answered on its head (refused): the rest of the request is ignored.
    private var answered = false
    private var closing = false
    private var pump: Task<Void, Never>?

    init(server: SetupServer, door: SetupServer.Door, connections: Connections) {
        self.server = server
        self.door = door
        self.connections = connections
    }

    func channelInactive(context: ChannelHandlerContext) {
        pump?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
            answered = false
            let length = h.headers.first(name: "content-length").flatMap { Int($0) }
            if let refusal = admit(h, context) ?? WebRules.bodyRefusal(method: h.method.rawValue, path: Self.split(h.uri).path, contentLength: length) {
                answered = true
                // A body announced and not read: the connection ends after the answer.
                let bodyLeft = (length ?? 0) > 0
                let reply = SetupServer.Reply.error(refusal)
                write(reply, for: h, close: bodyLeft || !h.isKeepAlive || reply.endsConnection, context)
            } else if Self.waitsToSendBody(h, length: length) {
                // A client that asks before it sends its body (.NET's HttpClient, curl for a
                // large one) hears "go on" at once, instead of waiting out its own timer.
                context.writeAndFlush(wrapOutboundOut(.head(NIOHTTP1.HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
            }
        case .body(var part):
            guard head != nil, !answered else { return }
            if body.count + part.readableBytes <= RequestHeadLimits.maxBody { body += part.readBytes(length: part.readableBytes) ?? [] }
        case .end:
            guard let h = head else { return }
            head = nil
            if answered { return }
            let (path, query) = Self.split(h.uri)
            let request = SetupServer.Request(method: h.method, path: path, query: query, body: body)
            body = []
            let server = self.server
            let promise = context.eventLoop.makePromise(of: SetupServer.Reply.self)
            // On a task `closeAll` waits for: the promise is completed before the event loops
            // shut down, however long the answer takes.
            connections.track { promise.succeed(await server.respond(to: request)) }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.assumeIsolated().whenSuccess { reply in
                let (handler, context) = bound.value
                handler.write(reply, for: h, close: !h.isKeepAlive || reply.endsConnection, context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The parser refused the bytes (not HTTP/1.1): answered (the pipeline handler holds the
        // error until an earlier answer is out), then closed.
        guard !closing else { return }
        // Anything else (a reset, a broken pipe), or an error after an answer: closed.
        guard error is HTTPParserError, !answered else {
            closing = true
            context.close(promise: nil)
            return
        }
        answered = true
        write(.error(Self.refusal(error)), for: head ?? HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"),
              close: true, context)
    }

    /// What the parser found wrong, for the person typing a request by hand (`nc` sends a bare
    /// LF where HTTP asks CR LF).
    static func refusal(_ error: Error) -> WebError {
        let lines = "each line ending with CR LF (\\r\\n)"
        switch error as? HTTPParserError {
        case .invalidVersion?, .invalidMethod?: return WebError(400, "not an HTTP/1.1 request: the first line is METHOD PATH HTTP/1.1, \(lines)")
        case .invalidHeaderToken?: return WebError(400, "not an HTTP/1.1 request: each header is NAME: VALUE, \(lines)")
        // A bare LF after a header, by hand, leaves the parser in a state it names no better.
        case .lfExpected?, .strictModeAssertion?, .unknown?: return WebError(400, "not an HTTP/1.1 request: \(lines)")
        // The parser's own states (an HTTP/2 preface pauses it): nothing a client can act on.
        case .paused?, .invalidInternalState?, nil: return WebError(400, "not an HTTP/1.1 request")
        case let error?: return WebError(400, "not an HTTP/1.1 request: \(error.debugDescription)")
        }
    }

    private func admit(_ h: HTTPRequestHead, _ context: ChannelHandlerContext) -> WebError? {
        guard case .tcp(let listener) = door else { return nil }
        let (path, query) = Self.split(h.uri)
        func one(_ name: String, twice: String) -> String? {
            let values = h.headers[name]
            // A field value's surrounding whitespace is not part of it (RFC 9110, 5.5).
            return values.count > 1 ? twice : values.first.map { trimmed($0[...], " \t") }
        }
        let peer = context.channel.remoteAddress?.ipAddress ?? ""
        let facts = WebRules.Head(method: h.method.rawValue, path: path, host: one("host", twice: ""), origin: one("origin", twice: "null"),
                                  referer: one("referer", twice: "null"), authorization: h.headers.first(name: "authorization"),
                                  queryToken: WebRules.query(query, "token"), peerIsLoopback: WebRules.isLoopbackIP(peer))
        return WebRules.admit(facts, at: listener)
    }

    /// Whether the request waits for a 100 (Continue) before its body (`Expect: 100-continue`,
    /// RFC 9110, 10.1.1, among the members of any Expect header; others are ignored): asked by
    /// HTTP/1.1 requests that announce a body.
    static func waitsToSendBody(_ h: HTTPRequestHead, length: Int?) -> Bool {
        h.version.minor >= 1 && (length ?? 0) > 0
            && h.headers["expect"].contains { $0.split(separator: ",").contains { trimmed($0, " \t").lowercased() == "100-continue" } }
    }

    static func split(_ uri: String) -> (path: String, query: Substring) {
        guard let q = uri.firstIndex(of: "?") else { return (uri, "") }
        return (String(uri[..<q]), uri[uri.index(after: q)...])
    }

    private func write(_ reply: SetupServer.Reply, for h: HTTPRequestHead, close: Bool, _ context: ChannelHandlerContext) {
        guard context.channel.isActive, !closing else { return }
        if close {
            closing = true
            context.triggerUserOutboundEvent(GuardEvent.discard, promise: nil)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "no-store")
        if close { headers.add(name: "Connection", value: "close") }
        switch reply {
        case .whole(let status, let type, let bytes, let extra):
            headers.add(name: "Content-Type", value: type)
            headers.add(name: "Content-Length", value: String(bytes.count))
            for (name, value) in extra { headers.add(name: name, value: value) }
            context.write(wrapOutboundOut(.head(NIOHTTP1.HTTPResponseHead(version: .http1_1, status: .custom(code: UInt(status), reasonPhrase: SetupServer.phrase(status)), headers: headers))), promise: nil)
            if h.method != .HEAD && !bytes.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
            }
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                if close { closeAfterAnswer(bound.value) } else { bound.value.triggerUserOutboundEvent(GuardEvent.answered, promise: nil) }
            }
        case .stream(let type, let first, let source):
            headers.add(name: "Content-Type", value: type)
            context.write(wrapOutboundOut(.head(NIOHTTP1.HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            if !first.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: first)))), promise: nil) }
            context.flush()
            guard h.method != .HEAD else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                closing = true
                context.triggerUserOutboundEvent(GuardEvent.discard, promise: nil)
                closeAfterAnswer(context)
                return
            }
            // A stream ends the connection when it ends.
            closing = true
            let channel = context.channel
            pump = connections.stream(source, to: channel)
        }
    }

    /// Writes `source` to `channel`, each piece after the one before has left; ends the response
    /// and the connection when the source ends, a write fails or one does not leave within
    /// `idleDeadline` (a client that stopped reading).
    static func pump(_ source: SetupServer.StreamSource, to channel: Channel) async {
        func send(_ bytes: [UInt8]) async -> Bool {
            // A client that takes nothing for `idleDeadline` is cut off (its slot freed).
            let stalled = channel.eventLoop.scheduleTask(in: SetupServer.idleDeadline) { channel.close(promise: nil) }
            defer { stalled.cancel() }
            do {
                try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: bytes))))
                return true
            } catch { return false }
        }
        switch source {
        case .events(let stream):
            for await line in stream { guard await send(Array("data: \(line)\n\n".utf8)) else { break } }
        case .frames(let stream):
            for await jpeg in stream {
                let part = Array("--\(SetupServer.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8) + jpeg + Array("\r\n".utf8)
                guard await send(part) else { break }
            }
        }
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
    }
}

@available(*, unavailable)
extension RequestHandler: Sendable {}
