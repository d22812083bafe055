@testable import LinuxHardware
import ScanHardware
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A scripted gpiochip behind the GPIOCalls seam: lines, a holder, values and edge events
/// delivered through a real pipe so that the button's poll(2) wakes as on a real request fd.
final class FakeGPIO: @unchecked Sendable {
    struct State {
        var chips = ["gpiochip0": 28]
        var heldBy: [UInt32: String] = [:]
        var requests: [UInt32: (flags: Int32, output: Bool)] = [:]
        var values: [UInt32: Int32] = [:]
        var sets: [String] = []
        var events: [(rising: Bool, nanos: UInt64)] = []
        var released: [UInt32] = []
        var lastErrno: Int32 = 0
        var chipsOpen = 0
    }
    let state = Locked(State())
    let pipe = makeWakePipe()!

    deinit { close(pipe.read); close(pipe.write) }

    /// An edge at `nanos` (kernel timestamp); `rising` is the logical level after it.
    func edge(rising: Bool, at nanos: UInt64, level: Int32? = nil) {
        state.withLock { s in
            s.events.append((rising, nanos))
            if let level { s.values[7] = level }
        }
        _ = write(pipe.write, "e", 1)
    }

    private func offset(_ line: OpaquePointer) -> UInt32 { UInt32(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(line))) >> 4) }

    var calls: GPIOCalls {
        var sys = Syscalls.system
        sys.errno = { [self] in state.withLock { $0.lastErrno } }
        return GPIOCalls(
            openChip: { [self] name in state.withLock { s in
                guard s.chips[name] != nil else { s.lastErrno = ENOENT; return nil }
                s.chipsOpen += 1
                return OpaquePointer(bitPattern: 0x1000) } },
            closeChip: { [self] _ in state.withLock { $0.chipsOpen -= 1 } },
            chipName: { _ in "gpiochip0" },
            getLine: { [self] _, offset in state.withLock { s in
                guard offset < 28 else { s.lastErrno = EINVAL; return nil }
                return OpaquePointer(bitPattern: Int(offset + 1) << 4) } },
            requestOutput: { [self] line, flags, initial in state.withLock { s in
                let o = offset(line) - 1
                if s.heldBy[o] != nil { s.lastErrno = EBUSY; return -1 }
                s.requests[o] = (flags, true)
                s.values[o] = initial
                s.sets.append("\(o)=\(initial)")
                return 0 } },
            requestEdges: { [self] line, flags in state.withLock { s in
                let o = offset(line) - 1
                if s.heldBy[o] != nil { s.lastErrno = EBUSY; return -1 }
                s.requests[o] = (flags, false)
                return 0 } },
            setValue: { [self] line, value in state.withLock { s in
                let o = offset(line) - 1
                s.values[o] = value
                s.sets.append("\(o)=\(value)")
                return 0 } },
            getValue: { [self] line in state.withLock { $0.values[offset(line) - 1] ?? 0 } },
            eventFD: { [self] _ in pipe.read },
            readEvent: { [self] _ in
                var b: UInt8 = 0
                _ = read(pipe.read, &b, 1)
                return state.withLock { s in
                    guard !s.events.isEmpty else { return (-1, false, 0) }
                    let e = s.events.removeFirst()
                    return (0, e.rising, e.nanos)
                }
            },
            release: { [self] line in state.withLock { $0.released.append(offset(line) - 1) } },
            holder: { [self] line in state.withLock { $0.heldBy[offset(line) - 1] } },
            syscalls: sys)
    }
}

@Suite struct GPIOTests {
    @Test func outputLineIsRequestedInactiveWithFlagsAndReleasedOnDeinit() throws {
        let fake = FakeGPIO()
        var line: GPIOOutputLine? = try GPIOOutputLine(role: "torch", settings: LineSettings(chip: "gpiochip0", offset: 27, activeLow: true),
                                                       gpio: fake.calls)
        #expect(line?.name == "torch (gpiochip0:27)")
        try line?.set(.active)
        try line?.set(.inactive)
        let s = fake.state.withLock { $0 }
        #expect(s.sets == ["27=0", "27=1", "27=0"])
        #expect(s.requests[27]?.flags == LineSettings(chip: "", offset: 0, activeLow: true).flags)
        line = nil
        #expect(fake.state.withLock { $0.released } == [27])
        #expect(fake.state.withLock { $0.chipsOpen } == 0)
    }

    @Test func biasFlags() {
        #expect(LineSettings(chip: "c", offset: 1, bias: .pullUp).flags != LineSettings(chip: "c", offset: 1, bias: .pullDown).flags)
        #expect(LineSettings(chip: "c", offset: 1).flags == 0)
    }

