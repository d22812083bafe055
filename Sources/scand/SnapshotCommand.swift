import ArgumentParser
import ImageLoading
import ScanApp
import ScanConfig
import ScanCore
import SetupPage
import ScanHardware
import ScanRuntime
import Viewfinder
#if canImport(Glibc)
import Glibc
#endif

/// `scand snapshot`: one frame as the pipeline sees it, for aiming and focusing the camera.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Save one camera frame with the viewport, the codes found and guidance drawn over it.",
        discussion: """
            Asks the running daemon over its control socket (control.socket; it holds the camera), \
            or opens the camera itself when no daemon runs. Prints what was found: codes, guidance, \
            brightness, focus (variance of the Laplacian in the viewport: higher is sharper).
            """
    )

    @Option(help: "The TOML config file.")
    var config: String = "/etc/scand/scand.toml"

    @Option(help: "Where to write the PNG.")
    var out: String = "snapshot.png"

    @Flag(help: "Write the frame only, without the overlay.")
    var raw = false

    @Flag(help: "Print the snapshot's JSON instead of a summary.")
    var json = false

    func run() async throws {
        let loaded: ScandConfig
        do { loaded = try Board.loadConfig(path: config) } catch {
            printError("scand: config not usable:\n\(error)"
                       + (config == "/etc/scand/scand.toml" ? "\n(the daemon's config: name another with --config FILE)" : ""))
            throw ExitCode(78)
        }
        var png: [UInt8]
        var description: String
        var source: String
        if let path = loaded.controlSocket,
           let response = try UnixHTTP.askDaemon(path, target: raw ? "/snapshot.png?raw=1" : "/snapshot.png", for: "snapshot") {
            png = response.body
            description = response.headers["x-scand-snapshot"] ?? "{}"
            source = "from the running daemon (\(path))"
        } else {
            let snapshot = try await Self.direct(loaded)
            png = try raw ? ImageEncoding.png(snapshot.frame) : snapshot.render().png()
            description = snapshot.json
            source = "from \(snapshot.capture) (no daemon running)"
        }
        do { try FileBytes.writeAtomically(png, to: out) } catch {
            printError("scand snapshot: \(error)")
            throw ExitCode(1)
        }
        if json { print(description); return }
        print("\(out): \(source)")
        Self.summarise(description)
    }

    /// A frame from the camera itself: opened, streamed until a frame comes (the first frames
    /// of a camera carry its start-up exposure: five are skipped), closed.
    static func direct(_ config: ScandConfig) async throws -> Snapshot {
        let camera: any FrameSource
        do { camera = try Board.camera(config) } catch {
            printError("scand snapshot: \(error)")
            throw ExitCode(1)
        }
        do {
            try camera.open()
            defer { camera.close() }
            try camera.startCapture()
            defer { camera.stopCapture() }
            var frame = try await camera.nextFrame()
            for _ in 0..<5 where config.hardware == .linux { frame = try await camera.nextFrame() }
            let tuning = Board.tuning(config, hasTorchLine: false)
            return Snapshot(frame: frame, viewport: tuning.viewport, decoder: tuning.decoder, torchOn: false,
                            capture: "\(camera.name): \(camera.summary)")
        } catch {
            printError("scand snapshot: camera \(camera.name): \(error)")
            throw ExitCode(1)
        }
    }

    static func summarise(_ json: String) {
        guard let object = try? JSONValue.parse(Array(json.utf8)) else { print(json); return }
        if let w = object["width"]?.number, let h = object["height"]?.number {
            print("frame \(Int(w))x\(Int(h)); \(object["capture"]?.string ?? "")")
        }
        let codes = object["codes"]?.array ?? []
        for code in codes {
            print("code: \(code["symbology"]?.string ?? "?") \(code["text"]?.string ?? "")")
        }
        if codes.isEmpty { print("no code read in the viewport") }
        for advice in object["guidance"]?.array ?? [] {
            print("guidance: \(advice["message"]?.string ?? "")")
        }
        let b = object["brightness"]?.number ?? 0, f = object["focus"]?.number ?? 0, s = object["saturated"]?.number ?? 0
        print("brightness \(Int(b.rounded())) of 255, focus \(Int(f.rounded())), blown out \(Int((s * 1000).rounded()) / 10) %")
    }
}

/// A small HTTP/1.1 client over a Unix socket, for the control socket: one GET, the response
/// read to its end (at most 64 MiB, within 15 s).
enum UnixHTTP {
    struct Response {
        var status: Int
        /// Header names in lowercase.
        var headers: [String: String]
        var body: [UInt8]
    }

    struct Failure: Error {
        var message: String
        /// Nothing listens there (no such socket, or refused): no daemon runs.
        var noDaemon = false
    }

    static let maxResponse = 64 << 20

    /// The running daemon's 200 answer to `GET target` on its control socket `path`, or nil when
    /// no daemon listens there. Any other failure, or another status, is said on standard error
    /// as `scand <command>: ...` and exits 1.
    static func askDaemon(_ path: String, target: String, for command: String) throws(ExitCode) -> Response? {
        let response: Response
        do { response = try get(path: path, target: target) } catch {
            if error.noDaemon { return nil }
            printError("scand \(command): \(error.message)")
            throw ExitCode(1)
        }
        guard response.status == 200 else {
            printError("scand \(command): the daemon answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            throw ExitCode(1)
        }
        return response
    }

    static func get(path: String, target: String) throws(Failure) -> Response {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "socket: \(ErrnoName.describe(errno))") }
        defer { close(fd) }
        guard var address = unixSocketAddress(path) else { throw Failure(message: "control socket path too long: \(path)") }
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected != 0 {
            let code = errno
            throw Failure(message: "control socket \(path): connect: \(ErrnoName.describe(code))",
                          noDaemon: code == ENOENT || code == ECONNREFUSED)
        }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: scand\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue } // a send timeout is set: no restart after a signal
            guard n > 0 else { throw Failure(message: "control socket \(path): write: \(ErrnoName.describe(errno))") }
            sent += n
        }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            guard n > 0 else {
                if errno == EINTR { continue }
                throw Failure(message: "control socket \(path): read: \(ErrnoName.describe(errno))")
            }
            data += buffer[0..<n]
            guard data.count <= maxResponse else { throw Failure(message: "control socket \(path): answer over \(maxResponse) bytes") }
            if let response = try parse(data), response.body.count >= (response.headers["content-length"].flatMap { Int($0) } ?? Int.max) {
                return response
            }
        }
        guard let response = try parse(data) else { throw Failure(message: "control socket \(path): incomplete answer") }
        return response
    }

    /// The response in `data`, or nil when its head is not complete yet.
    static func parse(_ data: [UInt8]) throws(Failure) -> Response? {
        do {
            guard let head = try HTTPResponseHead.parse(data) else { return nil }
            return Response(status: head.status, headers: head.headers, body: Array(data[head.bodyOffset...]))
        } catch { throw Failure(message: error.reason) }
    }
}
