import Foundation

/// Paths of the committed fixtures in `Tests/Fixtures` (see `make-fixtures.sh` there).
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
}
