import CStartup
import Decoding

/// What `scand --version` and the host's `VERSION` name: the release, the commit it was built
/// from (scripts/stamp-version.sh, or the tarball's) and the decoders' versions.
enum Version {
    static let release = "0.1.0"

    /// The commit, or nil for a build from a clone without scripts/stamp-version.sh.
    static var commit: String? {
        let c = String(cString: scand_build_commit())
        return c.isEmpty ? nil : c
    }

    /// `0.1.0 (commit 1ad90ab5c0de)`: the daemon's version (status, `VERSION`).
    static var daemon: String { "\(release) (commit \(commit ?? "unknown: run scripts/stamp-version.sh before building"))" }

    /// `--version`: the daemon's version and the decoders'.
    static var full: String { "\(daemon)\nzbar \(DecoderVersions.zbar)\nzxing-cpp \(DecoderVersions.zxing)" }
}
