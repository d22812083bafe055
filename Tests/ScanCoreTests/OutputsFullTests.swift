import ScanCore
import Testing

/// Outputs that take no new result (`outbox.policy = reject-new`, an outbox full): the kiosk
/// never beeps a good read for a result an output would refuse. Presses are refused with the
/// error beep, scanning without a press waits, and all resume once the outputs have room.
@Suite struct OutputsFullTests {
    static let ean = Symbol(symbology: .ean13, text: "5901234123457")
    static let qr = Symbol(symbology: .qrCode, text: "https://example.org")
    static let code128 = Symbol(symbology: .code128, text: "ABC-123")
    static let fullWarning = KioskEffect.log(.warning, "the outputs are full (outbox.policy = reject-new): presses are refused until kept results are delivered")
    static let refused = KioskEffect.log(.warning, "press ignored: the outputs are full (outbox.policy = reject-new); presses are taken again once kept results are delivered")
    static let roomAgain = KioskEffect.log(.notice, "the outputs take results again")

    func machine(_ configure: (inout KioskSettings) -> Void = { _ in }) -> KioskMachine {
        TriggerModeTests().machine(configure).0
    }

    /// The outputs report no room; a second later (`fullAfter`) the kiosk shows them full: what
    /// it does then.
    static func fill(_ m: inout KioskMachine, through: Int) -> [KioskEffect] {
        #expect(m.handle(.outputsRoom(0, through: through)) == [.startTimer(.outputsFull, after: KioskMachine.fullAfter)])
        #expect(!m.outputsFull, "not before the second is over")
        return m.handle(.timerFired(.outputsFull))
    }

    /// A result acknowledged within the second (an MQTT broker's PUBACK, a host's ACK) leaves
    /// no trace: no LED, beep or log (a tryout: an MQTT outbox of capacity 1 showed full for a
    /// second after every read, and refused the presses in it).
    @Test func roomBackWithinASecondLeavesNoTrace() {
        var m = machine()
        _ = m.handle(.outputsRoom(1, through: 0))
        _ = m.handle(.buttonPressed)
        _ = m.handle(.decoded(session: 1, symbols: [Self.ean]))
        #expect(m.handle(.outputsRoom(0, through: 1)) == [.startTimer(.outputsFull, after: .seconds(1))])
        // Pressed meanwhile: a session starts; a read waits for room.
        #expect(m.handle(.buttonPressed).contains(.startCapture(session: 2)))
        #expect(!m.handle(.decoded(session: 2, symbols: [Self.qr])).contains { if case .deliver = $0 { true } else { false } })
        #expect(m.handle(.outputsRoom(1, through: 1)) == [.cancelTimer(.outputsFull)])
        #expect(m.handle(.decoded(session: 2, symbols: [Self.qr])).contains(.deliver(ScanResult(sequence: 2, session: 2, symbol: Self.qr))))
        #expect(m.handle(.timerFired(.outputsFull)).isEmpty, "a timer that fired after its reason went away")
        #expect(!m.outputsFull)
    }

    @Test func aPressWhileTheOutputsAreFullIsRefusedWithTheErrorBeep() {
        var m = machine()
        #expect(m.handle(.outputsRoom(1, through: 0)).isEmpty)
        _ = m.handle(.buttonPressed)
        // The last result that fits: the good read.
        let read = m.handle(.decoded(session: 1, symbols: [Self.ean]))
        #expect(read.contains(.feedback(.goodRead)) && read.contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean))))
        #expect(read.last == .indicate(.ready) && m.roomForResults == 0 && !m.outputsFull, "\(read)")
        // The output keeps it (not acknowledged yet): the LED shows the outputs full.
        #expect(Self.fill(&m, through: 1) == [Self.fullWarning, .indicate(.outputsFull)])
        #expect(m.outputsFull)
        // The next press starts nothing: no torch, no capture, no good-read beep.
        #expect(m.handle(.buttonPressed) == [.feedback(.error), Self.refused])
        #expect(m.phase == .idle && m.metrics.errors == 1 && m.metrics.goodReads == 1)
        #expect(m.triggerRefusal == "outputs full: no session started until kept results are delivered (outbox.policy = reject-new)")
        #expect(m.handle(.hostTrigger(from: .host)) == [.feedback(.error), .log(.warning, "trigger (host) ignored: the outputs are full (outbox.policy = reject-new); presses are taken again once kept results are delivered")])
        // A report that names the outputs without room: the host's answer names them too.
        #expect(m.handle(.outputsRoom(0, through: 1, full: ["serial /dev/ttyUSB0", "mqtt mqtt://broker:1883"])).isEmpty)
        #expect(m.fullOutputs == ["serial /dev/ttyUSB0", "mqtt mqtt://broker:1883"])
        #expect(m.triggerRefusal == "outputs full (serial /dev/ttyUSB0; mqtt mqtt://broker:1883): no session started until kept results are delivered (outbox.policy = reject-new)")
        // The output delivered what it kept: room again.
        #expect(m.handle(.outputsRoom(1, through: 1)) == [Self.roomAgain, .indicate(.ready)])
        #expect(m.triggerRefusal == nil && m.fullOutputs.isEmpty)
        #expect(m.handle(.buttonPressed).contains(.startCapture(session: 2)))
    }

