import ArgumentParser
import Foundation
import ScanConfig

/// `scand status`: the running daemon's state and metrics, from its status file.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the camera state, torch and metrics of the running daemon.")

    @Option(help: "The config file naming the status file.")
    var config: String = "/etc/scand/scand.toml"

    @Option(help: "Read this status file instead of the one the config names.")
    var file: String?

    @Flag(help: "Print the raw JSON.")
    var json = false

    func run() throws {
        var path = file
        if path == nil {
            do { path = try ConfigLoader.load(path: config).statusFile } catch {
                printError("\(error)"); throw ExitCode(1)
            }
        }
        guard let path else { printError("scand status: the config sets no status.file"); throw ExitCode(1) }
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("scand status: cannot read \(path): is scand running?"); throw ExitCode(1)
        }
        if json { print(String(decoding: data, as: UTF8.self), terminator: ""); return }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            printError("scand status: \(path) is not a status file"); throw ExitCode(1)
        }
        for key in ["camera", "cameraDetail", "torch", "phase", "presses", "goodReads", "closedWithoutScan", "errors",
                    "torchOn", "confirmationsExpired", "framesDecoded", "framesDropped", "cameraReconnects",
                    "decodeSeconds", "duplicatesSuppressed", "pendingResults"] {
            if let v = object[key] { print("\(key): \(v)") }
        }
    }
}
