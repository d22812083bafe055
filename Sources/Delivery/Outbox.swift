import ScanCore
import ScanHardware
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where every result waits until its output confirms it: an append-only file (`OutboxLog`'s
/// format), fsync'd on each new result, so that a power cut or `kill -9` loses nothing (delivery
/// is at least once: a result written but not yet marked done is sent again after a restart).
/// Rewritten (compacted) when it holds many finished entries. An append is whole lines or
/// nothing (`OutboxFile`): a write a full disk cuts short is cut back off the file.
///
/// When the file cannot take a result (disk full, no descriptors left, permissions), the
/// result is still kept in memory and sent; `add` says so and `notStored` counts it.
///
/// A result can be stored *held* (`add(_:held:)`): on disk at once, but not handed to the
/// output until it is added again (an announcement plays first). After a restart it is an
/// ordinary pending result.
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
        /// The entries the capacity policy dropped to make room, oldest first (more than one
        /// where the outbox held more than `capacity`: a capacity lowered since they were kept).
        public var dropped: [Entry] = []
        /// Why the file did not take it (it is pending in memory all the same).
        public var notStored: String?
    }

    public let path: String?
    public let capacity: Int
    public let policy: Policy
    /// Lines of the file that were skipped when it was read (`line N: reason`), and what could
    /// not be done to the file at start.
    public let problems: [String]
    private struct State {
        var pending: [Entry] = []
        /// Stored but not to be sent yet (`add(_:held:)`).
        var held: Set<Int> = []
        var lines = 0
        var maxSeq = 0
        var notStored = 0
    }
    private let state = Locked(State())
    private let file: OutboxFile?
    /// Held for every change of the file, with the change of `state` that goes with it: a
    /// rewrite never misses an append made meanwhile, and a cut-back never cuts another's line.
    private let io = ThreadLock()

    /// Opens (or creates) the outbox at `path`; nil keeps it in memory only. Entries pending in
    /// the file are pending again; damaged lines are skipped and listed in `problems`. A file
    /// that cannot be rewritten because the disk is full is kept as it is (a torn last line cut
    /// off); other failures throw.
    public init(path: String?, capacity: Int = 1000, policy: Policy = .dropOldest, calls: OutboxCalls = .system) throws(HardwareError) {
        self.path = path
        self.capacity = max(1, capacity)
        self.policy = policy
        guard let path else { problems = []; file = nil; return }
        let file = OutboxFile(path: path, calls: calls)
        self.file = file
        let bytes = try Self.readFile(path)
        let contents = OutboxLog.parse(bytes)
        state.withLock {
            $0 = State(pending: contents.pending.map { Entry(seq: $0.seq, bytes: $0.bytes) }, lines: contents.lines, maxSeq: contents.maxSequence)
        }
        var problems = contents.problems
        let state = self.state
        if let failure = io.withLock({ Self.compact(file, state) }) {
            guard failure.errno == ENOSPC || failure.errno == EDQUOT else { throw Self.error(failure, path) }
            let keep = (bytes.lastIndex(of: 10) ?? -1) + 1
            let cut = keep < bytes.count ? file.cutTornTail(keep: keep).map { "; cutting its torn last line off failed: \($0)" } ?? "; its torn last line was cut off" : ""
            problems.append("not compacted (\(failure.reason)): kept as it is\(cut)")
        }
        self.problems = problems
    }

    /// The highest sequence number ever stored (0 for a new outbox).
    public var maxSequence: Int { state.withLock { $0.maxSeq } }
    /// The results to send, oldest first: those stored before the first held one.
    public var pending: [Entry] {
        state.withLock { s in Array(s.pending.prefix { !s.held.contains($0.seq) }) }
    }
    /// Every result kept, held ones too.
    public var count: Int { state.withLock { $0.pending.count } }
    /// Whether `seq` is kept and not held (among `pending`).
    public func isPending(_ seq: Int) -> Bool {
        state.withLock { s in !s.held.contains(seq) && s.pending.contains { $0.seq == seq } }
    }
    /// How many more results `add` takes before the `reject-new` policy refuses one; nil under
    /// `drop-oldest` (it always takes one).
    public var room: Int? { policy == .rejectNew ? max(0, capacity - count) : nil }
    /// Results the file could not take (kept in memory and sent).
    public var notStored: Int { state.withLock { $0.notStored } }

    /// Keeps a new result, durably where the file takes it. With `held`, it is not among the
    /// `pending` ones until it is added again (then without a second write). Throws only when
    /// the `reject-new` policy refuses it.
    @discardableResult
    public func add(_ entry: Entry, held: Bool = false) throws(HardwareError) -> Added {
        try io.withLock { () throws(HardwareError) -> Added in
            var added = Added()
            // A held result added again: released (it is on disk already).
            if !held, state.withLock({ $0.held.remove(entry.seq) != nil }) { return added }
            let full = state.withLock { $0.pending.count >= capacity }
            if full {
                if policy == .rejectNew {
                    throw HardwareError(.busy, operation: "add", device: "outbox \(path ?? "in memory")",
                                        summary: "outbox full (\(capacity) results pending): result \(entry.seq) refused",
                                        hint: "policy reject-new: the pending results go first")
                }
                added.dropped = state.withLock { s in
                    let gone = Array(s.pending.prefix(s.pending.count - capacity + 1))
                    s.pending.removeFirst(gone.count)
                    for e in gone { s.held.remove(e.seq) }
                    return gone
                }
            }
            let text = added.dropped.map { "X \($0.seq)\n" }.joined() + "P \(entry.seq) \(PayloadText.base64(entry.bytes))\n"
            if let problem = append(text, sync: true) {
                added.notStored = problem
                state.withLock { $0.notStored += 1 }
            }
            state.withLock {
                $0.pending.append(entry)
                if held { $0.held.insert(entry.seq) }
                $0.maxSeq = max($0.maxSeq, entry.seq)
            }
            return added
        }
    }

    /// Marks `seq` done (written or acknowledged). If the file cannot take the mark, the
    /// result is sent again after a restart (at least once), never lost.
    public func done(_ seq: Int) { finish(seq, mark: "D") }

    /// Takes `seq` out of the queue for good: its output can never carry it.
    public func park(_ seq: Int) { finish(seq, mark: "K") }

    private func finish(_ seq: Int, mark: String) {
        io.withLock {
            let had = state.withLock { s -> Bool in
                guard let i = s.pending.firstIndex(where: { $0.seq == seq }) else { return false }
                s.pending.remove(at: i)
                s.held.remove(seq)
                return true
            }
            guard had else { return }
            _ = append("\(mark) \(seq)\n", sync: false)
            if state.withLock({ $0.lines > 4 * capacity + 100 }) { _ = compactLocked() }
        }
    }

    /// Appends to the file (`io` held); nil when done, else what failed (the file then ends
    /// where it ended before).
    private func append(_ text: String, sync: Bool) -> String? {
        state.withLock { $0.lines += text.split(separator: "\n").count }
        return file?.append(Array(text.utf8), sync: sync)
    }

    private struct Failure { var reason: String; var errno: Int32 }

    /// Rewrites the file with the pending entries only (`io` held); nil when done.
    private func compactLocked() -> Failure? { Self.compact(file, state) }

    private static func compact(_ file: OutboxFile?, _ state: Locked<State>) -> Failure? {
        guard let file else { return nil }
        let (entries, maxSeq) = state.withLock { ($0.pending, $0.maxSeq) }
        // Keep the highest sequence number even when nothing is pending.
        var text = maxSeq > 0 ? "D \(maxSeq)\n" : ""
        for e in entries { text += "P \(e.seq) \(PayloadText.base64(e.bytes))\n" }
        if let failure = file.replace(with: Array(text.utf8)) { return Failure(reason: failure.reason, errno: failure.errno) }
        state.withLock { $0.lines = entries.count + 1 }
        return nil
    }

    /// The file's bytes; a missing file is an empty outbox.
    static func readFile(_ path: String) throws(HardwareError) -> [UInt8] {
        do { return try FileBytes.read(path, limit: 1 << 30) } catch {
            if error.errno == ENOENT { return [] }
            throw HardwareError(error.errno.map(HardwareError.kind(forErrno:)) ?? .invalidFormat, operation: "read", device: path,
                                errno: error.errno ?? 0, summary: "outbox \(path): \(error.reason)")
        }
    }

    /// A file the outbox could not rewrite: `outbox PATH: compacting failed: REASON`.
    private static func error(_ failure: Failure, _ path: String) -> HardwareError {
        HardwareError(HardwareError.kind(forErrno: failure.errno), operation: "write", device: path, errno: failure.errno,
                      summary: "outbox \(path): compacting failed: \(failure.reason)")
    }
}
