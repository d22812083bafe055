import ArgumentParser
import ScanConfig
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// `scand status`: the running daemon's state and metrics, from its status file.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the camera state, torch and metrics of the running daemon.")

    @Option(help: "The config file naming the status file.")
    var config: String = "/etc/scand/scand.toml"

    @Option(help: "Read this status file instead of the one the config names.")
    var file: String?

    @Flag(help: "Print the raw JSON.")
    var json = false

    static let fields = ["camera", "cameraDetail", "torch", "torchMode", "phase", "presses", "goodReads", "closedWithoutScan", "errors",
                         "torchOn", "confirmationsExpired", "framesDecoded", "framesDropped", "cameraReconnects",
                         "decodeSeconds", "duplicatesSuppressed", "pendingResults", "resultsNotStored", "resultsParked"]

    func run() throws {
        var path = file
        if path == nil {
            do { path = try ConfigLoader.load(path: config).statusFile } catch {
                printError("\(error)"); throw ExitCode(1)
            }
        }
        guard let path else { printError("scand status: the config sets no status.file"); throw ExitCode(1) }
        guard let bytes = try? FileBytes.read(path, limit: 1 << 20) else {
            printError("scand status: cannot read \(path): is scand running?"); throw ExitCode(1)
        }
        guard let object = try? JSONValue.parse(bytes), object["camera"]?.string != nil, object["phase"]?.string != nil else {
            printError("scand status: \(path) is not a status file (scand writes one with camera, phase and counts)")
            throw ExitCode(1)
        }
        if json { print(String(decoding: bytes, as: UTF8.self), terminator: ""); return }
        for key in Self.fields {
            switch object[key] {
            case .string(let s): print("\(key): \(PayloadText.escaped(s))")
            case .number(let n): print("\(key): \(n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n))")
            default: continue
            }
        }
        // Outputs with a connection: `connection mqtt mqtt://broker:1883: connected`.
        if case .object(let connections)? = object["connections"] {
            for (name, state) in connections.sorted(by: { $0.key < $1.key }) {
                print("connection \(PayloadText.escaped(name)): \(PayloadText.escaped(state.string ?? "?"))")
            }
        }
    }
}
