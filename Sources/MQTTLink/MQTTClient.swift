import CMosquitto
import Dispatch
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// An MQTT connection through libmosquitto, on a network thread of its own: connects in the
/// background, reconnects with growing waits while the broker is away (1, 4, 9, then every
/// 10 s: a restarted broker is in use again within 10 s), also when it was away from the
/// start, and reports through its callbacks (on that thread). Publishing is safe from any
/// thread.
public final class MQTTClient: @unchecked Sendable {
    public struct Settings: Sendable {
        public var host: String
        public var port: Int
        public var clientID: String
        public var keepalive = 30
        public var username: String?
        public var password: String?
        /// TLS: the CA file that signs the broker (nil: plain MQTT unless `tls`).
        public var tls = false
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?
        /// The broker publishes this (retained, QoS 1) when the connection is lost without a
        /// goodbye: the last will.
        public var will: (topic: String, payload: [UInt8])?
        public init(host: String, port: Int, clientID: String) {
            self.host = host
            self.port = port
            self.clientID = clientID
        }
    }

    public enum Connection: Equatable, Sendable, CustomStringConvertible {
        case connecting
        case connected
        /// Lost or refused; the reason is for people, and reconnecting goes on.
        case disconnected(String)

        var isDisconnected: Bool { if case .disconnected = self { true } else { false } }

        public var description: String {
            switch self {
            case .connecting: return "connecting"
            case .connected: return "connected"
            case .disconnected(let why): return "disconnected (\(why))"
            }
        }
    }

    /// What the network thread reports.
    public struct Callbacks: Sendable {
        public var connection: @Sendable (Connection) -> Void = { _ in }
        /// The broker acknowledged message `mid` (PUBACK for QoS 1; sent, for QoS 0).
        public var published: @Sendable (Int32) -> Void = { _ in }
        public var message: @Sendable (String, [UInt8]) -> Void = { _, _ in }
        public init() {}
    }

    public let settings: Settings
    private let mosq: OpaquePointer
    private let box: Unmanaged<Box>
    private let state = Locked(State())
    private struct State {
        var connection = Connection.connecting; var started = false; var stopped = false
        /// Connection attempts since the last connection (for the wait before the next).
        var attempts = 0
    }
    /// Wakes the network thread's wait between attempts (a stop).
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the network thread has ended.
    private let ended = DispatchSemaphore(value: 0)

    final class Box: @unchecked Sendable {
        let callbacks: Callbacks
        weak var client: MQTTClient?
        init(_ callbacks: Callbacks) { self.callbacks = callbacks }
    }

    /// The longest wait between two connection attempts, in seconds (the waits grow as the
    /// square of the attempt: 1, 4, 9, then this).
    static let reconnectMax: UInt32 = 10

    private static let library: Void = { _ = mosquitto_lib_init() }()

    /// Sets up the connection (nothing is sent until `start`). Throws for settings libmosquitto
    /// refuses (an unreadable TLS file, a bad will topic).
    public init(settings: Settings, callbacks: Callbacks) throws(HardwareError) {
        _ = Self.library
        self.settings = settings
        let box = Unmanaged.passRetained(Box(callbacks))
        guard let mosq = mosquitto_new(settings.clientID, true, box.toOpaque()) else {
            box.release()
            throw HardwareError(.other, operation: "mosquitto_new", device: settings.clientID, errno: Glibc.errno, hint: "out of memory or a bad client id")
        }
        self.mosq = mosq
        self.box = box
        box.takeUnretainedValue().client = self
        func check(_ operation: String, _ rc: Int32, hint: String? = nil) throws(HardwareError) {
            guard rc != MOSQ_ERR_SUCCESS.rawValue else { return }
            let reason = String(cString: mosquitto_strerror(rc))
            throw HardwareError(rc == MOSQ_ERR_ERRNO.rawValue ? HardwareError.kind(forErrno: Glibc.errno) : .other, operation: operation,
                                device: "mqtt \(settings.host):\(settings.port)", errno: rc == MOSQ_ERR_ERRNO.rawValue ? Glibc.errno : 0,
                                hint: [reason, hint].compactMap { $0 }.joined(separator: "; "))
        }
        do {
            _ = mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
            if let username = settings.username {
                try check("mosquitto_username_pw_set", mosquitto_username_pw_set(mosq, username, settings.password))
            }
            if settings.tls {
                // nil CA: the system's trust store.
                let ca = settings.caFile
                let capath: String? = ca == nil ? "/etc/ssl/certs" : nil
                try check("mosquitto_tls_set", mosquitto_tls_set(mosq, ca, capath, settings.certFile, settings.keyFile, nil),
                          hint: "check output.mqtt.tls_ca, tls_cert and tls_key (readable by the service user, PEM)")
            }
            if let will = settings.will {
                try check("mosquitto_will_set", will.payload.withUnsafeBytes {
                    mosquitto_will_set(mosq, will.topic, Int32($0.count), $0.baseAddress, 1, true)
                })
            }
        } catch {
            mosquitto_destroy(mosq)
            box.release()
            throw error
        }
        mosquitto_connect_callback_set(mosq, onConnect)
        mosquitto_disconnect_callback_set(mosq, onDisconnect)
        mosquitto_publish_callback_set(mosq, onPublish)
        mosquitto_message_callback_set(mosq, onMessage)
        mosquitto_log_callback_set(mosq, onLog)
    }

