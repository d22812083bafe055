import Foundation
import ScanCore
import ScanHardware
import Delivery
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 41, "nothing lost": an append a full disk cuts short is cut back off the file (the
/// next line never follows a partial one), the folder is fsync'd when the file appears in it,
/// and a result held for its announcement is on disk before it is sent.
@Suite(.serialized) struct OutboxDurabilityTests {
    /// The system's calls, with a disk that can be made full (a short write, then ENOSPC) or
    /// failing (EIO on fsync), recording each fsync by what it was called on.
    final class Disk: Sendable {
        struct State { var full = false { didSet { wroteHalf = false } }; var wroteHalf = false; var failFsync = false; var folders: Set<Int32> = []; var fsyncs: [String] = [] }
        let state = Locked(State())
        var calls: OutboxCalls {
            var calls = OutboxCalls.system
            let state = self.state
            calls.open = { path, flags, mode in
                let fd = Glibc.open(path, flags, mode)
                if fd >= 0 && flags & O_DIRECTORY != 0 { state.withLock { _ = $0.folders.insert(fd) } }
                return fd
            }
            calls.write = { fd, bytes in
                // A full disk: half of the first write goes in, then nothing.
                let half = state.withLock { s -> Int? in
                    guard s.full else { return nil }
                    defer { s.wroteHalf = true }
                    return s.wroteHalf ? 0 : bytes.count / 2
                }
                guard let half else { return Glibc.write(fd, bytes.baseAddress, bytes.count) }
                guard half > 0 else { errno = ENOSPC; return -1 }
                return Glibc.write(fd, bytes.baseAddress, half)
            }
            calls.fsync = { fd in
                let folder = state.withLock { s in s.folders.contains(fd) }
                state.withLock { $0.fsyncs.append(folder ? "folder" : "file") }
                if !folder && state.withLock({ $0.failFsync }) { errno = EIO; return -1 }
                return Glibc.fsync(fd)
            }
            calls.close = { fd in
                state.withLock { _ = $0.folders.remove(fd) }
                return Glibc.close(fd)
            }
            return calls
        }
    }

    static func entry(_ seq: Int) -> Outbox.Entry { Outbox.Entry(seq: seq, bytes: Array("result \(seq)\r\n".utf8)) }

    @Test func aWriteTheDiskCutsShortIsCutBackAndTheNextLineIsWhole() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let disk = Disk()
        let box = try Outbox(path: path, calls: disk.calls)
        try box.add(Self.entry(1))
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        disk.state.withLock { $0.full = true }
        let added = try box.add(Self.entry(2))
        #expect(added.notStored?.contains("ENOSPC") == true, "\(added.notStored ?? "stored")")
        #expect(added.notStored?.contains("; the file was cut back to its \(before) bytes before the write") == true, "\(added.notStored ?? "")")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int == before, "no partial line left")
        #expect(box.notStored == 1)
        #expect(box.pending.map(\.seq) == [1, 2], "kept in memory and sent all the same")
        disk.state.withLock { $0.full = false }
        try box.add(Self.entry(3))
        // After a restart: every result the file took, none skipped as damaged.
        let reopened = try Outbox(path: path)
        #expect(reopened.problems == [])
        #expect(reopened.pending == [Self.entry(1), Self.entry(3)])
    }

    @Test func aFailedFsyncCutsTheLineBackToo() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let disk = Disk()
        let box = try Outbox(path: path, calls: disk.calls)
        try box.add(Self.entry(1))
        disk.state.withLock { $0.failFsync = true }
        let added = try box.add(Self.entry(2))
        #expect(added.notStored?.hasPrefix("fsync \(path): Input/output error (EIO)") == true && added.notStored?.contains("cut back") == true, "\(added.notStored ?? "")")
        disk.state.withLock { $0.failFsync = false }
        #expect(try Outbox(path: path).pending.map(\.seq) == [1])
    }

    @Test func theFolderIsSyncedWhenTheFileAppearsInIt() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let disk = Disk()
        // Opening compacts: a new file renamed into the folder, then the folder fsync'd.
        let box = try Outbox(path: path, calls: disk.calls)
        #expect(disk.state.withLock { $0.fsyncs } == ["file", "folder"])
        // A result: the file's fsync only.
        disk.state.withLock { $0.fsyncs = [] }
        try box.add(Self.entry(1))
        #expect(disk.state.withLock { $0.fsyncs } == ["file"])
        // The file gone (removed by hand): made again, the folder fsync'd before the result is stored in it.
        unlink(path)
        disk.state.withLock { $0.fsyncs = [] }
        try box.add(Self.entry(2))
        #expect(disk.state.withLock { $0.fsyncs } == ["folder", "file"])
        // A done mark is not fsync'd (a lost mark resends, never loses).
        disk.state.withLock { $0.fsyncs = [] }
        box.done(2)
        #expect(disk.state.withLock { $0.fsyncs } == [])
    }

    @Test func aFullDiskAtStartKeepsTheFileAndCutsATornLastLine() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".tmp") }
        try "P 1 aGk=\nP 2 ab".write(toFile: path, atomically: false, encoding: .utf8)
        let disk = Disk()
        disk.state.withLock { $0.full = true }
        let box = try Outbox(path: path, calls: disk.calls)
        #expect(box.problems.count == 1 && box.problems[0].hasPrefix("not compacted (write \(path).tmp: No space left on device (ENOSPC)")
                && box.problems[0].hasSuffix("kept as it is; its torn last line was cut off"), "\(box.problems)")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"), "the temporary file's blocks are given back")
        disk.state.withLock { $0.full = false }
        try box.add(Self.entry(3))
        #expect(try Outbox(path: path).pending.map(\.seq) == [1, 3])
    }

    @Test func aHeldResultIsOnDiskAtOnceAndSentOnlyWhenReleased() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let box = try Outbox(path: path)
        try box.add(Self.entry(1), held: true)
        #expect(box.pending.isEmpty && box.count == 1, "held: not to be sent yet")
        #expect(!box.isPending(1))
        // Killed here: the next start sends it.
        #expect(try Outbox(path: path).pending == [Self.entry(1)])
        // Released: pending, and not written a second time.
        try box.add(Self.entry(1))
        #expect(box.pending == [Self.entry(1)] && box.isPending(1))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("P 1 ") }.count == 1, "\(text)")
        box.done(1)
        #expect(!box.isPending(1), "done: an output that went through the outbox before does not send it again")
        #expect(try Outbox(path: path).pending.isEmpty)
    }
}

