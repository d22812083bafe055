import Logging
import ScanCore
import ScanHardware
import Delivery
#if canImport(Glibc)
import Glibc
#endif

/// Results, status and commands through an MQTT broker (`[output.mqtt]`).
///
/// Topics under `prefix`: `result` (one JSON result per message, QoS `qos`), `status` (retained:
/// `online`, the version and the kiosk's status; the last will sets `{"online":false}`), `event`
/// (the event socket's events, when `events`), `cmd` (host commands, when `commands`) answered
/// on `cmd/reply`.
///
/// Nothing lost: every result goes to the outbox first and leaves it only when the broker has
/// acknowledged it (PUBACK, QoS 1). While the broker is away results wait, in order; once
/// connected they are published oldest first (`pendingCount` and the status show how many
/// wait). A result published but not acknowledged within
/// `resendAfter` seconds (a connection that died with it in flight) is published again: at least
/// once, never lost.
///
/// Bounded under a flood of commands: at most `commandRate` commands a second are run
/// (`commandBurst` at once); one over the rate is answered `ERR <COMMAND>: busy` and not run. Replies wait
/// for the results: one is published only when no result waits for the broker, and while
/// `repliesInFlight` replies are unacknowledged (for `replyAcknowledgedWithin` at most each) the
/// next ones are held, `repliesHeld` at most;
/// a reply that finds no room is dropped. Both are counted (`counts`: `commandsRefused`,
/// `repliesDropped`).
// Unchecked: `client` (a var: its callbacks reach self through a WeakRelay) is set once in init, never after.
public final class MQTTOutput: ResultOutput, @unchecked Sendable {
    public let name: String
    public let prefix: String
    public let qos: Int
    public let outbox: Outbox
    public let resendAfter: Int
    private let version: String
    private let logger: Logger
    private var client: MQTTClient!
    private let state: Locked<State>
    /// Serialises publishing results (oldest first, one at a time).
    private let sending = Locked(0)
    /// Held from a result's or reply's publish until its message id is recorded.
    private let publishing = Locked(0)
    /// Time for the command rate (seconds since this output was made).
    private let elapsed: @Sendable () -> Duration
    /// Told when the broker acknowledged a result (`whenDelivered`).
    private let delivered = Locked<(@Sendable () -> Void)?>(nil)

    /// Commands run a second, and at once, before `ERR <COMMAND>: busy`.
    public static let commandRate = 10
    public static let commandBurst = 20
    /// Replies published and not yet acknowledged by the broker, and replies waiting behind
    /// those or behind results, at most.
    public static let repliesInFlight = 8
    public static let repliesHeld = 64
    /// A reply the broker has not acknowledged in this long no longer holds a place in flight:
    /// under a flood of commands an acknowledgement went missing now and then, and once eight
    /// had, every reply after was dropped while the link stayed up (a QoS 1 reply is libmosquitto's
    /// to resend; it is not lost by this).
    public static let replyAcknowledgedWithin = Duration.seconds(5)

    private struct State {
        var connected = false
        var connection = MQTTClient.Connection.connecting
        /// Published, waiting for PUBACK (by message id).
        var window: AckWindow
        /// Acknowledged and on their way out of the outbox: not published again meanwhile.
        var leaving: Set<Int> = []
        var lastStatus: String?
        var onCommand: (@Sendable (String, @escaping @Sendable (String) -> Void) -> Bool)?
        var commandRate = TokenBucket(perSecond: MQTTOutput.commandRate, burst: MQTTOutput.commandBurst)
        var commandsRefused = 0
        /// When the last refusal was logged (one line a minute at most).
        var refusalLogged: Duration?
        /// Replies waiting for their turn, and the ids of those published and not acknowledged.
        var heldReplies: [[UInt8]] = []
        /// Each reply in flight: its message id and when it was published.
        var repliesInFlight: [Int32: ContinuousClock.Instant] = [:]
        var repliesDropped = 0
        var onConnection: (@Sendable (MQTTClient.Connection) -> Void)?
        var onCounts: (@Sendable () -> Void)?
        var statusMid: Int32?
        var goodbye: Int32?
    }

