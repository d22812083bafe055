import ScanCore
import Testing

/// Table-driven tests of the kiosk's rules: each case is events in, the effects of the last
/// event out (or the state after all of them).
@Suite struct KioskMachineTests {
    static let qr = Symbol(symbology: .qrCode, text: "https://example.org")
    static let ean = Symbol(symbology: .ean13, text: "5901234123457")

    func machine(_ configure: (inout KioskSettings) -> Void = { _ in }) -> KioskMachine {
        var s = KioskSettings()
        s.sessionTimeout = .seconds(5)
        s.confirmTimeout = .seconds(7)
        configure(&s)
        var m = KioskMachine(settings: s)
        _ = m.handle(.started)
        _ = m.handle(.cameraChanged(.available))
        return m
    }

    @Test func startTurnsTheTorchOffAndShowsTheCameraState() {
        var m = KioskMachine(settings: KioskSettings())
        #expect(m.handle(.started) == [.setTorch(on: false), .indicate(.starting)])
        #expect(m.torch == .off)
        #expect(m.handle(.cameraChanged(.available)) == [.log(.notice, "camera available"), .indicate(.ready)])
    }

    @Test func pressStartsASessionWithTheTorchOn() {
        var m = machine()
        // The lens focuses once the torch is lit (camera.focus = auto-on-press, the default).
        #expect(m.handle(.buttonPressed) == [
            .setTorch(on: false), .setTorch(on: true), .autofocus, .startCapture(session: 1),
            .startTimer(.session, after: .seconds(5)), .indicate(.scanning), .log(.debug, "scan session 1 started"),
        ])
        #expect(m.torch == .on && m.metrics.torchOn == 1 && m.metrics.presses == 1)
        #expect(m.phase == .scanning(session: 1))
    }

    @Test func torchModeOffKeepsItOff() {
        var m = machine { $0.torchMode = .off }
        let effects = m.handle(.buttonPressed)
        #expect(!effects.contains(.setTorch(on: true)))
        #expect(m.torch == .off && m.metrics.torchOn == 0)
    }

    @Test func noTorchLineMeansTheTorchIsNeverDriven() {
        var m = machine { $0.hasTorch = false }
        var all = m.handle(.buttonPressed)
        all += m.handle(.decoded(session: 1, symbols: [Self.ean]))
        all += m.handle(.stopping)
        #expect(!all.contains { if case .setTorch = $0 { return true } else { return false } })
        #expect(m.torch == .unavailable)
    }

    /// Defect B: `TORCH ON` without a torch line was taken (a mode set, nothing lit) and
    /// answered OK. Now every torch command is refused and changes nothing.
    @Test func aTorchCommandWithoutATorchLineIsRefusedAndChangesNothing() {
        var m = machine { $0.hasTorch = false; $0.torchMode = .auto }
        _ = m.handle(.buttonPressed)
        for mode in [TorchMode.on, .off, .auto, nil] {
            #expect(m.refusal(of: .torchOverride(mode)) == "no torch line")
            #expect(m.handle(.torchOverride(mode)) == [])
        }
        #expect(m.torchMode == .auto && m.torch == .unavailable)
        #expect(m.refusal(of: .hostTrigger(from: .host)) == nil)
    }

    @Test func theTorchModeInForceIsTheHostsOverTheConfiguredOne() {
        var m = machine { $0.torchMode = .off }
        #expect(m.torchMode == .off && m.refusal(of: .torchOverride(.on)) == nil)
        _ = m.handle(.torchOverride(.auto))
        #expect(m.torchMode == .auto)
        _ = m.handle(.torchOverride(nil))
        #expect(m.torchMode == .off)
    }

    @Test func goodNumericReadStopsCaptureTorchOffBeepsAndDeliversAtOnce() {
        var m = machine { $0.alphanumeric = .confirm }
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])) == [
            .read([.ean13]), .stopCapture, .cancelTimer(.session), .setTorch(on: false), .feedback(.goodRead),
            .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean)), .indicate(.ready),
        ])
        #expect(m.metrics.goodReads == 1 && m.torch == .off && m.phase == .idle)
    }

    @Test func emptyResultsDoNotCount() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 1, symbols: [])) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [Symbol(symbology: .qrCode, bytes: [])])) == [])
        #expect(m.phase == .scanning(session: 1))
    }

    @Test func framesFromAnEndedSessionAreIgnored() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        _ = m.handle(.buttonPressed) // cancel
        #expect(m.handle(.decoded(session: 1, symbols: [Self.qr])) == [])
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.qr])) == [])
        #expect(m.handle(.decoded(session: 2, symbols: [Self.qr])).contains(.feedback(.goodRead)))
    }

    @Test func alphanumericImmediateDeliversAtOnce() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        let effects = m.handle(.decoded(session: 1, symbols: [Self.qr]))
        #expect(effects.contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: Self.qr))))
    }

    @Test func confirmModeHoldsUntilAPress() {
        var m = machine { $0.alphanumeric = .confirm }
        _ = m.handle(.buttonPressed)
        let held = ScanResult(sequence: 1, session: 1, symbol: Self.qr)
        let read = m.handle(.decoded(session: 1, symbols: [Self.qr]))
        #expect(read.contains(.feedback(.goodRead)) && read.contains(.stopCapture))
        #expect(!read.contains(.deliver(held)))
        #expect(read.contains(.startTimer(.confirmation, after: .seconds(7))))
        #expect(m.phase == .awaitingConfirmation(held))
        _ = m.handle(.buttonReleased)
        #expect(m.handle(.buttonPressed) == [
            .cancelTimer(.confirmation), .feedback(.confirmed), .deliver(held), .indicate(.ready),
            .log(.info, "result 1 confirmed"),
        ])
        #expect(m.metrics.goodReads == 1)
    }

    @Test func confirmTimeoutDiscardsTheResult() {
        var m = machine { $0.alphanumeric = .confirm }
        _ = m.handle(.buttonPressed)
        _ = m.handle(.decoded(session: 1, symbols: [Self.qr]))
        let effects = m.handle(.timerFired(.confirmation))
        #expect(!effects.contains { if case .deliver = $0 { return true } else { return false } })
        #expect(m.phase == .idle && m.metrics.confirmationsExpired == 1 && m.metrics.goodReads == 0)
    }

    @Test func hostTriggerDoesNotConfirmAHeldResult() {
        var m = machine { $0.alphanumeric = .confirm }
        _ = m.handle(.buttonPressed)
        _ = m.handle(.decoded(session: 1, symbols: [Self.qr]))
        let effects = m.handle(.hostTrigger(from: .host))
        #expect(effects.contains(.startCapture(session: 2)))
        #expect(!effects.contains { if case .deliver = $0 { true } else { false } })
        #expect(m.metrics.goodReads == 0)
        // Discarded as a held result not confirmed: said in the log and counted.
        #expect(effects.first == .log(.notice, "result 1 discarded: not confirmed before a TRIGGER (host) started a new session"))
        #expect(m.metrics.confirmationsExpired == 1)
    }

    @Test func sessionTimeoutGivesTheNoReadBeep() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.timerFired(.session)) == [
            .stopCapture, .cancelTimer(.session), .setTorch(on: false), .feedback(.noRead), .indicate(.ready),
            .log(.info, "scan session 1 timed out without a code"),
        ])
        #expect(m.metrics.closedWithoutScan == 1 && m.torch == .off)
    }

    @Test func pressDuringASessionCancelsIt() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        _ = m.handle(.buttonReleased)
        let effects = m.handle(.buttonPressed)
        #expect(effects.prefix(5) == [.stopCapture, .cancelTimer(.session), .setTorch(on: false), .feedback(.cancelled), .indicate(.ready)])
        #expect(m.metrics.closedWithoutScan == 1 && m.metrics.presses == 2 && m.phase == .idle)
    }

    @Test func lateTimersAreIgnored() {
        var m = machine()
        #expect(m.handle(.timerFired(.session)) == [])
        #expect(m.handle(.timerFired(.confirmation)) == [])
        #expect(m.handle(.timerFired(.longPress)) == [])
    }

    static let cameraCases: [(CameraState, StatusIndication)] = [
        (.unavailable(reason: "/dev/video0 not found"), .cameraUnavailable),
        (.inUse, .cameraInUse),
        (.permissionDenied, .cameraPermissionDenied),
        (.disconnected, .cameraDisconnected),
    ]

    @Test("each camera state shows its own status and a press gives the error beep", arguments: cameraCases)
    func cameraStates(state: CameraState, indication: StatusIndication) {
        var m = machine()
        let effects = m.handle(.cameraChanged(state))
        #expect(effects.last == .indicate(indication))
        #expect(m.handle(.buttonPressed).contains(.feedback(.error)))
        #expect(m.metrics.errors == 1 && m.metrics.presses == 1)
        #expect(m.handle(.cameraChanged(.available)).last == .indicate(.ready))
        #expect(m.handle(.buttonPressed).contains(.startCapture(session: 1)))
    }

    @Test func permissionDeniedLogsTheFix() {
        var m = machine()
        #expect(m.handle(.cameraChanged(.permissionDenied)).first == .log(.error, "camera interrupted: permission-denied; add the service user to group video"))
    }

    @Test func unplugMidSessionEndsItTorchOffWithTheErrorBeep() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        let effects = m.handle(.cameraChanged(.disconnected))
        #expect(effects.contains(.stopCapture) && effects.contains(.setTorch(on: false)) && effects.contains(.feedback(.error)))
        #expect(effects.last == .indicate(.cameraDisconnected))
        #expect(m.torch == .off && m.phase == .idle && m.metrics.errors == 1)
    }

    @Test func repeatedCameraStateIsReportedOnce() {
        var m = machine()
        #expect(!m.handle(.cameraChanged(.inUse)).isEmpty)
        #expect(m.handle(.cameraChanged(.inUse)).isEmpty)
    }

    @Test func longPressTogglesTheTorchWhenConfigured() {
        var m = machine { $0.longPressAction = .torch; $0.longPressAfter = .milliseconds(800) }
        let press = m.handle(.buttonPressed)
        #expect(press.first == .startTimer(.longPress, after: .milliseconds(800)))
        #expect(m.torch == .on)
        #expect(m.handle(.timerFired(.longPress)) == [.setTorch(on: false)])
        #expect(m.handle(.buttonReleased) == [.cancelTimer(.longPress)])
        // Released before the timer: no toggle.
        _ = m.handle(.buttonPressed) // cancels the session
        _ = m.handle(.buttonReleased)
        #expect(m.handle(.timerFired(.longPress)) == [])
    }

    /// Issue 13, defect 6: a long press during a session toggles the torch; only a short press
    /// (released before the long-press time) cancels, on its release.
    @Test func aLongPressDuringASessionTogglesAndAShortOneCancelsOnRelease() {
        var m = machine { $0.longPressAction = .torch; $0.longPressAfter = .milliseconds(800) }
        _ = m.handle(.buttonPressed)
        _ = m.handle(.buttonReleased)
        #expect(m.torch == .on)
        #expect(m.handle(.buttonPressed) == [.startTimer(.longPress, after: .milliseconds(800))])
        #expect(m.handle(.timerFired(.longPress)) == [.setTorch(on: false)])
        #expect(m.handle(.buttonReleased) == [.cancelTimer(.longPress)])
        #expect(m.phase == .scanning(session: 1))
        _ = m.handle(.buttonPressed)
        let release = m.handle(.buttonReleased)
        #expect(release.first == .cancelTimer(.longPress) && release.contains(.stopCapture))
        #expect(m.phase == .idle && m.metrics.presses == 3 && m.metrics.closedWithoutScan == 1)
    }

    /// Issue 13, defect 11: a torch write that failed leaves the state `failed`, counted once.
    @Test func aFailedTorchWriteIsNotBelievedOn() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        #expect(m.torch == .on)
        #expect(m.handle(.torchFailed) == [.log(.error, "torch state unknown: the line could not be driven")])
        #expect(m.torch == .failed && m.metrics.errors == 1)
        #expect(m.handle(.torchFailed) == [] && m.metrics.errors == 1)
        // The end of the session drives it off again.
        #expect(m.handle(.hostStop).contains(.setTorch(on: false)))
        #expect(m.torch == .off)
    }

    @Test func settingsChangeApplies() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        var s = m.settings
        s.torchMode = .off
        #expect(m.handle(.settingsChanged(s)).first == .setTorch(on: false))
        s.hasTorch = false
        _ = m.handle(.settingsChanged(s))
        #expect(m.torch == .unavailable)
    }

    @Test func stoppingTurnsEverythingOffAndIgnoresLaterEvents() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        let effects = m.handle(.stopping)
        #expect(effects.first == .stopCapture && effects.last == .setTorch(on: false))
        #expect(m.handle(.buttonPressed) == [])
    }
}

