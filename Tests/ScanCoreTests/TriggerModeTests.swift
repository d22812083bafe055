import ScanCore
import Testing

/// The trigger modes through the machine, whole effect lists.
@Suite struct TriggerModeTests {
    static let qr = Symbol(symbology: .qrCode, text: "https://example.org")
    static let ean = Symbol(symbology: .ean13, text: "5901234123457")
    static let code128 = Symbol(symbology: .code128, text: "ABC-123")

    func machine(_ configure: (inout KioskSettings) -> Void) -> (KioskMachine, [KioskEffect]) {
        var s = KioskSettings()
        s.sessionTimeout = .seconds(5)
        s.sameSymbolTimeout = .seconds(2)
        configure(&s)
        var m = KioskMachine(settings: s)
        _ = m.handle(.started)
        let onAvailable = m.handle(.cameraChanged(.available))
        return (m, onAvailable)
    }

    @Test func levelScansWhileHeldAndAReleaseWithoutACodeIsANoRead() {
        var (m, _) = machine { $0.trigger = .level }
        #expect(m.handle(.buttonPressed) == [
            .setTorch(on: false), .setTorch(on: true), .autofocus, .startCapture(session: 1),
            .startTimer(.session, after: .seconds(5)), .indicate(.scanning), .log(.debug, "scan session 1 started"),
        ])
        #expect(m.handle(.decoded(session: 1, symbols: [])) == [])
        #expect(m.handle(.buttonReleased) == [
            .stopCapture, .cancelTimer(.session), .setTorch(on: false), .feedback(.noRead), .indicate(.ready),
            .log(.info, "scan session 1 ended: button released without a code"),
        ])
        #expect(m.metrics.closedWithoutScan == 1)
        // Held and read: the read ends the session; the release after it does nothing.
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 2, symbols: [Self.ean])).contains(.deliver(ScanResult(sequence: 1, session: 2, symbol: Self.ean))))
        #expect(m.handle(.buttonReleased) == [])
        #expect(m.phase == .idle && m.metrics.goodReads == 1)
    }

    @Test func continuousScansFromTheStartReportsEachNewCodeAndHoldsBackRepeats() {
        var (m, onAvailable) = machine { $0.trigger = .continuous }
        #expect(onAvailable == [
            .log(.notice, "camera available"), .setTorch(on: false), .setTorch(on: true), .startCapture(session: 1),
            .indicate(.scanning), .log(.debug, "scan session 1 started"),
        ])
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean], at: .seconds(1))) == [
            .read([.ean13]), .feedback(.goodRead), .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean)),
        ])
        // Left in view: held back within the window, no beep, no count, no seq.
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean], at: .milliseconds(2500))).allSatisfy {
            if case .log(.debug, _) = $0 { return true } else { return false }
        })
        #expect(m.metrics.repeatsHeldBack == 1 && m.metrics.goodReads == 1)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.code128], at: .milliseconds(2600))) == [
            .read([.code128]), .feedback(.goodRead), .deliver(ScanResult(sequence: 2, session: 1, symbol: Self.code128)),
        ])
        // A press changes nothing; the host's STOP pauses, its TRIGGER resumes.
        #expect(m.handle(.buttonPressed) == [] && m.phase == .scanning(session: 1))
        #expect(m.handle(.hostStop) == [.stopCapture, .setTorch(on: false), .feedback(.cancelled), .indicate(.ready),
                                        .log(.info, "scan session 1 stopped by the host")])
        #expect(m.phase == .idle)
        #expect(m.handle(.hostTrigger(from: .host)).contains(.startCapture(session: 2)))
    }

    @Test func presentationWatchesWakesOnChangeAndGoesBackWhenStill() {
        var (m, onAvailable) = machine { $0.trigger = .presentation; $0.presentationIdle = .seconds(3) }
        #expect(onAvailable == [.log(.notice, "camera available"), .cameraDuty(.watch), .indicate(.ready)])
        #expect(m.phase == .watching)
        #expect(m.handle(.sceneChanged) == [
            .cameraDuty(.idle), .setTorch(on: false), .setTorch(on: true), .startCapture(session: 1),
            .startTimer(.presentationIdle, after: .seconds(3)), .indicate(.scanning), .log(.debug, "scan session 1 started"),
        ])
        #expect(m.handle(.decoded(session: 1, symbols: [Self.qr], at: .seconds(1))) == [
            .read([.qrCode]), .feedback(.goodRead), .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.qr)),
            .startTimer(.presentationIdle, after: .seconds(3)),
        ])
        // The code left in view is not read again; a change keeps the session awake.
        #expect(m.handle(.decoded(session: 1, symbols: [Self.qr], at: .milliseconds(1500))).count == 1)
        #expect(m.handle(.sceneChanged) == [.startTimer(.presentationIdle, after: .seconds(3))])
        #expect(m.handle(.timerFired(.presentationIdle)) == [
            .stopCapture, .cancelTimer(.presentationIdle), .setTorch(on: false), .cameraDuty(.watch), .indicate(.ready),
            .log(.info, "scan session 1: the scene is still; watching again"),
        ])
        #expect(m.phase == .watching && m.metrics.goodReads == 1 && m.metrics.presses == 0)
        // The same code presented again within the window (no press) is still held back.
        _ = m.handle(.sceneChanged)
        #expect(!m.handle(.decoded(session: 2, symbols: [Self.qr], at: .milliseconds(2900))).contains(.feedback(.goodRead)))
    }

    @Test func severalCodesNearestFirstUpToMultiple() {
        var (m, _) = machine { $0.multiple = 2 }
        _ = m.handle(.buttonPressed)
        let effects = m.handle(.decoded(session: 1, symbols: [Self.qr, Self.qr, Self.ean, Self.code128]))
        #expect(effects == [
            .read([.qrCode, .ean13]), .stopCapture, .cancelTimer(.session), .setTorch(on: false), .feedback(.goodRead),
            .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.qr)), .deliver(ScanResult(sequence: 2, session: 1, symbol: Self.ean)),
            .indicate(.ready),
        ])
        #expect(m.metrics.goodReads == 2)
    }

    @Test func theAutomaticTorchLightsInTheDarkAndStaysOnForTheSession() {
        var (m, _) = machine { $0.torchMode = .auto }
        #expect(!m.handle(.buttonPressed).contains(.setTorch(on: true)))
        #expect(m.handle(.decoded(session: 1, symbols: [], brightness: 30)) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [], brightness: 200)) == [], "one bright frame in between")
        #expect(m.handle(.decoded(session: 1, symbols: [], brightness: 20)) == [])
        // The mean over the last frames (30, 200, 20, 10 -> 44) is below 60: lit.
        // The lens focuses once more, in the torch's light (camera.focus = auto-on-press).
        #expect(m.handle(.decoded(session: 1, symbols: [], brightness: 10)) == [.setTorch(on: true), .log(.debug, "torch on: the viewport is dark"), .autofocus])
        // Lit, the scene is bright: it stays on (no flicker) until the session ends.
        #expect(m.handle(.decoded(session: 1, symbols: [], brightness: 220)) == [])
        #expect(m.torch == .on && m.metrics.torchAutoOn == 1 && m.metrics.torchOn == 0)
        #expect(m.handle(.hostStop).contains(.setTorch(on: false)))
        // A bright scene never lights it.
        var (bright, _) = machine { $0.torchMode = .auto }
        _ = bright.handle(.buttonPressed)
        for _ in 0..<10 { #expect(bright.handle(.decoded(session: 1, symbols: [], brightness: 150)) == []) }
    }

    @Test func framesAfterTheTorchComesOnAreSkipped() {
        var (m, _) = machine { $0.framesSkippedAfterTorch = 2 }
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])).contains(.feedback(.goodRead)))
    }
}
