import ScanCore
import ScanHardware
import Testing

/// `camera.focus` in the pure core: whole action lists, the runtime's answers played by a
/// camera that has autofocus or not. No clock, no sleeps.
@Suite struct FocusCoreTests {
    /// The core, and a camera that answers focus calls as `autofocus` says, as the driver does:
    /// "now" answers before the next action, follow-ups after the list.
    struct Kiosk {
        var core: KioskCore
        var autofocus = true

        init(_ change: (inout KioskSettings) -> Void = { _ in }) {
            var settings = KioskSettings()
            settings.hasTorch = true
            change(&settings)
            core = KioskCore(settings: settings, emitsEvents: false)
        }

        /// Every action `input` leads to, in the order the driver carries them out.
        mutating func run(_ input: KioskCore.Input) -> [KioskCore.Action] {
            var done: [KioskCore.Action] = []
            var queue = [input]
            while !queue.isEmpty {
                var actions = core.handle(queue.removeFirst(), now: .zero)[...]
                while let action = actions.popFirst() {
                    if case .followUp(let next) = action { queue.append(next); continue }
                    done.append(action)
                    let answer: KioskCore.Input? = switch action {
                    case .setFocus(let mode): .focusSet(mode, took: autofocus)
                    case .startAutofocus: .autofocusStarted(took: autofocus)
                    case .startStream: .streamStarted(true)
                    case .setFrameRate(let fps): .rateSet(fps, took: true)
                    default: nil
                    }
                    if let answer { actions = (core.handle(answer, now: .zero) + actions)[...] }
                }
            }
            return done
        }

        /// Started with the camera open.
        mutating func open() -> [KioskCore.Action] {
            _ = run(.start)
            return run(.camera(.opened))
        }
    }

    /// The actions that touch hardware (the torch, the lens, the stream), in order.
    static func hardware(_ actions: [KioskCore.Action]) -> [KioskCore.Action] {
        actions.filter {
            switch $0 {
            case .setTorch, .setFocus, .startAutofocus, .startStream, .stopStream: return true
            default: return false
            }
        }
    }

    /// What the log says about focus, above debug.
    static func logs(_ actions: [KioskCore.Action]) -> [String] {
        actions.compactMap { if case .log(let level, let text) = $0, level != .debug, text.contains("focus") { return text }; return nil }
    }

    @Test func theDefaultIsOneCyclePerPressRightAfterTheTorchIsLit() {
        #expect(KioskSettings().focus == .autoOnPress)
        var kiosk = Kiosk()
        let opened = kiosk.open()
        #expect(Self.hardware(opened) == [.setFocus(.onRequest)])
        #expect(Self.logs(opened).contains("camera focus: one autofocus cycle per press"))
        let press = kiosk.run(.kiosk(.buttonPressed))
        #expect(Self.hardware(press) == [.setTorch(false), .setTorch(true), .startAutofocus, .startStream], "\(press)")
        #expect(kiosk.core.autofocusCycles == 1)
        // The press that cancels the session starts no cycle; the next session's press does.
        #expect(!kiosk.run(.kiosk(.buttonPressed)).contains(.startAutofocus))
        #expect(Self.hardware(kiosk.run(.kiosk(.buttonPressed))).contains(.startAutofocus))
        #expect(kiosk.core.autofocusCycles == 2)
    }

    /// A host's TRIGGER is a press too; with the torch off the cycle still runs.
    @Test func aHostTriggerWithTheTorchOffFocusesToo() {
        var kiosk = Kiosk { $0.torchMode = .off }
        _ = kiosk.open()
        let press = kiosk.run(.kiosk(.hostTrigger(from: .host)))
        #expect(Self.hardware(press) == [.setTorch(false), .startAutofocus, .startStream], "\(press)")
    }

    /// The automatic torch lights mid-session: the lens focuses once more in its light.
    @Test func theAutomaticTorchFocusesAgainInItsLight() {
        var kiosk = Kiosk { $0.torchMode = .auto }
        _ = kiosk.open()
        #expect(Self.hardware(kiosk.run(.kiosk(.buttonPressed))) == [.setTorch(false), .startAutofocus, .startStream])
        var later: [KioskCore.Action] = []
        for _ in 0..<10 where !later.contains(.setTorch(true)) {
            later = kiosk.run(.decoded(session: 1, symbols: [], seconds: 0.01, brightness: 5))
        }
        #expect(Self.hardware(later) == [.setTorch(true), .startAutofocus], "\(later)")
        #expect(kiosk.core.autofocusCycles == 2)
    }

    /// Presentation mode has no press: continuous autofocus while watching and scanning, no cycles.
    @Test func presentationKeepsContinuousAutofocus() {
        var kiosk = Kiosk { $0.trigger = .presentation }
        let opened = kiosk.open()
        #expect(Self.hardware(opened).first == .setFocus(.continuous), "\(opened)")
        #expect(Self.logs(opened).contains("camera focus: continuous autofocus (scan.trigger = presentation: no press)"))
        #expect(kiosk.core.machine.phase == .watching)
        let wake = kiosk.run(.kiosk(.sceneChanged))
        #expect(!wake.contains(.startAutofocus) && !wake.contains { if case .setFocus = $0 { return true }; return false })
        #expect(!kiosk.run(.kiosk(.buttonPressed)).contains(.startAutofocus))
        #expect(kiosk.core.autofocusCycles == 0)
    }

