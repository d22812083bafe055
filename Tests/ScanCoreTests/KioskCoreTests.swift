import Delivery
import ScanCore
import ScanHardware
import Testing

/// The camera's duty machine: whole action lists for what the kiosk wants and what the camera did.
@Suite struct CameraStreamTests {
    @Test func aSessionStartsTheStreamAndItsEndStopsIt() {
        var stream = CameraStream()
        #expect(stream.capture(session: 1, watchFPS: 0) == [.start])
        #expect(stream.work(presentation: false) == .decode(session: 1, watching: false))
        #expect(stream.started(true, watchFPS: 0) == [])
        #expect(stream.stopCapture(watchFPS: 0) == [.stop])
        #expect(stream.work(presentation: false) == .none)
        // A stop while believed stopped is asked again (stopping twice is safe).
        #expect(stream.stopCapture(watchFPS: 0) == [.stop])
    }

    @Test func aStartThatFailsCapturesNothing() {
        var stream = CameraStream()
        #expect(stream.capture(session: 4, watchFPS: 0) == [.start])
        #expect(stream.started(false, watchFPS: 0) == [])
        #expect(stream.work(presentation: false) == .none && stream.capturing == nil)
    }

    @Test func aWarmCameraStreamsOnceAvailableAndDrainsBetweenSessions() {
        var stream = CameraStream(keepStreaming: true)
        #expect(stream.cameraAvailable(true, watchFPS: 0) == [.start])
        #expect(stream.started(true, watchFPS: 0) == [])
        #expect(stream.work(presentation: false) == .drain)
        #expect(stream.capture(session: 1, watchFPS: 0) == [])
        #expect(stream.stopCapture(watchFPS: 0) == [])
        #expect(stream.work(presentation: false) == .drain)
        stream.closed()
        #expect(stream.work(presentation: false) == .none)
    }

    @Test func watchingRunsAtTheWatchingRateAndASessionAtTheFullRate() {
        var stream = CameraStream()
        #expect(stream.duty(.watch, watchFPS: 5) == [.start])
        #expect(stream.started(true, watchFPS: 5) == [.setRate(5)])
        stream.rateSet(5, took: true)
        #expect(stream.work(presentation: true) == .watch)
        #expect(stream.capture(session: 2, watchFPS: 5) == [.setRate(0)])
        stream.rateSet(0, took: true)
        #expect(stream.work(presentation: true) == .decode(session: 2, watching: true))
        // A viewer keeps the full rate while watching.
        #expect(stream.view(true, watchFPS: 5) == [])
        #expect(stream.stopCapture(watchFPS: 5) == [])
        #expect(stream.view(false, watchFPS: 5) == [.setRate(5)])
    }

    @Test func aRefusedRateIsNotAskedAgainUntilTheCameraIsReopened() {
        var stream = CameraStream()
        _ = stream.duty(.watch, watchFPS: 5)
        #expect(stream.started(true, watchFPS: 5) == [.setRate(5)])
        stream.rateSet(5, took: false)
        #expect(stream.capture(session: 1, watchFPS: 5) == [])
        stream.closed()
        #expect(stream.duty(.watch, watchFPS: 5) == [.start])
        #expect(stream.started(true, watchFPS: 5) == [.setRate(5)])
    }

    /// A list that stops capture and wants it again keeps the stream: nothing stops and starts.
    @Test func aListThatEndsASessionIntoWatchingKeepsTheStream() {
        var stream = CameraStream()
        _ = stream.capture(session: 1, watchFPS: 0)
        _ = stream.started(true, watchFPS: 0)
        let effects: [KioskEffect] = [.stopCapture, .cameraDuty(.watch)]
        stream.begin(effects)
        #expect(stream.stopCapture(watchFPS: 0) == [])
        #expect(stream.duty(.watch, watchFPS: 0) == [])
        #expect(stream.end(watchFPS: 0) == [])
        #expect(stream.work(presentation: true) == .watch)
    }
}

