import ScanCore
import Testing

/// Decode statistics in the pure core: reads per symbology with their decode time (from the
/// trigger, or from when the code came into view where no trigger started the attempt, to the
/// good read) in Zebra's bins, refusals, and the sessions that ended without a read; every time
/// is the core's input, nothing sleeps.
@Suite struct DecodeStatisticsTests {
    static let code128 = Symbol(symbology: .code128, text: "1BjnpEv")
    static let ean = Symbol(symbology: .ean13, text: "4006381333931")
    static let url = Symbol(symbology: .qrCode, text: "https://shop.example/item/7")

    typealias Histogram = DecodeStatistics.Histogram

    /// The bins of a histogram with one duration, in `bin`.
    static func one(in bin: Int) -> [Int] {
        var bins = [Int](repeating: 0, count: Histogram.bounds.count + 1)
        bins[bin] = 1
        return bins
    }

    /// A core with the camera open and available at time zero.
    static func core(_ change: (inout KioskSettings) -> Void = { _ in }) -> KioskCore {
        var settings = KioskSettings()
        settings.sessionTimeout = .seconds(5)
        change(&settings)
        var core = KioskCore(settings: settings, emitsEvents: false)
        run(&core, .start, at: .zero)
        return core
    }

    /// Runs `input` and what it leads to as the driver does: the camera opens, a stream start
    /// is answered at once (started), follow-ups after the input's actions.
    static func run(_ core: inout KioskCore, _ input: KioskCore.Input, at now: Duration) {
        var queue = [input]
        while !queue.isEmpty {
            var actions = core.handle(queue.removeFirst(), now: now)[...]
            while let action = actions.popFirst() {
                switch action {
                case .followUp(let next): queue.append(next)
                case .openCamera: queue.append(.camera(.opened))
                case .startStream: actions = (core.handle(.streamStarted(true), now: now) + actions)[...]
                default: break
                }
            }
        }
    }

    /// Fires the timers and pattern steps due by `now`, as the driver does.
    static func advance(_ core: inout KioskCore, to now: Duration) {
        while let due = core.takeDue(now: now) { run(&core, due, at: now) }
    }

    /// A decoded frame of the session now capturing.
    static func frame(_ core: inout KioskCore, _ symbols: [Symbol], at now: Duration) {
        guard case .decode(let session, _) = core.work else { Issue.record("not capturing: \(core.work)"); return }
        run(&core, .decoded(session: session, symbols: symbols, seconds: 0.01), at: now)
    }

    @Test func durationsFallInZebrasBinsUpToTheirBoundsInclusive() {
        var h = Histogram()
        for ms in [0, 75, 76, 110, 170, 171, 300, 600, 1000, 1500, 1501, 60_000] { h.add(.milliseconds(ms)) }
        #expect(h.bins == [2, 2, 1, 2, 1, 1, 1, 2])
        #expect(h.count == 12 && h.sum == .milliseconds(65_503))
        // The sixth and seventh of twelve durations are in the fourth bin.
        #expect(h.medianBin == 3 && Histogram.label(3) == "≤300 ms" && Histogram.label(7) == ">1500 ms")
        #expect(Histogram().medianBin == nil)
    }

