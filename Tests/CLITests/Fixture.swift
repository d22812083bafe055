import Foundation

/// Paths of the committed fixtures in `Tests/Fixtures` (see `make-fixtures.sh` there).
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    /// The repository's root folder.
    static let repo = folder.deletingLastPathComponent().deletingLastPathComponent()

    /// A new empty folder under the temporary directory; the caller removes it.
    static func temporaryFolder(_ prefix: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A link of this test's own to a pty's port end (`PseudoTerminal.hostPath`), for a
    /// daemon's serial device: a daemon that outlives its test and reopens its device finds the
    /// link gone with the folder, never the reused /dev/pts number of a later test's pty.
    static func serialLink(to ptyPath: String, in dir: URL) throws -> String {
        let link = dir.appendingPathComponent("serial-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: ptyPath)
        return link
    }
}
