import Foundation
import Testing

/// `scand run` on the simulated camera with its results on standard output, for the tests that
/// read codes end to end (GS1, add-ons).
enum StdoutDaemon {
    /// The first line `scand run` writes on stdout with the camera showing `image` (a press
    /// every `pressEvery` seconds: a press in a session ends it), `extra` appended to a config
    /// of simulated hardware with a button.
    static func firstLine(_ image: String, _ extra: String, pressEvery: String, folder: String) async throws -> String {
        let dir = try Fixture.temporaryFolder(folder)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("scand.toml")
        try ("hardware = \"simulated\"\n[camera]\nimages = [\"\(Fixture.path(image))\"]\nfps = 10\n"
            + "[gpio]\nboard = \"simulated\"\nbutton = { pin = \"GPIO17\" }\n" + extra).write(to: config, atomically: true, encoding: .utf8)
        let outFile = dir.appendingPathComponent("stdout.txt")
        FileManager.default.createFile(atPath: outFile.path, contents: nil)
        let process = Process()
        process.executableURL = Run.scand
        process.arguments = ["run", "--config", config.path, "--no-stdin", "--press-every", pressEvery]
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        let log = dir.appendingPathComponent("stderr.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try ChildProcess.launch(process)
        defer { ChildProcess.stop(process) }
        func read() -> [String] { ((try? String(contentsOf: outFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        // Bounded only to end a hang.
        let finished = await Poll.until(60) { !read().isEmpty }
        kill(process.processIdentifier, SIGTERM)
        #expect(await ChildProcess.exitStatus(process) == 0)
        #expect(finished, "\(image) was not read:\n\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        return read().first ?? ""
    }
}
