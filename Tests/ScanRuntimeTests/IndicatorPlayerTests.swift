import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import Testing

@Suite struct IndicatorPlayerTests {
    /// Plays everything due up to `end`, as (milliseconds, change) pairs.
    func play(_ p: inout IndicatorPlayer, until end: Duration) -> [String] {
        var out: [String] = []
        while let next = p.nextDeadline, next <= end {
            out += p.advance(to: next).map { "\(next / .milliseconds(1)) \($0.channel.rawValue) \($0.value.rawValue)" }
        }
        return out
    }

    @Test func theFlashPlaysOverTheStatusAndTheNewestStatusComesBack() {
        var p = IndicatorPlayer(patterns: .standard)
        #expect(p.indicate(.scanning, now: .zero) == [.init(.statusLED, .active)])
        #expect(p.feedback(.goodRead, now: .milliseconds(30)) == [.init(.buzzer, .active), .init(.statusLED, .active)])
        #expect(p.indicate(.ready, now: .milliseconds(30)) == [], "the flash finishes first")
        #expect(play(&p, until: .seconds(1)) == [
            "90.0 status_led inactive", "110.0 buzzer inactive", "150.0 status_led active", "210.0 status_led inactive",
            "270.0 status_led active", "330.0 status_led inactive", "330.0 status_led active",
        ])
        #expect(p.nextDeadline == nil, "ready is a steady light")
    }

    @Test func aRepeatingPatternKeepsItsPeriod() {
        var p = IndicatorPlayer(patterns: .standard)
        _ = p.indicate(.cameraInUse, now: .zero)
        let steps = play(&p, until: .seconds(4))
        #expect(steps.filter { $0.hasSuffix("active") && !$0.hasSuffix("inactive") }.map { $0.split(separator: " ")[0] }
                == ["300.0", "600.0", "2000.0", "2300.0", "2600.0", "4000.0"])
    }

    @Test func stopTurnsBothOff() {
        var p = IndicatorPlayer(patterns: .standard)
        _ = p.indicate(.scanning, now: .zero)
        _ = p.feedback(.noRead, now: .zero)
        #expect(p.stop() == [.init(.buzzer, .inactive), .init(.statusLED, .inactive)])
        #expect(p.nextDeadline == nil)
    }
}
