import Foundation
import Testing

/// scand under systemd's service protocol: readiness and watchdog pings on a real notify socket,
/// and the unit file as `systemd-analyze verify` sees it.
@Suite struct SystemdTests {
    static let repo = Fixture.repo

    @Test func readinessAndWatchdogPingsReachTheNotifySocket() async throws {
        let dir = try Fixture.temporaryFolder("scand-notify")
        defer { try? FileManager.default.removeItem(at: dir) }
        let socketPath = dir.appendingPathComponent("notify").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in socketPath.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let config = dir.appendingPathComponent("scand.toml")
        try "hardware = \"simulated\"\n[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\n".write(to: config, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = Run.scand
        p.arguments = ["run", "--config", config.path, "--no-stdin"]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = socketPath
        env["WATCHDOG_USEC"] = "300000"
        env.removeValue(forKey: "JOURNAL_STREAM")
        p.environment = env
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }

        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && messages.filter({ $0 == "WATCHDOG=1" }).count < 2 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
        }
        #expect(messages.first?.hasPrefix("READY=1\nSTATUS=camera available") == true, "\(messages)")
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 2)
        kill(p.processIdentifier, SIGTERM)
        while Date() < deadline.addingTimeInterval(5) && !messages.contains("STOPPING=1") {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
        }
        #expect(messages.contains("STOPPING=1"))
        #expect(ChildProcess.wait(p, seconds: 30), "it ends within 30 s of SIGTERM")
        #expect(ChildProcess.waitForStatus(p) == 0)
    }

    @Test func theUnitPassesSystemdAnalyzeVerify() throws {
        // The shipped unit, with ExecStart pointing at the binary this build made.
        let unit = try String(contentsOf: Self.repo.appendingPathComponent("systemd/scand.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/scand", with: Run.scand.path)
        let dir = try Fixture.temporaryFolder("scand-unit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("scand.service")
        try unit.write(to: path, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        p.arguments = ["verify", "--man=no", path.path]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = err
        try p.run()
        let output = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(ChildProcess.waitForStatus(p) == 0, "\(output)")
        #expect(!output.contains("scand.service:"), "no warnings about the unit: \(output)")
        #expect(unit.contains("Type=notify") && unit.contains("WatchdogSec=") && unit.contains("ProtectSystem=strict"))
    }
}
