import Foundation
import Testing

/// Issue 41, "a watchdog that means it": `WATCHDOG=1` comes from the kiosk's own loop, after the
/// output work asked for before it, so a wedged kiosk stops pinging and systemd restarts it.
/// The wedge here is a real one: results on standard output, which nobody reads. Once the pipe
/// is full the output's write blocks; the button still beeps (the status counts the reads) but
/// no result is stored, written or logged. (Before, a service of its own pinged whenever the
/// kiosk's actor answered, which it still does: the pings went on.)
@Suite(.serialized) struct WatchdogTests {
    /// A datagram socket like systemd's notify socket, bound in `dir`.
    final class NotifySocket {
        let fd: Int32
        let path: String
        init(in dir: URL) {
            path = dir.appendingPathComponent("notify").path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        deinit { close(fd) }

        /// The messages that arrive within `seconds`.
        func messages(for seconds: Double) -> [String] {
            var messages: [String] = []
            var buffer = [UInt8](repeating: 0, count: 1024)
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
            }
            return messages
        }

        func pings(for seconds: Double) -> Int { messages(for: seconds).filter { $0 == "WATCHDOG=1" }.count }

        /// Reads what waits in the socket (until nothing comes for 50 ms).
        func drain() {
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 || (n < 0 && errno == EINTR) { continue } // EINTR: a signal, not silence
                break
            }
        }

        /// Whether a ping arrives within `seconds` (returns at the first).
        func pinged(within seconds: Double) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end { if messages(for: 0.05).contains("WATCHDOG=1") { return true } }
            return false
        }
    }

    @Test(.timeLimit(.minutes(2))) func aKioskWedgedOnItsOutputStopsPingingAndPingsAgainWhenItMoves() async throws {
        let dir = try Fixture.temporaryFolder("scand-watchdog")
        defer { try? FileManager.default.removeItem(at: dir) }
        let notify = NotifySocket(in: dir)
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
            [output.stdout]
            enabled = true
            format = "json"
            [control]
            socket = ""
            [status]
            file = "\(status.path)"
            """.write(to: config, atomically: true, encoding: .utf8)
        func goodReads() -> Int {
            (FileManager.default.contents(atPath: status.path)
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["goodReads"] as? Int) ?? 0
        }

        // Standard output: a pipe of one page that this test does not read for now.
        let out = Pipe()
        #expect(fcntl(out.fileHandleForWriting.fileDescriptor, 1031 /* F_SETPIPE_SZ */, 4096) == 4096)
        let p = Process()
        p.executableURL = FullDiskTests.executable
        p.arguments = ["run", "--config", config.path, "--no-stdin", "--press-every", "0.5"]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        env["WATCHDOG_USEC"] = "400000" // a ping every 200 ms
        env.removeValue(forKey: "JOURNAL_STREAM")
        p.environment = env
        p.standardOutput = out
        FileManager.default.createFile(atPath: dir.appendingPathComponent("log").path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: dir.appendingPathComponent("log"))
        try ChildProcess.launch(p)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }

        // Pinged while results flow; the pipe (4 KiB, results of about 330 bytes) is full after a
        // dozen of them (6 s of presses).
        #expect(notify.pinged(within: 5), "pinged at first")
        #expect(await Poll.until(60) { goodReads() >= 20 }, "reads go on")
        // Wedged: the kiosk still reads (the status counts them) but pings no more.
        let before = goodReads()
        notify.drain() // the pings sent while the test waited
        let wedged = notify.pings(for: 3)
        #expect(wedged == 0, "\(wedged) pings while the output is stuck")
        #expect(goodReads() > before, "the kiosk loop itself still runs: only the output is stuck")
        // The host reads again: the queue moves, the pings come back.
        let reader = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }
        #expect(notify.pinged(within: 5))
        notify.drain() // the pings that waited behind the stuck write
        #expect(notify.pings(for: 3) >= 3, "pinged again once the output moves")
        await ChildProcess.end(p)
        _ = await reader.value
        #expect(ChildProcess.waitForStatus(p) == 0)
    }
}
