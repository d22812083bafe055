import ScanCore
import Testing

/// Issue 41: the watchdog is the core's own timer. Each period it asks for a ping while the
/// kiosk is healthy, none while a running capture has made no progress for `captureStall`, and
/// none after the stop.
@Suite struct WatchdogCoreTests {
    static func core() -> KioskCore {
        var settings = KioskSettings()
        settings.sessionTimeout = .seconds(60)
        return KioskCore(settings: settings, emitsEvents: false, watchdog: .seconds(2))
    }

    /// Time going on to `end` (from the core's next deadline on), what `takeDue` gives handled
    /// as it comes due: their actions.
    static func fire(_ core: inout KioskCore, until end: Duration) -> [KioskCore.Action] {
        var actions: [KioskCore.Action] = []
        while let next = core.nextDeadline, next <= end, let due = core.takeDue(now: next) { actions += core.handle(due, now: next) }
        return actions
    }

    @Test func pingsEachPeriodWhileHealthyAndNotWhileCaptureIsStuck() {
        var core = Self.core()
        _ = core.handle(.start, now: .zero)
        _ = core.handle(.camera(.opened), now: .zero)
        _ = core.handle(.kiosk(.cameraChanged(.available)), now: .zero)
        #expect(Self.fire(&core, until: .seconds(2)).filter { $0 == .pingWatchdog }.count == 1)
        #expect(Self.fire(&core, until: .seconds(4)).filter { $0 == .pingWatchdog }.count == 1)
        // A session whose capture never comes back with a frame: pinged until it is stalled.
        _ = core.handle(.kiosk(.buttonPressed), now: .seconds(4))
        _ = core.handle(.streamStarted(true), now: .seconds(4))
        let healthy = Self.fire(&core, until: .seconds(12))
        #expect(healthy.filter { $0 == .pingWatchdog }.count == 4, "healthy for 10 s")
        let stalled = Self.fire(&core, until: .seconds(16))
        #expect(!stalled.contains(.pingWatchdog))
        #expect(stalled.contains(.log(.error, "kiosk loop stalled: capture made no progress in 10.0 seconds; watchdog not pinged")), "\(stalled)")
        // A frame comes back: pinged again.
        _ = core.handle(.decoded(session: 1, symbols: [], seconds: 0.01), now: .seconds(16))
        #expect(Self.fire(&core, until: .seconds(18)).contains(.pingWatchdog))
        // Stopped: no more pings.
        _ = core.handle(.stop, now: .seconds(18))
        _ = core.handle(.finishStop, now: .seconds(18))
        #expect(core.nextDeadline == nil && Self.fire(&core, until: .seconds(30)).isEmpty)
    }

    @Test func withoutAWatchdogNothingIsPinged() {
        var core = KioskCore(settings: KioskSettings(), emitsEvents: false)
        _ = core.handle(.start, now: .zero)
        #expect(!Self.fire(&core, until: .seconds(60)).contains(.pingWatchdog))
    }
}
