import Logging
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// What the loop's world means in the kiosk's terms: driver errors as camera states, phases
/// and log levels as their names.
extension KioskLoop {
    static func unixMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// The camera state a driver error means.
    public static func cameraState(_ error: any Error) -> CameraState {
        guard let e = error as? HardwareError else { return .unavailable(reason: "\(error)") }
        switch e.kind {
        case .busy: return .inUse
        case .permissionDenied: return .permissionDenied
        case .disconnected: return .disconnected
        case .notFound: return .unavailable(reason: "\(e.device) not found")
        default: return .unavailable(reason: e.description)
        }
    }

    static func name(_ phase: KioskMachine.Phase) -> String {
        switch phase {
        case .idle: return "idle"
        case .watching: return "watching"
        case .scanning: return "scanning"
        case .awaitingConfirmation: return "awaiting-confirmation"
        case .stopped: return "stopped"
        }
    }

    /// The swift-log level for a config log level.
    public static func level(_ level: LogLevel) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .notice: return .notice
        case .warning: return .warning
        case .error: return .error
        }
    }
}
