import NIOCore

/// What the request handler tells the guard (outbound user events).
enum GuardEvent {
    /// A response ended and the connection stays.
    case answered
    /// The connection ends after the answer being written: drop what comes in.
    case discard
}

/// The bytes of a connection before the HTTP parser: `RequestHeadLimits` on every byte, the
/// request deadline (5 s from a request's first byte, or from accept) and the idle deadline
/// (30 s between requests; none while a response is being written). Pipelined requests go to
/// the parser `maxPipelined` at a time, and the connection is read no further while that many
/// wait for their answers to leave or the answers wait for the client: a client that sends
/// requests and never reads the answers is left to the kernel's buffers (before: one such
/// connection grew the daemon by 1 GB in 10 s).
final class RequestGuard: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var limits = RequestHeadLimits()
    private let closing: () -> Void
    private var held: ByteBuffer?
    /// Bytes read and not looked at yet: they follow `maxPipelined` unanswered requests.
    private var waiting: ByteBuffer?
    /// A read the channel asked for and was not given (`read(context:)`).
    private var readHeld = false
    /// Requests given to the parser whose answers have not left, at most.
    static let maxPipelined = 4
    /// Requests released whole and not answered yet.
    private var outstanding = 0
    private var discarding = false
    /// A refusal written once the requests before it are answered (pipelined: answers in order).
    private var refusalAfter: (status: Int, text: String)?
    private var timer: Scheduled<Void>?
    private var timerIsIdle = false

    /// `closing`: called once the connection is on its way out.
    init(closing: @escaping () -> Void) {
        self.closing = closing
    }

    private func discard() {
        if !discarding { closing() }
        discarding = true
        held = nil
        waiting = nil
        cancelTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, idle: false)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !discarding else { return }
        var buffer = unwrapInboundIn(data)
        if waiting == nil { waiting = buffer } else { waiting!.writeBuffer(&buffer) }
        take(context)
    }

    /// Looks at the waiting bytes up to the request that makes `maxPipelined` unanswered.
    private func take(_ context: ChannelHandlerContext) {
        guard !discarding, var buffer = waiting, outstanding < Self.maxPipelined else { return }
        waiting = nil
        let wasMid = limits.isMidRequest
        var releaseEnd = 0, completed = 0, looked = buffer.readableBytes
        var refusal: RequestHeadLimits.Refusal?
        let room = Self.maxPipelined - outstanding
        buffer.withUnsafeReadableBytes { bytes in
            for i in 0..<bytes.count {
                switch limits.consume(bytes[i]) {
                case .hold: continue
                case .release(let done):
                    releaseEnd = i + 1
                    if done { completed += 1 }
                    if completed == room { looked = i + 1; return }
                case .refuse(let r):
                    refusal = r
                    return
                }
            }
        }
        outstanding += completed
        let start = buffer.readerIndex, total = buffer.readableBytes
        // The bytes released go to the parser, after those held from before.
        var out: ByteBuffer?
        if releaseEnd > 0 {
            out = held ?? context.channel.allocator.buffer(capacity: releaseEnd)
            held = nil
            var part = buffer.readSlice(length: releaseEnd)!
            out!.writeBuffer(&part)
        }
        if let refusal {
            // The whole requests before the refused one are answered first, in order; then the
            // refusal, and the connection ends.
            if let out { context.fireChannelRead(wrapInboundOut(out)) }
            refuse(context, status: refusal.status, text: "ERR \(refusal.status): \(refusal.reason)")
            return
        }
        if looked < total {
            waiting = buffer.getSlice(at: start + looked, length: total - looked)
            buffer.moveWriterIndex(to: start + looked)
        }
        if buffer.readableBytes > 0 {
            if held == nil { held = context.channel.allocator.buffer(capacity: buffer.readableBytes) }
            held!.writeBuffer(&buffer)
        }
        if limits.isMidRequest {
            if !wasMid || completed > 0 { arm(context, idle: false) } // a new request began: its deadline
        } else if completed > 0 {
            cancelTimer()
        }
        if let out { context.fireChannelRead(wrapInboundOut(out)) }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let event = event as? GuardEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch event {
        case .discard:
            discard()
        case .answered:
            outstanding = max(0, outstanding - 1)
            if outstanding == 0, let refusal = refusalAfter {
                refusalAfter = nil
                cancelTimer()
                writeRefusal(context, status: refusal.status, text: refusal.text)
            }
            // The requests waiting behind the answered one go to the parser first.
            take(context)
            if outstanding == 0 && !limits.isMidRequest && !discarding { arm(context, idle: true) }
            readOn(context)
        }
        promise?.succeed()
    }

    /// The channel's reads, held while `maxPipelined` requests wait, bytes wait behind them, or
    /// the answers wait for the client (the channel is not writable).
    func read(context: ChannelHandlerContext) {
        guard mayRead(context) else { readHeld = true; return }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        readOn(context)
        context.fireChannelWritabilityChanged()
    }

    private func mayRead(_ context: ChannelHandlerContext) -> Bool {
        outstanding < Self.maxPipelined && waiting == nil && context.channel.isWritable
    }

    private func readOn(_ context: ChannelHandlerContext) {
        guard readHeld, !discarding, mayRead(context) else { return }
        readHeld = false
        context.read()
    }

    private func refuse(_ context: ChannelHandlerContext, status: Int, text: String) {
        discard()
        guard outstanding == 0 else {
            // Answers are being written: the refusal follows the last of them, if they leave
            // within the request deadline (a client that does not read them is closed).
            refusalAfter = (status, text)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: SetupServer.requestDeadline) { bound.value.close(promise: nil) }
            return
        }
        writeRefusal(context, status: status, text: text)
    }

    private func writeRefusal(_ context: ChannelHandlerContext, status: Int, text: String) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: SetupServer.rawAnswer(status, text)))).assumeIsolated()
            .whenComplete { _ in closeAfterAnswer(bound.value) }
    }

    private func arm(_ context: ChannelHandlerContext, idle: Bool) {
        timer?.cancel()
        timerIsIdle = idle
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: idle ? SetupServer.idleDeadline : SetupServer.requestDeadline) {
            let (handler, context) = bound.value
            handler.expired(context)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    private func expired(_ context: ChannelHandlerContext) {
        timer = nil
        if !timerIsIdle && limits.isMidRequest {
            refuse(context, status: 408, text: "ERR 408: the request did not come whole within \(SetupServer.requestDeadline.nanoseconds / 1_000_000_000) s")
        } else if outstanding == 0 {
            discard()
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension RequestGuard: Sendable {}