    deinit {
        stop()
        mosquitto_destroy(mosq)
        box.release()
    }

    /// Connects in the background and keeps connecting.
    public func start() {
        let go = state.withLock { s -> Bool in defer { s.started = true }; return !s.started && !s.stopped }
        guard go else { return }
        _ = mosquitto_threaded_set(mosq, true) // published from other threads than the network one
        DispatchQueue(label: "scand.mqtt.network").async { [self] in
            network()
            ended.signal()
        }
    }

    /// The network thread: connects, runs libmosquitto's loop while connected, and connects
    /// again after 1, 4, 9, then every 10 s once the connection is lost or refused (a broker
    /// not up yet when the kiosk boots, a name that does not resolve: a tryout's broker started
    /// after scand was never used). The waits are its own, not the library's: a stop ends them
    /// at once (a tryout: libmosquitto's reconnect sleep, which nothing interrupts, held a stop
    /// with the broker away up to 11 s, past the unit's 10 s).
    private func network() {
        var rc = mosquitto_connect_async(mosq, settings.host, Int32(settings.port), Int32(settings.keepalive))
        while !state.withLock({ $0.stopped }) {
            // A pass a second at most (the keepalive's pings) until the connection ends: on a
            // stop, once the goodbye (DISCONNECT) is written, or after two short passes more.
            var passesAfterStop = 0, quick = 0
            var failure: String?
            while rc == MOSQ_ERR_SUCCESS.rawValue {
                let stopped = state.withLock { $0.stopped }
                if stopped { passesAfterStop += 1; if passesAfterStop > 2 { break } }
                let began = ContinuousClock.now
                rc = mosquitto_loop(mosq, stopped ? 100 : 1000, 1)
                // A TLS connection to a port where no broker listens leaves libmosquitto's loop
                // coming back at once, without an error, until the keepalive runs out (a
                // tryout: a core spun for 10 s an attempt while the broker was away). Passes
                // that come back at once while not connected, on a socket that is not: a
                // failed attempt.
                guard rc == MOSQ_ERR_SUCCESS.rawValue, connection != .connected, ContinuousClock.now - began < .milliseconds(2) else {
                    quick = 0
                    continue
                }
                quick += 1
                if quick >= 50, let why = Self.unconnected(mosquitto_socket(mosq)) {
                    failure = why
                    rc = MOSQ_ERR_NO_CONN.rawValue
                }
            }
            let attempts = state.withLock { s -> Int? in
                guard !s.stopped else { return nil }
                s.attempts += 1
                return s.attempts
            }
            guard let attempts else { break }
            // The callbacks' reason, where they gave one, says more (a TLS handshake's
            // "certificate verify failed" against the loop's "A TLS error occurred").
            if let failure { report(.disconnected(failure)) }
            if rc != MOSQ_ERR_SUCCESS.rawValue, !connection.isDisconnected { report(.disconnected(Self.reason(rc))) }
            let wait = min(attempts * attempts, Int(Self.reconnectMax))
            if wake.wait(timeout: .now() + .seconds(wait)) == .success { break }
            rc = mosquitto_reconnect_async(mosq)
        }
    }

