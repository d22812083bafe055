import ScanCore
import ScanHardware
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where every result waits until its output confirms it: an append-only file (`OutboxLog`'s
/// format), fsync'd on each new result, so that a power cut or `kill -9` loses nothing (delivery
/// is at least once: a result written but not yet marked done is sent again after a restart).
/// Rewritten (compacted) when it holds many finished entries.
///
/// When the file cannot take a result (disk full, no descriptors left, permissions), the
/// result is still kept in memory and sent; `add` says so and `notStored` counts it.
public final class Outbox: Sendable {
    public struct Entry: Equatable, Sendable {
        public var seq: Int
        public var bytes: [UInt8]
        public init(seq: Int, bytes: [UInt8]) { self.seq = seq; self.bytes = bytes }
    }

    /// What happens when `capacity` results are pending and another arrives.
    public typealias Policy = OutboxPolicy

    /// What became of a new result.
    public struct Added: Sendable {
        /// The entry the capacity policy dropped to make room.
        public var dropped: Entry?
        /// Why the file did not take it (it is pending in memory all the same).
        public var notStored: String?
    }

    public let path: String?
    public let capacity: Int
    public let policy: Policy
    /// Lines of the file that were skipped when it was read (`line N: reason`).
    public let problems: [String]
    private struct State { var pending: [Entry] = []; var lines = 0; var maxSeq = 0; var notStored = 0 }
    private let state = Locked(State())

    /// Opens (or creates) the outbox at `path`; nil keeps it in memory only. Entries pending in
    /// the file are pending again; damaged lines are skipped and listed in `problems`.
    public init(path: String?, capacity: Int = 1000, policy: Policy = .dropOldest) throws(HardwareError) {
        self.path = path
        self.capacity = max(1, capacity)
        self.policy = policy
        guard let path else { problems = []; return }
        let contents = OutboxLog.parse(try Self.readFile(path))
        problems = contents.problems
        state.withLock {
            $0 = State(pending: contents.pending.map { Entry(seq: $0.seq, bytes: $0.bytes) }, lines: contents.lines, maxSeq: contents.maxSequence)
        }
        try compact()
    }

    /// The highest sequence number ever stored (0 for a new outbox).
    public var maxSequence: Int { state.withLock { $0.maxSeq } }
    public var pending: [Entry] { state.withLock { $0.pending } }
    /// Results the file could not take (kept in memory and sent).
    public var notStored: Int { state.withLock { $0.notStored } }

    /// Keeps a new result, durably where the file takes it. Throws only when the `reject-new`
    /// policy refuses it.
    @discardableResult
    public func add(_ entry: Entry) throws(HardwareError) -> Added {
        var added = Added()
        let full = state.withLock { $0.pending.count >= capacity }
        if full {
            if policy == .rejectNew {
                throw HardwareError(.busy, operation: "add", device: "outbox \(path ?? "in memory")",
                                    summary: "outbox full (\(capacity) results pending): result \(entry.seq) refused",
                                    hint: "policy reject-new: the pending results go first")
            }
            added.dropped = state.withLock { $0.pending.removeFirst() }
        }
        var text = "P \(entry.seq) \(PayloadText.base64(entry.bytes))\n"
        if let dropped = added.dropped { text = "X \(dropped.seq)\n" + text }
        if let problem = append(text, sync: true) {
            added.notStored = problem
            state.withLock { $0.notStored += 1 }
        }
        state.withLock { $0.pending.append(entry); $0.maxSeq = max($0.maxSeq, entry.seq) }
        return added
    }

    /// Marks `seq` done (written or acknowledged). If the file cannot take the mark, the
    /// result is sent again after a restart (at least once), never lost.
    public func done(_ seq: Int) { finish(seq, mark: "D") }

    /// Takes `seq` out of the queue for good: its output can never carry it.
    public func park(_ seq: Int) { finish(seq, mark: "K") }

    private func finish(_ seq: Int, mark: String) {
        let had = state.withLock { s -> Bool in
            guard let i = s.pending.firstIndex(where: { $0.seq == seq }) else { return false }
            s.pending.remove(at: i)
            return true
        }
        guard had else { return }
        _ = append("\(mark) \(seq)\n", sync: false)
        if state.withLock({ $0.lines > 4 * capacity + 100 }) { try? compact() }
    }

    /// Appends to the file; nil when done, else what failed.
    private func append(_ text: String, sync: Bool) -> String? {
        state.withLock { $0.lines += text.split(separator: "\n").count }
        guard let path else { return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "open \(path): \(ErrnoName.describe(errno))" }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return "write \(path): \(ErrnoName.describe(errno))" }
            written += n
        }
        if sync && fsync(fd) != 0 { return "fsync \(path): \(ErrnoName.describe(errno))" }
        return nil
    }

    /// Rewrites the file with the pending entries only (a new file, fsync'd, renamed over).
    private func compact() throws(HardwareError) {
        guard let path else { return }
        let (entries, maxSeq) = state.withLock { ($0.pending, $0.maxSeq) }
        // Keep the highest sequence number even when nothing is pending.
        var text = maxSeq > 0 ? "D \(maxSeq)\n" : ""
        for e in entries { text += "P \(e.seq) \(PayloadText.base64(e.bytes))\n" }
        do { try FileBytes.writeAtomically(Array(text.utf8), to: path, sync: true, mode: 0o600) } catch {
            throw Self.failure(error, "write", path, "compacting failed: ")
        }
        state.withLock { $0.lines = entries.count + 1 }
    }

    /// The file's bytes; a missing file is an empty outbox.
    static func readFile(_ path: String) throws(HardwareError) -> [UInt8] {
        do { return try FileBytes.read(path, limit: 1 << 30) } catch {
            if error.errno == ENOENT { return [] }
            throw failure(error, "read", path, "")
        }
    }

    /// A file the outbox could not read or write: `outbox PATH: compacting failed: REASON (write: EACCES)`.
    private static func failure(_ error: FileBytes.Failure, _ operation: String, _ path: String, _ doing: String) -> HardwareError {
        HardwareError(error.errno.map(HardwareError.kind(forErrno:)) ?? .invalidFormat, operation: operation, device: path,
                      errno: error.errno ?? 0, summary: "outbox \(path): \(doing)\(error.reason)")
    }
}