    @Test func continuousAndFixedAreSetWhenTheCameraOpens() {
        var continuous = Kiosk { $0.focus = .continuous }
        #expect(Self.hardware(continuous.open()) == [.setFocus(.continuous)])
        #expect(!continuous.run(.kiosk(.buttonPressed)).contains(.startAutofocus))

        var fixed = Kiosk { $0.focus = .fixed; $0.lensPosition = 4 }
        let opened = fixed.open()
        #expect(Self.hardware(opened) == [.setFocus(.manual(dioptres: 4))])
        #expect(Self.logs(opened).contains("camera focus: lens fixed at 4 dioptres (25 cm)"))
        #expect(!fixed.run(.kiosk(.buttonPressed)).contains(.startAutofocus))
        // Reopened after an unplug: the lens is set again.
        _ = fixed.run(.camera(.failed(.disconnected)))
        #expect(Self.hardware(fixed.run(.camera(.opened))) == [.setFocus(.manual(dioptres: 4))])
    }

    /// A fixed-focus camera: one line a person understands, never an error state, no cycles asked.
    @Test func aCameraWithoutAutofocusIsToldOnceAndNeverAnError() {
        var kiosk = Kiosk()
        kiosk.autofocus = false
        let opened = kiosk.open()
        #expect(Self.logs(opened) == ["camera has no autofocus: camera.focus = auto-on-press has no effect"], "\(opened)")
        #expect(opened.allSatisfy { if case .log(let level, _) = $0 { return level != .error && level != .warning }; return true })
        let press = kiosk.run(.kiosk(.buttonPressed))
        #expect(Self.hardware(press) == [.setTorch(false), .setTorch(true), .startStream])
        #expect(kiosk.core.machine.camera == .available && kiosk.core.machine.metrics.errors == 0)
        // Reopened: said once for the life of the process.
        _ = kiosk.run(.camera(.failed(.disconnected)))
        #expect(Self.logs(kiosk.run(.camera(.opened))) == [])
        #expect(kiosk.core.autofocusCycles == 0)
    }

    @Test func aFixedLensWithoutControlSaysSo() {
        var kiosk = Kiosk { $0.focus = .fixed }
        kiosk.autofocus = false
        #expect(Self.logs(kiosk.open()) == ["camera has no lens position control: camera.focus = fixed has no effect"])
    }

    /// A camera that took the mode but refuses the cycle (a driver without the trigger) is told
    /// once and not asked again.
    @Test func aRefusedCycleIsNotAskedAgain() {
        var kiosk = Kiosk()
        _ = kiosk.open()
        kiosk.autofocus = false
        let first = kiosk.run(.kiosk(.buttonPressed))
        #expect(first.contains(.startAutofocus))
        #expect(Self.logs(first).contains("camera has no autofocus: camera.focus = auto-on-press has no effect"))
        _ = kiosk.run(.kiosk(.buttonPressed)) // cancels
        #expect(!kiosk.run(.kiosk(.buttonPressed)).contains(.startAutofocus))
        #expect(kiosk.core.autofocusCycles == 0)
    }

    /// A reload (SIGHUP, SET) that changes the focus asks the open camera at once; one that
    /// leaves it as it is asks nothing.
    @Test func aReloadAppliesTheNewFocus() {
        var kiosk = Kiosk()
        _ = kiosk.open()
        var settings = kiosk.core.machine.settings
        #expect(Self.hardware(kiosk.run(.reload(settings, SpeechPhrases()))) == [])
        settings.focus = .fixed
        settings.lensPosition = 2
        #expect(Self.hardware(kiosk.run(.reload(settings, SpeechPhrases()))) == [.setFocus(.manual(dioptres: 2))])
        // A closed camera is asked when it opens, not before.
        _ = kiosk.run(.camera(.failed(.disconnected)))
        settings.focus = .continuous
        #expect(Self.hardware(kiosk.run(.reload(settings, SpeechPhrases()))) == [])
        #expect(Self.hardware(kiosk.run(.camera(.opened))) == [.setFocus(.continuous)])
    }

    @Test func lensPositionsReadAsDistances() {
        #expect(FocusMode.lensText(2.5) == "2.5 dioptres (40 cm)")
        #expect(FocusMode.lensText(0.25) == "0.25 dioptres (4 m)")
        #expect(FocusMode.lensText(0.3) == "0.3 dioptres (3.3 m)")
        #expect(FocusMode.lensText(0.03) == "0.03 dioptres (33 m)")
        #expect(FocusMode.lensText(0.001) == "0.001 dioptres (infinity)")
        #expect(FocusMode.lensText(1e-300) == "0 dioptres (infinity)")
        #expect(FocusMode.lensText(0) == "0 dioptres (infinity)")
        #expect(FocusMode.lensText(32) == "32 dioptres (3 cm)")
    }
}
