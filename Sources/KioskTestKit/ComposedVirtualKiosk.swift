import Logging
import ScanApp
import ScanConfig
import ScanHardware
import ScanRuntime
import SimulatedHardware

extension VirtualKiosk {
    /// Why a config cannot be run in virtual time.
    public struct NotVirtual: Error, CustomStringConvertible {
        public var description: String
    }

    /// The kiosk of `config` as `scand run` composes it (`Board.make`, `KioskApp.Parts`: the same
    /// drivers, outputs, tuning, patterns and sequence numbers), in virtual time: its simulated
    /// camera paced by `clock`. `config` must name simulated hardware.
    public static func composed(_ config: ScandConfig, clock: ManualClock, logger: Logger,
                                onStatus: (@Sendable (KioskStatus) -> Void)? = nil,
                                onEvent: (@Sendable (String) -> Void)? = nil) throws -> (kiosk: VirtualKiosk, board: Board) {
        let board = try Board.make(config, version: "virtual", logger: logger, clock: clock)
        guard let camera = board.hardware.camera as? SimulatedCamera<ManualClock> else {
            throw NotVirtual(description: "hardware = \"\(config.hardware)\": only simulated hardware runs in virtual time")
        }
        let parts = KioskApp.Parts(config: config, board: board, logger: logger)
        let driver = KioskDriver(hardware: board.hardware, tuning: parts.tuning, outputs: parts.outputs, logger: logger,
                                 patterns: parts.patterns, firstSequence: parts.firstSequence, keepStreaming: parts.keepStreaming,
                                 onStatus: onStatus, onEvent: onEvent)
        return (VirtualKiosk(driver: driver, camera: camera, clock: clock), board)
    }
}
