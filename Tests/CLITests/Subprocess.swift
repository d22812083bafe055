import Foundation
import ScanHardware

/// Waits for what a child process does in its own time.
enum Poll {
    /// Asks `condition` every 20 ms for up to `seconds`; its last answer.
    static func until(_ seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }
}

/// Runs the built `scand` binary and collects what it prints.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
    /// What it printed on stdout, byte for byte.
    var stdoutBytes: [UInt8] = []

    /// The `scand` executable beside this test bundle in the build folder.
    static let scand: URL = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("scand")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("scand")
    }()

    /// `scand arguments`, killed if it has not ended after `limit` seconds.
    static func scand(_ arguments: [String], currentDirectory: URL? = nil, limit: Double = 600) throws -> Run {
        let process = Process()
        process.executableURL = scand
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // A command that never ends is killed after `limit` (the test then fails on its status)
        // instead of holding the suite until CI's own limit.
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
        defer { watchdog.cancel() }
        // stderr read beside stdout: a child that fills one pipe while the other is read would
        // otherwise never end.
        let errData = Locked(Data())
        let errDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = data }
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        let status = ChildProcess.waitForStatus(process)
        return Run(status: status, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self), stdoutBytes: Array(outData))
    }
}

/// Child processes the tests start (daemons, brokers, tools): started with no signal blocked,
/// waited for with a bound, ended, and their exit status read without Foundation's trap.
enum ChildProcess {
    /// Waits for `p` to end by polling (bounded to 30 s: a process that never ends fails the
    /// test that waits for it, instead of hanging the suite).
    /// (Foundation's `isRunning` can lag: a process that is gone or a zombie counts as ended.)
    static func reap(_ p: Process, seconds: Int = 30) async {
        var gone = 0
        for _ in 0..<(seconds * 100) where p.isRunning {
            if !hasEnded(p) {
                gone = 0
            } else {
                // Ended; Foundation reaps it soon (its status is read only after that).
                gone += 1
                if gone > 300 { return }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether `p` has ended, by the kernel's word: gone, or a zombie Foundation has not reaped
    /// yet (now and then it never does: its `isRunning` then stays true for good).
    static func hasEnded(_ p: Process) -> Bool {
        guard p.isRunning else { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(p.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    /// Waits for `p` to end and gives its exit status (a signal's number for a signalled end, as
    /// Foundation's `terminationStatus`). A zombie Foundation has not reaped 3 s after it ended
    /// is reaped here (`waitpid`): `waitUntilExit` would spin for ever on it.
    @discardableResult
    static func waitForStatus(_ p: Process) -> Int32 {
        var endedAt: Date?
        while p.isRunning {
            if hasEnded(p) {
                let since = endedAt ?? Date()
                endedAt = since
                var status: Int32 = 0
                if Date().timeIntervalSince(since) > 3, waitpid(p.processIdentifier, &status, WNOHANG) == p.processIdentifier {
                    return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
                }
            } else {
                endedAt = nil
            }
            usleep(5_000)
        }
        return p.terminationStatus
    }

    /// The exit status once Foundation has seen the end; nil if it has not (reading
    /// `terminationStatus` of a running process traps).
    static func exitStatus(_ p: Process) async -> Int32? {
        await reap(p)
        return p.isRunning ? nil : p.terminationStatus
    }

    /// Starts `p` with no signal blocked. (A test runner's threads block most signals, and a
    /// child inherits the mask: mosquitto would then never see its SIGTERM.)
    static func launch(_ p: Process) throws {
        var none = sigset_t(), old = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        try p.run()
    }

    /// `scand` (or `executable`) with `arguments`, its standard error written to `log` (a
    /// sanitizer's report, ThreadSanitizer's exit 66, is there too), its output discarded;
    /// started with no signal blocked.
    static func daemon(_ arguments: [String], log: URL, executable: URL = Run.scand) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try launch(process)
        return process
    }

    /// For a `deinit` (it cannot await): SIGTERM, SIGKILL if it is still there after `seconds`,
    /// then its end. (`terminate(); waitUntilExit()` waits forever for a daemon that hangs.)
    static func stop(_ p: Process, seconds: Double = 10) {
        guard p.isRunning else { return }
        kill(p.processIdentifier, SIGTERM)
        wait(p, seconds: seconds)
    }

    /// Waits up to `seconds` for `p` to end, then SIGKILLs it and waits for that; true if it
    /// ended by itself. Its status may not be read yet: `waitForStatus` gives it.
    @discardableResult
    static func wait(_ p: Process, seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !hasEnded(p) && Date() < end { usleep(10_000) }
        let byItself = hasEnded(p)
        if !byItself { kill(p.processIdentifier, SIGKILL) }
        // Not waitUntilExit: it spins for ever on a child Foundation never reaped (a zombie,
        // seen under AddressSanitizer holding the suite for 23 minutes).
        let killed = Date().addingTimeInterval(10)
        while !hasEnded(p) && Date() < killed { usleep(10_000) }
        return byItself
    }

    /// SIGTERM, and SIGKILL if it is still there after 3 s.
    static func end(_ p: Process) async {
        guard p.isRunning else { return }
        kill(p.processIdentifier, SIGTERM)
        await reap(p, seconds: 3)
        if p.isRunning { kill(p.processIdentifier, SIGKILL); await reap(p) }
    }
}
