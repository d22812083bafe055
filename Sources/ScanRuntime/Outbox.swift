import ScanCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where every result waits until its output confirms it: an append-only file, fsync'd on each
/// new result, so that a power cut or `kill -9` loses nothing (delivery is at least once: a
/// result written but not yet marked done is sent again after a restart).
///
/// File lines: `P <seq> <base64 of the bytes to write>` for a new result, `D <seq>` when it is
/// done (written, or acknowledged by the host with `ack = true`), `X <seq>` when the capacity
/// policy dropped it. Rewritten (compacted) when it holds many finished entries.
public final class Outbox: @unchecked Sendable {
    public struct Entry: Equatable, Sendable {
        public var seq: Int
        public var bytes: [UInt8]
        public init(seq: Int, bytes: [UInt8]) { self.seq = seq; self.bytes = bytes }
    }

    /// What happens when `capacity` results are pending and another arrives.
    public enum Policy: String, Sendable, CaseIterable {
        /// Drop the oldest pending result (logged): the newest read matters most at a kiosk.
        case dropOldest = "drop-oldest"
        /// Refuse the new one (logged): nothing already queued is lost.
        case rejectNew = "reject-new"
    }

    public let path: String?
    public let capacity: Int
    public let policy: Policy
    private struct State { var pending: [Entry] = []; var lines = 0; var maxSeq = 0 }
    private let state = Mutex(State())

    /// Opens (or creates) the outbox at `path`; nil keeps it in memory only. Entries pending in
    /// the file are pending again.
    public init(path: String?, capacity: Int = 1000, policy: Policy = .dropOldest) throws(HardwareErrorLike) {
        self.path = path
        self.capacity = max(1, capacity)
        self.policy = policy
        guard let path else { return }
        var pending: [Int: [UInt8]] = [:]
        var order: [Int] = []
        var maxSeq = 0, lines = 0
        if let text = Self.read(path) {
            // Only whole lines count: a last line without its end was torn by a crash mid-write
            // (its result was never acknowledged to anyone, so it was not yet "stored").
            var whole = text.split(separator: "\n", omittingEmptySubsequences: false)
            whole.removeLast()
            for line in whole {
                lines += 1
                let parts = line.split(separator: " ")
                guard parts.count >= 2, let seq = Int(parts[1]) else { continue } // a torn last line
                maxSeq = max(maxSeq, seq)
                switch parts[0] {
                case "P" where parts.count == 3:
                    if let bytes = Base64.decode(String(parts[2])) { pending[seq] = bytes; order.append(seq) }
                case "D", "X": pending[seq] = nil
                default: continue
                }
            }
        }
        let entries = order.compactMap { seq in pending[seq].map { Entry(seq: seq, bytes: $0) } }
        state.withLock { $0 = State(pending: entries, lines: lines, maxSeq: maxSeq) }
        try compact()
    }

    /// The highest sequence number ever stored (0 for a new outbox).
    public var maxSequence: Int { state.withLock { $0.maxSeq } }
    public var pending: [Entry] { state.withLock { $0.pending } }

    /// Stores a new result durably. Returns the entry the capacity policy dropped, if any.
    @discardableResult
    public func add(_ entry: Entry) throws(HardwareErrorLike) -> Entry? {
        var dropped: Entry?
        let full = state.withLock { $0.pending.count >= capacity }
        if full {
            if policy == .rejectNew { throw HardwareErrorLike("outbox full (\(capacity) results pending): result \(entry.seq) refused") }
            dropped = state.withLock { $0.pending.removeFirst() }
        }
        var text = "P \(entry.seq) \(PayloadText.base64(entry.bytes))\n"
        if let dropped { text = "X \(dropped.seq)\n" + text }
        try append(text, sync: true)
        state.withLock { $0.pending.append(entry); $0.maxSeq = max($0.maxSeq, entry.seq) }
        return dropped
    }

    /// Marks `seq` done (written or acknowledged).
    public func done(_ seq: Int) throws(HardwareErrorLike) {
        let had = state.withLock { s -> Bool in
            guard let i = s.pending.firstIndex(where: { $0.seq == seq }) else { return false }
            s.pending.remove(at: i)
            return true
        }
        guard had else { return }
        try append("D \(seq)\n", sync: false)
        if state.withLock({ $0.lines > 4 * capacity + 100 }) { try compact() }
    }

    private func append(_ text: String, sync: Bool) throws(HardwareErrorLike) {
        state.withLock { $0.lines += text.split(separator: "\n").count }
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HardwareErrorLike("outbox \(path): open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw HardwareErrorLike("outbox \(path): write: \(String(cString: strerror(errno)))") }
            written += n
        }
        if sync && fsync(fd) != 0 { throw HardwareErrorLike("outbox \(path): fsync: \(String(cString: strerror(errno)))") }
    }

    /// Rewrites the file with the pending entries only (a new file, fsync'd, renamed over).
    private func compact() throws(HardwareErrorLike) {
        guard let path else { return }
        let (entries, maxSeq) = state.withLock { ($0.pending, $0.maxSeq) }
        // Keep the highest sequence number even when nothing is pending.
        var text = "D \(maxSeq)\n"
        for e in entries { text += "P \(e.seq) \(PayloadText.base64(e.bytes))\n" }
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HardwareErrorLike("outbox \(tmp): open: \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard n == bytes.count, synced, rename(tmp, path) == 0 else {
            throw HardwareErrorLike("outbox \(path): compacting failed: \(String(cString: strerror(errno)))")
        }
        state.withLock { $0.lines = entries.count + 1 }
    }

    static func read(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true { let n = fread(&buffer, 1, buffer.count, f); if n <= 0 { break }; bytes += buffer[0..<n] }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// An error with a message only (outbox and output bookkeeping).
public struct HardwareErrorLike: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}

/// Base64 decoding for the outbox file.
enum Base64 {
    static func decode(_ s: String) -> [UInt8]? {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var lookup = [Int](repeating: -1, count: 256)
        for (i, c) in table.enumerated() { lookup[Int(c)] = i }
        var out: [UInt8] = []
        var acc = 0, bits = 0
        for c in s.utf8 {
            if c == UInt8(ascii: "=") { break }
            let v = lookup[Int(c)]
            guard v >= 0 else { return nil }
            acc = (acc << 6) | v
            bits += 6
            if bits >= 8 { bits -= 8; out.append(UInt8((acc >> bits) & 0xFF)) }
        }
        return out
    }
}