    /// A press, frames without a code, the read 100 ms after the press: one Code 128 read in the
    /// ≤110 ms bin. A press left to time out is a no-read of 5 s (over 1500 ms); a press
    /// cancelled by the next one 250 ms in is a no-read in the ≤300 ms bin.
    @Test func aReadIsTimedFromThePressAndNoReadsByHowLongTheirSessionRan() {
        var core = Self.core()
        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(1))
        Self.frame(&core, [], at: .seconds(1) + .milliseconds(33))
        Self.frame(&core, [], at: .seconds(1) + .milliseconds(66))
        Self.frame(&core, [Self.code128], at: .seconds(1) + .milliseconds(100))
        #expect(core.machine.metrics.goodReads == 1)
        #expect(core.statistics.reads[.code128]?.bins == Self.one(in: 1))
        #expect(core.statistics.reads[.code128]?.sum == .milliseconds(100))
        #expect(core.statistics.symbologies == [.code128] && core.statistics.noReads.count == 0)

        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(5))
        Self.frame(&core, [], at: .seconds(6))
        Self.advance(&core, to: .seconds(10) - .milliseconds(1))
        #expect(core.machine.phase == .scanning(session: 2) && core.statistics.noReads.count == 0)
        Self.advance(&core, to: .seconds(10))
        #expect(core.machine.metrics.closedWithoutScan == 1)
        #expect(core.statistics.noReads.bins == Self.one(in: 7) && core.statistics.noReads.sum == .seconds(5))

        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(12))
        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(12) + .milliseconds(250))
        #expect(core.machine.metrics.closedWithoutScan == 2)
        #expect(core.statistics.noReads.bins == [0, 0, 0, 1, 0, 0, 0, 1])
        // The reads are as they were.
        #expect(core.statistics.reads[.code128]?.count == 1 && core.statistics.reads.count == 1)
    }

    /// A refused code counts as refused under its symbology and does not restart the timing:
    /// the accepted code after it is timed from the press.
    @Test func aRefusedCodeIsCountedAndTheReadAfterItTimedFromThePress() {
        var core = Self.core { $0.accept = PayloadFilter(kinds: [.url]) }
        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(2))
        Self.frame(&core, [Self.code128], at: .seconds(2) + .milliseconds(50))
        Self.frame(&core, [Self.url], at: .seconds(2) + .milliseconds(400))
        let s = core.statistics
        #expect(core.machine.metrics.rejected == 1 && core.machine.metrics.goodReads == 1)
        #expect(s.symbologies == [.code128, .qrCode])
        #expect(s.refused == [.code128: 1] && s.reads[.code128] == nil)
        #expect(s.reads[.qrCode]?.bins == Self.one(in: 4) && s.reads[.qrCode]?.sum == .milliseconds(400))
    }

    /// A result held for a confirming press is a read when it is read (the good-read beep), not
    /// when it is confirmed.
    @Test func aResultHeldForConfirmationIsTimedAtItsRead() {
        var core = Self.core { $0.alphanumeric = .confirm }
        Self.run(&core, .kiosk(.buttonPressed), at: .zero)
        Self.frame(&core, [Self.code128], at: .milliseconds(170))
        #expect(core.machine.metrics.goodReads == 0)
        #expect(core.statistics.reads[.code128]?.bins == Self.one(in: 2))
        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(3))
        #expect(core.machine.metrics.goodReads == 1 && core.statistics.reads[.code128]?.count == 1)
    }

    /// Presentation mode: the wake starts the first attempt; after a read the next code is
    /// timed from when it came into view; a still scene ending the session is not a no-read.
    @Test func presentationTimesFromTheWakeThenFromTheNextCodeInView() {
        var core = Self.core {
            $0.trigger = .presentation
            $0.presentationIdle = .seconds(3)
            $0.sameSymbolTimeout = .milliseconds(500)
            $0.agreeingFrames = [.code128: 2]
        }
        Self.run(&core, .kiosk(.sceneChanged), at: .seconds(2))
        Self.frame(&core, [], at: .seconds(2) + .milliseconds(100))
        Self.frame(&core, [Self.ean], at: .seconds(2) + .milliseconds(160))
        // The EAN still in view (held back), then nothing, then a Code 128 in two agreeing frames.
        Self.frame(&core, [Self.ean], at: .seconds(2) + .milliseconds(300))
        Self.frame(&core, [], at: .seconds(2) + .milliseconds(400))
        Self.frame(&core, [Self.code128], at: .seconds(2) + .milliseconds(500))
        Self.frame(&core, [Self.code128], at: .seconds(2) + .milliseconds(600))
        #expect(core.machine.metrics.goodReads == 2 && core.machine.metrics.repeatsHeldBack == 1)
        #expect(core.statistics.reads[.ean13]?.bins == Self.one(in: 2) && core.statistics.reads[.ean13]?.sum == .milliseconds(160))
        #expect(core.statistics.reads[.code128]?.bins == Self.one(in: 1) && core.statistics.reads[.code128]?.sum == .milliseconds(100))
        Self.advance(&core, to: .seconds(6))
        #expect(core.machine.phase == .watching && core.statistics.noReads.count == 0)
    }

    /// Continuous mode scans from the camera's opening without a trigger: a code shown ten
    /// minutes later is timed from the frame it came into view in, not from the start; a host
    /// STOP five seconds after the read is a no-read of those five seconds.
    @Test func continuousTimesACodeFromWhenItCameIntoView() {
        var core = Self.core { $0.trigger = .continuous; $0.agreeingFrames = [.code128: 2] }
        #expect(core.machine.phase == .scanning(session: 1))
        Self.frame(&core, [], at: .seconds(60))
        Self.frame(&core, [Self.code128], at: .seconds(600))
        Self.frame(&core, [Self.code128], at: .seconds(600) + .milliseconds(40))
        #expect(core.machine.metrics.goodReads == 1)
        #expect(core.statistics.reads[.code128]?.bins == Self.one(in: 0) && core.statistics.reads[.code128]?.sum == .milliseconds(40))
        Self.run(&core, .kiosk(.hostStop), at: .seconds(605) + .milliseconds(40))
        #expect(core.machine.metrics.closedWithoutScan == 1)
        #expect(core.statistics.noReads.bins == Self.one(in: 7) && core.statistics.noReads.sum == .seconds(5))
    }

    /// A code read and left in view is held back as a repeat, not a new code coming into view:
    /// the next code is timed from its own first frame, however long the last one stayed.
    @Test func aCodeLeftInViewAfterItsReadDoesNotStartTheNextCodesTime() {
        var core = Self.core { $0.trigger = .continuous; $0.sameSymbolTimeout = .seconds(60) }
        Self.frame(&core, [Self.code128], at: .seconds(10))
        for second in 11...40 { Self.frame(&core, [Self.code128], at: .seconds(second)) }
        // Swapped for another code in one frame, read in that frame.
        Self.frame(&core, [Self.ean], at: .seconds(41))
        // Both in view, then the URL joins them: timed from the frame it came in.
        Self.frame(&core, [Self.ean, Self.url], at: .seconds(42))
        #expect(core.machine.metrics.goodReads == 3)
        #expect(core.statistics.reads[.code128]?.sum == .zero)
        #expect(core.statistics.reads[.ean13]?.bins == Self.one(in: 0) && core.statistics.reads[.ean13]?.sum == .zero)
        #expect(core.statistics.reads[.qrCode]?.bins == Self.one(in: 0) && core.statistics.reads[.qrCode]?.sum == .zero)
        // The Code 128 taken away and shown again after its same-symbol time: a new sighting.
        Self.frame(&core, [], at: .seconds(50))
        Self.frame(&core, [], at: .seconds(110))
        Self.frame(&core, [Self.code128], at: .seconds(120))
        #expect(core.statistics.reads[.code128]?.count == 2 && core.statistics.reads[.code128]?.sum == .zero)
    }

    /// New settings (SIGHUP, `SET`) keep the counts; the JSON names the bins and every
    /// symbology read or refused.
    @Test func aReloadKeepsTheCountsAndTheJSONShowsThem() {
        var core = Self.core()
        Self.run(&core, .kiosk(.buttonPressed), at: .zero)
        Self.frame(&core, [Self.ean], at: .milliseconds(80))
        var settings = core.machine.settings
        settings.sessionTimeout = .seconds(2)
        Self.run(&core, .reload(settings, SpeechPhrases()), at: .seconds(1))
        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(3))
        Self.run(&core, .kiosk(.buttonPressed), at: .seconds(4))
        #expect(core.statistics.reads[.ean13]?.bins == Self.one(in: 1))
        #expect(core.statistics.json == "{\"binsMs\":[75,110,170,300,600,1000,1500],"
            + "\"symbologies\":{\"EAN-13\":{\"reads\":1,\"refused\":0,\"bins\":[0,1,0,0,0,0,0,0],\"seconds\":0.08}},"
            + "\"noReads\":{\"count\":1,\"bins\":[0,0,0,0,0,1,0,0],\"seconds\":1}}")
    }
}
