import Foundation

/// Debian's mosquitto broker on a free loopback port, in a folder of its own (config, password
/// file, certificates, persistence). `scripts/setup.sh` installs it; nothing else must run.
final class Broker {
    let dir: URL
    let port: Int
    private let config: String
    private var process: Process?

    /// `listener`: extra lines for the listener (TLS files); `settings`: the rest
    /// (`allow_anonymous`, `password_file`). `persistence`: sessions saved every second (with
    /// an fsync that, on a busy disk, holds up every acknowledgement meanwhile).
    init(dir: URL, settings: String = "allow_anonymous true", listener: String = "", persistence: Bool = true) async throws {
        self.dir = dir
        // Started as root, mosquitto drops to its own user: it must be able to write its log
        // and sessions here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir.path)
        port = try Self.freePort()
        config = """
            listener \(port) 127.0.0.1
            \(listener)
            \(settings)
            persistence \(persistence)
            persistence_location \(dir.path)/
            autosave_interval 1
            log_dest file \(dir.path)/broker.log
            log_type all
            """
        try config.write(to: dir.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        try await start()
    }

    deinit { if let p = process, p.isRunning { kill(p.processIdentifier, SIGKILL) } }

    func start() async throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        p.arguments = ["-c", dir.appendingPathComponent("mosquitto.conf").path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try ChildProcess.launch(p)
        process = p
        // Ready when it accepts a connection (bounded: a broker that never comes up fails here).
        if await Poll.until(5, { Self.accepts(port) }) { return }
        throw BrokerError("mosquitto did not listen on \(port); see \(dir.path)/broker.log")
    }

    /// SIGTERM: the broker saves its sessions and ends.
    func stop() async {
        guard let p = process, p.isRunning else { return }
        await ChildProcess.end(p)
        process = nil
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { throw BrokerError("no free port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// `mosquitto_sub` with a persistent session (QoS 1, clean session off): what is published
    /// while it is away is kept for it by the broker. Lines are `topic payload`.
    func subscribe(_ topic: String, id: String, extra: [String] = []) async throws -> Subscriber {
        try await Subscriber(broker: self, topic: topic, id: id, file: dir.appendingPathComponent("sub-\(id).txt"), extra: extra)
    }

    /// One message on `topic` with `mosquitto_pub`.
    func publish(_ topic: String, _ message: String, extra: [String] = []) async throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        p.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-t", topic, "-m", message] + extra
        try ChildProcess.launch(p)
        await ChildProcess.reap(p)
    }

    /// The broker's log lines (`log_type all`: every packet in and out, in the order handled),
    /// all runs of this broker folder.
    var logLines: [Substring] {
        ((try? String(contentsOf: dir.appendingPathComponent("broker.log"), encoding: .utf8)) ?? "").split(separator: "\n")
    }

    /// How many PUBLISH packets on `topic` the broker has received from `client` (its log, all
    /// runs of this broker folder).
    func received(from client: String, topic: String) -> Int {
        logLines.count { $0.contains("Received PUBLISH from \(client) (") && $0.contains("'\(topic)'") }
    }

    /// How many PUBLISH packets on `topic` the broker has sent to `client`.
    func sent(to client: String, topic: String) -> Int {
        logLines.count { $0.contains("Sending PUBLISH to \(client) (") && $0.contains("'\(topic)'") }
    }

    /// How many times the broker has acknowledged `what` (`SUBACK`, `PUBACK`) to `client`.
    func acknowledged(_ what: String, to client: String) -> Int {
        logLines.count { $0.hasSuffix("Sending \(what) to \(client)") || $0.contains("Sending \(what) to \(client) (") }
    }

    /// The retained message on `topic` (waits up to 2 s).
    func retained(_ topic: String, extra: [String] = []) async throws -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        p.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-C", "1", "-W", "2", "--retained-only"] + extra
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try ChildProcess.launch(p)
        await ChildProcess.reap(p)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}

final class Subscriber {
    private let process = Process()
    let file: URL

    init(broker: Broker, topic: String, id: String, file: URL, extra: [String]) async throws {
        self.file = file
        let port = broker.port
        let subscribed = broker.acknowledged("SUBACK", to: id)
        FileManager.default.createFile(atPath: file.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-v", "-q", "1", "-c", "-i", id] + extra
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        try ChildProcess.launch(process)
        // Subscribed once the broker has acknowledged the subscription (its log says so).
        guard await Poll.until(10, { broker.acknowledged("SUBACK", to: id) > subscribed }) else {
            throw BrokerError("mosquitto_sub \(id) was not subscribed; see \(broker.dir.path)/broker.log")
        }
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    var lines: [String] {
        (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    /// The `seq` of each result line, in arrival order.
    var resultSequences: [Int] {
        lines.filter { $0.contains("/result ") }.compactMap { line in
            guard let brace = line.firstIndex(of: "{"),
                  let json = try? JSONSerialization.jsonObject(with: Data(line[brace...].utf8)) as? [String: Any] else { return nil }
            return json["seq"] as? Int
        }
    }

    /// Waits up to `seconds` for `condition`.
    func wait(_ seconds: Double = 10, until condition: () async throws -> Bool) async rethrows -> Bool {
        try await Poll.until(seconds, condition)
    }
}

struct BrokerError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
