import Foundation
import Testing

/// `scand run` publishing to a real mosquitto on a loopback port (issue 17): results in order,
/// the retained status and the last will, commands, a broker outage and a daemon restart with
/// nothing lost, passwords and TLS.
@Suite(.serialized) struct MQTTDaemonTests {
    /// A daemon on simulated hardware publishing to `broker` as `id`.
    final class Daemon {
        let process = Process()
        let log: URL
        let status: URL

        /// `outbox`: the `[outbox] directory` (a folder of `dir` when nil; "" keeps results in memory).
        init(dir: URL, broker: Broker, id: String, pressEvery: Double?, mqtt: String = "", url: String? = nil, outbox: String? = nil,
             arguments: [String] = []) throws {
            let config = dir.appendingPathComponent("\(id).toml")
            log = dir.appendingPathComponent("\(id).log")
            status = dir.appendingPathComponent("\(id)-status.json")
            let outbox = outbox ?? dir.appendingPathComponent("outbox-\(id)").path
            try? FileManager.default.removeItem(at: status) // a previous daemon's
            try """
                hardware = "simulated"
                [camera]
                images = ["\(Fixture.path("qr.png"))"]
                [gpio]
                board = "simulated"
                button = { pin = "GPIO17" }
                [outbox]
                directory = "\(outbox)"
                [status]
                file = "\(status.path)"
                [output.mqtt]
                url = "\(url ?? "mqtt://127.0.0.1:\(broker.port)")"
                client_id = "\(id)"
                keepalive = 5
                \(mqtt)
                """.write(to: config, atomically: true, encoding: .utf8)
            // The shell opens the log in the child and execs the daemon (see HostileInputTests).
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$@\" 2>>\"$SCAND_TEST_LOG\"", "sh", Run.scand.path, "run", "--config", config.path, "--no-stdin"]
                + (pressEvery.map { ["--press-every", "\($0)"] } ?? []) + arguments
            var environment = ProcessInfo.processInfo.environment
            environment["SCAND_TEST_LOG"] = log.path
            process.environment = environment
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try ChildProcess.launch(process)
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        func stop() async {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGTERM)
            await ChildProcess.reap(process)
        }

