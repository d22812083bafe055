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
    }

    /// `SET key=value`: nil when applied, else the reason for the `ERR` answer.
    public func set(_ key: String, _ value: String) async -> String? {
        let override: Override
        do { override = try Override(key: key, value: value) } catch { return error.message }
        guard ScandConfig.takesEffectWhileRunning(override.key) else {
            return "takes effect at start; change it in \(path) and restart (while running: "
                + ScandConfig.runtimeKeys.joined(separator: ", ") + ")"
        }
        var candidate = session
        let item = "\(override.name)=\(value)"
        if let i = candidate.firstIndex(where: { $0.key == override.name }) { candidate[i].item = item } else {
            candidate.append((override.name, item))
        }
        do {
            await apply(try Board.loadConfig(path: path, overrides: overrides + candidate.map(\.item)))
            session = candidate
            return nil
        } catch {
            return error.errors.map { ($0.key == override.name ? "" : $0.key.map { "\($0): " } ?? "") + $0.message }.joined(separator: "; ")
        }
    }

    /// SIGHUP: the file again, with the overrides and this run's `SET`s; a bad file is rejected
    /// and the running config kept.
    public func reload() async {
        do {
            let new = try Board.loadConfig(path: path, overrides: overrides + session.map(\.item))
            let restart = new.startOnly != startedWith
            await apply(new)
            logger.notice("config reloaded from \(path)")
            if restart {
                logger.warning("config: changes outside \(ScandConfig.runtimeKeys.joined(separator: ", ")) take effect at the next start")
            }
        } catch {
            logger.error("config reload rejected, keeping the running config:\n\(error)")
        }
    }

    private func apply(_ config: ScandConfig) async {
        await applyTuning(Board.tuning(config, hasTorchLine: hasTorchLine))
    }
}
