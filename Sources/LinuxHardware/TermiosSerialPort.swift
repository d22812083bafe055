import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A serial port through termios: raw 8N1 at a standard baud rate, no flow control.
///
/// Writes are bounded by `writeTimeout` (poll for POLLOUT, never an unbounded block). A port
/// that disappears (a USB-serial adapter unplugged: EIO/ENODEV) is closed and reopened on the
/// next write; until it is back, writes throw `.disconnected` or `.notFound`.
public final class TermiosSerialPort: SerialPort, @unchecked Sendable {
    public let name: String
    private let path: String
    private let baud: Int
    private let writeTimeoutMs: Int32
    private let sys: Syscalls
    private var fd: Int32 = -1

    /// Opens `path` at `baud`. Throws `HardwareError` naming the failing call.
    public init(path: String, baud: Int, writeTimeout: Duration = .milliseconds(500), syscalls: Syscalls = .system) throws {
        self.path = path
        self.name = path
        self.baud = baud
        self.sys = syscalls
        let c = writeTimeout.components
        self.writeTimeoutMs = Int32(c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000)
        guard Self.speed(baud) != nil else {
            throw HardwareError(.invalidFormat, operation: "cfsetspeed", device: path, errno: EINVAL, hint: "unsupported baud rate \(baud)")
        }
        try reopen()
    }

    deinit { if fd >= 0 { _ = sys.close(fd) } }

    private func reopen() throws(HardwareError) {
        if fd >= 0 { _ = sys.close(fd); fd = -1 }
        let newFD = try sys.check("open", device: path, hint: Hints.serial) {
            sys.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        }
        var t = termios()
        do {
            try sys.check("tcgetattr", device: path) { tcgetattr(newFD, &t) }
            cfmakeraw(&t)
            t.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
            t.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(PARENB) | tcflag_t(CRTSCTS))
            _ = cfsetispeed(&t, Self.speed(baud)!)
            _ = cfsetospeed(&t, Self.speed(baud)!)
            try sys.check("tcsetattr", device: path) { tcsetattr(newFD, TCSANOW, &t) }
        } catch {
            _ = sys.close(newFD)
            throw error
        }
        fd = newFD
    }

    public func write(_ bytes: [UInt8]) throws {
        if fd < 0 { try reopen() }
        var rest = bytes[...]
        var waitedMs: Int32 = 0
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { sys.write(fd, $0.baseAddress, $0.count) }
            if n > 0 { rest = rest.dropFirst(n); continue }
            let code = sys.errno()
            if n < 0 && code == EINTR { continue }
            if n < 0 && code != EAGAIN {
                let kind = HardwareError.kind(forErrno: code)
                if kind == .disconnected { _ = sys.close(fd); fd = -1 }
                throw HardwareError(kind, operation: "write", device: path, errno: code, hint: Hints.serial(code))
            }
            // The port's buffer is full: wait for room, within the bounded time.
            guard waitedMs < writeTimeoutMs else {
                throw HardwareError(.timedOut, operation: "write", device: path, errno: ETIMEDOUT,
                                    hint: "\(bytes.count - rest.count) of \(bytes.count) bytes written; is the host reading (flow control)?")
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let step = min(50, writeTimeoutMs - waitedMs)
            _ = try sys.check("poll", device: path) { sys.poll(&p, 1, step) }
            waitedMs += step
            if p.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                _ = sys.close(fd); fd = -1
                throw HardwareError(.disconnected, operation: "poll", device: path, errno: EIO)
            }
        }
    }

    static func speed(_ baud: Int) -> speed_t? {
        let table: [Int: Int32] = [
            1200: B1200, 2400: B2400, 4800: B4800, 9600: B9600, 19200: B19200, 38400: B38400, 57600: B57600,
            115_200: B115200, 230_400: B230400, 460_800: B460800, 921_600: B921600,
        ]
        return table[baud].map { speed_t($0) }
    }
}
