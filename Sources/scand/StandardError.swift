#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to standard error (file descriptor 2, unbuffered).
func printError(_ line: String) {
    let text = line + "\n"
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        bytes = bytes.dropFirst(n)
    }
}
