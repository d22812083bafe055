import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers for the CLI (whole-file writes are `FileBytes.writeAtomically`): with
/// them the binary needs no Foundation, whose ICU data was most of its size.
enum Posix {
    /// The names in a directory (without `.` and `..`), sorted; nil when it cannot be read.
    static func directoryEntries(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// `path` with every link and `.`/`..` resolved (`realpath`), or nil where it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The folder holding `relativePath`: the current one, else the first above this executable
    /// (`.build/release/scand` lies inside its checkout); nil when neither has it.
    static func folderHolding(_ relativePath: String) -> String? {
        if isReadable(relativePath) { return "." }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        var folder = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            folder = String(folder[..<slash])
            if isReadable(folder + "/" + relativePath) { return folder }
        }
        return nil
    }
    static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// The processors online (sysconf), at least 1.
    static var onlineProcessors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Runs a program with `arguments`, its standard output collected and its standard error
    /// discarded; nil when it cannot be started.
    static func run(_ path: String, _ arguments: [String]) -> (status: Int32, output: [UInt8])? {
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(pipeFDs[1])
        guard rc == 0 else { close(pipeFDs[0]); return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            output += buffer[0..<n]
        }
        close(pipeFDs[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status, output)
    }
}

/// `value` with exactly `decimals` decimals, as printf's `%.Nf` writes it.
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e18 else { return String(value) }
    let units = Int64(scaled)
    let whole = units / Int64(scale), fraction = units % Int64(scale)
    var text = (value < 0 && units != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let digits = String(fraction)
        text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
}

/// `text` padded with spaces to `width` (on the left with `right: true`).
func padded(_ text: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return right ? fill + text : text + fill
}
