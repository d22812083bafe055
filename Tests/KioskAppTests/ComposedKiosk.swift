import Foundation
import InMemoryLogging
import KioskTestKit
import Logging
import ScanApp
import ScanConfig
import ScanHardware
import ServiceLifecycle
import Testing

/// Paths of the committed fixtures in `Tests/Fixtures`.
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static func temporaryFolder(_ prefix: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// A config file for a kiosk in virtual time (`VirtualKiosk.composed`): a simulated board with a
/// button, a camera playing `image`, JSON results on a simulated serial port, the outbox in
/// `folder`, no control socket; `outbox`: more keys of `[outbox]`; `more`: tables after it.
func virtualKioskConfig(in folder: URL, image: String, outbox: String = "", _ more: String = "") throws -> String {
    let path = folder.appendingPathComponent("scand.toml").path
    try """
        hardware = "simulated"
        [gpio]
        board = "simulated"
        button = { pin = "GPIO17" }
        [camera]
        images = ["\(Fixture.path(image))"]
        [outbox]
        directory = "\(folder.path)"
        \(outbox)
        [control]
        socket = ""
        \(more)
        """.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// A kiosk built as `scand run` builds it (`KioskApp`: config file -> board -> runtime ->
/// services), run in a `ServiceGroup` on simulated hardware and the real clock. Tests press its
/// simulated button and await its events; the bounds only end a test that hangs.
final class ComposedKiosk: Sendable {
    let app: KioskApp
    let logs = InMemoryLogHandler()
    let folder: URL
    private let group: ServiceGroup
    private let running: Locked<Task<Result<Void, any Error>, Never>?> = Locked(nil)
    private let events: StreamReader<String>

    /// `toml` follows a simulated board's first lines (hardware, a button and a torch line).
    init(_ toml: String, torch: Bool = true) throws {
        folder = try Fixture.temporaryFolder("kiosk-app")
        let path = folder.appendingPathComponent("scand.toml").path
        let board = "hardware = \"simulated\"\n[gpio]\nboard = \"simulated\"\nbutton = { pin = \"GPIO17\" }\n"
            + "buzzer = { pin = \"GPIO22\" }\nstatus_led = { pin = \"GPIO23\" }\n"
            + (torch ? "torch = { pin = \"GPIO27\" }\n" : "")
        try (board + toml).write(toFile: path, atomically: true, encoding: .utf8)
        let config = try Board.loadConfig(path: path)
        let logs = self.logs
        let logger = Logger(label: "kiosk-app") { _ in logs }
        app = try KioskApp(config: config, options: .init(configPath: path, version: "test"), logger: logger)
        events = StreamReader(app.events.subscribe())
        group = ServiceGroup(configuration: .init(services: app.serviceConfigurations, logger: logger))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Runs the group and waits for the camera to be open.
    func start() async throws {
        let group = self.group
        running.withLock { $0 = Task { await Result { try await group.run() } } }
        _ = try await event(containing: "\"camera\"")
    }

    /// Shuts the group down gracefully (as SIGTERM does) and returns what `run()` ended with.
    func stop() async throws -> Result<Void, any Error> {
        await group.triggerGracefulShutdown()
        guard let task = running.withLock({ $0 }) else { return .success(()) }
        return try await bounded("the group to end") { await task.value }
    }

    /// The next event whose line contains `text`.
    func event(containing text: String) async throws -> String {
        try await bounded("an event with \(text)") {
            while let line = await self.events.next() { if line.contains(text) { return line } }
            return ""
        }
    }

    /// Log messages at `level` or above.
    func logged(atLeast level: Logger.Level) -> [String] {
        logs.entries.filter { $0.level >= level }.map { "\($0.level): \($0.message)" }
    }

    /// Runs `body`, failing the test if it takes more than 60 s (a hang, not a speed limit).
    func bounded<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async -> T) async throws -> T {
        guard let value = await withinBound(.seconds(60), body) else {
            Issue.record("timed out waiting for \(what); log: \(logs.entries.suffix(20).map { "\($0.message)" })")
            throw CancellationError()
        }
        return value
    }
}

extension Result where Failure == any Error {
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
