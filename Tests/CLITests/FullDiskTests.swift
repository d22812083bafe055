import Foundation
import SimulatedHardware
import Testing

/// Issue 41, "nothing lost" on a really full filesystem: `scand run` with its outbox on a tiny
/// tmpfs keeps reading while the disk is full, space comes back, the daemon restarts, and every
/// result it did not report as "not stored" reaches the host, in order, once. (Before, the
/// line a full disk cut short stayed in the file, the next result was glued to it, and the next
/// start skipped that result as damaged.) Needs root for `mount`; skipped without it.
@Suite(.serialized) struct FullDiskTests {
    /// The binary under test: the build's, or `SCAND_TEST_BINARY` (to run a test against an older
    /// build and see it fail).
    static let executable = ProcessInfo.processInfo.environment["SCAND_TEST_BINARY"].map { URL(fileURLWithPath: $0) } ?? Run.scand

    static var canMount: Bool {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("scand-mount-probe-\(getpid())").path
        mkdir(probe, 0o700)
        defer { rmdir(probe) }
        guard mount("tmpfs", probe, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(probe)
        return true
    }

    /// Sequence numbers in `log` lines containing `marker` followed by the number (`seq=12 `, `result 12 not stored`).
    static func numbers(in log: String, after marker: String, before end: String) -> [Int] {
        log.components(separatedBy: "\n").compactMap { line in
            guard let r = line.range(of: marker) else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber }).flatMap { n in line[r.upperBound...].contains(end) ? n : nil }
        }
    }

    /// The sequence numbers of the reads a log shows (`read SYMBOLOGY: text [... seq=N ...]`).
    static func reads(in log: String) -> [Int] {
        log.components(separatedBy: "\n").compactMap { line in
            guard line.contains(" read "), let r = line.range(of: " seq=") else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test(.enabled(if: canMount, "needs root and tmpfs"), .timeLimit(.minutes(3)))
    func everyResultStoredOnAFullDiskIsDeliveredAfterTheRestartInOrder() async throws {
        let dir = try Fixture.temporaryFolder("scand-full")
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        #expect(mount("tmpfs", state.path, "tmpfs", 0, "size=64k,mode=0700") == 0)
        defer { umount2(state.path, Int32(MNT_DETACH)); try? FileManager.default.removeItem(at: dir) }
        // A filler takes all but two pages: one for the lock file (the pid), one the outbox fills
        // with a dozen results.
        var fs = statvfs()
        statvfs(state.path, &fs)
        let filler = state.appendingPathComponent("filler")
        try Data(count: Int(fs.f_bavail) * Int(fs.f_bsize) - 2 * 4096).write(to: filler)

        let config = dir.appendingPathComponent("scand.toml")
        let status = dir.appendingPathComponent("status.json")
        try """
            hardware = "simulated"
            [camera]
            images = ["\(Fixture.path("qr.png"))", "\(Fixture.path("datamatrix.png"))"]
            frames_per_image = 3
            [scan]
            same_symbol_timeout_ms = 0
            [gpio]
            board = "simulated"
            button = { pin = "GPIO17" }
            [output.serial]
            device = "\(dir.path)/ttyUSB-unplugged"
            format = "json"
            [outbox]
            directory = "\(state.path)"
            [control]
            socket = ""
            [status]
            file = "\(status.path)"
            """.write(to: config, atomically: true, encoding: .utf8)
        func statusValue(_ key: String) -> Int {
            (FileManager.default.contents(atPath: status.path)
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?[key] as? Int) ?? 0
        }

        // Reading onto a disk that fills up, then has room again.
        let firstLog = dir.appendingPathComponent("first.log")
        let first = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin", "--press-every", "0.1"], log: firstLog,
                                            executable: Self.executable)
        #expect(await Poll.until(60) { statusValue("resultsNotStored") >= 3 }, "the disk fills")
        try FileManager.default.removeItem(at: filler)
        let readWhenFreed = Self.reads(in: try String(contentsOf: firstLog, encoding: .utf8)).max() ?? 0
        #expect(await Poll.until(60) {
            let log = (try? String(contentsOf: firstLog, encoding: .utf8)) ?? ""
            return (Self.reads(in: log).max() ?? 0) >= readWhenFreed + 6
        }, "reads go on once there is room")
        await ChildProcess.end(first)
        let log = try String(contentsOf: firstLog, encoding: .utf8)
        let read = Self.reads(in: log)
        let notStored = Set(Self.numbers(in: log, after: "result ", before: " not stored in the outbox"))
        let stored = read.filter { !notStored.contains($0) }
        #expect(!notStored.isEmpty && stored.count > notStored.count, "read \(read.count), not stored \(notStored.sorted())")
        #expect(stored.contains { $0 > notStored.max() ?? 0 }, "results stored after the disk had room again")
        #expect(log.contains("; the file was cut back to its "), "the short write is cut back, and the log says so")

        // The host is back: everything acknowledged as stored comes out, once, in order.
        let host = try PseudoTerminal()
        try? FileManager.default.removeItem(at: status)
        let secondLog = dir.appendingPathComponent("second.log")
        let second = try ChildProcess.daemon(["run", "--config", config.path, "--no-stdin",
                                              "--set", "output.serial.device=\(try Fixture.serialLink(to: host.hostPath, in: dir))"],
                                             log: secondLog, executable: Self.executable)
        var received = ""
        #expect(await Poll.until(60) {
            received += String(decoding: host.readFromHost(), as: UTF8.self)
            return FileManager.default.fileExists(atPath: status.path) && statusValue("pendingResults") == 0
        }, "the outbox is emptied")
        await ChildProcess.end(second)
        received += String(decoding: host.readFromHost(), as: UTF8.self)
        let sent = received.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seq"] as? Int
        }
        #expect(sent == stored, "each stored result once, in order (read \(read), not stored \(notStored.sorted())); missing \(Set(stored).subtracting(sent).sorted())")
        let restart = try String(contentsOf: secondLog, encoding: .utf8)
        #expect(!restart.contains("skipped"), "no damaged line: \(restart.components(separatedBy: "\n").filter { $0.contains("skipped") })")
    }
}
