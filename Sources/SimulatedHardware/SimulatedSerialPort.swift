import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// A serial port in memory: what scand writes goes to the trace (`serial <text>`, bytes outside
/// printable ASCII as `\xNN`) and to `written`; the host's bytes come from `hostSends`; it can
/// be unplugged (writes then fail with `.disconnected`, the received stream ends) and plugged in.
public final class SimulatedSerialPort: SerialPort, Sendable {
    public let name: String
    private let trace: Trace?
    private struct State { var written: [UInt8] = []; var unplugged = false }
    private let state = Locked(State())
    private let stream: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let writeStream: AsyncStream<[UInt8]>
    private let writeContinuation: AsyncStream<[UInt8]>.Continuation

    public init(name: String = "simulated-serial", trace: Trace? = nil) {
        self.name = name
        self.trace = trace
        (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        (writeStream, writeContinuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Every write, as it happens (one consumer): for tests that await an answer.
    public var writes: AsyncStream<[UInt8]> { writeStream }

    public func write(_ bytes: [UInt8]) throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            guard !s.unplugged else { throw HardwareError(.disconnected, operation: "write", device: name, errno: EIO) }
            s.written += bytes
            trace?.record("serial " + Self.escaped(bytes))
        }
        writeContinuation.yield(bytes)
    }

    public func received() -> AsyncStream<[UInt8]> { stream }

    /// The host sends `text` (no line ending is added).
    public func hostSends(_ text: String) { continuation.yield(Array(text.utf8)) }

    /// Everything written so far.
    public var written: [UInt8] { state.withLock { $0.written } }
    /// Everything written so far, as text.
    public var text: String { String(decoding: written, as: UTF8.self) }

    public func unplug() {
        state.withLock { $0.unplugged = true }
        continuation.finish()
    }

    public func plugIn() { state.withLock { $0.unplugged = false } }

    static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { b in
            (0x20..<0x7F).contains(b) ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16, uppercase: true).leftPadded(2)
        }.joined()
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
