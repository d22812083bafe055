import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing
import Viewfinder
#if canImport(Glibc)
import Glibc
#endif

/// One snapshot decode at a time, shared by the requests that wait for it; a bounded wait.
@Suite(.onTestThreads) struct SnapshotGateTests {
    /// A `make` that waits until the test lets it go (a release before it waits lets the next
    /// one through), and counts how often it ran.
    final class HeldMake: Sendable {
        private struct State { var runs = 0; var held: [CheckedContinuation<Void, Never>] = []; var permits = 0; var fail = false }
        private let state = Locked(State())

        var runs: Int { state.withLock { $0.runs } }
        var waiting: Int { state.withLock { $0.held.count } }
        func failNext() { state.withLock { $0.fail = true } }

        func release() {
            let held = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                if s.held.isEmpty { s.permits += 1 }
                defer { s.held = [] }
                return s.held
            }
            for c in held { c.resume() }
        }

        func make() async throws -> Snapshot {
            await withCheckedContinuation { c in
                let go = state.withLock { s -> Bool in
                    s.runs += 1
                    guard s.permits == 0 else { s.permits -= 1; return true }
                    s.held.append(c)
                    return false
                }
                if go { c.resume() }
            }
            if state.withLock({ s in defer { s.fail = false }; return s.fail }) { throw NoCamera() }
            let frame = GrayFrame(width: 32, height: 24, pixels: [UInt8](repeating: 128, count: 32 * 24))
            return Snapshot(frame: frame, viewport: .full, decoder: ZBarDecoder(), torchOn: false, capture: "test")
        }
    }

    struct NoCamera: Error {}

    static func until(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @Test func requestsWaitingForADecodeShareItAndOneTooManyIsRefused() async throws {
        let held = HeldMake()
        let gate = SnapshotGate(limit: 8) { try await held.make() }
        // Eight requests: the first starts the decode, seven wait for it.
        let requests = (0..<8).map { _ in Task { try await gate.snapshot() } }
        try #require(await Self.until { held.waiting == 1 && gate.waiting == 8 })
        // A ninth while eight wait: refused at once (the setup page answers 503).
        await #expect(throws: SnapshotGate.Busy.self) { try await gate.snapshot() }
        #expect(gate.refused == 1)
        held.release()
        var decodes: [Int?] = []
        for r in requests { decodes.append(try await r.value.decode) }
        #expect(decodes == Array(repeating: 1, count: 8), "all eight got the one decode")
        #expect(held.runs == 1 && gate.decodes == 1)
        // The next request starts the next decode.
        let next = Task { try await gate.snapshot() }
        try #require(await Self.until { held.waiting == 1 })
        held.release()
        #expect(try await next.value.decode == 2)
        #expect(held.runs == 2)
    }

    @Test func aFailedDecodeFailsItsWaitersAndTheNextRequestTriesAgain() async throws {
        let held = HeldMake()
        let gate = SnapshotGate(limit: 8) { try await held.make() }
        held.failNext()
        let requests = (0..<3).map { _ in Task { try await gate.snapshot() } }
        // All three in the gate before the decode ends (a late one would start a decode of its own).
        try #require(await Self.until { held.waiting == 1 && gate.waiting == 3 })
        held.release()
        for r in requests { await #expect(throws: NoCamera.self) { try await r.value } }
        #expect(gate.decodes == 0)
        let again = Task { try await gate.snapshot() }
        try #require(await Self.until { held.waiting == 1 })
        held.release()
        #expect(try await again.value.decode == 1)
    }

    @Test func aRequestThatGivesUpLeavesTheDecodeToTheOthers() async throws {
        let held = HeldMake()
        let gate = SnapshotGate(limit: 8) { try await held.make() }
        let first = Task { try await gate.snapshot() }
        try #require(await Self.until { held.waiting == 1 })
        let second = Task { try await gate.snapshot() }
        // The second waits for the first's decode before that decode ends.
        try #require(await Self.until { gate.waiting == 2 })
        first.cancel()
        held.release()
        #expect(try await second.value.decode == 1)
        #expect(try await first.value.decode == 1, "a cancelled request still gets the shared result (the server drops it)")
    }

    @Test func atLowPriorityRunsOnAThreadOfItsOwnAtNiceNineteen() async throws {
        let nice = try await SnapshotGate.atLowPriority { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
        #expect(nice == 19)
        // The caller's thread is untouched.
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) != 19)
    }

    @Test func aPreparedSnapshotDrawsAndEncodesOnceAndAChangeDropsIt() throws {
        let frame = try Frames.sample("code128-small.jpg")
        let fresh = Snapshot(frame: frame, viewport: Viewport(x: 0.15, y: 0.3, width: 0.7, height: 0.5), decoder: ZBarDecoder(),
                             torchOn: false, capture: "test camera")
        var prepared = fresh
        try prepared.prepare()
        #expect(prepared.render() == fresh.render())
        #expect(try prepared.png() == fresh.png(), "the same PNG as drawing it afresh")
        #expect(try RGBImage.decodePNG(prepared.png()) == fresh.render())
        #expect(try RGBImage.decodePNG(prepared.png(raw: true)).width == frame.width)
        // What is drawn changes: drawn again.
        var changed = prepared
        changed.capture = "another camera"
        #expect(changed.render() != prepared.render())
        #expect(try RGBImage.decodePNG(changed.png()) == changed.render())
    }
}
