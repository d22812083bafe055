import Logging
import ScanConfig
import ScanRuntime

/// The running daemon's config: the file, the `--set` overrides, and the host's `SET`s for this
/// run (one per key, the latest kept). SIGHUP reads the file again with them; a `SET` is
/// validated like the file and applied without a restart. Keys that name hardware, files or
/// outputs are refused while running (they take effect at start).
public actor LiveConfig {
    let path: String
    let overrides: [String]
    /// Host `SET`s by key, in the order first set.
    private var session: [(key: String, item: String)] = []
    /// The file as the daemon runs with it (read at start, again by each SIGHUP it took): a
    /// `SET` applies to it, not to edits saved since and not reloaded (a tryout: a `SET` of one
    /// key applied an unsaved change of the trigger mode, and a file broken since refused it).
    private var file: [UInt8]?
    /// What of the config needs a restart, as the daemon started with it.
    private let startedWith: ScandConfig
    let hasTorchLine: Bool
    /// Hands new tuning to the kiosk (`KioskRuntime.reload`).
    let applyTuning: @Sendable (KioskTuning) async -> Void
    let logger: Logger

    public init(path: String, overrides: [String], running: ScandConfig, hasTorchLine: Bool, logger: Logger,
                apply: @escaping @Sendable (KioskTuning) async -> Void) {
        self.path = path
        self.overrides = overrides
        self.startedWith = running.startOnly
        self.hasTorchLine = hasTorchLine
        self.applyTuning = apply
        self.logger = logger
        file = try? ConfigLoader.fileBytes(path)
    }

    /// `SET key=value`: nil when applied, else the reason for the `ERR SET:` answer. The value
    /// is checked first (an unknown key is named as unknown, a bad value gets the reader's
    /// reason), then whether a running daemon takes the key.
    public func set(_ key: String, _ value: String) async -> String? {
        let override: Override
        do { override = try Override(key: key, value: value) } catch { return Self.line(error, setting: key) }
        var candidate = session
        let item = "\(override.name)=\(value)"
        if let i = candidate.firstIndex(where: { $0.key == override.name }) { candidate[i].item = item } else {
            candidate.append((override.name, item))
        }
        let running = file
        let loaded = Result { () throws(ConfigErrors) -> ScandConfig in
            let bytes: [UInt8]
            if let running { bytes = running } else { bytes = try ConfigLoader.fileBytes(path) }
            return try Board.loadConfig(path: path, bytes: bytes, overrides: overrides + candidate.map(\.item))
        }
        if case .failure(let problems) = loaded {
            // The errors of a `SET` name `--set` (not a line of the file).
            let mine = problems.errors.filter { $0.file == "--set" }
            // What is wrong with this key's value (or that the key is unknown) comes first; a
            // clash with another SET of this run only for a key SET takes (for the others, that
            // SET cannot take them is the answer).
            let aboutItself = mine.contains { $0.key == nil || $0.key == override.name || $0.message.hasPrefix("unknown key") }
            if !mine.isEmpty && (aboutItself || ScandConfig.takesEffectWhileRunning(override.key)) {
                return mine.map { Self.line($0, setting: override.name) }.joined(separator: "; ")
            }
        }
        guard ScandConfig.takesEffectWhileRunning(override.key) else {
            // A key SIGHUP applies or one only a restart does: by the key, whatever its value
            // (a tryout: the advice followed the value and the file's other edits).
            let name = override.key.joined(separator: ".")
            let onReload = ScandConfig.reloadKeys.contains { name == $0 || name.hasPrefix($0 + ".") }
            return "\(override.name) is not set while running; change it in \(path), then "
                + (onReload ? "reload (SIGHUP: systemctl reload scand)" : "restart (systemctl restart scand)")
                + " (SET takes: " + ScandConfig.runtimeKeys.joined(separator: ", ") + ")"
        }
        switch loaded {
        case .success(let config):
            await apply(config)
            session = candidate
            return nil
        case .failure(let problems):
            return problems.errors.map { Self.line($0, setting: override.name) }.joined(separator: "; ")
        }
    }

    /// One config problem as an answer: `key: reason` (`set.key: other.key: reason` when the
    /// value upsets another key), or `unknown key a.b; known keys here: ...`.
    static func line(_ error: ConfigError, setting name: String) -> String {
        if error.message.hasPrefix("unknown key;"), let key = error.key, name == key || name.hasPrefix(key + ".") {
            return "unknown key \(name)" + error.message.dropFirst("unknown key".count)
        }
        guard let key = error.key, key != name else { return "\(name): \(error.message)" }
        return "\(name): \(key): \(error.message)"
    }

    /// SIGHUP: the file again, with the overrides and this run's `SET`s; a bad file is rejected
    /// and the running config kept.
    public func reload() async {
        do {
            // The file as it is first: a SET of the same key must not hide an error in it (the
            // next start would refuse the file).
            let bytes = try ConfigLoader.fileBytes(path)
            _ = try Board.loadConfig(path: path, bytes: bytes, overrides: overrides)
            let new = try Board.loadConfig(path: path, bytes: bytes, overrides: overrides + session.map(\.item))
            file = bytes
            let restart = startedWith.startOnlyChanges(to: new)
            await apply(new)
            let kept = session.isEmpty ? "" : " (this run's SETs kept: " + session.map(\.item).joined(separator: ", ") + ")"
            logger.notice("config reloaded from \(path)\(kept)")
            if !restart.isEmpty {
                logger.warning("config: \(restart.joined(separator: ", ")) changed: that takes effect at the next start (systemctl restart scand); a reload applies \((ScandConfig.runtimeKeys + ScandConfig.reloadKeys).joined(separator: ", "))")
            }
        } catch {
            logger.error("config reload rejected, keeping the running config: \(error.errors.map(\.description).joined(separator: "; "))")
        }
    }

    private func apply(_ config: ScandConfig) async {
        await applyTuning(Board.tuning(config, hasTorchLine: hasTorchLine))
    }
}