    public init(settings: MQTTClient.Settings, prefix: String, qos: Int, outbox: Outbox, commands: Bool, version: String,
                resendAfter: Int = 10, logger: Logger = Logger(label: "scand.mqtt")) throws(HardwareError) {
        self.prefix = prefix
        self.qos = qos
        self.outbox = outbox
        self.resendAfter = max(1, resendAfter)
        state = Locked(State(window: AckWindow(resendAfter: resendAfter)))
        self.version = version
        self.logger = logger
        let start = ContinuousClock.now
        elapsed = { ContinuousClock.now - start }
        name = "mqtt \(settings.tls ? "mqtts" : "mqtt")://\(PayloadText.escaped(settings.host)):\(settings.port)"
        var settings = settings
        settings.will = ("\(prefix)/status", Array("{\"online\":false}".utf8))
        var callbacks = MQTTClient.Callbacks()
        let relay = WeakRelay<MQTTOutput>()
        callbacks.connection = { c in relay.target?.connectionChanged(c) }
        callbacks.published = { mid in relay.target?.acknowledged(mid) }
        if commands {
            callbacks.message = { topic, payload in relay.target?.command(topic, payload) }
        }
        client = try MQTTClient(settings: settings, callbacks: callbacks)
        relay.target = self // before start(): no callback comes earlier
    }

    /// Starts connecting. `onCommand` gets each command line within the rate and a function for
    /// its answer, and says whether it took the command (false: it is answered `ERR <COMMAND>: busy`);
    /// `onConnection` each change of the connection, `onCounts` each change of `counts` (for the
    /// status; under a flood, many a second).
    public func start(onCommand: (@Sendable (String, @escaping @Sendable (String) -> Void) -> Bool)?,
                      onConnection: (@Sendable (MQTTClient.Connection) -> Void)? = nil, onCounts: (@Sendable () -> Void)? = nil) {
        state.withLock { $0.onCommand = onCommand; $0.onConnection = onConnection; $0.onCounts = onCounts }
        client.start()
    }

    /// Says goodbye: `{"online":false}` retained (waiting up to `wait` for the broker to take
    /// it), then disconnects.
    public func stop(wait: Duration = .seconds(1)) {
        if state.withLock({ $0.connected }), case .success(let mid) = client.publish("\(prefix)/status", Array("{\"online\":false}".utf8), qos: 1, retain: true) {
            state.withLock { $0.goodbye = mid }
            // The goodbye and the results in flight acknowledged (they leave the outbox), or
            // `wait` is over: what is not acknowledged stays in the outbox for the next start.
            let end = ContinuousClock.now + wait
            while ContinuousClock.now < end, state.withLock({ $0.goodbye != nil || !$0.window.isEmpty }) { usleep(5_000) }
        }
        client.stop()
    }

    public var connection: String? { state.withLock { $0.connection.description } }
    public var pendingCount: Int { outbox.pending.count }
    public var keptIn: String? { outbox.path }
    public var room: Int? { outbox.room }
    public var counts: OutputCounts {
        let (refused, dropped) = state.withLock { ($0.commandsRefused, $0.repliesDropped) }
        return OutputCounts(notStored: outbox.notStored, commandsRefused: refused, repliesDropped: dropped)
    }

    // MARK: - Results

    public func deliver(_ result: ScanResult, unixMillis: Int64) throws {
        var bytes = OutputFormat.jsonLines.render(result, unixMillis: unixMillis)
        if bytes.last == 10 { bytes.removeLast() }
        try outbox.keep(Outbox.Entry(seq: result.sequence, bytes: bytes), for: name, logger: logger)
        try flush()
    }

    public func hold(_ result: ScanResult, unixMillis: Int64) throws {
        var bytes = OutputFormat.jsonLines.render(result, unixMillis: unixMillis)
        if bytes.last == 10 { bytes.removeLast() }
        try outbox.keep(Outbox.Entry(seq: result.sequence, bytes: bytes), held: true, for: name, logger: logger)
    }

    /// Publishes every pending result not in flight, oldest first; stops at the first refusal.
    func flush() throws {
        try sending.withLock { _ in
            // While the broker is away results wait in the outbox: the connection's loss was
            // logged once; each result is not an error of its own.
            guard state.withLock({ $0.connected }) else { return }
            for entry in outbox.pending { try publish(entry) }
        }
    }