    @Test func lineHeldByAnotherProgramNamesTheHolder() {
        let fake = FakeGPIO()
        fake.state.withLock { $0.heldBy[27] = "gpioset" }
        #expect { try GPIOOutputLine(role: "torch", settings: LineSettings(chip: "gpiochip0", offset: 27), gpio: fake.calls) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .busy && e?.operation == "gpiod_line_request_output_flags"
                && e?.description == "torch (gpiochip0:27) is busy: another program holds it (gpiod_line_request_output_flags: EBUSY); held by \"gpioset\"; stop that program or choose another pin"
        }
        #expect(fake.state.withLock { $0.chipsOpen } == 0, "the chip is closed on the error path")
    }

    @Test func missingChipIsNotFound() {
        let fake = FakeGPIO()
        #expect { try GPIOOutputLine(role: "torch", settings: LineSettings(chip: "pinctrl-rp1", offset: 27), gpio: fake.calls) } throws: { e in
            (e as? HardwareError)?.kind == .notFound && (e as? HardwareError)?.operation == "gpiod_chip_open_lookup"
        }
    }

    /// The kernel queues edges from the request on: a press made before the events are read
    /// (the lab pressed while the daemon was still starting) is delivered, not taken for the
    /// initial level.
    @Test func aPressBeforeTheEventsAreReadIsDelivered() async throws {
        let fake = FakeGPIO()
        let button = try GPIOButton(settings: LineSettings(chip: "gpiochip0", offset: 7, activeLow: true, bias: .pullUp),
                                    debounce: .milliseconds(30), gpio: fake.calls)
        let ms: UInt64 = 1_000_000
        let t0 = monotonicNanos()
        fake.edge(rising: true, at: t0, level: 1) // pressed, and still down when the events are read
        var events = button.events().makeAsyncIterator()
        fake.edge(rising: false, at: t0 + 100 * ms, level: 0)
        let first = await events.next()
        let second = await events.next()
        #expect(first == ButtonEvent(.pressed, timestampNanos: t0))
        #expect(second == ButtonEvent(.released, timestampNanos: t0 + 100 * ms))
    }

    @Test func buttonDebouncesAScriptedEdgeSequence() async throws {
        let fake = FakeGPIO()
        let button = try GPIOButton(settings: LineSettings(chip: "gpiochip0", offset: 7, activeLow: true, bias: .pullUp),
                                    debounce: .milliseconds(30), gpio: fake.calls)
        var events = button.events().makeAsyncIterator()
        let ms: UInt64 = 1_000_000
        let t0 = monotonicNanos()
        // A press that bounces three times, then a clean release 100 ms later.
        fake.edge(rising: true, at: t0, level: 1)
        fake.edge(rising: false, at: t0 + 2 * ms)
        fake.edge(rising: true, at: t0 + 4 * ms)
        fake.edge(rising: false, at: t0 + 100 * ms, level: 0)
        let first = await events.next()
        let second = await events.next()
        #expect(first == ButtonEvent(.pressed, timestampNanos: t0))
        #expect(second == ButtonEvent(.released, timestampNanos: t0 + 100 * ms))
    }
}

@Suite struct DebouncerTests {
    let ms: UInt64 = 1_000_000

    @Test func leadingEdgeIsReportedAtOnceAndBouncesIgnored() {
        var d = Debouncer(period: .milliseconds(30))
        #expect(d.edge(toPressed: true, at: 1000 * ms) == ButtonEvent(.pressed, timestampNanos: 1000 * ms))
        #expect(d.edge(toPressed: false, at: 1005 * ms) == nil)
        #expect(d.edge(toPressed: true, at: 1010 * ms) == nil)
        #expect(d.settleDelay(now: 1010 * ms) == 20 * ms)
        #expect(d.settle(levelPressed: true, at: 1030 * ms) == nil)
        #expect(d.edge(toPressed: false, at: 1200 * ms) == ButtonEvent(.released, timestampNanos: 1200 * ms))
    }

    @Test func aReleaseHiddenByBouncesIsFoundWhenTheLevelSettles() {
        var d = Debouncer(period: .milliseconds(30))
        _ = d.edge(toPressed: true, at: 0)
        _ = d.edge(toPressed: false, at: 10 * ms) // a real, very short tap, inside the window
        #expect(d.settle(levelPressed: false, at: 30 * ms) == ButtonEvent(.released, timestampNanos: 30 * ms))
        #expect(d.pressed == false)
    }

    /// Linux reads a both-edge line's level when its interrupt thread runs: a 100 ms press seen
    /// late on a loaded machine (the lab under emulation, twice) comes as two rising edges. It
    /// is a press and a release; an edge stamped before the level was read back is not.
    @Test func aPressWhoseEdgesBothSayReleasedIsStillAPress() {
        var d = Debouncer(period: .milliseconds(30))
        #expect(d.edge(toPressed: false, at: 1000 * ms) == ButtonEvent(.pressed, timestampNanos: 1000 * ms))
        #expect(d.settle(levelPressed: true, at: 1031 * ms) == nil)
        #expect(d.edge(toPressed: false, at: 1100 * ms) == ButtonEvent(.released, timestampNanos: 1100 * ms))
        // Both seen within the period: the press now, the release when the level is read back.
        #expect(d.edge(toPressed: false, at: 2000 * ms) == ButtonEvent(.pressed, timestampNanos: 2000 * ms))
        #expect(d.edge(toPressed: false, at: 2001 * ms) == nil)
        #expect(d.settle(levelPressed: false, at: 2030 * ms) == ButtonEvent(.released, timestampNanos: 2030 * ms))
        // An edge the read-back already counted (stamped before it) changes nothing.
        #expect(d.settle(levelPressed: false, at: 2100 * ms) == nil)
        #expect(d.edge(toPressed: false, at: 2090 * ms) == nil)
        #expect(!d.pressed)
    }

    @Test func zeroPeriodPassesEveryChange() {
        var d = Debouncer(period: .zero)
        #expect(d.edge(toPressed: true, at: 1) != nil)
        #expect(d.edge(toPressed: false, at: 2) != nil)
        #expect(d.edge(toPressed: false, at: 3) == nil)
        #expect(d.settleDelay(now: 3) == nil)
    }
}