/// The whole core: an input in, the actions out, time as an input.
@Suite struct KioskCoreTests {
    /// A core pressed into a session whose stream has started (session 1), alphanumeric codes
    /// taken at once.
    static func scanning() -> KioskCore {
        var core = Self.core { $0.alphanumeric = .immediate }
        _ = core.handle(.start, now: .zero)
        _ = core.handle(.camera(.opened), now: .zero)
        _ = core.handle(.kiosk(.cameraChanged(.available)), now: .zero)
        _ = core.handle(.kiosk(.buttonPressed), now: .zero)
        _ = core.handle(.streamStarted(true), now: .zero)
        return core
    }

    static func core(_ change: (inout KioskSettings) -> Void = { _ in }) -> KioskCore {
        var settings = KioskSettings()
        settings.hasTorch = true
        settings.sessionTimeout = .seconds(5)
        change(&settings)
        return KioskCore(settings: settings, emitsEvents: false)
    }

    /// Opened, available, then a press: torch off then on, the stream started, LED scanning.
    @Test func startOpenAndPressAsActions() {
        var core = Self.core()
        let start = core.handle(.start, now: .zero)
        #expect(start.contains(.setTorch(false)) && start.contains(.openCamera))
        let opened = core.handle(.camera(.opened), now: .zero)
        #expect(opened.contains(.followUp(.kiosk(.cameraChanged(.available)))))
        _ = core.handle(.kiosk(.cameraChanged(.available)), now: .zero)
        let press = core.handle(.kiosk(.buttonPressed), now: .milliseconds(100))
        let hardware = press.filter { if case .log = $0 { return false }; if case .setLine = $0 { return false }; return true }
        #expect(hardware == [.setTorch(false), .setTorch(true), .startStream], "\(press)")
        #expect(core.handle(.streamStarted(true), now: .milliseconds(100)) == [])
        #expect(core.work == .decode(session: 1, watching: false))
        #expect(core.nextDeadline == .milliseconds(100) + .seconds(5) || core.nextDeadline! < .seconds(6))
    }

    /// A decoded frame of the session: the read goes out, the stream stops, the torch goes off.
    @Test func aReadDeliversAndStops() {
        var core = Self.scanning()
        let symbol = Symbol(symbology: .qrCode, text: "hello")
        let decoded = core.handle(.decoded(session: 1, symbols: [symbol], seconds: 0.01), now: .milliseconds(40))
        guard case .followUp(let next) = decoded.last else { Issue.record("\(decoded)"); return }
        let read = core.handle(next, now: .milliseconds(40))
        #expect(read.contains(KioskCore.Action.stopStream) && read.contains(KioskCore.Action.setTorch(false)))
        #expect(read.contains { if case .deliver(let r, _) = $0 { return r.symbol.text == "hello" && r.sequence == 1 }; return false })
        #expect(core.work == .none && core.framesDecoded == 1)
        // A frame of a session that is over is not counted.
        #expect(core.handle(.decoded(session: 1, symbols: [], seconds: 0.01), now: .milliseconds(80)) == [])
    }

    /// A frame whose first look left it to the deep passes counts once, when the deep passes
    /// read its code too (they counted as a second frame: 2 frames for one).
    @Test func aDeepReadIsNotASecondFrame() {
        var core = Self.scanning()
        for input in [KioskCore.Input.decoded(session: 1, symbols: [], seconds: 0.01, deepLookFollows: true),
                      .decoded(session: 1, symbols: [Symbol(symbology: .qrCode, text: "deep")], seconds: 0.2, fromDeepLook: true)] {
            let actions = core.handle(input, now: .milliseconds(240))
            guard case .followUp(let next) = actions.last else { Issue.record("\(actions)"); return }
            let done = core.handle(next, now: .milliseconds(240))
            if case .decoded(_, let symbols, _, _, _, _, _) = input, !symbols.isEmpty {
                #expect(done.contains { if case .deliver(let r, _) = $0 { r.symbol.text == "deep" } else { false } })
            }
        }
        #expect(core.framesDecoded == 1)
        #expect(abs(core.decodeSeconds - 0.21) < 1e-9, "both looks' time counts")
    }