@Suite struct PayloadTextTests {
    @Test func controlCharactersAndEscapesNeverPassRaw() {
        #expect(PayloadText.escaped("a\u{1B}[2Jb\r\nc\\d\u{85}") == "a\\x1B[2Jb\\x0D\\x0Ac\\\\d\\x85")
        #expect(PayloadText.escaped("Ünïcödé") == "Ünïcödé")
        #expect(PayloadText.escaped("x\u{202E}y") == "x\\u{202E}y")
    }

    @Test func invisibleCharactersAreShown() {
        #expect(PayloadText.invisiblesShown("\u{FEFF}/dev/tty\u{200B}USB0 \u{202E}txt.exe") == "\\u{FEFF}/dev/tty\\u{200B}USB0 \\u{202E}txt.exe")
        #expect(PayloadText.invisiblesShown("Ünïcödé\ttab\nline") == "Ünïcödé\ttab\nline", "only the invisible ones")
    }

    @Test func binaryIsLatin1AndLossless() {
        let bytes: [UInt8] = [0xFF, 0x00, 0x41]
        #expect(PayloadText.decode(bytes) == "\u{FF}\u{00}A")
        #expect(PayloadText.base64(bytes) == "/wBB")
        #expect(PayloadText.base64(Array("hello".utf8)) == "aGVsbG8=")
    }

