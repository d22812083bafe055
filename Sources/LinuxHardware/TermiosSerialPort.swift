import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// How a serial line is framed.
public struct SerialSettings: Sendable, Equatable {
    public typealias Parity = SerialParity
    public typealias FlowControl = SerialFlowControl
    public var baud: Int
    public var dataBits: Int = 8
    public var parity: Parity = .none
    public var stopBits: Int = 1
    public var flowControl: FlowControl = .none
    /// How long a write may wait for room before it gives up.
    public var writeTimeout: Duration = .milliseconds(500)

    public init(baud: Int) { self.baud = baud }

    public static let bauds = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600]
}

/// A serial port through termios: raw mode with the configured framing.
///
/// Writes are bounded by `writeTimeout` (poll for POLLOUT, never an unbounded block). A write
/// that times out part way through keeps its place: the same bytes written again (the output's
/// retry) go on from where it stopped; other bytes (an answer) first finish the torn line, and
/// the retry that follows is then already done. The host never sees a line cut short and then
/// repeated whole, nor a line twice. A port
/// that disappears (a USB-serial adapter unplugged: EIO/ENODEV) is closed and reopened on the
/// next write; until it is back, writes throw `.disconnected` or `.notFound`. Bytes from the host
/// arrive on `received()`, read by a thread blocked in poll(2).
public final class TermiosSerialPort: SerialPort, Sendable {
    public let name: String
    private let path: String
    private let settings: SerialSettings
    private let sys: Syscalls
    /// The open port, if any: only its `Descriptor` closes it.
    private let port = Locked<Descriptor?>(nil)
    /// Held for a whole write: answers and results never interleave. (Its value counts the
    /// writes; a `Locked` of an empty type made ThreadSanitizer report its zero-size access
    /// against the object's header.)
    private let writing = Locked(0)
    private let wake: (read: Int32, write: Int32)
    private let stream: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let reading = Locked(false)
    /// A write that timed out part way: its bytes and how many of them went out (cleared when
    /// the port is opened again: a new connection starts with a new line).
    private struct Torn: Sendable { var bytes: [UInt8]; var sent: Int }
    private let torn = Locked<Torn?>(nil)
    /// A torn line another write finished: its retry has nothing left to send.
    private let finished = Locked<[UInt8]?>(nil)

