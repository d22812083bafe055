import Foundation
import SimulatedHardware
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The setup page as a hostile client or a hostile web page meets it (issue 41, items 1, 2, 6,
/// 8 and 9's refused body), against the built `scand run` on simulated hardware with the page
/// on loopback. `SCAND_WEB_BINARY` runs them against another binary (an old one, to see them
/// fail there).
@Suite(.serialized) struct WebDoorTests {
    /// A daemon whose camera shows a Code 128 (a TRIGGER reads it), its serial port a pty the
    /// test holds, the page on 127.0.0.1 and the control socket.
    final class Daemon {
        let dir: URL
        let host: PseudoTerminal
        let process = Process()
        let log: URL
        let port: UInt16

        /// `maxFiles`: run under `prlimit --nofile` (to meet EMFILE).
        /// `images`: the camera's images (a file or a folder; default: a Code 128).
        init(maxFiles: Int? = nil, images: String? = nil, extra: String = "", pressEvery: Double? = nil) throws {
            dir = try Fixture.temporaryFolder("scand-webdoor")
            host = try PseudoTerminal()
            port = try SetupPageTests.freePort()
            log = dir.appendingPathComponent("log.txt")
            try SetupPageTests.config(in: dir, serial: try Fixture.serialLink(to: host.hostPath, in: dir), images: images, extra: """
                [web]
                listen = "127.0.0.1:\(port)"
                \(extra)
                """).write(to: dir.appendingPathComponent("scand.toml"), atomically: true, encoding: .utf8)
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let binary = ProcessInfo.processInfo.environment["SCAND_WEB_BINARY"] ?? Run.scand.path
            let command = (maxFiles.map { ["/usr/bin/prlimit", "--nofile=\($0)"] } ?? [])
                + [binary, "run", "--config", dir.appendingPathComponent("scand.toml").path, "--no-stdin"]
                + (pressEvery.map { ["--press-every", "\($0)"] } ?? [])
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$@\" 2>>\"$SCAND_TEST_LOG\"", "sh"] + command
            var environment = ProcessInfo.processInfo.environment
            environment["SCAND_TEST_LOG"] = log.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try ChildProcess.launch(process)
        }

        deinit {
            ChildProcess.stop(process)
            try? FileManager.default.removeItem(at: dir)
        }

        var pid: Int32 { process.processIdentifier }

        /// SIGTERM: the daemon ends within 15 s with status 0, its log holds no error, and its
        /// last line says it stopped.
        func stopsCleanly(round: Int) async {
            kill(pid, SIGTERM)
            #expect(await Poll.until(15) { !process.isRunning }, "round \(round): still running 15 s after SIGTERM")
            #expect(process.terminationReason == .exit && process.terminationStatus == 0, "round \(round): \(process.terminationStatus)")
            let log = logText
            #expect(!log.contains("ERROR") && !log.contains("Cannot schedule") && !log.contains(" error "), "round \(round):\n\(log)")
            #expect(log.split(separator: "\n").last?.hasSuffix("scand stopped") == true, "round \(round):\n\(log)")
        }
        var logText: String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }

        func ready() async -> Bool {
            guard await Poll.until(30, { logText.contains("scand started") }) else { return false }
            return await Poll.until(20) { (try? SetupPageTests.get(port, "/api/status"))?.status == 200 }
        }

        /// CPU time (user + system) the daemon used so far, in seconds.
        var cpuSeconds: Double {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return 0 }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        /// Resident memory now, in kB.
        var rssKB: Int {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        var descriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0 }

        /// A TRIGGER on the serial port is answered and the code read within `seconds`.
        func reads(within seconds: Double = 15) async throws -> Bool {
            _ = host.readFromHost()
            try host.write(Array("TRIGGER\r\n".utf8))
            var got = ""
            return await Poll.until(seconds) {
                got += String(decoding: host.readFromHost(), as: UTF8.self)
                return got.contains("1BjnpEv")
            }
        }

        /// Reads appear on the serial port within `seconds` without a TRIGGER.
        func readsByItself(within seconds: Double) async -> Bool {
            _ = host.readFromHost()
            var got = ""
            return await Poll.until(seconds) {
                got += String(decoding: host.readFromHost(), as: UTF8.self)
                return got.contains("1BjnpEv")
            }
        }
    }

    /// Sends `bytes` on `fd` as far as the peer takes them within `seconds` (it may close first).
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], seconds: Double) async -> Int {
        var sent = 0
        let end = Date().addingTimeInterval(seconds)
        while sent < bytes.count && Date() < end {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, min($0.count, 65536), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return sent
    }

    /// What `fd` received so far without waiting; `closed`: the peer ended the connection.
    static func drain(_ fd: Int32) -> (bytes: [UInt8], closed: Bool) {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { out += buffer[0..<n]; continue }
            if n == 0 { return (out, true) }
            return (out, errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        }
    }

    /// Waits up to `seconds` for `fd`'s answer to end (the peer closes) and returns it.
    static func answer(_ fd: Int32, within seconds: Double = 10) async -> String {
        var got: [UInt8] = []
        _ = await Poll.until(seconds) {
            let (bytes, closed) = drain(fd)
            got += bytes
            return closed
        }
        return String(decoding: got, as: UTF8.self)
    }

    static func host(_ port: UInt16) -> String { "Host: 127.0.0.1:\(port)\r\n" }

    // MARK: - Item 1: the head's size, count and CPU

    /// Two unterminated 512 KiB header lines at once: refused at 8 KiB (431), little CPU, and
    /// the kiosk reads on. (FlyingFox re-scanned the line per byte: minutes of CPU, no reads.)
    @Test func twoHugeHeaderLinesCostLittleAndTheKioskReadsOn() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        guard let a = SetupPageTests.connectTCP(d.port), let b = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); return }
        defer { close(a); close(b) }
        let line = Array("GET / HTTP/1.1\r\n\(Self.host(d.port))X-Long: ".utf8) + [UInt8](repeating: 0x61, count: 512 * 1024)
        let cpu = d.cpuSeconds
        async let sentA = Self.sendAll(a, line, seconds: 15)
        async let sentB = Self.sendAll(b, line, seconds: 15)
        _ = await (sentA, sentB)
        let answerA = await Self.answer(a, within: 5)
        #expect(answerA.hasPrefix("HTTP/1.1 431") && answerA.contains("ERR 431"), "\(answerA.prefix(200))")
        // The kiosk still reads, and the attack cost little CPU (FlyingFox: minutes).
        #expect(try await d.reads(within: 15), "a TRIGGER is read while the lines come")
        let used = d.cpuSeconds - cpu
        #expect(used < 5, "the daemon spent \(used) s of CPU on two 512 KiB header lines")
        #expect((try? SetupPageTests.get(d.port, "/api/status"))?.status == 200)
    }

    /// A million header lines: refused after 100 (431), memory flat.
    @Test func aHeaderFloodIsRefusedAndMemoryStaysFlat() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        let before = d.rssKB
        guard let fd = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); return }
        defer { close(fd) }
        var flood = Array("GET / HTTP/1.1\r\n\(Self.host(d.port))".utf8)
        flood.reserveCapacity(13_000_000)
        for i in 0..<1_000_000 { flood += Array("h\(i): b\r\n".utf8) } // distinct names: none replaces another
        let sent = await Self.sendAll(fd, flood, seconds: 20)
        let answer = await Self.answer(fd, within: 5)
        let grown = d.rssKB - before
        #expect(answer.hasPrefix("HTTP/1.1 431") && answer.contains("more than 100 header lines"), "\(answer.prefix(200)) (sent \(sent) bytes)")
        #expect(grown < 20_000, "RSS grew by \(grown) kB")
        #expect((try? SetupPageTests.get(d.port, "/api/status"))?.status == 200)
    }

    // MARK: - Item 2: deadlines, the connection cap, EMFILE

    /// 200 connections that send half a head and wait: the 33rd on are answered 503 at once,
    /// the first 32 get 408 at the request deadline; then the page is served again.
    @Test func halfOpenConnectionsAreClosedByTheDeadline() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<200 {
            guard let fd = SetupPageTests.connectTCP(d.port) else { continue }
            _ = await Self.sendAll(fd, Array("GET /api/status HTTP/1.1\r\nHost: 127".utf8), seconds: 1)
            fds.append(fd)
        }
        #expect(fds.count == 200)
        var answers = [String](repeating: "", count: fds.count)
        var closed = Set<Int>()
        _ = await Poll.until(20) {
            for (i, fd) in fds.enumerated() where !closed.contains(i) {
                let (bytes, end) = Self.drain(fd)
                answers[i] += String(decoding: bytes, as: UTF8.self)
                if end { closed.insert(i) }
            }
            return closed.count == fds.count
        }
        #expect(closed.count == fds.count, "\(fds.count - closed.count) half-open connections still held after 20 s")
        let timedOut = answers.count { $0.hasPrefix("HTTP/1.1 408") && $0.contains("ERR 408") }
        let refused = answers.count { $0.hasPrefix("HTTP/1.1 503") && $0.contains("ERR 503") }
        #expect(timedOut >= 1 && timedOut <= 32 && timedOut + refused == fds.count, "408: \(timedOut), 503: \(refused)")
        // Served at once (the closed connections no longer count), while the test still holds them.
        #expect((try? SetupPageTests.get(d.port, "/api/status"))?.status == 200, "the page is served after")
    }

    /// 32 connections that say nothing: the 33rd is answered 503 and closed at once; when they
    /// go, the page answers again.
    @Test func theThirtyThirdConnectionIsAnswered503() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        try await Task.sleep(for: .milliseconds(500)) // the readiness probes' connections end
        var idle: [Int32] = []
        for _ in 0..<32 { if let fd = SetupPageTests.connectTCP(d.port) { idle.append(fd) } }
        try await Task.sleep(for: .milliseconds(300))
        let extra = try SetupPageTests.get(d.port, "/api/status")
        #expect(extra.status == 503 && extra.text.hasPrefix("ERR 503"), "\(extra.status) \(extra.text)")
        for fd in idle { close(fd) }
        #expect(await Poll.until(5) { (try? SetupPageTests.get(d.port, "/api/status"))?.status == 200 })
    }

    /// At the descriptor limit `accept` fails; the page pauses and listens again once
    /// descriptors free up (FlyingFox's accept loop ended for good), without spinning.
    @Test func atTheDescriptorLimitThePageListensAgainLater() async throws {
        let d = try Daemon(maxFiles: 64)
        #expect(await d.ready(), "\(d.logText)")
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<90 {
            guard let fd = SetupPageTests.connectTCP(d.port) else { continue }
            fds.append(fd)
        }
        // The daemon reaches its limit (connections wait in the listen queue).
        let full = await Poll.until(10) { d.descriptors >= 62 }
        #expect(full, "the daemon holds \(d.descriptors) descriptors")
        let cpu = d.cpuSeconds
        try await Task.sleep(for: .seconds(3))
        let used = d.cpuSeconds - cpu
        #expect(used < 1.5, "at EMFILE the daemon spent \(used) s of CPU in 3 s (spinning on accept?)")
        for fd in fds { close(fd) }
        fds = []
        let back = await Poll.until(15) { (try? SetupPageTests.get(d.port, "/api/status"))?.status == 200 }
        #expect(back, "the page listens again after descriptors free up: \(d.logText.suffix(600))")
        #expect(d.process.isRunning)
    }

    // MARK: - Item 6: other sites' pages

    /// A cross-site form's `text/plain` POST of `SET scan.trigger=continuous` is refused and not
    /// applied; the same from the page itself is.
    @Test func aCrossSitePostIsRefusedAndNotApplied() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        let body = Array("SET scan.trigger=continuous".utf8)
        for headers in ["Origin: http://evil.example\r\nContent-Type: text/plain\r\n",
                        "Origin: null\r\nContent-Type: text/plain\r\n",
                        "Referer: http://evil.example/attack.html\r\nContent-Type: text/plain\r\n"] {
            let answer = try SetupPageTests.post(d.port, "/api/command", body, headers: headers)
            #expect(answer.status == 403 && answer.text.hasPrefix("ERR 403"), "\(headers): \(answer.status) \(answer.text)")
        }
        #expect(!(await d.readsByItself(within: 4)), "continuous trigger applied by a foreign page")
        // The page itself (its own origin) may.
        let own = try SetupPageTests.post(d.port, "/api/command", body, headers: "Origin: http://127.0.0.1:\(d.port)\r\n")
        #expect(own.status == 200 && own.text.hasPrefix("OK"), "\(own.status) \(own.text)")
        #expect(await d.readsByItself(within: 15), "applied from the page itself")
    }

    /// DNS rebinding: a request naming another host is refused for the results and the
    /// snapshot (and everything else).
    @Test func aForeignHostIsRefused() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        for path in ["/api/results", "/snapshot.png", "/api/status", "/"] {
            let answer = try SetupPageTests.http(port: d.port, "GET \(path) HTTP/1.1\r\nHost: evil.example:\(d.port)\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 421 && answer.text.hasPrefix("ERR 421"), "\(path): \(answer.status) \(answer.text.prefix(100))")
        }
        let own = try SetupPageTests.http(port: d.port, "GET /api/results HTTP/1.1\r\nHost: localhost:\(d.port)\r\nConnection: close\r\n\r\n")
        #expect(own.status == 200, "localhost names the loopback listener too")
        let garbage = try SetupPageTests.http(port: d.port, "HELLO THERE\r\n\r\n")
        #expect(garbage.status == 400 && garbage.text.hasPrefix("ERR 400"), "every error answer starts with ERR: \(garbage.status) \(garbage.text)")
        // A request typed by hand with bare LFs is told what HTTP wants.
        for request in ["GET /api/status HTTP/1.1\nHost: localhost:\(d.port)\n\n", "GET /api/status HTTP/1.1\r\nHost: localhost:\(d.port)\n\r\n",
                        "GET /api/status HTTP/1.1\r\nHost: localhost:\(d.port)\r\n\n"] {
            let bareLF = try SetupPageTests.http(port: d.port, request)
            #expect(bareLF.status == 400 && bareLF.text.contains("CR LF (\\r\\n)") && !bareLF.text.contains("invalid HTTP version"),
                    "\(request.debugDescription): \(bareLF.status) \(bareLF.text)")
        }
        // A command POSTed without Content-Length is told to send one (not "empty command", its
        // body then read as a second request).
        let noLength = try SetupPageTests.http(port: d.port, "POST /api/command HTTP/1.1\r\nHost: localhost:\(d.port)\r\n\r\nTRIGGER\r\n")
        #expect(noLength.status == 411 && noLength.text.contains("needs Content-Length") && noLength.text.contains("curl --data"),
                "\(noLength.status) \(noLength.text)")
        // An HTTP/2 client is told no parser state.
        let h2 = try SetupPageTests.http(port: d.port, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        #expect(h2.status == 400 && h2.text == "ERR 400: not an HTTP/1.1 request\n", "\(h2.status) \(h2.text)")
        // Clients that reset their connection mid-request or after sending too much: closed, the daemon serves on.
        for request in ["GET /api/status HTTP/1.1\r\nHo", "GET / HTTP/1.1\r\n\(Self.host(d.port))" + String(repeating: "a: b\r\n", count: 200)] {
            guard let fd = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); continue }
            _ = await Self.sendAll(fd, Array(request.utf8), seconds: 2)
            try await Task.sleep(for: .milliseconds(100))
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            close(fd)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(d.process.isRunning && (try? SetupPageTests.get(d.port, "/api/status"))?.status == 200, "\(d.logText.suffix(800))")
    }

    /// A 404 keeps its connection (the next request on it is answered); a request refused as
    /// malformed or for its Host ends it, as nginx has it: the answer says `Connection: close`
    /// and the daemon closes.
    @Test func aRefusedRequestEndsItsConnectionAndA404KeepsIt() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        guard let fd = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); return }
        defer { close(fd) }
        func exchange(_ request: String) async -> (text: String, closed: Bool) {
            _ = await Self.sendAll(fd, Array(request.utf8), seconds: 2)
            var got: [UInt8] = []
            var closed = false
            _ = await Poll.until(5) {
                let (bytes, end) = Self.drain(fd)
                got += bytes
                closed = end
                return end || String(decoding: got, as: UTF8.self).contains("\r\n\r\nERR") || String(decoding: got, as: UTF8.self).contains("\"phase\"")
            }
            try? await Task.sleep(for: .milliseconds(200))
            let (rest, end) = Self.drain(fd)
            return (String(decoding: got + rest, as: UTF8.self), closed || end)
        }
        let missing = await exchange("GET /no-such-page HTTP/1.1\r\n\(Self.host(d.port))\r\n")
        #expect(missing.text.hasPrefix("HTTP/1.1 404") && !missing.closed && !missing.text.lowercased().contains("connection: close"), "\(missing)")
        let status = await exchange("GET /api/status HTTP/1.1\r\n\(Self.host(d.port))\r\n")
        #expect(status.text.hasPrefix("HTTP/1.1 200") && !status.closed, "the connection served on after the 404: \(status.text.prefix(200))")
        let noHost = await exchange("GET /api/status HTTP/1.1\r\n\r\n")
        #expect(noHost.text.hasPrefix("HTTP/1.1 400") && noHost.text.lowercased().contains("connection: close") && noHost.closed, "\(noHost)")
        guard let other = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); return }
        defer { close(other) }
        _ = await Self.sendAll(other, Array("GET / HTTP/1.1\r\nHost: evil.example:\(d.port)\r\n\r\n".utf8), seconds: 2)
        let foreign = await Self.answer(other, within: 5)
        #expect(foreign.hasPrefix("HTTP/1.1 421") && foreign.lowercased().contains("connection: close"), "closed after the answer: \(foreign.prefix(300))")
    }

    // MARK: - Item 8: stalled viewers

    /// 600 preview viewers that never read: memory stays bounded (8 watch, the rest are
    /// answered 503), and comes back when they leave.
    @Test func stalledPreviewViewersKeepMemoryBounded() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        let before = d.rssKB
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<600 {
            guard let fd = SetupPageTests.connectTCP(d.port, receiveBuffer: 1024) else { continue }
            _ = await Self.sendAll(fd, Array("GET /preview.mjpeg HTTP/1.1\r\n\(Self.host(d.port))\r\n".utf8), seconds: 1)
            fds.append(fd)
        }
        #expect(fds.count >= 500, "\(fds.count) viewers connected")
        try await Task.sleep(for: .seconds(10))
        let during = d.rssKB
        var refused = 0
        for fd in fds {
            let head = String(decoding: Self.drain(fd).bytes.prefix(300), as: UTF8.self)
            if head.hasPrefix("HTTP/1.1 503") && head.contains("ERR 503") { refused += 1 }
        }
        #expect(during - before < 40_000, "600 stalled viewers: RSS \(before) -> \(during) kB")
        #expect(refused >= fds.count - 32, "\(refused) of \(fds.count) answered 503")
        #expect(try await d.reads(within: 15), "the kiosk reads while viewers stall")
        for fd in fds { close(fd) }
        fds = []
        try await Task.sleep(for: .seconds(5))
        let after = d.rssKB
        #expect(after - before < 30_000, "after the viewers left: RSS \(before) -> \(after) kB")
        #expect((try? SetupPageTests.get(d.port, "/api/status"))?.status == 200)
    }

    /// The ninth preview viewer is answered 503 and its connection closed (it kept its slot
    /// open until the 30 s idle cut, so refused viewers filled the connection cap).
    @Test func theNinthPreviewViewerIsRefusedAndClosed() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<8 {
            guard let fd = SetupPageTests.connectTCP(d.port, receiveBuffer: 1024) else { continue }
            _ = await Self.sendAll(fd, Array("GET /preview.mjpeg HTTP/1.1\r\n\(Self.host(d.port))\r\n".utf8), seconds: 1)
            fds.append(fd)
        }
        try await Task.sleep(for: .seconds(1))
        guard let ninth = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); return }
        defer { close(ninth) }
        _ = await Self.sendAll(ninth, Array("GET /preview.mjpeg HTTP/1.1\r\n\(Self.host(d.port))\r\n".utf8), seconds: 1)
        let answer = await Self.answer(ninth, within: 5) // returns when the daemon closes it
        #expect(answer.hasPrefix("HTTP/1.1 503") && answer.contains("ERR 503: 8 pages already watch the preview"), "\(answer.prefix(300))")
        #expect(answer.lowercased().contains("connection: close"), "\(answer.prefix(300))")
        #expect(Self.drain(ninth).closed, "the refused viewer's connection is closed")
    }

    // MARK: - Item 9: a refused body is not the next request

    /// A body over 4 KiB is refused (413) and the connection closed: a request hidden in it is
    /// never parsed (FlyingFox answered 413 and then read the body as the next request).
    @Test func aRefusedBodyIsNotParsedAsTheNextRequest() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        guard let fd = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); return }
        defer { close(fd) }
        let hidden = Array("POST /api/command HTTP/1.1\r\n\(Self.host(d.port))Content-Length: 7\r\n\r\nTRIGGER".utf8)
        let body = hidden + [UInt8](repeating: 0x0A, count: 5000 - hidden.count)
        let request = Array("POST /api/command HTTP/1.1\r\n\(Self.host(d.port))Content-Length: \(body.count)\r\n\r\n".utf8) + body
        _ = await Self.sendAll(fd, request, seconds: 5)
        var answer = ""
        let closed = await Poll.until(10) {
            let (bytes, end) = Self.drain(fd)
            answer += String(decoding: bytes, as: UTF8.self)
            return end
        }
        #expect(answer.hasPrefix("HTTP/1.1 413") && answer.contains("ERR 413"), "\(answer.prefix(300))")
        #expect(closed, "the connection is closed after a refused body, never read on")
        #expect(answer.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer only: \(answer)")
        #expect(!answer.contains("OK TRIGGER"))
        #expect(!(await d.readsByItself(within: 3)), "the hidden TRIGGER was carried out")
    }

    // MARK: - Pipelined requests

    /// Clients that pipeline requests and never read the answers (a tryout of stop 61's binary:
    /// one such connection grew the daemon from 40 MB to 1,087 MB in 10 s, four on /metrics to
    /// 1.95 GB, and the memory stayed): the page reads a connection no further while its answers
    /// wait, so memory stays bounded, and the kiosk reads on. A client that reads gets every
    /// pipelined answer, in order.
    @Test func pipelinedRequestsNeverReadCostBoundedMemory() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        guard let reader = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); return }
        let ten = Array(String(repeating: "GET /api/status HTTP/1.1\r\n\(Self.host(d.port))\r\n", count: 9).utf8)
            + Array("GET /api/status HTTP/1.1\r\n\(Self.host(d.port))Connection: close\r\n\r\n".utf8)
        _ = await Self.sendAll(reader, ten, seconds: 5)
        let answers = await Self.answer(reader, within: 10)
        close(reader)
        #expect(answers.components(separatedBy: "HTTP/1.1 200").count == 11, "ten answers: \(answers.prefix(300))")
        let before = d.rssKB
        let flooders = (0..<4).compactMap { _ in SetupPageTests.connectTCP(d.port) }
        defer { flooders.forEach { close($0) } }
        #expect(flooders.count == 4)
        let requests = Array(String(repeating: "GET /metrics HTTP/1.1\r\n\(Self.host(d.port))\r\n", count: 200).utf8)
            + Array(String(repeating: "GET / HTTP/1.1\r\n\(Self.host(d.port))\r\n", count: 200).utf8)
        let end = Date().addingTimeInterval(8)
        var sent = 0
        while Date() < end {
            for fd in flooders {
                let n = requests.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if n > 0 { sent += n }
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        let during = d.rssKB
        #expect(during - before < 60_000, "4 clients that never read (\(sent) bytes of requests): RSS \(before) -> \(during) kB")
        #expect(try await d.reads(within: 15), "a TRIGGER is read beside them")
        #expect((try? SetupPageTests.get(d.port, "/api/status"))?.status == 200)
    }

    /// A request the guard refuses (no Content-Length, a header over the limit, a body too
    /// large) behind pipelined ones: those before it are answered, in order, and carried out,
    /// then the refusal (a tryout: the refusal alone came back, and a TRIGGER before a header
    /// of 9,000 bytes ran unanswered, so that a client would send it again).
    @Test func aRefusalComesAfterTheAnswersBeforeIt() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        let version = "POST /api/command HTTP/1.1\r\n\(Self.host(d.port))Content-Length: 7\r\n\r\nVERSION"
        let refused = [
            ("POST /api/command HTTP/1.1\r\n\(Self.host(d.port))\r\n", "HTTP/1.1 411"),
            ("POST /api/command HTTP/1.1\r\n\(Self.host(d.port))Content-Length: 9999\r\n\r\n", "HTTP/1.1 413"),
            ("GET /x HTTP/1.1\r\n\(Self.host(d.port))X-Long: \(String(repeating: "a", count: 9000))\r\n\r\n", "HTTP/1.1 431"),
        ]
        for (bad, status) in refused {
            for split in [false, true] {
                guard let fd = SetupPageTests.connectTCP(d.port) else { Issue.record("no connection"); continue }
                let first = "GET /api/status HTTP/1.1\r\n\(Self.host(d.port))\r\n" + version
                // In one write, or the refused one after the answers have begun to leave.
                if split {
                    _ = await Self.sendAll(fd, Array(first.utf8), seconds: 2)
                    try await Task.sleep(for: .milliseconds(200))
                    _ = await Self.sendAll(fd, Array(bad.utf8), seconds: 2)
                } else {
                    _ = await Self.sendAll(fd, Array((first + bad).utf8), seconds: 2)
                }
                let answers = await Self.answer(fd, within: 10)
                close(fd)
                let statusAt = answers.range(of: "HTTP/1.1 200")?.lowerBound, versionAt = answers.range(of: "OK VERSION")?.lowerBound
                let refusalAt = answers.range(of: status)?.lowerBound
                #expect(statusAt != nil && versionAt != nil && refusalAt != nil && statusAt! < versionAt! && versionAt! < refusalAt!,
                        "\(status), split \(split): \(answers.prefix(600))")
            }
        }
        #expect((try? SetupPageTests.get(d.port, "/api/status"))?.status == 200)
    }

    /// A client that asks before it sends its body (`Expect: 100-continue`; .NET's HttpClient
    /// does for every POST) hears "100 Continue" at once, not after its own timer (before: no
    /// answer until the body came), then the command's answer; a refused request hears only
    /// the refusal.
    @Test func aClientThatAsksBeforeItsBodyHearsGoOn() async throws {
        let d = try Daemon()
        #expect(await d.ready(), "\(d.logText)")
        guard let asked = await Self.askToSend(d.port, "/api/command", expect: "100-continue", length: 7) else { Issue.record("no connection"); return }
        let fd = asked.fd
        var got = asked.heard
        defer { close(fd) }
        #expect(got.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(got)")
        _ = await Self.sendAll(fd, Array("VERSION".utf8), seconds: 2)
        _ = await Poll.until(5) {
            got += String(decoding: Self.drain(fd).bytes, as: UTF8.self)
            return got.contains("OK VERSION")
        }
        #expect(got.contains("HTTP/1.1 200") && got.contains("OK VERSION"), "\(got)")
        // Too large a body: the refusal, no "go on"; so for a control change longer than its
        // own limit (128 bytes, under the door's 4 KiB), from its head, not after its body (a
        // tryout).
        for (path, length, says) in [("/api/command", 9999, "ERR 413"), ("/api/controls", 200, "control change longer than 128 bytes")] {
            guard let (other, refused) = await Self.askToSend(d.port, path, expect: "100-continue", length: length) else { Issue.record("no connection"); continue }
            close(other)
            // One reason phrase from the guard and from the handler (NIO's own for 413 is "Payload
            // Too Large", RFC 9110's "Content Too Large").
            #expect(refused.hasPrefix("HTTP/1.1 413 Content Too Large\r\n") && refused.contains(says) && !refused.contains("100 Continue"), "\(path): \(refused)")
        }
        // 100-continue among other expectations in one header (RFC 9110's list form).
        guard let (listed, heard) = await Self.askToSend(d.port, "/api/command", expect: "x-other, 100-Continue", length: 7) else { Issue.record("no connection"); return }
        close(listed)
        #expect(heard.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(heard)")
    }

    /// A new connection that sends a POST head to `path` with `Expect: expect` and a
    /// Content-Length of `length`, and what it heard within 5 s: a 100 Continue's head, or an
    /// answer the door closes after.
    static func askToSend(_ port: UInt16, _ path: String, expect: String, length: Int) async -> (fd: Int32, heard: String)? {
        guard let fd = SetupPageTests.connectTCP(port) else { return nil }
        _ = await sendAll(fd, Array("POST \(path) HTTP/1.1\r\n\(host(port))Expect: \(expect)\r\nContent-Length: \(length)\r\n\r\n".utf8), seconds: 2)
        var heard = ""
        _ = await Poll.until(5) {
            let (bytes, closed) = drain(fd)
            heard += String(decoding: bytes, as: UTF8.self)
            return closed || (heard.hasPrefix("HTTP/1.1 100 ") && heard.contains("\r\n\r\n"))
        }
        return (fd, heard)
    }

    /// SIGTERM while snapshots are being made, with an MQTT output (whose goodbye to the broker
    /// keeps the stop going while the snapshots' decodes end): every answer's promise is
    /// completed before the event loops shut down (a tryout: "Cannot schedule tasks on an
    /// EventLoop that has already shut down" once per snapshot in flight, in 4 stops of 4 over
    /// the control socket and 5 of 8 over the page).
    @Test func aStopWhileSnapshotsAreMadeLogsNoError() async throws {
        let dir = try Fixture.temporaryFolder("scand-webdoor-mqtt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir)
        for round in 1...6 {
            // The demo's camera (full-HD and 720p frames: a snapshot's decode takes a while).
            let d = try Daemon(images: Fixture.repo.appendingPathComponent("samples").path + "/", extra: """
                [output.mqtt]
                url = "mqtt://127.0.0.1:\(broker.port)"
                client_id = "webdoor\(round)"
                """, pressEvery: 1)
            #expect(await d.ready(), "\(d.logText)")
            #expect(await Poll.until(10) { d.logText.contains("connected as webdoor\(round)") }, "\(d.logText)")
            // Reading, as a kiosk in use is, to the full-HD frames (their snapshot takes longest).
            #expect(await Poll.until(15) { d.logText.contains(" seq=3 ") }, "\(d.logText)")
            // Over the page and the control socket (each request on a thread of its own: the
            // control socket's client blocks until its answer or the connection's end).
            let clients = (0..<3).compactMap { _ -> Int32? in
                guard let fd = SetupPageTests.connectTCP(d.port) else { return nil }
                _ = Array("GET /snapshot.png HTTP/1.1\r\n\(Self.host(d.port))\r\n".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return fd
            }
            defer { clients.forEach { close($0) } }
            #expect(clients.count == 3)
            let socket = d.dir.appendingPathComponent("control.sock").path
            for _ in 0..<3 {
                Thread { _ = try? ControlSocket.request(socket, "GET /snapshot.png HTTP/1.1\r\nHost: scand\r\n\r\n") }.start()
            }
            try await Task.sleep(for: .milliseconds(50 * (round - 1)))
            await d.stopsCleanly(round: round)
        }
    }

    /// SIGTERM while viewers watch the preview and the events (a tryout of stop 61's binary:
    /// "ERROR: Cannot schedule tasks on an EventLoop that has already shut down" in the journal
    /// in 7 of 12 stops, a stream written after the page's event loops ended): the daemon ends
    /// with status 0 and logs no error.
    @Test func aStopWhileViewersWatchLogsNoError() async throws {
        for round in 1...3 {
            let d = try Daemon()
            #expect(await d.ready(), "\(d.logText)")
            let viewers = ["/preview.mjpeg", "/api/events", "/preview.mjpeg"].compactMap { path -> Int32? in
                guard let fd = SetupPageTests.connectTCP(d.port) else { return nil }
                _ = Array("GET \(path) HTTP/1.1\r\n\(Self.host(d.port))\r\n".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return fd
            }
            defer { viewers.forEach { close($0) } }
            #expect(viewers.count == 3)
            _ = await Poll.until(5) { !Self.drain(viewers[0]).bytes.isEmpty }
            try await Task.sleep(for: .milliseconds(300 * round))
            await d.stopsCleanly(round: round)
        }
    }
}
