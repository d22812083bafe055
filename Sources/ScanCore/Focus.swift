import ScanHardware

extension FocusMode {
    /// `dioptres` as a person reads them: `2.5 dioptres (40 cm)`, `0.25 dioptres (4 m)`,
    /// `0 dioptres (infinity)` (anything beyond 1 km is).
    public static func lensText(_ dioptres: Double) -> String {
        func plain(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
        let cm = 100 / dioptres
        let distance = if dioptres <= 0 || cm >= 100_000 { "infinity" }
            else if cm < 100 { "\(Int(cm.rounded())) cm" }
            else if cm < 1000 { "\(plain((cm / 10).rounded() / 10)) m" }
            else { "\(Int((cm / 100).rounded())) m" }
        let places = dioptres < 1 ? 1000.0 : 100.0
        return "\(plain((dioptres * places).rounded() / places)) dioptres (\(distance))"
    }
}

extension KioskSettings {
    /// The lens mode `focus` asks for under this trigger mode: `auto-on-press` focuses once per
    /// press where there is a press (pulse, level) and continuously where there is none
    /// (presentation, continuous). Nil when `camera.controls` sets the lens (`lensByControls`).
    public var focusMode: FocusMode? {
        if lensByControls { return nil }
        switch focus {
        case .autoOnPress: return trigger == .pulse || trigger == .level ? .onRequest : .continuous
        case .continuous: return .continuous
        case .fixed: return .manual(dioptres: lensPosition)
        }
    }

    /// The focus in effect, for the status: `auto-on-press`; `continuous` (also `auto-on-press`
    /// under a trigger mode with no press); `fixed at 2.5 dioptres (40 cm)`; `camera.controls`
    /// when those set the lens.
    public var focusInEffect: String {
        switch focusMode {
        case nil: return "camera.controls"
        case .onRequest: return FocusSetting.autoOnPress.rawValue
        case .continuous: return FocusSetting.continuous.rawValue
        case .manual(let d): return "\(FocusSetting.fixed.rawValue) at \(FocusMode.lensText(d))"
        }
    }
}