    /// Continuous mode: a code only the deep passes read, taken away over a scene whose deep
    /// passes were given up (the pipeline says it left the view), is sent again when it comes
    /// back; without that word it is held back as still in view.
    @Test func aCodeThatLeftTheViewUnreadIsSentAgain() {
        let code = Symbol(symbology: .upcA, text: "725078102615")
        var heldBack: [String] = []
        func sent(leftView: Bool) -> Int {
            var core = Self.core { $0.trigger = .continuous; $0.sameSymbolTimeout = .milliseconds(300) }
            var delivered = 0
            func run(_ input: KioskCore.Input, _ ms: Int) {
                var pending = [input]
                while !pending.isEmpty {
                    for action in core.handle(pending.removeFirst(), now: .milliseconds(ms)) {
                        if case .followUp(let next) = action { pending.append(next) }
                        if case .deliver = action { delivered += 1 }
                        if case .log(_, let line) = action, line.contains("held back") { heldBack.append(line) }
                    }
                }
            }
            for input in [KioskCore.Input.start, .camera(.opened), .kiosk(.cameraChanged(.available)), .streamStarted(true)] { run(input, 0) }
            let session = core.stream.capturing ?? -1
            for showing in 0..<3 {
                let t = showing * 1000
                run(.decoded(session: session, symbols: [], seconds: 0.01, deepLookFollows: true), t)
                run(.decoded(session: session, symbols: [code], seconds: 0.4, fromDeepLook: true), t + 400)
                // The code is taken away; the next scene's frames are first-looked only.
                run(.decoded(session: session, symbols: [], seconds: 0.01, deepLookFollows: true), t + 500)
                if leftView { run(.codesLeftView(session: session, codes: [CodeIdentity(code)]), t + 950) }
            }
            return delivered
        }
        #expect(sent(leftView: true) == 3 && heldBack.isEmpty, "\(heldBack)")
        #expect(sent(leftView: false) == 1)
        #expect(heldBack.count == 2 && heldBack.allSatisfy {
            $0 == "UPC-A read again, held back: it has not been out of view for scan.same_symbol_timeout_ms (300 ms) since it was sent"
        }, "\(heldBack)")
    }

    /// Timers come back through `takeDue` in deadline order; kept results are retried every
    /// second while any output keeps them.
    @Test func timersAndRetriesAreDueInOrder() {
        var core = Self.core()
        _ = core.handle(.outputs(OutputsReport(pending: true)), now: .zero)
        #expect(core.nextDeadline == .seconds(1))
        #expect(core.takeDue(now: .milliseconds(999)) == nil)
        #expect(core.takeDue(now: .seconds(1)) == .retryOutputs)
        #expect(core.handle(.retryOutputs, now: .seconds(1)) == [.retryOutputs])
        _ = core.handle(.outputs(OutputsReport(pending: false)), now: .seconds(1))
        #expect(core.nextDeadline == nil)
    }

    /// Reports reach the core from the output queue and the broker's thread, not always in the
    /// order they were counted: one counted before the last taken is left out (a CI run: the
    /// report counted before a PUBACK arrived after the PUBACK's and left an empty outbox of
    /// one shown full, every press refused).
    @Test func anOutputsReportCountedEarlierThanTheLastTakenIsLeftOut() {
        var core = Self.core()
        _ = core.handle(.outputs(OutputsReport(pending: false, room: 1, counted: 2)), now: .zero)
        #expect(core.handle(.outputs(OutputsReport(pending: true, room: 0, through: 6, full: ["mqtt"], counted: 1)), now: .zero).isEmpty)
        #expect(core.nextDeadline == nil, "no retry, no full timer: the outbox is empty")
        #expect(!core.machine.outputsFull)
        // A later count is taken: the retry, and the kiosk full a second on.
        _ = core.handle(.outputs(OutputsReport(pending: true, room: 0, through: 7, full: ["mqtt"], counted: 3)), now: .zero)
        #expect(core.nextDeadline == .seconds(1))
        while let due = core.takeDue(now: .seconds(1)) { _ = core.handle(due, now: .seconds(1)) }
        #expect(core.machine.outputsFull)
    }

    /// The stop turns everything off and nothing happens after it.
    @Test func stopIsTheLastWord() {
        var core = Self.core()
        _ = core.handle(.start, now: .zero)
        let stop = core.handle(.stop, now: .seconds(1))
        #expect(stop.last == .followUp(.finishStop))
        let finish = core.handle(.finishStop, now: .seconds(1))
        #expect(finish.contains(.setLine(.buzzer, .inactive, pitch: nil)) && finish.contains(.setLine(.statusLED, .inactive, pitch: nil)))
        #expect(finish.last == .log(.notice, "kiosk stopped"))
        #expect(core.handle(.kiosk(.buttonPressed), now: .seconds(2)) == [])
        #expect(core.nextDeadline == nil)
    }
}

