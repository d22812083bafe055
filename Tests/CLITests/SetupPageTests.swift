import Foundation
import ImageLoading
import SimulatedHardware
import Testing
import Viewfinder
#if canImport(Glibc)
import Glibc
#endif

/// `scand snapshot`, the control socket and the setup page against the real daemon on simulated
/// hardware, and the page in a real headless Chromium (issue 15).
@Suite(.serialized) struct SetupPageTests {
    /// The 640x480 sample with a Code 128 in it (the daemon's camera plays it).
    static let image = Fixture.repo.appendingPathComponent("samples/code128-small.jpg").path
    static let viewport = "[0.15, 0.3, 0.7, 0.5]"

    /// A daemon on simulated hardware: serial to a pty the test holds, the control socket and
    /// (with `web`) the setup page; `torch`: a torch line; `statusFile`: a status file; `extra`:
    /// more TOML at the end of the config.
    final class Daemon {
        let dir: URL
        let host: PseudoTerminal
        let process = Process()
        let log: URL
        let port: UInt16

        init(web: Bool = true, token: String? = nil, dir: URL? = nil, torch: Bool = true, statusFile: Bool = true, extra: String = "") throws {
            self.dir = try dir ?? Fixture.temporaryFolder("scand-web")
            host = try PseudoTerminal()
            port = try SetupPageTests.freePort()
            log = self.dir.appendingPathComponent("log.txt")
            try SetupPageTests.config(in: self.dir, serial: try Fixture.serialLink(to: host.hostPath, in: self.dir),
                                      torch: torch, statusFile: statusFile, extra: (web ? """
                [web]
                listen = "127.0.0.1:\(port)"
                \(token.map { "token = \"\($0)\"" } ?? "")
                """ : "") + "\n" + extra).write(to: self.dir.appendingPathComponent("scand.toml"), atomically: true, encoding: .utf8)
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$@\" 2>>\"$SCAND_TEST_LOG\"", "sh", Run.scand.path, "run", "--config",
                                 self.dir.appendingPathComponent("scand.toml").path, "--no-stdin"]
            var environment = ProcessInfo.processInfo.environment
            environment["SCAND_TEST_LOG"] = log.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try ChildProcess.launch(process)
        }

        deinit { ChildProcess.stop(process) }