    /// Opens `path` with `settings`. Throws `HardwareError` naming the failing call. With
    /// `waitForDevice`, a port that is not there yet (unplugged adapter) is not an error: it is
    /// opened by the first write after it appears.
    public init(path: String, settings: SerialSettings, waitForDevice: Bool = false, syscalls: Syscalls = .system) throws(HardwareError) {
        self.path = path
        self.name = path
        self.settings = settings
        self.sys = syscalls
        guard Self.speed(settings.baud) != nil else {
            throw HardwareError(.invalidFormat, operation: "cfsetspeed", device: path, errno: EINVAL, hint: "unsupported baud rate \(settings.baud)")
        }
        guard (5...8).contains(settings.dataBits), (1...2).contains(settings.stopBits) else {
            throw HardwareError(.invalidFormat, operation: "tcsetattr", device: path, errno: EINVAL, hint: "data bits 5-8, stop bits 1-2")
        }
        guard let pipe = makeWakePipe() else { throw HardwareError(.other, operation: "pipe", device: path, errno: errno) }
        wake = pipe
        (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        do { try reopen() } catch {
            if waitForDevice && (error.kind == .notFound || error.kind == .disconnected) { return }
            close(pipe.read); close(pipe.write); throw error
        }
    }

    /// 8N1 at `baud`, no flow control.
    public convenience init(path: String, baud: Int) throws(HardwareError) {
        try self.init(path: path, settings: SerialSettings(baud: baud))
    }

    deinit {
        wakeUp(wake.write)
        if !reading.withLock({ $0 }) { close(wake.read) }
        close(wake.write)
        port.withLock { $0 }?.close()
        continuation.finish()
    }

    /// The open port, opened again if it is not.
    @discardableResult
    private func reopen() throws(HardwareError) -> Descriptor {
        port.withLock { p -> Descriptor? in defer { p = nil }; return p }?.close()
        torn.withLock { $0 = nil }
        finished.withLock { $0 = nil }
        let sys = self.sys, path = self.path
        let newFD = try sys.check("open", device: path, hint: Hints.serial) { sys.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        var t = termios()
        do {
            try sys.check("tcgetattr", device: path) { sys.tcgetattr(newFD, &t) }
            Self.configure(&t, settings)
            try sys.check("tcsetattr", device: path) { sys.tcsetattr(newFD, &t) }
        } catch {
            _ = sys.close(newFD)
            throw error
        }
        let descriptor = Descriptor(newFD) { _ = sys.close($0) }
        port.withLock { $0 = descriptor }
        return descriptor
    }

    /// Raw mode with the framing of `s`.
    static func configure(_ t: inout termios, _ s: SerialSettings) {
        cfmakeraw(&t)
        t.c_cflag &= ~(tcflag_t(CSIZE) | tcflag_t(CSTOPB) | tcflag_t(PARENB) | tcflag_t(PARODD) | tcflag_t(CRTSCTS))
        t.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        switch s.dataBits {
        case 5: t.c_cflag |= tcflag_t(CS5)
        case 6: t.c_cflag |= tcflag_t(CS6)
        case 7: t.c_cflag |= tcflag_t(CS7)
        default: t.c_cflag |= tcflag_t(CS8)
        }
        if s.stopBits == 2 { t.c_cflag |= tcflag_t(CSTOPB) }
        switch s.parity {
        case .none: break
        case .even: t.c_cflag |= tcflag_t(PARENB)
        case .odd: t.c_cflag |= tcflag_t(PARENB) | tcflag_t(PARODD)
        }
        if s.flowControl == .rtscts { t.c_cflag |= tcflag_t(CRTSCTS) }
        t.c_cc.6 = 0 // VMIN
        t.c_cc.5 = 0 // VTIME
        _ = cfsetispeed(&t, speed(s.baud)!)
        _ = cfsetospeed(&t, speed(s.baud)!)
    }

    public func write(_ bytes: [UInt8]) throws(HardwareError) {
        let outcome = writing.withLock { writes in
            writes &+= 1
            return Result { () throws(HardwareError) in
                let descriptor: Descriptor
                if let open = port.withLock({ $0 }) { descriptor = open } else { descriptor = try reopen() }
                let done: Void? = try descriptor.use { fd throws(HardwareError) in
                    // The rest of a torn write first: these same bytes go on from where it
                    // stopped; other bytes wait until the torn line is whole.
                    if let f = finished.withLock({ $0 }), f == bytes { finished.withLock { $0 = nil }; return }
                    if let t = torn.withLock({ $0 }) {
                        torn.withLock { $0 = nil }
                        if t.bytes == bytes { return try write(bytes, from: t.sent, to: fd, descriptor) }
                        try write(t.bytes, from: t.sent, to: fd, descriptor)
                        finished.withLock { $0 = t.bytes }
                    }
                    try write(bytes, from: 0, to: fd, descriptor)
                }
                if done == nil {
                    throw HardwareError(.disconnected, operation: "write", device: path, errno: EBADF, hint: "the port was closed")
                }
            }
        }
        try outcome.get()
    }

    /// Writes `bytes` from `start`; a timeout after some of them went out leaves them as `torn`.
    private func write(_ bytes: [UInt8], from start: Int, to fd: Int32, _ descriptor: Descriptor) throws(HardwareError) {
        let timeoutMs: Int32 = {
            let c = settings.writeTimeout.components
            return Int32(c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000)
        }()
        var rest = bytes[start...]
        var waitedMs: Int32 = 0
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { sys.write(fd, $0.baseAddress, $0.count) }
            if n > 0 { rest = rest.dropFirst(n); continue }
            let code = sys.errno()
            if n < 0 && code == EINTR { continue }
            if n < 0 && code != EAGAIN {
                let kind = HardwareError.kind(forErrno: code)
                if kind == .disconnected { drop(descriptor) }
                throw HardwareError(kind, operation: "write", device: path, errno: code,
                                    hint: "\(bytes.count - rest.count) of \(bytes.count) bytes written")
            }
            // The port's buffer is full: wait for room, within the bounded time.
            guard waitedMs < timeoutMs else {
                if rest.count < bytes.count { torn.withLock { $0 = Torn(bytes: bytes, sent: bytes.count - rest.count) } }
                throw HardwareError(.timedOut, operation: "write", device: path, errno: ETIMEDOUT,
                                    hint: "\(bytes.count - rest.count) of \(bytes.count) bytes written (the rest goes out first with the next write); is the host reading (flow control)?")
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let step = min(50, timeoutMs - waitedMs)
            _ = try sys.check("poll", device: path) { sys.poll(&p, 1, step) }
            waitedMs += step
            if p.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                drop(descriptor)
                throw HardwareError(.disconnected, operation: "poll", device: path, errno: EIO,
                                    hint: "\(bytes.count - rest.count) of \(bytes.count) bytes written")
            }
        }
    }

    /// The port went away: forget `old` (if it is still the current one) and close it.
    private func drop(_ old: Descriptor) {
        port.withLock { p in if p === old { p = nil } }
        old.close()
    }

    public func received() -> AsyncStream<[UInt8]> {
        let first = reading.withLock { r -> Bool in defer { r = true }; return !r }
        if first {
            // The thread holds the port for one step at a time, never across them: when the
            // port object goes away the thread ends (a port kept alive by its own reader would
            // reopen its path for ever, and read whatever comes to be there).
            spawnThread { [weak self, wake = wake.read, continuation] in
                defer { close(wake); continuation.finish() }
                var buffer = [UInt8](repeating: 0, count: 512)
                while let port = self, port.readStep(&buffer) {}
            }
        }
        return stream
    }

    /// One step of reading what the host sends; false when the reader should end. While the
    /// port is gone (unplugged) it waits on the wake pipe only, retrying every second.
    private func readStep(_ buffer: inout [UInt8]) -> Bool {
        guard let current = port.withLock({ $0 }) else {
            var w = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            if sys.poll(&w, 1, 1000) > 0 { return false }
            _ = try? writing.withLock { _ throws(HardwareError) in if port.withLock({ $0 }) == nil { try reopen() } }
            return true
        }
        enum Next { case stop, again, gone }
        let next: Next = current.use { fd -> Next in
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let n = fds.withUnsafeMutableBufferPointer { sys.poll($0.baseAddress, 2, 1000) }
            if n < 0 && sys.errno() != EINTR { return .stop }
            if fds[1].revents != 0 { return .stop }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let got = buffer.withUnsafeMutableBytes { sys.read(fd, $0.baseAddress, $0.count) }
                if got > 0 { continuation.yield(Array(buffer[0..<got])); return .again }
                if got < 0 && (sys.errno() == EAGAIN || sys.errno() == EINTR) { return .again }
                return .gone
            }
            return fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 ? .gone : .again
        } ?? .again
        switch next {
        case .stop: return false
        case .again: return true
        case .gone: drop(current); return true // reopened by the next write or the retry above
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