    /// Publishes `entry` unless it is in flight, or acknowledged meanwhile (a tryout: a result
    /// whose PUBACK came while `flush` went through the outbox was published twice, the
    /// connection up).
    private func publish(_ entry: Outbox.Entry) throws {
        // The broker's PUBACK can come back (on the network thread) before `publish` returns
        // the message id: the id is recorded under `publishing`, which `acknowledged` takes too.
        let outcome = publishing.withLock { _ -> Result<Int32, MQTTError>? in
            // `leaving` first: an acknowledged result is there until the outbox let it go.
            guard state.withLock({ !$0.window.isWaiting(entry.seq) && !$0.leaving.contains(entry.seq) }),
                  outbox.isPending(entry.seq) else { return nil }
            let outcome = client.publish("\(prefix)/result", entry.bytes, qos: qos)
            if case .success(let mid) = outcome, qos > 0 { state.withLock { $0.window.sent(entry.seq, token: mid) } }
            return outcome
        }
        switch outcome {
        case nil: return
        case .failure(let error)?:
            throw HardwareError(.other, operation: "mosquitto_publish", device: name, summary: "\(error)")
                .failing("result \(entry.seq) not published", then: "kept and published in order when the broker takes it")
        case .success?:
            if qos == 0 { outbox.done(entry.seq) }
        }
    }

    /// Every second while results wait: publishes what was never taken, and again what the
    /// broker has not acknowledged for `resendAfter` seconds.
    public func retry() throws {
        let due = state.withLock { s in s.connected ? s.window.tick() : [] }
        if !due.isEmpty { logger.notice("output \(name): \(due.count) result(s) not acknowledged in \(resendAfter) s, published again") }
        // What was never taken and what is due again, oldest first.
        try flush()
        publishReplies()
    }

    public func whenDelivered(_ changed: @escaping @Sendable () -> Void) { delivered.withLock { $0 = changed } }

    private func acknowledged(_ mid: Int32) {
        let seq = publishing.withLock { _ in state.withLock { s -> Int? in
            if s.goodbye == mid { s.goodbye = nil }
            if s.repliesInFlight.removeValue(forKey: mid) != nil { return nil }
            guard let seq = s.window.acknowledge(token: mid) else { return nil }
            s.leaving.insert(seq)
            return seq
        } }
        if let seq {
            outbox.done(seq)
            state.withLock { _ = $0.leaving.remove(seq) }
            delivered.withLock { $0 }?()
        }
        // A reply or a result less in the way: the next held reply may go.
        publishReplies()
    }

    // MARK: - Connection, status, events, commands

    private func connectionChanged(_ connection: MQTTClient.Connection) {
        let (lastStatus, notify) = state.withLock { s in
            s.connection = connection
            s.connected = connection == .connected
            // What was in flight is published again, in order, when the connection is back:
            // the first copy of every result arrives in order. (libmosquitto may also resend
            // its own copy: a duplicate, never a loss.)
            if !s.connected { s.window.forgetAll(); s.repliesInFlight.removeAll() }
            return (s.lastStatus, s.onConnection)
        }
        switch connection {
        case .connected:
            logger.notice("output \(name): connected as \(client.settings.clientID), topics \(prefix)/...")
            if state.withLock({ $0.onCommand != nil }), let error = client.subscribe("\(prefix)/cmd", qos: 1) {
                logger.error("output \(name): cannot subscribe to \(prefix)/cmd: \(error)")
            }
            if let lastStatus { publishStatus(json: lastStatus, force: true) }
            do { try flush() } catch { logger.debug("output \(name): \(error)") }
            publishReplies()
        case .connecting:
            break
        case .disconnected(let why):
            if why == "closed" {
                logger.notice("output \(name): disconnected")
            } else {
                logger.error("output \(name): \(why); reconnecting with backoff, results kept")
            }
        }
        notify?(connection)
    }

