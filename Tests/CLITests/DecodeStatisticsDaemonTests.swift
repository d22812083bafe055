import Foundation
import Testing

/// The decode statistics of the real daemon on simulated hardware (issue 42): a TRIGGER over the
/// control socket reads the camera's Code 128; `scand status --json`, plain `scand status`,
/// GET /metrics and the metrics file show it under Code-128 in the bin of its decode time. A
/// refused code and a session stopped without a read show as refused and as a no-read.
@Suite(.serialized) struct DecodeStatisticsDaemonTests {
    static let bounds = [75, 110, 170, 300, 600, 1000, 1500]

    /// `scand status --json` of `daemon`, parsed.
    static func status(_ config: String) throws -> [String: Any] {
        let run = try Run.scand(["status", "--config", config, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    static func decoding(_ status: [String: Any]) -> (symbologies: [String: [String: Any]], noReads: [String: Any]) {
        let decoding = status["decoding"] as? [String: Any] ?? [:]
        return (decoding["symbologies"] as? [String: [String: Any]] ?? [:], decoding["noReads"] as? [String: Any] ?? [:])
    }

    /// A daemon that writes its metrics to `metricsFile` (a path in its folder), ready, and its
    /// control socket.
    static func daemon(metricsFile name: String) async throws -> (daemon: SetupPageTests.Daemon, metricsFile: String, socket: String) {
        let dir = try Fixture.temporaryFolder("scand-stats")
        let metricsFile = dir.appendingPathComponent(name).path
        let daemon = try SetupPageTests.Daemon(dir: dir, extra: "[metrics]\nfile = \"\(metricsFile)\"")
        #expect(await daemon.ready(), "\(daemon.logText)")
        return (daemon, metricsFile, daemon.dir.appendingPathComponent("control.sock").path)
    }

    @Test func aReadShowsInItsSymbologyAndBinInTheStatusAndTheMetrics() async throws {
        let (daemon, metricsFile, socket) = try await Self.daemon(metricsFile: "metrics.prom")
        let config = daemon.dir.appendingPathComponent("scand.toml").path
        _ = await Poll.until(10) { (try? ControlSocket.get(socket, "/api/status"))?.text.contains("\"camera\":\"available\"") == true }

        #expect(try ControlSocket.command(socket, "TRIGGER").text == "OK TRIGGER\n")
        var status: [String: Any] = [:]
        #expect(try await Poll.until(20) { status = try Self.status(config); return status["goodReads"] as? Int == 1 }, "\(status)")
        let (symbologies, noReads) = Self.decoding(status)
        let code128 = symbologies["Code-128"] ?? [:]
        let bins = code128["bins"] as? [Int] ?? []
        let seconds = code128["seconds"] as? Double ?? -1
        #expect(code128["reads"] as? Int == 1 && code128["refused"] as? Int == 0, "\(status)")
        #expect(bins.count == 8 && bins.reduce(0, +) == 1, "\(status)")
        // The read is in the bin its decode time (press to read, as the daemon measured it, in
        // whole milliseconds here) falls in.
        let bin = bins.firstIndex(of: 1) ?? 0
        let ms = seconds * 1000
        #expect(seconds > 0 && ms <= Double(bin < Self.bounds.count ? Self.bounds[bin] : .max) + 0.5
                && ms >= Double(bin > 0 ? Self.bounds[bin - 1] : 0) - 0.5, "\(seconds) s in \(bins)")
        #expect(noReads["count"] as? Int == 0 && (status["decoding"] as? [String: Any])?["binsMs"] as? [Int] == Self.bounds)

        // Plain `scand status`: a line for the bins and one per symbology.
        let plain = try Run.scand(["status", "--config", config])
        let label = bin < Self.bounds.count ? "≤\(Self.bounds[bin]) ms" : ">1500 ms"
        #expect(plain.stdout.contains("\ndecoding Code-128: 1 read (median \(label): \(bins.map(String.init).joined(separator: " ")))\n"), "\(plain.stdout)")
        #expect(plain.stdout.contains("\nno reads: 0\n"), "\(plain.stdout)")

        // GET /metrics and the metrics file: a Prometheus histogram, cumulative buckets.
        let metrics = try SetupPageTests.get(daemon.port, "/metrics").text
        #expect(metrics.contains("# TYPE scand_decode_time_seconds histogram\n"), "\(metrics)")
        for (i, bound) in Self.bounds.enumerated() {
            let line = "scand_decode_time_seconds_bucket{symbology=\"Code-128\",le=\"\(Double(bound) / 1000)\"} \(i >= bin ? 1 : 0)\n"
            #expect(metrics.contains(line), "\(line) in \(metrics)")
        }
        #expect(metrics.contains("scand_decode_time_seconds_bucket{symbology=\"Code-128\",le=\"+Inf\"} 1\nscand_decode_time_seconds_sum{symbology=\"Code-128\"} "))
        #expect(metrics.contains("scand_decode_time_seconds_count{symbology=\"Code-128\"} 1\n"))
        #expect(metrics.contains("scand_no_read_seconds_count 0\n"))
        #expect(await Poll.until(5) { (try? String(contentsOfFile: metricsFile, encoding: .utf8))?.contains("scand_decode_time_seconds_count{symbology=\"Code-128\"} 1\n") == true })

        // A pattern the code does not match (SET, kept across the change): the code is refused
        // and the session goes on until STOP ends it, a no-read.
        #expect(try ControlSocket.command(socket, "SET scan.accept_pattern=^only-this$").status == 200)
        #expect(try ControlSocket.command(socket, "TRIGGER").text == "OK TRIGGER\n")
        #expect(try await Poll.until(20) {
            status = try Self.status(config)
            return Self.decoding(status).symbologies["Code-128"]?["refused"] as? Int == 1
        }, "\(status)")
        #expect(try ControlSocket.command(socket, "STOP").text == "OK STOP\n")
        #expect(try await Poll.until(10) { status = try Self.status(config); return status["closedWithoutScan"] as? Int == 1 }, "\(status)")
        let after = Self.decoding(status)
        #expect(after.symbologies["Code-128"]?["reads"] as? Int == 1 && after.symbologies["Code-128"]?["bins"] as? [Int] == bins, "\(status)")
        #expect(after.noReads["count"] as? Int == 1 && (after.noReads["bins"] as? [Int])?.reduce(0, +) == 1, "\(status)")
        let later = try SetupPageTests.get(daemon.port, "/metrics").text
        #expect(later.contains("scand_rejected_by_symbology_total{symbology=\"Code-128\"} 1\n") && later.contains("scand_no_read_seconds_count 1\n"), "\(later)")
    }

    /// A metrics file in a folder that does not exist: the log says so once, not at every
    /// status (a tryout: nothing said so, and the file was never written), and says when it is
    /// written again once the folder is there.
    @Test func aMetricsFileThatCannotBeWrittenIsSaidOnce() async throws {
        let (daemon, metricsFile, socket) = try await Self.daemon(metricsFile: "nodir/metrics.prom")
        #expect(await Poll.until(10) { daemon.logText.contains("metrics.file \(metricsFile) not written: ") }, "\(daemon.logText)")
        #expect(try ControlSocket.command(socket, "TRIGGER").text == "OK TRIGGER\n")
        try FileManager.default.createDirectory(at: daemon.dir.appendingPathComponent("nodir"), withIntermediateDirectories: true)
        #expect(try ControlSocket.command(socket, "TRIGGER").text.hasPrefix("OK TRIGGER"))
        #expect(await Poll.until(20) { FileManager.default.fileExists(atPath: metricsFile) })
        #expect(await Poll.until(5) { daemon.logText.contains("metrics.file \(metricsFile) written again") }, "\(daemon.logText)")
        #expect(daemon.logText.components(separatedBy: " not written: ").count == 2, "said once: \(daemon.logText)")
    }
}