/// The HID keyboard output never blocks the output work for good: a host that takes no report
/// (asleep, not enumerated) fails the write after the report timeout, and the result is kept and
/// retried. (Before, the gadget's write blocked until the host polled: every result behind it
/// waited unstored, and with the watchdog pinged after the output work, systemd would restart.)
@Suite(.serialized) struct HIDWriterTests {
    /// A FIFO standing in for `/dev/hidg0`, with a reader that reads nothing: one page fits.
    static func fifo() throws -> (path: String, reader: Int32) {
        let path = temporaryPath()
        #expect(mkfifo(path, 0o600) == 0)
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(fcntl(reader, 1031 /* F_SETPIPE_SZ */, 4096) == 4096)
        return (path, reader)
    }

    @Test func aHostThatTakesNothingFailsTheWriteAfterTheTimeout() throws {
        let (path, reader) = try Self.fifo()
        defer { close(reader); unlink(path) }
        let write = Writers.hidKeyboard(path: path, layout: .us, reportTimeout: .milliseconds(300))
        let outcome = Locked<String?>(nil)
        let text = Array(String(repeating: "a", count: 400).utf8) // 800 reports of 8 bytes: twice the page
        let thread = Thread { // bounded below: the old writer blocked here for good
            do { try write(text); outcome.withLock { $0 = "written" } } catch { outcome.withLock { $0 = "\(error)" } }
        }
        thread.start()
        let end = Date().addingTimeInterval(10)
        while outcome.withLock({ $0 }) == nil && Date() < end { usleep(10_000) }
        let said = try #require(outcome.withLock { $0 }, "the write returned within 10 s")
        #expect(said.contains("\(path): the host took no report for 0.3 seconds (256 of 400 characters typed)"), "\(said)")
    }

    /// The host stops taking reports after 256 characters; when it takes them again, the retry
    /// types the other 144 (before: all 400 again, so the host got 656 characters); another
    /// text in between first finishes the torn one, and the retry then types nothing.
    @Test func typingCutShortGoesOnFromWhereItStopped() throws {
        let (path, reader) = try Self.fifo()
        defer { close(reader); unlink(path) }
        func drain() -> Int {
            var total = 0, buffer = [UInt8](repeating: 0, count: 4096)
            while true { let n = read(reader, &buffer, buffer.count); if n <= 0 { return total }; total += n }
        }
        let write = Writers.hidKeyboard(path: path, layout: .us, reportTimeout: .milliseconds(100))
        let text = Array(String(repeating: "a", count: 400).utf8)
        #expect(throws: HardwareError.self) { try write(text) }
        #expect(drain() == 256 * 2 * 8)
        try write(text) // the retry: 144 characters, which fit the emptied page
        #expect(drain() == 144 * 2 * 8, "the retry types what was left, not the whole text again")

        #expect(throws: HardwareError.self) { try write(text) } // torn again at 256
        #expect(drain() == 256 * 2 * 8)
        try write(Array("b".utf8)) // another result: the torn text is finished first
        #expect(drain() == (144 + 1) * 2 * 8)
        try write(text) // its retry: already typed whole
        #expect(drain() == 0)
        try write(Array("c".utf8))
        #expect(drain() == 2 * 8)
    }

    @Test func aHostThatReadsGetsEveryReport() throws {
        let (path, reader) = try Self.fifo()
        defer { close(reader); unlink(path) }
        let got = Locked(0)
        let done = Locked(false)
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !done.withLock({ $0 }) {
                let n = read(reader, &buffer, buffer.count)
                if n > 0 { got.withLock { $0 += n } } else { usleep(1_000) }
            }
        }
        thread.start()
        defer { done.withLock { $0 = true } }
        try Writers.hidKeyboard(path: path, layout: .us, reportTimeout: .seconds(5))(Array(String(repeating: "a", count: 400).utf8))
        let end = Date().addingTimeInterval(5)
        while got.withLock({ $0 }) < 400 * 2 * 8 && Date() < end { usleep(10_000) }
        #expect(got.withLock { $0 } == 400 * 2 * 8)
    }
}