    /// Disconnects (the broker does not publish the will) and ends the network thread.
    public func stop() {
        let running = state.withLock { s -> Bool in defer { s.stopped = true }; return s.started && !s.stopped }
        guard running else { return }
        _ = mosquitto_disconnect(mosq)
        wake.signal()
        ended.wait()
    }

    public var connection: Connection { state.withLock { $0.connection } }

    /// Publishes `payload` on `topic`; the message id, or the reason it was not taken.
    public func publish(_ topic: String, _ payload: [UInt8], qos: Int, retain: Bool = false) -> Result<Int32, MQTTError> {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { mosquitto_publish(mosq, &mid, topic, Int32($0.count), $0.baseAddress, Int32(qos), retain) }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return .failure(MQTTError(Self.reason(rc))) }
        return .success(mid)
    }

    public func subscribe(_ topic: String, qos: Int) -> MQTTError? {
        let rc = mosquitto_subscribe(mosq, nil, topic, Int32(qos))
        return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : MQTTError(Self.reason(rc))
    }

    static func reason(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(Glibc.errno)) }
        return String(cString: mosquitto_strerror(rc))
    }

    /// Why socket `fd` is not connected (its pending error, or that it has no peer); nil when
    /// it is.
    static func unconnected(_ fd: Int32) -> String? {
        guard fd >= 0 else { return "no connection" }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error != 0 { return "connection failed: " + String(cString: strerror(error)) }
        var peer = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let connected = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        return connected ? nil : "connection refused or closed before the TLS handshake"
    }

    /// A connection was made: the next loss waits 1 s again before the first attempt.
    fileprivate func connected() { state.withLock { $0.attempts = 0 } }

    fileprivate func report(_ connection: Connection) {
        let changed = state.withLock { s -> Bool in
            // A refusal (bad password, not authorised) is followed by the socket's close: the
            // refusal is what a person needs to see.
            if case .disconnected(let was) = s.connection, was.hasPrefix("refused"), case .disconnected(let now) = connection,
               !now.hasPrefix("refused") { return false }
            defer { s.connection = connection }
            return s.connection != connection
        }
        if changed { box.takeUnretainedValue().callbacks.connection(connection) }
    }
}

public struct MQTTError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

private func box(_ obj: UnsafeMutableRawPointer?) -> MQTTClient.Box? {
    obj.map { Unmanaged<MQTTClient.Box>.fromOpaque($0).takeUnretainedValue() }
}

private let onConnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, obj, rc in
    guard let b = box(obj) else { return }
    if rc == 0 {
        b.client?.connected()
        b.client?.report(.connected)
    } else {
        // CONNACK refused: bad credentials, not authorised, ...
        b.client?.report(.disconnected("refused by the broker: " + String(cString: mosquitto_connack_string(rc))))
    }
}

private let onDisconnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, obj, rc in
    guard let b = box(obj) else { return }
    b.client?.report(.disconnected(rc == 0 ? "closed" : "connection lost: " + MQTTClient.reason(rc)))
}

/// libmosquitto's own errors: a TLS handshake that fails (an unknown CA, a wrong host name)
/// calls no other callback, so its message is the reason shown while not connected.
private let onLog: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = { _, obj, level, text in
    guard level == MOSQ_LOG_ERR, let b = box(obj), let text, let client = b.client, client.connection != .connected else { return }
    client.report(.disconnected(String(String(cString: text).prefix(300))))
}

private let onPublish: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, obj, mid in
    box(obj)?.callbacks.published(mid)
}

private let onMessage: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = { _, obj, message in
    guard let b = box(obj), let m = message?.pointee, let topic = m.topic else { return }
    // Bounded: a command is one short line; anything longer is cut here and refused later.
    let count = Int(min(max(m.payloadlen, 0), 4096))
    let payload = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    b.callbacks.message(String(cString: topic), payload)
}
