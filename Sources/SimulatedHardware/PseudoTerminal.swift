import Synchronization
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A real pseudo-terminal pair: the host end (`hostPath`, a `/dev/pts/N` any terminal program
/// opens) and scand's end, which this type owns and uses as a `SerialPort`.
public final class PseudoTerminal: SerialPort, Sendable {
    public let name: String
    /// The path of the other end, for a host program (`picocom`, `cat`, a test).
    public let hostPath: String
    private let fd: Descriptor
    private let hostFD: Descriptor
    /// Held for a whole write: writes never interleave.
    private let writing = ThreadLock()

    public init() throws(HardwareError) {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else {
            throw HardwareError(HardwareError.kind(forErrno: errno), operation: "openpty", device: "pty", errno: errno)
        }
        var raw = termios()
        tcgetattr(slave, &raw)
        cfmakeraw(&raw)
        tcsetattr(slave, TCSANOW, &raw)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        // ttyname_r, not ttyname: ttyname's one static buffer is shared by the process's
        // threads, and a pty opened on another at the same moment gave this one its path (a
        // test's daemon then wrote to another test's pty, gone by then, and heard nothing).
        var path = [CChar](repeating: 0, count: 128)
        hostPath = ttyname_r(slave, &path, path.count) == 0 ? String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/dev/pts/?"
        name = "pty \(hostPath)"
        fd = Descriptor(master)
        hostFD = Descriptor(slave) // held open so that writes never fail with EIO while no host has opened it
    }

    deinit { hangUp() }

    /// Closes scand's end: the host end hangs up, as when a USB-serial adapter is unplugged
    /// (its writes then fail with EIO and the path goes away).
    public func hangUp() {
        fd.close()
        hostFD.close()
    }

    /// Bytes the host end writes: read from scand's end on a thread blocked in poll(2).
    public func received() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let descriptor = self.fd
        let ended = Atomic<Bool>(false)
        continuation.onTermination = { _ in ended.store(true, ordering: .relaxed) }
        spawnThread {
            var buffer = [UInt8](repeating: 0, count: 512)
            reading: while !ended.load(ordering: .relaxed) {
                // Borrowed for one poll and read: a hang-up closes it in between, never under them.
                let more = descriptor.use { fd -> Bool in
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if Glibc.poll(&p, 1, 200) < 0 && errno != EINTR { return false }
                    guard p.revents & Int16(POLLIN) != 0 else { return true }
                    let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if n > 0 { continuation.yield(Array(buffer[0..<n])) }
                    return n != 0
                }
                if more != true { break reading }
            }
            continuation.finish()
        }
        return stream
    }

    /// What the host end has written so far (non-blocking; empty when nothing came).
    public func readFromHost() -> [UInt8] {
        fd.use { fd in
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n > 0 { out += buffer[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
            }
            return out
        } ?? []
    }

    public func write(_ bytes: [UInt8]) throws(HardwareError) {
        let name = self.name
        try writing.withLock { () throws(HardwareError) in
            let written: Void? = try fd.use { fd throws(HardwareError) in
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
            if written == nil {
                throw HardwareError(.disconnected, operation: "write", device: name, errno: EIO, hint: "the pty was hung up")
            }
        }
    }
}