    /// A result the outputs send at once (no ACK, the port there) fills no outbox: no warning,
    /// no LED change (a tryout: with capacity 1 each read flashed outputs-full and its beep).
    @Test func aResultSentAtOnceLeavesNoTrace() {
        var m = machine()
        _ = m.handle(.outputsRoom(1, through: 0))
        _ = m.handle(.buttonPressed)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])).contains(.feedback(.goodRead)))
        #expect(m.handle(.outputsRoom(1, through: 1)).isEmpty)
        #expect(!m.outputsFull && m.roomForResults == 1)
    }

    /// A report counted before the kiosk's last results reached the outputs does not free their
    /// room: the kiosk counts what it handed out since (`through`), and a read waits for the
    /// next report instead of becoming a result an output would refuse.
    @Test func aReportOlderThanTheLastResultsKeepsTheirRoomTaken() {
        var m = machine()
        _ = m.handle(.outputsRoom(2, through: 0))
        for session in 1...2 {
            _ = m.handle(.buttonPressed)
            _ = m.handle(.decoded(session: session, symbols: [session == 1 ? Self.ean : Self.qr]))
        }
        #expect(m.roomForResults == 0 && !m.outputsFull)
        // Counted after result 1 only: result 2 takes the one place it reports.
        #expect(m.handle(.outputsRoom(1, through: 1)).isEmpty)
        #expect(m.roomForResults == 0)
        // A press starts a session; its read waits for room.
        #expect(m.handle(.buttonPressed).contains(.startCapture(session: 3)))
        let waiting = m.handle(.decoded(session: 3, symbols: [Self.code128]))
        #expect(!waiting.contains { if case .deliver = $0 { true } else { false } } && !waiting.contains(.feedback(.goodRead)), "\(waiting)")
        #expect(m.handle(.outputsRoom(1, through: 2)).isEmpty)
        #expect(m.roomForResults == 1)
        #expect(m.handle(.decoded(session: 3, symbols: [Self.code128])).contains(.deliver(ScanResult(sequence: 3, session: 3, symbol: Self.code128))))
        // No limit (drop-oldest, or no outbox): never full.
        _ = m.handle(.outputsRoom(nil, through: 2))
        #expect(m.roomForResults == nil && !m.outputsFull)
    }

    /// Continuous mode stops scanning once the outputs say they are full, and starts again by
    /// itself once they have room; a code read meanwhile waits.
    @Test func continuousScanningWaitsWhileTheOutputsAreFull() {
        var m = machine { $0.trigger = .continuous }
        _ = m.handle(.outputsRoom(1, through: 0))
        #expect(m.handle(.decoded(session: 1, symbols: [Self.ean])).contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: Self.ean))))
        #expect(!m.handle(.decoded(session: 1, symbols: [Self.qr])).contains { if case .deliver = $0 { true } else { false } })
        #expect(Self.fill(&m, through: 1) == [Self.fullWarning, .stopCapture, .setTorch(on: false), .indicate(.outputsFull)])
        #expect(m.phase == .idle)
        #expect(m.handle(.decoded(session: 1, symbols: [Self.qr])).isEmpty)
        let resumed = m.handle(.outputsRoom(1, through: 1))
        #expect(resumed.first == Self.roomAgain && resumed.contains(.startCapture(session: 2)), "\(resumed)")
    }

    /// Presentation mode stops watching while full: a new code presented is not read.
    @Test func presentationStopsWatchingWhileTheOutputsAreFull() {
        var m = machine { $0.trigger = .presentation }
        #expect(m.phase == .watching)
        #expect(m.handle(.outputsRoom(0, through: 0)) == [Self.fullWarning, .cameraDuty(.idle), .indicate(.outputsFull)])
        #expect(m.handle(.sceneChanged).isEmpty && m.phase == .idle)
        #expect(m.handle(.outputsRoom(3, through: 0)) == [Self.roomAgain, .cameraDuty(.watch), .indicate(.ready)])
        #expect(m.phase == .watching)
    }

    /// Several codes in a frame: only as many as fit become results; the others are not taken
    /// (never marked as sent, so they are read again later).
    @Test func aFrameWithMoreCodesThanRoomDeliversWhatFits() {
        var m = machine { $0.multiple = 3 }
        _ = m.handle(.outputsRoom(2, through: 0))
        _ = m.handle(.buttonPressed)
        let read = m.handle(.decoded(session: 1, symbols: [Self.ean, Self.qr, Self.code128]))
        let delivered = read.compactMap { effect -> String? in if case .deliver(let r) = effect { r.symbol.text } else { nil } }
        #expect(delivered == [Self.ean.text, Self.qr.text])
        #expect(read.contains(.log(.warning, "1 more code(s) in this frame not taken: the outputs are full (outbox.policy = reject-new)")))
        #expect(m.metrics.goodReads == 2 && m.roomForResults == 0)
    }

    /// A read in a session the outputs filled during (a late report): no good read, no result.
    @Test func aReadAfterTheOutputsFilledIsNotAResult() {
        var m = machine()
        _ = m.handle(.outputsRoom(1, through: 0))
        _ = m.handle(.buttonPressed)
        _ = m.handle(.decoded(session: 1, symbols: [Self.qr]))
        _ = m.handle(.buttonPressed)
        #expect(Self.fill(&m, through: 1) == [Self.fullWarning])
        let read = m.handle(.decoded(session: 2, symbols: [Self.ean]))
        #expect(!read.contains(.feedback(.goodRead)) && read.contains(.feedback(.error)), "\(read)")
        #expect(!read.contains { if case .deliver = $0 { true } else { false } })
        #expect(read.last == .log(.warning, "EAN-13 code read but not taken: the outputs are full (outbox.policy = reject-new)"))
        #expect(m.phase == .idle && m.metrics.goodReads == 1 && m.metrics.errors == 1)
    }

    /// An outbox left full by the run before (a restart on its folder): shown full at the first
    /// report, not a second later, since no result of this run is there for a broker or host to
    /// acknowledge at once (a tryout: a trigger in that second was answered OK and its read then
    /// refused).
    @Test func anOutboxFullSinceBeforeTheStartIsShownAtOnce() {
        var m = machine()
        #expect(m.handle(.outputsRoom(0, through: 0, full: ["serial /dev/ttyUSB0"])) == [.log(.warning, "the outputs are full (serial /dev/ttyUSB0; outbox.policy = reject-new): presses are refused until kept results are delivered"), .indicate(.outputsFull)])
        #expect(m.outputsFull && m.triggerRefusal?.hasPrefix("outputs full (serial /dev/ttyUSB0)") == true)
        #expect(m.handle(.buttonPressed) == [.feedback(.error), Self.refused])
        #expect(m.handle(.outputsRoom(1, through: 0)) == [Self.roomAgain, .indicate(.ready)])
    }

    /// A result stored for its announcement (`speech.deliver = after`) takes its place at once.
    @Test func aResultHeldForItsAnnouncementTakesItsPlace() {
        var m = machine { $0.speech = SpeechBehaviour(deliver: .after) }
        _ = m.handle(.outputsRoom(1, through: 0))
        _ = m.handle(.buttonPressed)
        let read = m.handle(.decoded(session: 1, symbols: [Self.ean]))
        #expect(read.contains(.store(ScanResult(sequence: 1, session: 1, symbol: Self.ean))))
        #expect(m.roomForResults == 0)
        _ = Self.fill(&m, through: 1)
        // The refused press says why, aloud.
        let press = m.handle(.buttonPressed)
        #expect(press.contains { if case .announce(_, .outputsFull) = $0 { true } else { false } } && press.contains(.feedback(.error)), "\(press)")
    }

    /// The camera's trouble shows first; full outputs show once the camera is back.
    @Test func theCameraStateShowsBeforeFullOutputs() {
        var m = machine()
        _ = m.handle(.outputsRoom(0, through: 0)) // full since before the start: at once
        #expect(m.outputsFull)
        #expect(m.handle(.cameraChanged(.disconnected)).last == .indicate(.cameraDisconnected))
        #expect(m.handle(.cameraChanged(.available)).last == .indicate(.outputsFull))
    }
}
