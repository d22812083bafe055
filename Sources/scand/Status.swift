import ArgumentParser
import ScanConfig
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// `scand status`: the running daemon's state and metrics, asked over its control socket, or
/// read from its status file when no daemon answers there.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the camera state, torch and metrics of the running daemon.",
        discussion: """
            Asks the running daemon over its control socket (control.socket); when nothing listens \
            there, reads the status file the daemon writes (status.file, or --file).
            """
    )

    @Option(help: "The config file naming the control socket and the status file.")
    var config: String = "/etc/scand/scand.toml"

    @Option(help: "The status file to read when no daemon answers on the control socket (instead of the one the config names).")
    var file: String?

    @Flag(help: "Print the raw JSON.")
    var json = false

    static let fields = ["camera", "cameraDetail", "torch", "torchMode", "phase", "presses", "goodReads", "closedWithoutScan", "errors",
                         "torchOn", "torchAutoOn", "confirmationsExpired", "focus", "autofocusCycles", "framesDecoded", "framesDropped", "cameraReconnects",
                         "decodeSeconds", "duplicatesSuppressed", "pendingResults", "outputsFull", "resultsNotStored", "resultsParked",
                         "commandsRefused", "repliesDropped"]

    func run() throws {
        let (bytes, source, fromFile) = try statusJSON()
        guard let object = try? JSONValue.parse(bytes), object["camera"]?.string != nil, object["phase"]?.string != nil else {
            printError("scand status: \(source) is not a status file (scand writes one with camera, phase and counts)")
            throw ExitCode(1)
        }
        // A status file outlives its daemon: say so when the process it names is gone, and show
        // the last status it wrote.
        var gone: String?
        if fromFile, let pid = object["pid"]?.number.map({ Int32($0) }), kill(pid, 0) != 0, errno == ESRCH {
            let when = Self.modified(source).map { " at \($0)" } ?? ""
            gone = object["phase"]?.string == "stopped"
                ? "scand status: scand is not running (pid \(pid) stopped\(when)); its last status, from \(source):"
                : "scand status: scand is not running (pid \(pid) ended\(when) without stopping: killed or crashed); its last status, from \(source):"
            printError(gone!)
        }
        if json {
            print(String(decoding: bytes, as: UTF8.self), terminator: bytes.last == 10 ? "" : "\n")
            if gone != nil { throw ExitCode(1) }
            return
        }
        for key in Self.fields {
            switch object[key] {
            case .string(let s): print("\(key): \(PayloadText.escaped(s))")
            case .number(let n): print("\(key): \(n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n))")
            case .bool(let b): print("\(key): \(b)")
            default: continue
            }
        }
        // While the outputs are full, each output without room: `full output serial /dev/ttyUSB0`.
        for name in object["fullOutputs"]?.array ?? [] {
            print("full output \(Self.shown(name.string ?? "?"))")
        }
        // Outputs with a connection: `connection mqtt mqtt://broker:1883: connected`.
        if case .object(let connections)? = object["connections"] {
            for (name, state) in connections.sorted(by: { $0.key < $1.key }) {
                print("connection \(Self.shown(name)): \(PayloadText.escaped(state.string ?? "?"))")
            }
        }
        if let decoding = object["decoding"] { Self.decodingLines(decoding).forEach { print($0) } }
        if gone != nil { throw ExitCode(1) }
    }

    /// An output's name as the daemon wrote it (its control characters already `\xNN`): escaped
    /// again only where a status file holds a character `PayloadText.escaped` would change
    /// after all (a backslash aside: the daemon's own escapes have them).
    static func shown(_ name: String) -> String {
        name.unicodeScalars.contains { $0 != "\\" && PayloadText.escaped(String($0)) != String($0) } ? PayloadText.escaped(name) : name
    }

    /// The decode statistics, a line per symbology read or refused and one for the no-reads:
    /// `decoding Code-128: 3 reads (median ≤110 ms: 1 2 0 0 0 0 0 0), 1 refused`.
    static func decodingLines(_ decoding: JSONValue) -> [String] {
        typealias Histogram = DecodeStatistics.Histogram
        func counts(_ h: JSONValue?) -> [Int] { (h?["bins"]?.array ?? []).map { Int($0.number ?? 0) } }
        func times(_ bins: [Int]) -> String {
            guard let median = Histogram.medianBin(bins) else { return "" }
            return " (median \(Histogram.label(median)): \(bins.map(String.init).joined(separator: " ")))"
        }
        var lines = ["decoding bins: " + (0...Histogram.boundsMs.count).map(Histogram.label).joined(separator: ", ")]
        if case .object(let each)? = decoding["symbologies"] {
            let order = { (name: String) in Symbology(rawValue: name).flatMap { Symbology.allCases.firstIndex(of: $0) } ?? Int.max }
            for (name, s) in each.sorted(by: { (order($0.key), $0.key) < (order($1.key), $1.key) }) {
                let reads = Int(s["reads"]?.number ?? 0), refused = Int(s["refused"]?.number ?? 0)
                lines.append("decoding \(PayloadText.escaped(name)): \(reads) read\(reads == 1 ? "" : "s")\(times(counts(s)))"
                             + (refused > 0 ? ", \(refused) refused" : ""))
            }
        }
        let noReads = decoding["noReads"]
        lines.append("no reads: \(Int(noReads?["count"]?.number ?? 0))\(times(counts(noReads)))")
        return lines
    }

    /// The status JSON and where it came from: the daemon on the control socket, else the
    /// status file.
    func statusJSON() throws(ExitCode) -> (bytes: [UInt8], source: String, fromFile: Bool) {
        var socket: String?
        var statusFile = file
        do {
            let loaded = try ConfigLoader.load(path: config)
            socket = loaded.controlSocket
            statusFile = file ?? loaded.statusFile
        } catch {
            if access(config, F_OK) != 0 {
                // No config file (scand not installed here, or installed elsewhere): ask where a
                // default install answers, and say what was tried.
                let defaults = ScandConfig()
                socket = defaults.controlSocket
                statusFile = file ?? defaults.statusFile
            } else if let places = ConfigLoader.statusPlaces(path: config) {
                // A file with a wrong value: the daemon may run with it as it was (a reload
                // refused the change), so it is asked where the file says, and the error shown.
                printError("scand status: \(config) has errors (a restart would refuse it); asking the daemon where it says:\n\(error)")
                socket = places.controlSocket
                statusFile = file ?? places.statusFile
            } else if file == nil {
                // With --file the config only names the socket: one that cannot be read leaves the file.
                printError("\(error)"); throw ExitCode(1)
            }
        }
        if let socket, let response = try UnixHTTP.askDaemon(socket, target: "/api/status", for: "status") {
            return (response.body, "the daemon's answer on \(socket)", false)
        }
        guard let statusFile else { printError(Self.noDaemon(socket: socket, file: nil)); throw ExitCode(1) }
        do { return (try FileBytes.read(statusFile, limit: 1 << 20), statusFile, true) } catch {
            printError(error.errno == ENOENT ? Self.noDaemon(socket: socket, file: statusFile) : "scand status: \(statusFile) \(error.reason)")
            throw ExitCode(1)
        }
    }

    /// The line said when nothing answered: what was tried, where.
    static func noDaemon(socket: String?, file: String?) -> String {
        guard socket != nil || file != nil else {
            return "scand status: the config sets neither control.socket nor status.file: there is no scand to ask"
        }
        let tried = [socket.map { path in
                         FileBytes.folderExists(of: path) ? "nothing listens on the control socket \(located(path))"
                             : "there is no control socket \(located(path)): its folder does not exist (a daemon started outside systemd runs without one)"
                     },
                     file.map { "there is no status file \(located($0))" }].compactMap { $0 }
        return "scand status: no scand is running (\(tried.joined(separator: ", and ")))"
    }

    /// When `path` was last written (UTC), if it can be told.
    static func modified(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        var t = st.st_mtim.tv_sec
        var parts = tm()
        guard gmtime_r(&t, &parts) != nil else { return nil }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }

    /// `path` as tried: a relative one from the current folder.
    static func located(_ path: String) -> String {
        guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }
}
