import Foundation

/// Paths of the committed fixtures in `Tests/Fixtures` (see `make-fixtures.sh` there).
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    /// A path in `../shared/corpus` beside the repository (e.g. "scenes", "zxing-cpp/itf-1/_853.png").
    static func shared(_ name: String) -> String {
        folder.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/corpus/\(name)").standardized.path
    }
}