        var logText: String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }

        func logged(_ text: String, within seconds: Double = 20) async -> Bool {
            await Poll.until(seconds) { logText.contains(text) }
        }

        /// Waits until the daemon started and its listeners are up.
        func ready() async -> Bool {
            guard await logged("scand started") else { return false }
            let socket = dir.appendingPathComponent("control.sock").path
            return await Poll.until {
                FileManager.default.fileExists(atPath: socket) && (try? SetupPageTests.get(port, "/api/status")) != nil
            }
        }

        /// What the host end of the serial port received so far.
        func serialText() -> String { String(decoding: host.readFromHost(), as: UTF8.self) }
    }

    static func config(in dir: URL, serial: String, torch: Bool = true, statusFile: Bool = true, images: String? = nil, extra: String = "") -> String {
        """
        hardware = "simulated"
        [camera]
        images = ["\(images ?? image)"]
        fps = 15
        [scan]
        viewport = \(viewport)
        session_timeout_ms = 3000
        [gpio]
        board = "simulated"
        button = { pin = "GPIO17" }
        \(torch ? "torch = { pin = \"GPIO27\" }" : "")
        [output.serial]
        device = "\(serial)"
        [outbox]
        directory = "\(dir.path)"
        \(statusFile ? "[status]\nfile = \"\(dir.path)/status.json\"" : "")
        [control]
        socket = "\(dir.path)/control.sock"
        \(extra)
        """
    }

    /// A TCP port nothing listens on now.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Connects to 127.0.0.1:`port` (nil on failure).
    /// The local port of the TCP socket `fd`.
    static func localPort(_ fd: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }

    /// The send and receive queues (bytes) of the loopback TCP socket from `local` to `remote`
    /// port, as the kernel reports them in /proc/net/tcp; nil when there is none.
    static func tcpQueue(local: UInt16, remote: UInt16) -> (tx: Int, rx: Int)? {
        // Read to the end by hand: Foundation's String(contentsOfFile:) stops early on /proc.
        var bytes: [UInt8] = []
        let fd = open("/proc/net/tcp", O_RDONLY)
        if fd >= 0 {
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                bytes += buffer[0..<n]
            }
        }
        let table = String(decoding: bytes, as: UTF8.self)
        let hex = { (port: UInt16) in ":" + String(format: "%04X", port) }
        for line in table.split(separator: "\n").dropFirst() {
            let f = line.split(separator: " ")
            guard f.count > 4, f[1].hasSuffix(hex(local)), f[2].hasSuffix(hex(remote)) else { continue }
            let q = f[4].split(separator: ":")
            guard q.count == 2, let tx = Int(q[0], radix: 16), let rx = Int(q[1], radix: 16) else { return nil }
            return (tx, rx)
        }
        return nil
    }

    static func connectTCP(_ port: UInt16, receiveBuffer: Int32? = nil) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let ok = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        if ok != 0 { close(fd); return nil }
        return fd
    }

    typealias Answer = ControlSocket.Answer

    /// Sends `request` as is and reads the answer to the end (the server closes or sends
    /// Content-Length bytes).
    static func http(port: UInt16, _ request: String, body: [UInt8] = []) throws -> Answer {
        guard let fd = connectTCP(port) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(fd) }
        let bytes = Array(request.utf8) + body
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard let answer = ControlSocket.readAnswer(fd) else { throw POSIXError(.EPROTO) }
        return answer
    }

    static func headEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        return (0...(data.count - 4)).first { data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10 }
    }

    static func get(_ port: UInt16, _ path: String, headers: String = "") throws -> Answer {
        try http(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\(headers)\r\n")
    }

    static func post(_ port: UInt16, _ path: String, _ body: [UInt8], headers: String = "") throws -> Answer {
        try http(port: port, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\(headers)\r\n", body: body)
    }

    /// The viewport's pixel rectangle in a 640x480 frame.
    static let viewportPixels = (x: 96, y: 144, width: 448, height: 240)

    static func isViewportBlue(_ p: RGB?) -> Bool { p.map { $0.b > 200 && $0.r < 80 && $0.g > 140 } ?? false }

    // MARK: - scand snapshot

    @Test func snapshotWithoutADaemonOpensTheCameraAndDrawsTheViewport() throws {
        let dir = try Fixture.temporaryFolder("scand-snapshot")
        try Self.config(in: dir, serial: "/dev/null").write(to: dir.appendingPathComponent("scand.toml"), atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("snap.png").path
        let run = try Run.scand(["snapshot", "--config", dir.appendingPathComponent("scand.toml").path, "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("no daemon running"), "\(run.stdout)")
        #expect(run.stdout.contains("code: Code-128 1BjnpEv"), "\(run.stdout)")
        let image = try RGBImage.decodePNG(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(image.width == 640 && image.height == 480)
        let v = Self.viewportPixels
        // The viewport's outline on all four sides, the frame's gray inside and outside it.
        #expect(Self.isViewportBlue(image.pixel(x: v.x, y: v.y + v.height / 2)))
        #expect(Self.isViewportBlue(image.pixel(x: v.x + v.width - 1, y: v.y + v.height / 2)))
        #expect(Self.isViewportBlue(image.pixel(x: v.x + v.width / 2, y: v.y)))
        #expect(Self.isViewportBlue(image.pixel(x: v.x + v.width / 2, y: v.y + v.height - 1)))
        let outside = image.pixel(x: v.x - 6, y: v.y + v.height / 2)!
        #expect(outside.r == outside.g && outside.g == outside.b, "no overlay outside the viewport's line")
        // The code's outline (green) where the decoder found it.
        let greens = (0..<image.height).reduce(0) { n, y in
            n + (0..<image.width).filter { x in image.pixel(x: x, y: y).map { $0 == Snapshot.codeColour } ?? false }.count
        }
        #expect(greens > 200, "the code's outline is drawn (\(greens) green pixels)")

        let raw = try Run.scand(["snapshot", "--config", dir.appendingPathComponent("scand.toml").path, "--out", out, "--raw", "--json"])
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(raw.stdout.contains("\"codes\":[{\"symbology\":\"Code-128\""), "\(raw.stdout)")
        let frame = try ImageFile.load(out), original = try ImageFile.load(Self.image)
        #expect(frame.packedPixels() == original.packedPixels(), "--raw writes the frame as the camera gave it")
    }

    @Test func snapshotAsksTheRunningDaemonOverTheControlSocket() async throws {
        let daemon = try Daemon(web: false)
        #expect(await daemon.logged("control socket on"), "\(daemon.logText)")
        let out = daemon.dir.appendingPathComponent("snap.png").path
        var run = try Run.scand(["snapshot", "--config", daemon.dir.appendingPathComponent("scand.toml").path, "--out", out])
        _ = try await Poll.until {
            if run.stdout.contains("running daemon") { return true }
            run = try Run.scand(["snapshot", "--config", daemon.dir.appendingPathComponent("scand.toml").path, "--out", out])
            return run.stdout.contains("running daemon")
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("from the running daemon"), "\(run.stdout)")
        #expect(run.stdout.contains("code: Code-128 1BjnpEv"), "\(run.stdout)")
        let image = try RGBImage.decodePNG(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(image.width == 640 && image.height == 480)
        #expect(Self.isViewportBlue(image.pixel(x: Self.viewportPixels.x, y: 240)))
        // The daemon kept its camera: it never logged a failure to open it.
        #expect(!daemon.logText.contains("busy"))
        // The snapshot's stream stopped again (the kiosk is idle and no viewer is left).
        let status = try String(contentsOf: daemon.dir.appendingPathComponent("status.json"), encoding: .utf8)
        #expect(status.contains("\"phase\":\"idle\""))
    }

    // MARK: - The setup page's endpoints

    @Test func theEndpointsAnswerAndBadRequestsGetAReason() async throws {
        let daemon = try Daemon()
        #expect(await daemon.ready(), "\(daemon.logText)")
        let port = daemon.port
        // The camera comes up on its own after start: on a loaded machine the first answer may
        // still say "starting".
        _ = await Poll.until(5) { (try? Self.get(port, "/api/status"))?.text.contains("\"camera\":\"available\"") == true }
        let status = try Self.get(port, "/api/status")
        #expect(status.status == 200)
        #expect(status.text.contains("\"camera\":\"available\"") && status.text.contains("\"viewport\":[0.15,0.3,0.7,0.5]"), "\(status.text)")
        let page = try Self.get(port, "/")
        #expect(page.status == 200 && page.text.contains("<title>scand setup</title>"))

        // TRIGGER from the web: the read reaches the serial port and the results.
        _ = daemon.serialText()
        let trigger = try Self.post(port, "/api/command", Array("TRIGGER".utf8))
        #expect(trigger.status == 200 && trigger.text == "OK TRIGGER\n", "\(trigger.text)")
        var results = try Self.get(port, "/api/results")
        _ = try await Poll.until {
            results = try Self.get(port, "/api/results")
            return results.text.contains("1BjnpEv")
        }
        #expect(results.text.hasPrefix("[{\"event\":\"result\"") && results.text.contains("\"text\":\"1BjnpEv\""), "\(results.text)")
        var serial = ""
        #expect(await Poll.until { serial += daemon.serialText(); return serial.contains("1BjnpEv") })

        let snapshot = try Self.get(port, "/snapshot.png")
        #expect(snapshot.status == 200 && snapshot.head.contains("X-Scand-Snapshot: {\"width\":640"), "\(snapshot.head)")
        #expect(try RGBImage.decodePNG(snapshot.body).width == 640)

        // Camera controls: listed, changed live, answered with the TOML line.
        let controls = try Self.get(port, "/api/controls")
        #expect(controls.text.contains("{\"name\":\"brightness\",\"min\":-128,\"max\":127"), "\(controls.text)")
        let set = try Self.post(port, "/api/controls", Array("brightness=-40".utf8))
        #expect(set.status == 200 && set.text.contains("\"toml\":\"brightness = -40\""), "\(set.text)")
        #expect(try Self.get(port, "/api/controls").text.contains("\"value\":-40"))
        // A value out of range is answered with what the camera took (the driver clamps it).
        let clamped = try Self.post(port, "/api/controls", Array("brightness=999".utf8))
        #expect(clamped.status == 200 && clamped.text.contains("\"value\":127,") && clamped.text.contains("\"toml\":\"brightness = 127\""), "\(clamped.text)")

        // Prometheus scrapes the same metrics as the textfile, presses by source included.
        let metrics = try Self.get(port, "/metrics")
        #expect(metrics.status == 200 && metrics.head.contains("text/plain; version=0.0.4"), "\(metrics.head)")
        #expect(metrics.text.contains("# TYPE scand_presses_total counter") && metrics.text.contains("scand_presses_total{source=\"web\"} 1"), "\(metrics.text)")
        #expect(metrics.text.contains("scand_good_reads_total 1"), "\(metrics.text)")

        // Bad requests: a status and a reason, and the daemon lives.
        let cases: [(Answer, Int, String)] = [
            (try Self.get(port, "/nothing-here"), 404, "no such page"),
            (try Self.http(port: port, "PUT /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\n\r\n"), 405, "use GET"),
            (try Self.post(port, "/api/command", []), 400, "ERR LINE: empty command"),
            (try Self.post(port, "/api/command", [0x54, 0x00, 0xFF, 0x0A]), 400, "ERR LINE: only printable ASCII is accepted"),
            (try Self.post(port, "/api/command", Array(repeating: 0x41, count: 300)), 400, "ERR LINE: too long (at most 256 bytes)"),
            (try Self.post(port, "/api/command", Array(repeating: 0x41, count: 100_000)), 413, "at most 4096"),
            (try Self.post(port, "/api/command", Array("FLY ME TO THE MOON".utf8)), 400, "ERR FLY: unknown command"),
            (try Self.post(port, "/api/command", Array("SET output.serial.device=/dev/null".utf8)), 403, "ERR SET: output.serial.device: keys naming a device are not set over HTTP"),
            (try Self.post(port, "/api/command", Array("SET outbox.directory=/tmp".utf8)), 403, "not set over HTTP"),
            (try Self.post(port, "/api/controls", Array("brightness=lots".utf8)), 400, "whole number"),
            (try Self.post(port, "/api/controls", Array("focus_absolute=3".utf8)), 400, "no control focus_absolute"),
            (try Self.post(port, "/api/controls", Array("../../etc=1".utf8)), 400, "lowercase letters"),
        ]
        for (answer, code, reason) in cases {
            #expect(answer.status == code && answer.text.contains(reason), "\(answer.status) \(answer.text)")
        }
        // Not HTTP at all, and a request cut short: the connection ends, nothing else does.
        _ = try? Self.http(port: port, "HELLO THERE\r\n\r\n")
        if let fd = Self.connectTCP(port) { _ = "POST /api/command HTTP/1.1\r\nContent-Length: 50\r\n\r\nTRIG".withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }; close(fd) }
        #expect(try Self.get(port, "/api/status").status == 200)
        #expect(daemon.process.isRunning)
    }

    @Test func withATokenEveryRequestNeedsIt() async throws {
        let token = "0123456789abcdef0123"
        let daemon = try Daemon(token: token)
        #expect(await daemon.logged("setup page on http://127.0.0.1:\(daemon.port)/ (token required)"), "\(daemon.logText)")
        var answer: Answer?
        _ = await Poll.until { answer = try? Self.get(daemon.port, "/api/status"); return answer != nil }
        #expect(answer?.status == 401 && answer?.text.contains("a token is required") == true, "\(String(describing: answer?.text))")
        let wrong = try Self.get(daemon.port, "/api/status", headers: "Authorization: Bearer 0123456789abcdef0124\r\n")
        #expect(wrong.status == 401 && wrong.text.contains("wrong token"))
        #expect(try Self.get(daemon.port, "/api/status", headers: "Authorization: Bearer \(token)\r\n").status == 200)
        #expect(try Self.get(daemon.port, "/?token=\(token)").status == 200)
        #expect(try Self.post(daemon.port, "/api/command", Array("TRIGGER".utf8)).status == 401, "commands too")
        // The control socket is for local programs: its file mode decides, no token.
        let control = daemon.dir.appendingPathComponent("control.sock").path
        let attributes = try FileManager.default.attributesOfItem(atPath: control)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
    }

    @Test func anAddressOtherThanLoopbackNeedsAToken() throws {
        let dir = try Fixture.temporaryFolder("scand-web-config")
        let file = dir.appendingPathComponent("scand.toml")
        try Self.config(in: dir, serial: "/dev/null", extra: "[web]\nlisten = \"0.0.0.0:8080\"").write(to: file, atomically: true, encoding: .utf8)
        let refused = try Run.scand(["check-config", file.path])
        #expect(refused.status != 0)
        #expect((refused.stdout + refused.stderr).contains("web.listen: 0.0.0.0:8080 is not a loopback address: set web.token too"), "\(refused.stdout)\(refused.stderr)")
        try Self.config(in: dir, serial: "/dev/null", extra: "[web]\nlisten = \"0.0.0.0:8080\"\ntoken = \"short\"").write(to: file, atomically: true, encoding: .utf8)
        let short = try Run.scand(["check-config", file.path])
        #expect(short.status != 0 && (short.stdout + short.stderr).contains("web.token: must be 16 to 256"), "\(short.stdout)\(short.stderr)")
        try Self.config(in: dir, serial: "/dev/null", extra: "[web]\nlisten = \"localhost:http\"").write(to: file, atomically: true, encoding: .utf8)
        let bad = try Run.scand(["check-config", file.path])
        #expect(bad.status != 0 && (bad.stdout + bad.stderr).contains("is not a listen address: port \"http\" is not a number from 1 to 65535"), "\(bad.stdout)\(bad.stderr)")
    }

    @Test func aClientThatDoesNotReadHoldsNothingUp() async throws {
        let daemon = try Daemon()
        #expect(await daemon.ready(), "\(daemon.logText)")
        // Two pages that ask for the preview and the event stream and then never read.
        var stalled: [Int32] = []
        for path in ["/preview.mjpeg", "/api/events", "/preview.mjpeg", "/api/events"] {
            guard let fd = Self.connectTCP(daemon.port, receiveBuffer: 1024) else { Issue.record("no connection"); return }
            _ = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\n\r\n".withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            stalled.append(fd)
        }
        defer { for fd in stalled { close(fd) } }
        // The preview's frames pile up in their sockets: each stalled page has bytes it does not
        // read, and behind each preview the server holds bytes it cannot send (the kernel's
        // socket queues in /proc/net/tcp, not a guess at how long that takes).
        let ports = stalled.map(Self.localPort)
        let piledUp = await Poll.until(20) {
            ports.enumerated().allSatisfy { i, client in
                let unread = (Self.tcpQueue(local: client, remote: daemon.port)?.rx ?? 0) > 0
                let unsent = (Self.tcpQueue(local: daemon.port, remote: client)?.tx ?? 0) > 0
                return unread && (i % 2 == 1 || unsent) // the event streams wait for events
            }
        }
        #expect(piledUp, "the stalled pages' sockets filled up: \(ports.map { (Self.tcpQueue(local: $0, remote: daemon.port), Self.tcpQueue(local: daemon.port, remote: $0)) })")
        // The kiosk still reads and answers, on every channel, at once.
        _ = daemon.serialText()
        let started = Date()
        for _ in 0..<3 {
            let status = try Self.get(daemon.port, "/api/status")
            #expect(status.status == 200)
            let trigger = try Self.post(daemon.port, "/api/command", Array("TRIGGER".utf8))
            #expect(trigger.status == 200)
            var serial = ""
            let read = await Poll.until(3) { serial += daemon.serialText(); return serial.contains("1BjnpEv") }
            #expect(read, "a read reaches the host while pages stall")
        }
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(daemon.process.isRunning)
    }

    // MARK: - The page in a real browser

    /// The page of `daemon` in headless Chromium (`Tests/web/browser.py` with `arguments`): its
    /// report as text and as an object (nil when it is not one).
    static func browse(_ daemon: Daemon, screenshot: URL, _ arguments: [String]) throws -> (report: String, object: [String: Any]?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixture.repo.appendingPathComponent("Tests/web/browser.py").path,
                             "http://127.0.0.1:\(daemon.port)/", screenshot.path, "--timeout", "60"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let status = ChildProcess.waitForStatus(process)
        let report = String(decoding: data, as: UTF8.self)
        #expect(status == 0, "\(report)")
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        if object == nil { Issue.record("no report: \(report)") }
        return (report, object)
    }

    @Test func thePageInChromiumShowsThePreviewAndTriggersARead() async throws {
        let daemon = try Daemon()
        #expect(await daemon.ready(), "\(daemon.logText)")
        let shot = daemon.dir.appendingPathComponent("page.png")
        let (report, object) = try Self.browse(daemon, screenshot: shot, ["--expect", "1BjnpEv"])
        guard let object else { return }
        #expect(object["previewSize"] as? [Int] == [640, 480], "the live preview shows the camera's frames: \(report)")
        #expect(object["torchButtonsDisabled"] as? [Bool] == [false, false, false], "a torch line: its buttons work: \(report)")
        #expect(object["answer"] as? String == "OK TRIGGER")
        let results = object["results"] as? [String] ?? []
        #expect(results.first?.contains("Code-128: 1BjnpEv") == true, "the results list holds the read: \(results)")
        // The decoding table: the read under its symbology with the bin of its decode time.
        let decoding = object["decoding"] as? [[String]] ?? []
        #expect(decoding.count == 3 && decoding[0] == ["symbology", "reads", "median", "refused"], "\(decoding)")
        if decoding.count == 3 {
            #expect(decoding[1].count == 4 && decoding[1][0] == "Code-128" && decoding[1][1] == "1" && decoding[1][3] == "0", "\(decoding)")
            #expect(decoding[1][2].hasPrefix("≤") || decoding[1][2].hasPrefix(">"), "a bin: \(decoding)")
            #expect(decoding[2] == ["no read", "0", "—", ""], "\(decoding)")
        }
        // The screenshot: the preview's pixels (not blank) with the viewport's blue box over them.
        let image = try RGBImage.decodePNG(Array(try Data(contentsOf: shot)))
        let overlay = object["overlay"] as? [String: Any]
        let canvas = (overlay?["canvas"] as? [Double]) ?? []
        #expect(canvas.count == 4 && canvas[2] == 640 && canvas[3] == 480, "the overlay covers the preview: \(canvas)")
        guard canvas.count == 4 else { return }
        let left = Int(canvas[0]), top = Int(canvas[1])
        let v = Self.viewportPixels
        #expect(Self.isViewportBlue(image.pixel(x: left + v.x, y: top + v.y + v.height / 2)), "the viewport's left edge")
        #expect(Self.isViewportBlue(image.pixel(x: left + v.x + v.width / 2, y: top + v.y)), "the viewport's top edge")
        var levels = Set<UInt8>()
        for y in stride(from: top + 10, to: top + 470, by: 7) { for x in stride(from: left + 10, to: left + 630, by: 7) { image.pixel(x: x, y: y).map { _ = levels.insert($0.g) } } }
        #expect(levels.count > 40, "the preview shows an image, not a blank box (\(levels.count) levels)")
    }

    /// A setup page whose port another program holds: the log says so in words, and the kiosk
    /// runs on (a tryout: SwiftNIO's `bind(descriptor:ptr:bytes:): Address already in use)`).
    @Test func aPortInUseIsSaidInWords() async throws {
        let first = try Daemon()
        #expect(await first.ready(), "\(first.logText)")
        let second = try Daemon(web: false, extra: "[web]\nlisten = \"127.0.0.1:\(first.port)\"")
        defer { try? FileManager.default.removeItem(at: second.dir) }
        #expect(await second.logged("no setup page on 127.0.0.1:\(first.port): Address already in use (errno 98): another program (or another scand) listens there; the kiosk runs on without it"),
                "\(second.logText)")
        #expect(await second.logged("scand started") && second.process.isRunning)
    }

    /// Defect B: on a board without a torch line the page kept its torch buttons enabled, and
    /// "Torch on" answered OK while nothing could light. Now they are disabled, and the status
    /// table shows the torch and the torch mode.
    @Test func withoutATorchLineThePageDisablesItsTorchButtons() async throws {
        let daemon = try Daemon(torch: false)
        #expect(await daemon.ready(), "\(daemon.logText)")
        let (report, object) = try Self.browse(daemon, screenshot: daemon.dir.appendingPathComponent("page.png"), ["--no-trigger"])
        guard let object else { return }
        #expect(object["torchButtonsDisabled"] as? [Bool] == [true, true, true], "\(report)")
        let rows = object["status"] as? [String] ?? []
        #expect(rows.contains("torchunavailable") && rows.contains("torch modeon"), "\(rows)")
        #expect(rows.contains("focusauto-on-press"), "the focus in effect is shown: \(rows)")
        #expect(rows.contains("results waiting0"), "\(rows)")
        // Before any read the decoding table has its header and the no-reads.
        #expect(object["decoding"] as? [[String]] == [["symbology", "reads", "median", "refused"], ["no read", "0", "—", ""]], "\(report)")
        let answer = try Self.post(daemon.port, "/api/command", Array("TORCH ON".utf8))
        #expect(answer.status == 400 && answer.text == "ERR TORCH: no torch line\n", "\(answer.status) \(answer.text)")
    }

    /// Issue 40: the page holds its layout with a 300-character payload at 1280, 800 and 390 px
    /// wide (screenshots of each in docs/): at 1280 px the panels stand beside the preview, none
    /// below its bottom; at 390 px nothing scrolls sideways.
    @Test func thePageHoldsItsLayoutAtThreeWidths() async throws {
        let daemon = try Daemon()
        #expect(await daemon.ready(), "\(daemon.logText)")
        let docs = Fixture.repo.appendingPathComponent("docs")
        let (report, object) = try Self.browse(daemon, screenshot: daemon.dir.appendingPathComponent("page.png"),
                                               ["--no-trigger", "--layouts", docs.path])
        guard let layouts = object?["layouts"] as? [String: [String: Any]] else { Issue.record("no layouts: \(report)"); return }
        // At 1280 px the panels' column stands beside the preview, every panel starting above the
        // preview's bottom (none pushed below it by a long result), and none wrapped under it.
        let wide = layouts["1280"] ?? [:]
        let bottom = wide["previewBottom"] as? Double ?? 0, right = wide["previewRight"] as? Double ?? 0
        let panels = wide["panelTops"] as? [[Double]] ?? []
        #expect(!panels.isEmpty && panels.allSatisfy { $0[1] < bottom && $0[0] >= right },
                "1280 px: a panel below the preview (bottom \(bottom), right \(right)): \(panels)")
        for width in ["1280", "800", "390"] {
            let l = layouts[width] ?? [:]
            #expect((l["scrollWidth"] as? Double ?? 9999) <= (l["innerWidth"] as? Double ?? 0), "\(width) px scrolls sideways: \(l)")
            #expect(FileManager.default.fileExists(atPath: docs.appendingPathComponent("setup-page-\(width).png").path))
        }
    }
}
