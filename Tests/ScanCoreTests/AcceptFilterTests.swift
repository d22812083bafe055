import ScanCore
import Testing

/// `scan.accept` and `scan.accept_pattern` in the kiosk's rules: a refused code is not a
/// result; it gets the `rejected` feedback, an event and a count, once while in view, and the
/// session goes on to read an accepted code.
@Suite struct AcceptFilterTests {
    static let text = Symbol(symbology: .code128, text: "1BjnpEv")
    static let url = Symbol(symbology: .qrCode, text: "https://shop.example/item/7")

    func scanning(_ filter: PayloadFilter) -> KioskMachine {
        var s = KioskSettings()
        s.accept = filter
        var m = KioskMachine(settings: s)
        _ = m.handle(.started)
        _ = m.handle(.cameraChanged(.available))
        _ = m.handle(.buttonPressed)
        return m
    }

    @Test func aRefusedTypeIsNotAResultAndTheSessionGoesOn() {
        var m = scanning(PayloadFilter(kinds: [.url]))
        let reason = "a text payload is not in scan.accept"
        #expect(m.handle(.decoded(session: 1, symbols: [Self.text])) == [
            .feedback(.rejected), .rejected(Self.text, reason: reason),
            .log(.info, "Code-128 code not accepted (\(reason)); still looking"),
        ])
        #expect(m.phase == .scanning(session: 1) && m.metrics.rejected == 1 && m.metrics.goodReads == 0)
        // The same code in the next frames: refused once, not per frame.
        #expect(m.handle(.decoded(session: 1, symbols: [Self.text])) == [])
        #expect(m.metrics.rejected == 1)
        // An accepted code ends the session as a result.
        let effects = m.handle(.decoded(session: 1, symbols: [Self.url]))
        #expect(effects.contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: Self.url))), "\(effects)")
        #expect(effects.contains(.feedback(.goodRead)) && m.metrics.goodReads == 1 && m.phase == .idle)
    }

    @Test func aPatternDecidesOnTheText() throws {
        var m = scanning(PayloadFilter(pattern: try AcceptPattern(#"^https://shop\.example/"#)))
        let other = Symbol(symbology: .qrCode, text: "https://elsewhere.example/")
        #expect(m.handle(.decoded(session: 1, symbols: [other])).contains(.rejected(other, reason: "the text does not match scan.accept_pattern")))
        #expect(m.handle(.decoded(session: 1, symbols: [Self.url])).contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: Self.url))))
        #expect(m.metrics.rejected == 1 && m.metrics.goodReads == 1)
    }

    @Test func withoutAFilterEveryCodeIsAResult() {
        var m = scanning(PayloadFilter())
        #expect(m.handle(.decoded(session: 1, symbols: [Self.text])).contains(.deliver(ScanResult(sequence: 1, session: 1, symbol: Self.text))))
        #expect(m.metrics.rejected == 0)
    }

    /// Patterns are bounded: length, nested repetition, and the text they are run on.
    @Test func patternsAreBounded() throws {
        #expect(throws: AcceptPatternError.self) { try AcceptPattern(String(repeating: "a", count: 257)) }
        #expect(throws: AcceptPatternError.self) { try AcceptPattern("") }
        #expect(throws: AcceptPatternError.self) { try AcceptPattern("(") }
        for nested in ["(a+)+$", "(a*)*", "(x\\d+){2,}", "((ab)+c)*", "(a|aa+)+"] {
            #expect(throws: AcceptPatternError.self, "\(nested)") { try AcceptPattern(nested) }
        }
        for fine in ["^[0-9]{13}$", "(ab)+", "a+b*", "^(https?)://[^/]+/", "[(+*)]+", "\\(a+\\)+"] {
            #expect(throws: Never.self, "\(fine)") { try AcceptPattern(fine) }
        }
        let any = try AcceptPattern(".")
        #expect(any.matches("x") && !any.matches(String(repeating: "x", count: AcceptPattern.maxText + 1)))
    }
}

/// Presses counted per source (the browser seed's count per entry point).
@Suite struct PressSourceTests {
    @Test func eachDoorCountsItsOwnPresses() {
        var m = KioskMachine(settings: KioskSettings())
        _ = m.handle(.started)
        _ = m.handle(.cameraChanged(.available))
        _ = m.handle(.buttonPressed)                 // starts a session
        _ = m.handle(.buttonReleased)
        _ = m.handle(.hostTrigger(from: .web))       // cancels it
        _ = m.handle(.hostTrigger(from: .mqtt))      // starts one
        _ = m.handle(.hostTrigger(from: .host))      // cancels it
        #expect(m.metrics.pressesBySource == [.button: 1, .web: 1, .mqtt: 1, .host: 1])
        #expect(m.metrics.presses == 4)
    }

    @Test func aPresentationWakeCountsAsAPresentationPress() {
        var s = KioskSettings()
        s.trigger = .presentation
        var m = KioskMachine(settings: s)
        _ = m.handle(.started)
        _ = m.handle(.cameraChanged(.available))
        _ = m.handle(.sceneChanged)
        #expect(m.phase == .scanning(session: 1) && m.metrics.pressesBySource == [.presentation: 1])
    }
}
