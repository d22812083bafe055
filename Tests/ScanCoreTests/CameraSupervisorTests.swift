import ScanCore
import Testing

@Suite struct CameraSupervisorTests {
    @Test func backoffThenEveryFourSecondsAndOneChangePerState() {
        var s = CameraSupervisor()
        #expect(s.handle(.start) == [.open])
        #expect(s.handle(.openFailed(.inUse)) == [.changed(.inUse), .cancelTimer(.check), .close, .startTimer(.retry, after: .milliseconds(500))])
        var delays: [Duration] = []
        for _ in 0..<5 {
            #expect(s.handle(.timerFired(.retry)) == [.open])
            let effects = s.handle(.openFailed(.inUse))
            #expect(!effects.contains(.changed(.inUse)), "the same state is said once")
            for case .startTimer(.retry, let after) in effects { delays.append(after) }
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4)])
        #expect(s.handle(.timerFired(.retry)) == [.open])
        #expect(s.handle(.opened) == [.changed(.available), .cancelTimer(.retry), .startTimer(.check, after: .milliseconds(500))])
        #expect(s.reconnects == 1)
    }

    @Test func anOpenCameraIsCheckedAndItsLossStartsTheRetries() {
        var s = CameraSupervisor()
        _ = s.handle(.start)
        _ = s.handle(.opened)
        #expect(s.reconnects == 0)
        #expect(s.handle(.timerFired(.check)) == [.check, .startTimer(.check, after: .milliseconds(500))])
        #expect(s.handle(.failed(.disconnected)) == [.changed(.disconnected), .cancelTimer(.check), .close,
                                                     .startTimer(.retry, after: .milliseconds(500))])
        // A late frame error after the camera was given up changes nothing.
        #expect(s.handle(.failed(.disconnected)) == [])
        #expect(s.handle(.timerFired(.check)) == [])
        // Still unplugged: the open finds no device, and the state stays "disconnected".
        #expect(s.handle(.timerFired(.retry)) == [.open])
        #expect(s.handle(.openFailed(.unavailable(reason: "/dev/video0 not found"))) == [.cancelTimer(.check), .close,
                                                                                           .startTimer(.retry, after: .seconds(1))])
        #expect(s.state == .disconnected)
    }

    @Test func stopEndsEverything() {
        var s = CameraSupervisor()
        _ = s.handle(.start)
        _ = s.handle(.opened)
        #expect(s.handle(.stop) == [.cancelTimer(.retry), .cancelTimer(.check), .close])
        #expect(s.handle(.timerFired(.check)) == [] && s.handle(.start) == [])
    }
}