/// The acknowledgement window every acknowledging output shares.
@Suite struct AckWindowTests {
    @Test func acknowledgedResultsLeaveAndUnacknowledgedOnesAreDueAfterTheirTime() {
        var window = AckWindow(resendAfter: 2)
        window.sent(1)
        window.sent(2, token: 77)
        #expect(window.isWaiting(1) && window.count == 2)
        let first = window.acknowledge(1), again = window.acknowledge(1)
        #expect(first && !again)
        #expect(window.tick() == [])
        #expect(window.tick() == [2])
        #expect(!window.isWaiting(2))
        // The old token no longer names it; a new send does.
        let old = window.acknowledge(token: 77)
        #expect(old == nil)
        window.sent(2, token: 78)
        let new = window.acknowledge(token: 78)
        #expect(new == 2 && window.isEmpty)
    }

    @Test func aLostConnectionForgetsWhatWasInFlight() {
        var window = AckWindow(resendAfter: 5)
        window.sent(3, token: 1)
        window.forgetAll()
        let late = window.acknowledge(token: 1)
        #expect(window.isEmpty && late == nil)
    }
}

/// Every door (serial, MQTT, the web) checks a command line alike and answers a bad one with
/// the same words.
@Suite struct HostLineTests {
    @Test func aBadLineGetsTheSameErrorOnEveryDoor() throws {
        func error(_ bytes: [UInt8]) -> String? {
            if case .failure(let e) = HostCommand.line(from: bytes) { return e.message }
            return nil
        }
        #expect(error([]) == "LINE: empty command; send one, e.g. TRIGGER")
        #expect(error(Array("\r\n".utf8)) == "LINE: empty command; send one, e.g. TRIGGER")
        #expect(error(Array(repeating: 0x41, count: 257)) == "LINE: too long (at most 256 bytes)")
        #expect(error([0x54, 0x00, 0xFF]) == "LINE: only printable ASCII is accepted")
        #expect(error(Array("\u{1}BEEP".utf8)) == "LINE: only printable ASCII is accepted")
        #expect(error(Array("BEEP\nVERSION".utf8)) == "LINE: one command per message (a line break inside)")
        #expect(try HostCommand.line(from: Array("TRIGGER\r\n".utf8)).get() == "TRIGGER")
        // The serial port's own check says the same for what reaches the parser.
        #expect(throws: HostCommandError(line: "only printable ASCII is accepted")) { try HostCommand.parse("\u{1}BEEP") }
        #expect(throws: HostCommandError(line: "too long (at most 256 bytes)")) { try HostCommand.parse(String(repeating: "A", count: 257)) }
    }
}
