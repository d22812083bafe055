import Synchronization
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A real pseudo-terminal pair: the host end (`hostPath`, a `/dev/pts/N` any terminal program
/// opens) and scand's end, which this type owns and uses as a `SerialPort`.
public final class PseudoTerminal: SerialPort, @unchecked Sendable {
    public let name: String
    /// The path of the other end, for a host program (`picocom`, `cat`, a test).
    public let hostPath: String
    private var fd: Int32
    private var hostFD: Int32

    public init() throws {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else {
            throw HardwareError(HardwareError.kind(forErrno: errno), operation: "openpty", device: "pty", errno: errno)
        }
        var raw = termios()
        tcgetattr(slave, &raw)
        cfmakeraw(&raw)
        tcsetattr(slave, TCSANOW, &raw)
        fd = master
        hostFD = slave // held open so that writes never fail with EIO while no host has opened it
        hostPath = ttyname(slave).map { String(cString: $0) } ?? "/dev/pts/?"
        name = "pty \(hostPath)"
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { hangUp() }

    /// Closes scand's end: the host end hangs up, as when a USB-serial adapter is unplugged
    /// (its writes then fail with EIO and the path goes away).
    public func hangUp() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
        if hostFD >= 0 { Glibc.close(hostFD); hostFD = -1 }
    }

    /// Bytes the host end writes: read from scand's end on a thread blocked in poll(2).
    public func received() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let fd = self.fd
        let ended = Atomic<Bool>(false)
        continuation.onTermination = { _ in ended.store(true, ordering: .relaxed) }
        spawnThread {
            var buffer = [UInt8](repeating: 0, count: 512)
            while !ended.load(ordering: .relaxed) {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if Glibc.poll(&p, 1, 200) < 0 && errno != EINTR { break }
                guard p.revents & Int16(POLLIN) != 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n > 0 { continuation.yield(Array(buffer[0..<n])) } else if n == 0 { break }
            }
            continuation.finish()
        }
        return stream
    }

    /// What the host end has written so far (non-blocking; empty when nothing came).
    public func readFromHost() -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 { out += buffer[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
        }
        return out
    }

    public func write(_ bytes: [UInt8]) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HardwareError(HardwareError.kind(forErrno: errno), operation: "write", device: name, errno: errno)
            }
            rest = rest.dropFirst(n)
        }
    }
}
