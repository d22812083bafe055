import ScanCore
import Testing

/// Speech in the kiosk's rules (pure, whole effect lists): the announcement replaces the flash,
/// results wait for its end (`deliver = after`), a press cuts it short and loses nothing.
@Suite struct SpeechMachineTests {
    static let ean = Symbol(symbology: .ean13, text: "5901234123457")
    static let qr = Symbol(symbology: .qrCode, text: "https://example.org")

    func machine(_ configure: (inout KioskSettings) -> Void = { _ in }) -> KioskMachine {
        var s = KioskSettings()
        s.sessionTimeout = .seconds(5)
        s.speech = SpeechBehaviour()
        configure(&s)
        var m = KioskMachine(settings: s)
        _ = m.handle(.started)
        _ = m.handle(.cameraChanged(.available))
        return m
    }

    @Test func theResultWaitsForTheAnnouncementAndTheFlashIsReplaced() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        let result = ScanResult(sequence: 1, session: 1, symbol: Self.ean)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])) == [
            .read([.ean13]), .stopCapture, .cancelTimer(.session), .setTorch(on: false), .feedback(.goodRead, flash: false),
            .store(result), .announce(id: 1, .read([Self.ean])), .indicate(.ready),
        ], "stored at read time, sent after the announcement")
        #expect(m.metrics.goodReads == 1)
        #expect(m.handle(.announcementEnded(id: 2)) == [], "another announcement's end changes nothing")
        #expect(m.handle(.announcementEnded(id: 1)) == [.deliver(result)])
        #expect(m.handle(.announcementEnded(id: 1)) == [], "delivered once")
    }

    @Test func deliverImmediatelyAndKeepTheFlash() {
        var m = machine { $0.speech = SpeechBehaviour(deliver: .immediately, replacesFlash: false) }
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])) == [
            .read([.ean13]), .stopCapture, .cancelTimer(.session), .setTorch(on: false), .feedback(.goodRead),
            .announce(id: 1, .read([Self.ean])), .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean)), .indicate(.ready),
        ])
        #expect(m.handle(.announcementEnded(id: 1)) == [])
    }

    @Test func aPressDuringTheAnnouncementCutsItDeliversAndStartsAfresh() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        _ = m.handle(.decoded(session: 1, symbols: [Self.ean]))
        let effects = m.handle(.buttonPressed)
        #expect(Array(effects.prefix(2)) == [.cutAnnouncement(id: 1), .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean))])
        #expect(effects.contains(.startCapture(session: 2)))
        #expect(m.handle(.announcementEnded(id: 1)) == [], "the cut announcement's late end delivers nothing again")
        // A host trigger cuts too.
        _ = m.handle(.decoded(session: 2, symbols: [Self.qr]))
        #expect(m.handle(.hostTrigger(from: .host)).prefix(2) == [.cutAnnouncement(id: 2), .deliver(ScanResult(sequence: 2, session: 2, symbol: Self.qr))])
    }

    @Test func noReadAndCameraProblemsAreAnnounced() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.timerFired(.session)).contains(.announce(id: 1, .noRead)))
        #expect(m.handle(.cameraChanged(.inUse)).contains(.announce(id: 2, .camera(.inUse))))
        // A press the camera cannot serve: the error beep and why, aloud.
        let refused = m.handle(.buttonPressed)
        #expect(refused.contains(.feedback(.error)) && refused.contains(.announce(id: 3, .camera(.inUse))))
        // Back again: no announcement; a camera lost mid-session: the error and its reason.
        #expect(!m.handle(.cameraChanged(.available)).contains { if case .announce = $0 { true } else { false } })
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.cameraChanged(.disconnected)).contains(.announce(id: 4, .camera(.disconnected))))
    }

    @Test func inContinuousModeANewReadCutsTheOldAnnouncementAndDeliversItsResult() {
        var m = machine { $0.trigger = .continuous }
        _ = m.handle(.buttonPressed)
        let ean = ScanResult(sequence: 1, session: 1, symbol: Self.ean)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean], at: .seconds(1))) == [.read([.ean13]), .feedback(.goodRead, flash: false),
                                                                                        .store(ean), .announce(id: 1, .read([Self.ean]))])
        #expect(m.handle(.decoded(session: 1, symbols: [], at: .seconds(2))) == [])
        #expect(m.handle(.decoded(session: 1, symbols: [Self.qr], at: .seconds(3))) == [
            .read([.qrCode]), .feedback(.goodRead, flash: false), .cutAnnouncement(id: 1), .deliver(ean),
            .store(ScanResult(sequence: 2, session: 1, symbol: Self.qr)), .announce(id: 2, .read([Self.qr])),
        ])
    }

    @Test func stoppingDeliversWhatAnAnnouncementHeld() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        _ = m.handle(.decoded(session: 1, symbols: [Self.ean]))
        let effects = m.handle(.stopping)
        #expect(Array(effects.prefix(2)) == [.cutAnnouncement(id: 1), .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean))])
    }

    @Test func speechTurnedOffByAReloadCutsAndDelivers() {
        var m = machine()
        _ = m.handle(.buttonPressed)
        _ = m.handle(.decoded(session: 1, symbols: [Self.ean]))
        var off = m.settings
        off.speech = nil
        #expect(m.handle(.settingsChanged(off)).prefix(2) == [.cutAnnouncement(id: 1), .deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean))])
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 2, symbols: [Self.ean])).contains(.feedback(.goodRead)))
    }

    @Test func phrases() {
        let numeric = Symbol(symbology: .ean13, text: "4006381333931")
        let url = Symbol(symbology: .qrCode, text: "https://example.org/a/very/long/address")
        let short = Symbol(symbology: .code128, text: "BOX-17")
        let type = SpeechPhrases()
        #expect(type.text(for: .read([numeric])) == "EAN 13 barcode scanned")
        #expect(type.text(for: .read([Self.qr, numeric])) == "QR code scanned. EAN 13 barcode scanned")
        let text = SpeechPhrases(say: .text)
        #expect(text.text(for: .read([numeric])) == "4 0 0 6 3 8 1 3 3 3 9 3 1")
        #expect(text.text(for: .read([short])) == "BOX-17")
        #expect(text.text(for: .read([url])) == "QR code scanned", "too long to read out: its kind")
        #expect(text.text(for: .read([Symbol(symbology: .qrCode, text: "a\u{7}b")])) == "QR code scanned", "not printable")
        #expect(SpeechPhrases(say: .both).text(for: .read([short])) == "Code 128 barcode: BOX-17")
        let custom = SpeechPhrases(noRead: "Nichts gefunden", cameraError: "Kamera gestört")
        #expect(custom.text(for: .noRead) == "Nichts gefunden")
        #expect(custom.text(for: .camera(.inUse)) == "Kamera gestört")
    }
}