    /// The kiosk's status (`KioskStatus.json`), retained, when it changed.
    public func publishStatus(json: String, force: Bool = false) {
        let payload = "{\"online\":true,\"version\":\(JSONText.string(version)),\"status\":\(json)}"
        let send = state.withLock { s -> Bool in
            defer { s.lastStatus = json }
            return s.connected && (force || s.lastStatus != json)
        }
        guard send else { return }
        _ = client.publish("\(prefix)/status", Array(payload.utf8), qos: 1, retain: true)
    }

    /// One event line (QoS 0: events are a live view, not a record).
    public func publishEvent(_ line: String) {
        guard state.withLock({ $0.connected }) else { return }
        _ = client.publish("\(prefix)/event", Array(line.utf8), qos: 0)
    }

    private func command(_ topic: String, _ payload: [UInt8]) {
        guard topic == "\(prefix)/cmd", let onCommand = state.withLock({ $0.onCommand }) else { return }
        let reply: @Sendable (String) -> Void = { [weak self] answer in self?.reply(answer) }
        // The rate first: a flood of anything, well-formed or not, is a flood.
        let now = elapsed()
        let (admitted, logRefusal) = state.withLock { s -> (Bool, Int?) in
            if s.commandRate.take(at: now) { return (true, nil) }
            s.commandsRefused += 1
            guard s.refusalLogged.map({ now - $0 >= .seconds(60) }) ?? true else { return (false, nil) }
            s.refusalLogged = now
            return (false, s.commandsRefused)
        }
        guard admitted else {
            countsChanged()
            if let logRefusal {
                logger.warning("output \(name): more than \(Self.commandRate) commands a second on \(prefix)/cmd: answered ERR busy and not run (\(logRefusal) refused so far)")
            }
            return reply(HostCommandError(HostCommand.word(String(decoding: payload.prefix(32), as: UTF8.self)), "busy: more than \(Self.commandRate) commands a second; not run").answer)
        }
        // One line of the host command language, checked as every door checks it.
        switch HostCommand.line(from: payload) {
        case .success(let text):
            if !onCommand(text, reply) {
                state.withLock { $0.commandsRefused += 1 }
                countsChanged()
                reply(HostCommandError(text, "busy: too many commands waiting; not run").answer)
            }
        case .failure(let error): reply(error.answer)
        }
    }

    /// An answer on `cmd/reply`, behind the results: held (`repliesHeld` at most) while a result waits
    /// or too many replies are in flight, dropped and counted when no room is left.
    private func reply(_ answer: String) {
        let held = state.withLock { s -> Bool in
            guard s.heldReplies.count < Self.repliesHeld else { s.repliesDropped += 1; return false }
            s.heldReplies.append(Array(answer.utf8))
            return true
        }
        if held { publishReplies() } else { countsChanged() }
    }

    /// Publishes the held replies while connected, no result waits (in the outbox: not yet
    /// published or not yet acknowledged), and fewer than `repliesInFlight` are unacknowledged.
    private func publishReplies() {
        publishing.withLock { _ in
            while state.withLock({ s in
                // Only a full window is looked through (no copy of it per reply under a flood).
                if s.repliesInFlight.count >= Self.repliesInFlight {
                    let now = ContinuousClock.now
                    for (mid, sent) in s.repliesInFlight where now - sent >= Self.replyAcknowledgedWithin { s.repliesInFlight[mid] = nil }
                }
                return s.connected && !s.heldReplies.isEmpty && s.repliesInFlight.count < Self.repliesInFlight
            }),
                  outbox.pending.isEmpty {
                let next = state.withLock { $0.heldReplies.removeFirst() }
                switch client.publish("\(prefix)/cmd/reply", next, qos: 1) {
                case .success(let mid): state.withLock { $0.repliesInFlight[mid] = ContinuousClock.now }
                case .failure: state.withLock { $0.repliesDropped += 1 }; countsChanged()
                }
            }
        }
    }

    private func countsChanged() { state.withLock { $0.onCounts }?() }
}

/// A weak reference set once, before any callback can read it.
// Unchecked: `target` is written once before start() (no callback comes earlier) and only read afterwards.
final class WeakRelay<T: AnyObject>: @unchecked Sendable {
    weak var target: T?
}