        var logText: String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }

        var statusJSON: [String: Any] {
            FileManager.default.contents(atPath: status.path).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        }
        var goodReads: Int { statusJSON["goodReads"] as? Int ?? 0 }
    }

    /// Every number 1...n at least once, in order of first arrival, before any later one.
    static func complete(_ seqs: [Int], upTo n: Int) -> Bool {
        var seen = Set<Int>()
        var firsts: [Int] = []
        for s in seqs where seen.insert(s).inserted { firsts.append(s) }
        return n > 0 && Array(firsts.prefix(n)) == Array(1...n)
    }

    @Test func resultsInOrderRetainedStatusAndTheLastWill() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir)
        let sub = try await broker.subscribe("scand/k1/#", id: "s1")
        let daemon = try Daemon(dir: dir, broker: broker, id: "k1", pressEvery: 0.25)
        #expect(await sub.wait { sub.resultSequences.count >= 4 }, "\(daemon.logText)")
        #expect(Array(sub.resultSequences.prefix(4)) == [1, 2, 3, 4])
        let first = try #require(sub.lines.first { $0.hasPrefix("scand/k1/result ") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(first.dropFirst("scand/k1/result ".count).utf8)) as? [String: Any])
        #expect(json["symbology"] as? String == "QR-Code" && json["text"] as? String == "https://example.org/kiosk?id=42")
        // The retained status: online, with the kiosk's state and the broker connection.
        let status = try #require(try await broker.retained("scand/k1/status"))
        #expect(status.contains("\"online\":true") && status.contains("\"camera\":\"available\"")
                && status.contains("\"connections\":{\"mqtt mqtt://127.0.0.1:\(broker.port)\":\"connected\"}"), "\(status)")
        // kill -9: the broker publishes the last will.
        kill(daemon.process.processIdentifier, SIGKILL)
        await ChildProcess.reap(daemon.process)
        #expect(await sub.wait { (try? await broker.retained("scand/k1/status")) == "{\"online\":false}" })
    }

    @Test func commandsOverTheBrokerTriggerAReadAndAreAnswered() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-cmd")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir)
        let sub = try await broker.subscribe("scand/k2/#", id: "s2")
        let daemon = try Daemon(dir: dir, broker: broker, id: "k2", pressEvery: nil, mqtt: "events = true")
        #expect(await sub.wait { sub.lines.contains { $0.hasPrefix("scand/k2/status ") && $0.contains("\"camera\":\"available\"") } }, "\(daemon.logText)")
        try await broker.publish("scand/k2/cmd", "TRIGGER")
        #expect(await sub.wait { sub.lines.contains("scand/k2/cmd/reply OK TRIGGER") }, "\(sub.lines)")
        #expect(await sub.wait { sub.resultSequences == [1] }, "\(sub.lines)")
        #expect(sub.lines.contains { $0.hasPrefix("scand/k2/event ") && $0.contains("\"event\":\"result\"") }, "events = true: the event stream too")
        try await broker.publish("scand/k2/cmd", "SET output.serial.device=/dev/ttyS0")
        #expect(await sub.wait { sub.lines.contains { $0.hasPrefix("scand/k2/cmd/reply ERR SET: output.serial.device is not set while running") } }, "\(sub.lines)")
        try await broker.publish("scand/k2/cmd", "SET scan.session_timeout_ms=4000")
        #expect(await sub.wait { sub.lines.contains("scand/k2/cmd/reply OK SET scan.session_timeout_ms") }, "\(sub.lines)")
        try await broker.publish("scand/k2/cmd", "REBOOT NOW")
        #expect(await sub.wait { sub.lines.contains { $0.hasPrefix("scand/k2/cmd/reply ERR ") && $0.contains("REBOOT") } }, "\(sub.lines)")
        try await broker.publish("scand/k2/cmd", String(repeating: "x", count: 300))
        #expect(await sub.wait { sub.lines.contains("scand/k2/cmd/reply ERR LINE: too long (at most 256 bytes)") }, "\(sub.lines)")
        await daemon.stop()
        #expect(await ChildProcess.exitStatus(daemon.process) == 0)
        #expect((try await broker.retained("scand/k2/status")) == "{\"online\":false}", "a graceful stop says goodbye")
        // The log ends with the daemon's last line, after the output's goodbye.
        let lines = daemon.logText.split(separator: "\n")
        #expect(lines.last?.hasSuffix("scand stopped") == true, "\(lines.suffix(5))")
        #expect(lines.contains { $0.contains("notice output mqtt mqtt://") && $0.hasSuffix(": disconnected") }, "\(lines.suffix(5))")
        // commands = false: the topic is not even subscribed.
        let deaf = try Daemon(dir: dir, broker: broker, id: "k2b", pressEvery: nil, mqtt: "commands = false")
        let deafSub = try await broker.subscribe("scand/k2b/#", id: "s2b")
        #expect(await deafSub.wait { deafSub.lines.contains { $0.hasPrefix("scand/k2b/status ") && $0.contains("\"camera\":\"available\"") } })
        // The broker routes a PUBLISH to every subscriber before it acknowledges it to the
        // publisher: once the PUBACK to p2b is in its log, whether k2b was sent the command is
        // decided, and it was not.
        try await broker.publish("scand/k2b/cmd", "TRIGGER", extra: ["-i", "p2b"])
        #expect(await Poll.until { broker.acknowledged("PUBACK", to: "p2b") == 1 }, "\(broker.logLines.suffix(20))")
        #expect(broker.received(from: "p2b", topic: "scand/k2b/cmd") == 1)
        #expect(broker.sent(to: "s2b", topic: "scand/k2b/cmd") == 1, "the command went out to its subscribers")
        #expect(broker.sent(to: "k2b", topic: "scand/k2b/cmd") == 0, "not to the daemon: it did not subscribe")
        #expect(!broker.logLines.contains { $0.hasPrefix("k2b ") || $0.contains("SUBSCRIBE from k2b") }, "k2b subscribed to nothing")
        #expect(!deafSub.lines.contains { $0.hasPrefix("scand/k2b/cmd/reply") } && deafSub.resultSequences.isEmpty, "\(deafSub.lines)")
        await deaf.stop()
    }

    /// The broker stopped for 10 s while presses go on, then started: every result arrives, in
    /// order, at least once. Then the same across a daemon restart.
    @Test func aBrokerOutageAndADaemonRestartLoseNothing() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-outage")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir)
        let sub = try await broker.subscribe("scand/k3/result", id: "s3")
        var daemon = try Daemon(dir: dir, broker: broker, id: "k3", pressEvery: 0.2)
        #expect(await sub.wait { sub.resultSequences.count >= 3 }, "\(daemon.logText)")
        await broker.stop()
        let readsAtStop = daemon.goodReads
        // The outage lasts until 20 reads were kept (about 4 s of presses; bounded at 60 s).
        #expect(await Poll.until(60) { daemon.goodReads - readsAtStop >= 20 && (daemon.statusJSON["pendingResults"] as? Int ?? 0) >= 20 },
                "presses went on and were kept in the outbox: \(daemon.goodReads - readsAtStop) reads while the broker was away, \(daemon.statusJSON)")
        try await broker.start()
        // Every result kept during the outage arrives (the daemon is back within 10 s: it tries
        // again after 1, 4, 9, then every 10 s). Presses go on meanwhile, so the count is taken
        // once: a result read a moment ago may still be on its way.
        let backlog = daemon.goodReads
        #expect(await sub.wait(25) { Self.complete(sub.resultSequences, upTo: backlog) }, "\(sub.resultSequences) of \(backlog)\n\(daemon.logText)")
        await daemon.stop()
        let total = daemon.goodReads
        #expect(await sub.wait { Self.complete(sub.resultSequences, upTo: total) }, "\(sub.resultSequences) of \(total)")

        // A daemon restart while the broker is away: the outbox file carries the results over.
        await broker.stop()
        daemon = try Daemon(dir: dir, broker: broker, id: "k3", pressEvery: 0.2)
        _ = await Poll.until(10) { daemon.goodReads >= 5 }
        await daemon.stop()
        let afterRestart = daemon.goodReads // results numbered on from before the restart
        #expect(afterRestart >= 5)
        let kept = "result(s) not delivered or acknowledged yet are kept in \(dir.path)/outbox-k3/mqtt.outbox for the next start"
        #expect(daemon.logText.split(separator: "\n").contains { $0.contains("output mqtt mqtt://127.0.0.1:") && $0.contains(kept) },
                "the stop says where the results wait\n\(daemon.logText)")
        try await broker.start()
        daemon = try Daemon(dir: dir, broker: broker, id: "k3", pressEvery: nil)
        #expect(await sub.wait(20) { Self.complete(sub.resultSequences, upTo: total + afterRestart) },
                "\(sub.resultSequences) of \(total + afterRestart)\n\(daemon.logText)")
        // At least once, rarely twice, from the daemon: the broker's log counts what the daemon
        // published. (The subscriber may see more copies: a broker stopped before it read the
        // subscriber's acknowledgements sends those messages again after its restart, as MQTT's
        // QoS 1 asks; that is the broker's doing, not the daemon's.)
        let distinct = Set(sub.resultSequences).count
        _ = await Poll.until(5) { broker.received(from: "k3", topic: "scand/k3/result") >= distinct }
        let published = broker.received(from: "k3", topic: "scand/k3/result")
        #expect((distinct...distinct + 3).contains(published), "at least once, rarely twice: the daemon published \(published) messages for \(distinct) results\n\(daemon.logText)")
        await daemon.stop()
    }

    /// `reject-new` with an outbox of one result: the broker acknowledges each result within
    /// milliseconds, so the outputs never show full and no press is refused (a tryout: each
    /// result kept the outbox full until the next second's retry, a second of refused presses
    /// with the LED and the configured beep; a CI run: a room report counted before a PUBACK
    /// reached the kiosk after the PUBACK's, and the empty outbox was shown full for good).
    @Test func aBrokerThatAcknowledgesAtOnceNeverFillsAnOutboxOfOne() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-one")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir, persistence: false) // acknowledges at once, also on a busy disk
        let daemon = try Daemon(dir: dir, broker: broker, id: "k9", pressEvery: 0.25,
                                arguments: ["--set", "outbox.capacity=1", "--set", "outbox.policy=reject-new"])
        #expect(await Poll.until(20) { broker.received(from: "k9", topic: "scand/k9/result") >= 12 }, "\(daemon.logText)")
        await daemon.stop()
        #expect(!daemon.logText.contains("outputs are full") && !daemon.logText.contains("ignored"), "\(daemon.logText)")
    }

    /// A broker that is not up when scand starts (a kiosk that boots before the network, or
    /// before the broker): scand connects once it is, and sends what it kept meanwhile (a
    /// tryout: one attempt at start and none after). A broker name that does not resolve yet is
    /// tried again too.
    @Test func aBrokerDownAtStartIsUsedOnceItIsUp() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-late")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir)
        await broker.stop()
        let daemon = try Daemon(dir: dir, broker: broker, id: "k7", pressEvery: 0.3)
        #expect(await Poll.until(20) { (daemon.statusJSON["pendingResults"] as? Int ?? 0) >= 2 }, "\(daemon.statusJSON)\n\(daemon.logText)")
        try await Task.sleep(for: .seconds(2))
        try await broker.start()
        #expect(await Poll.until(25) { daemon.logText.contains("connected as k7") }, "\(daemon.logText)")
        #expect(await Poll.until(10) { broker.received(from: "k7", topic: "scand/k7/result") >= 2 }, "\(daemon.logText)")
        await daemon.stop()
        let unresolved = try Daemon(dir: dir, broker: broker, id: "k8", pressEvery: nil, url: "mqtt://no-such-host.invalid:1883")
        // Still trying after the name failed (the loop's end no longer ends the network thread),
        // and a stop in the wait between attempts ends it at once.
        #expect(await Poll.until(20) { unresolved.logText.contains("disconnected") || unresolved.logText.contains("error output mqtt") }, "\(unresolved.logText)")
        try await Task.sleep(for: .seconds(3))
        #expect(unresolved.process.isRunning)
        await unresolved.stop()
        #expect(unresolved.logText.split(separator: "\n").last?.hasSuffix("scand stopped") == true, "\(unresolved.logText)")
    }

    /// A stop while a broker that was in use is away ends well within the unit's
    /// `TimeoutStopSec` (10 s): the wait before the next connection attempt ends at once (a
    /// tryout: libmosquitto's own reconnect sleep, which nothing interrupts, held a stop up to
    /// 11 s, and systemd would have killed scand and logged a failed stop).
    @Test func aStopWhileTheBrokerIsAwayEndsAtOnce() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-away")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir, persistence: false)
        let daemon = try Daemon(dir: dir, broker: broker, id: "k10", pressEvery: nil)
        #expect(await Poll.until(20) { daemon.logText.contains("connected as k10") }, "\(daemon.logText)")
        await broker.stop()
        #expect(await Poll.until(20) { daemon.logText.contains("connection lost") }, "\(daemon.logText)")
        // Attempts 1 and 5 s after the loss have failed: the next waits 9 s.
        try await Task.sleep(for: .seconds(6))
        let asked = ContinuousClock.now
        await daemon.stop()
        let took = ContinuousClock.now - asked
        #expect(took < .seconds(5), "the stop took \(took)\n\(daemon.logText)")
        #expect(daemon.process.terminationStatus == 0)
        #expect(daemon.logText.split(separator: "\n").last?.hasSuffix("scand stopped") == true, "\(daemon.logText)")
    }

    /// Results kept in memory only (`[outbox] directory = ""`) that the broker never took are
    /// lost at a stop: the log says so, and how to keep them.
    @Test func aStopWithResultsInMemoryOnlySaysTheyAreLost() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-memory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try await Broker(dir: dir)
        await broker.stop()
        let daemon = try Daemon(dir: dir, broker: broker, id: "k6", pressEvery: 0.2, outbox: "")
        #expect(await Poll.until(20) { (daemon.statusJSON["pendingResults"] as? Int ?? 0) >= 3 }, "\(daemon.statusJSON)\n\(daemon.logText)")
        await daemon.stop()
        let lost = daemon.logText.split(separator: "\n").filter { $0.contains("output mqtt mqtt://127.0.0.1:") && $0.contains("result(s) not delivered or acknowledged are lost") }
        #expect(lost.count == 1 && lost[0].contains("[outbox] directory = \"\" keeps results in memory only"), "\(daemon.logText)")
        #expect(daemon.logText.split(separator: "\n").last?.hasSuffix("scand stopped") == true, "\(daemon.logText)")
    }

    @Test func passwordsAreAcceptedAndRefused() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-auth")
        defer { try? FileManager.default.removeItem(at: dir) }
        let passwd = dir.appendingPathComponent("passwd")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        make.arguments = ["-c", "-b", passwd.path, "kiosk", "s3cret"]
        try make.run()
        await ChildProcess.reap(make)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: passwd.path)
        let broker = try await Broker(dir: dir, settings: "allow_anonymous false\npassword_file \(passwd.path)")
        let admin = ["-u", "kiosk", "-P", "s3cret"]
        let sub = try await broker.subscribe("scand/#", id: "s4", extra: admin)
        let good = dir.appendingPathComponent("good"), bad = dir.appendingPathComponent("bad")
        try "s3cret\n".write(to: good, atomically: true, encoding: .utf8)
        try "guess\n".write(to: bad, atomically: true, encoding: .utf8)
        let ok = try Daemon(dir: dir, broker: broker, id: "k4", pressEvery: 0.3, mqtt: "username = \"kiosk\"\npassword_file = \"\(good.path)\"")
        #expect(await sub.wait { sub.lines.contains { $0.hasPrefix("scand/k4/result ") } }, "\(ok.logText)")
        let refused = try Daemon(dir: dir, broker: broker, id: "k5", pressEvery: 0.3, mqtt: "username = \"kiosk\"\npassword_file = \"\(bad.path)\"")
        #expect(await sub.wait { refused.logText.contains("refused by the broker") }, "\(refused.logText)")
        #expect(await sub.wait { (refused.statusJSON["connections"] as? [String: String])?.values.first?.contains("refused by the broker") == true },
                "\(refused.statusJSON)")
        #expect(!sub.lines.contains { $0.hasPrefix("scand/k5/") })
        let shown = try Run.scand(["status", "--file", refused.status.path])
        #expect(shown.stdout.contains("connection mqtt mqtt://127.0.0.1:\(broker.port): disconnected (refused by the broker: "), "\(shown.stdout)")
        #expect(await sub.wait { (refused.statusJSON["pendingResults"] as? Int ?? 0) > 0 }, "kept for when the password is fixed")
        await ok.stop()
        await refused.stop()
    }

    @Test func tlsWithTheRightCAIsAcceptedAndAnotherRefused() async throws {
        let dir = try Fixture.temporaryFolder("scand-mqtt-tls")
        defer { try? FileManager.default.removeItem(at: dir) }
        func openssl(_ args: String) async throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "cd \(dir.path) && openssl \(args)"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            if await ChildProcess.exitStatus(p) != 0 { throw BrokerError("openssl \(args) failed") }
        }
        for ca in ["ca", "other"] {
            try await openssl("req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=\(ca) -keyout \(ca).key -out \(ca).crt")
        }
        try await openssl("req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr")
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(to: dir.appendingPathComponent("san.ext"), atomically: true, encoding: .utf8)
        try await openssl("x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.crt")
        let p = dir.path
        for file in try FileManager.default.contentsOfDirectory(atPath: p) { // the broker runs as its own user
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: "\(p)/\(file)")
        }
        let broker = try await Broker(dir: dir, listener: "cafile \(p)/ca.crt\ncertfile \(p)/server.crt\nkeyfile \(p)/server.key")
        let tls = ["--cafile", "\(p)/ca.crt"]
        let sub = try await broker.subscribe("scand/#", id: "s6", extra: tls)
        let ok = try Daemon(dir: dir, broker: broker, id: "k6", pressEvery: 0.3, mqtt: "tls_ca = \"\(p)/ca.crt\"",
                            url: "mqtts://127.0.0.1:\(broker.port)")
        #expect(await sub.wait { sub.lines.contains { $0.hasPrefix("scand/k6/result ") } }, "\(ok.logText)")
        let wrong = try Daemon(dir: dir, broker: broker, id: "k7", pressEvery: 0.3, mqtt: "tls_ca = \"\(p)/other.crt\"",
                               url: "mqtts://127.0.0.1:\(broker.port)")
        #expect(await sub.wait { (wrong.statusJSON["connections"] as? [String: String])?.values.first?.contains("certificate verify failed") == true }, "\(wrong.statusJSON)")
        // The daemon refuses the broker's certificate in the TLS handshake, before MQTT's
        // CONNECT: the broker never meets a client k7, so nothing of k7 can reach a subscriber.
        #expect(!broker.logLines.contains { $0.contains(" as k7 (") || $0.contains("from k7 ") || $0.hasSuffix("from k7") }, "\(broker.logLines.suffix(20))")
        #expect(!sub.lines.contains { $0.hasPrefix("scand/k7/") })
        await wrong.stop()

        // The broker goes away: a TLS connection its port refuses is a failed attempt at once,
        // said so, not a core spun until the keepalive runs out (a tryout: 95 % of a core for
        // 10 s an attempt, the status `connecting` meanwhile).
        await broker.stop()
        #expect(await Poll.until(15) { (ok.statusJSON["connections"] as? [String: String])?.values.first?.contains("before the TLS handshake") == true },
                "\(ok.statusJSON)\n\(ok.logText)")
        func ticks() -> Int { // user and system time of the daemon, in clock ticks (100 a second)
            let stat = (try? String(contentsOfFile: "/proc/\(ok.process.processIdentifier)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        }
        let before = ticks()
        try await Task.sleep(for: .seconds(3))
        #expect(ticks() - before < 60, "\(ticks() - before) ticks in 3 s (a spinning thread takes 300)\n\(ok.logText)")
        await ok.stop()
    }
}