    @Test func jsonStringsStayOnOneLine() {
        #expect(JSONText.string("a\"b\\c\nd\u{01}") == "\"a\\\"b\\\\c\\nd\\u0001\"")
    }
}

@Suite struct AgreeingFramesTests {
    /// A kiosk scanning (session 1) with `agreeing` frames per symbology.
    static func scanning(_ agreeing: [Symbology: Int]) -> KioskMachine {
        var s = KioskSettings()
        s.agreeingFrames = agreeing
        var m = KioskMachine(settings: s)
        _ = m.handle(.started)
        _ = m.handle(.cameraChanged(.available))
        _ = m.handle(.buttonPressed)
        return m
    }

    @Test func aLinearCodeCountsAfterItsAgreeingFrames() {
        var m = Self.scanning([.ean13: 2])
        let a = Symbol(symbology: .ean13, text: "5901234123457"), b = Symbol(symbology: .ean13, text: "4006381333931")
        #expect(m.handle(.decoded(session: 1, symbols: [a])) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [b])) == [], "a different code starts over")
        #expect(m.handle(.decoded(session: 1, symbols: [])) == [], "a frame without it starts over too")
        #expect(m.handle(.decoded(session: 1, symbols: [b])) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [b])).contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: b))))
    }

    /// A code that only the deep passes read comes with each frame's first look between its
    /// reads: a first look that found nothing yet, its frame's deep passes to come, is not a
    /// frame without the code. (Each such look broke the run, and a linear code that only the
    /// deep passes read, not checked within its frame, was never sent.)
    @Test func aFirstLookThatLeavesTheFrameToTheDeepPassesDoesNotBreakTheRun() {
        var m = Self.scanning([.upcA: 2])
        let upc = Symbol(symbology: .upcA, text: "725078102615")
        #expect(m.handle(.decoded(session: 1, symbols: [], deepLookFollows: true)) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [upc])) == [], "the first frame's deep passes: 1 of 2")
        #expect(m.handle(.decoded(session: 1, symbols: [], deepLookFollows: true)) == [], "the next frame's first look")
        #expect(m.handle(.decoded(session: 1, symbols: [upc])).contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: upc))))
        // A frame whose look is over without the code still starts over.
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 2, symbols: [upc])) == [])
        #expect(m.handle(.decoded(session: 2, symbols: [])) == [])
        #expect(m.handle(.decoded(session: 2, symbols: [upc])) == [], "starts over: 1 of 2")
    }

    /// Issue 14: a read checked within its frame (an EAN whose bars fit, two engines alike)
    /// counts as two agreeing frames; with three required, it still needs another frame.
    @Test func aReadVerifiedInItsFrameCountsTwice() {
        var m = Self.scanning([.ean13: 2, .code128: 3])
        var ean = Symbol(symbology: .ean13, text: "5901234123457")
        ean.verifiedInFrame = true
        #expect(m.handle(.decoded(session: 1, symbols: [ean])).contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: ean))))
        _ = m.handle(.buttonPressed)
        var code = Symbol(symbology: .code128, text: "KIOSK-1")
        code.verifiedInFrame = true
        #expect(m.handle(.decoded(session: 2, symbols: [code])) == [], "2 of 3")
        #expect(m.handle(.decoded(session: 2, symbols: [Symbol(symbology: .code128, text: "KIOSK-1")])).contains(.deliver(ScanResult(sequence: 2, session: 2, symbol: code))))
    }
}
