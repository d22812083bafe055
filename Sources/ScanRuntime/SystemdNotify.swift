#if canImport(Glibc)
import Glibc
#endif

/// The systemd service protocol without libsystemd: `sd_notify` datagrams to `$NOTIFY_SOCKET`
/// (READY=1, STATUS=..., WATCHDOG=1, STOPPING=1, RELOADING=1) and the watchdog period from
/// `$WATCHDOG_USEC`. Outside systemd every call does nothing.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?
    /// How often to ping: half the watchdog period, or nil without a watchdog.
    public let watchdogInterval: Duration?

    public init(environment: [String: String]) {
        var path = environment["NOTIFY_SOCKET"]
        if let p = path, p.hasPrefix("@") { path = "\0" + p.dropFirst() } // abstract namespace
        socketPath = path?.isEmpty == false ? path : nil
        if let usec = environment["WATCHDOG_USEC"].flatMap(Int.init), usec > 0,
           environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    /// The process environment.
    public static func fromProcess() -> SystemdNotifier {
        var env: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let v = getenv(key) { env[key] = String(cString: v) }
        }
        return SystemdNotifier(environment: env)
    }

    /// Sends `state` (e.g. "READY=1\nSTATUS=camera available"). Returns whether it was sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (socketPath.hasPrefix("\0") ? 0 : 1))
        let payload = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { addr in
            addr.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
        return sent == payload.count
    }
}
