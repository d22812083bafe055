import ScanCore
import ScanHardware
import SetupPage
import KioskTestKit
import Synchronization
import Testing

/// The preview encodes only while a page watches, at most 5 frames a second, and leaves the
/// camera to the kiosk when the last page goes; the event hub cuts off a page that falls behind.
// The limit ends a hang, never a slow run: in the parallel phase every test starts at once and
// waits while the decoding suites hold the test threads, minutes on a loaded two-core machine
// (1 minute failed CI in a 444 s phase).
@Suite(.timeLimit(.minutes(10))) struct PreviewTests {
    final class Camera: Sendable {
        let asked = Atomic<Int>(0)
        let viewing = Locked<[Bool]>([])
        let frame = GrayFrame(width: 64, height: 48, pixels: [UInt8](repeating: 128, count: 64 * 48))
        func next() async -> GrayFrame? {
            asked.add(1, ordering: .relaxed)
            return frame
        }
    }

    /// Waits (bounded: a starved machine, not a speed check) until the preview's loop sleeps on
    /// `clock` until its next frame is due.
    static func pacing(_ clock: ManualClock) async -> Bool {
        for _ in 0..<5000 where clock.sleeperCount == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        return clock.sleeperCount == 1
    }

    /// Time is the manual clock's: the rate is counted in its periods, never over wall time.
    @Test func framesAreEncodedOnlyWhileAPageWatches() async throws {
        let camera = Camera()
        let clock = ManualClock()
        let preview = Preview(fps: 5, clock: clock, frames: { await camera.next() }, view: { on in camera.viewing.withLock { $0.append(on) } })
        // Nobody watches: no encoding loop (nothing sleeps on the clock, however far it moves)
        // and the camera is not asked.
        clock.advance(by: .seconds(10))
        #expect(clock.sleeperCount == 0 && preview.watcherCount == 0)
        #expect(camera.asked.load(ordering: .relaxed) == 0, "nobody watches: the camera is not asked")
        #expect(preview.encodedCount == 0)

        var page = preview.watch().makeAsyncIterator()
        // One frame at once, then the loop waits for the next 200 ms of the clock.
        let first = await page.next()
        #expect(first?.starts(with: [0xFF, 0xD8, 0xFF]) == true, "a JPEG")
        #expect(await Self.pacing(clock))
        #expect(camera.asked.load(ordering: .relaxed) == 1 && preview.encodedCount == 1)
        #expect(camera.viewing.withLock { $0 } == [true])
        // 199 ms on: the next frame is not due, nothing is woken (advance wakes synchronously).
        clock.advance(by: .milliseconds(199))
        #expect(clock.sleeperCount == 1 && camera.asked.load(ordering: .relaxed) == 1, "at most 5 frames a second")
        clock.advance(by: .milliseconds(1))
        #expect(await page.next() != nil)
        #expect(await Self.pacing(clock))
        #expect(camera.asked.load(ordering: .relaxed) == 2)
        // 1.5 s of the clock in 100 ms steps: a frame at the start of each 200 ms, 8 in all.
        for _ in 0..<13 {
            clock.advance(by: .milliseconds(100))
            if clock.sleeperCount == 0 { // woken: a frame comes, then the loop waits again
                #expect(await page.next() != nil)
                #expect(await Self.pacing(clock))
            }
        }
        #expect(camera.asked.load(ordering: .relaxed) == 8 && preview.encodedCount == 8, "8 frames in 1.5 s at 5 a second")
        // A second late (a loaded machine): one frame, no burst to catch up.
        clock.advance(by: .seconds(1))
        #expect(await page.next() != nil)
        #expect(await Self.pacing(clock))
        #expect(camera.asked.load(ordering: .relaxed) == 9)

        page = AsyncStream<[UInt8]>.makeStream().stream.makeAsyncIterator() // the page goes away
        for _ in 0..<100 where camera.viewing.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(camera.viewing.withLock { $0 } == [true, false], "the kiosk is told the last viewer left")
        // view(false) comes after the loop has ended: what it asked for is final.
        clock.advance(by: .seconds(10))
        #expect(clock.sleeperCount == 0)
        #expect(camera.asked.load(ordering: .relaxed) == 9 && preview.encodedCount == 9, "no more frames asked for")
        _ = page
    }

    @Test func aPageThatFallsBehindIsCutOffAndResultsAreKept() async {
        let hub = EventHub()
        let stream = hub.subscribe()
        #expect(hub.subscriberCount == 1)
        for i in 0..<(EventHub.backlog + 10) { hub.publish("{\"event\":\"result\",\"seq\":\(i)}") }
        #expect(hub.subscriberCount == 0, "fell behind: cut off")
        var received = 0
        for await _ in stream { received += 1 }
        #expect(received == EventHub.backlog, "what was queued is still delivered, then the stream ends")
        #expect(hub.results.count == EventHub.keptResults)
        #expect(hub.results.last == "{\"event\":\"result\",\"seq\":\(EventHub.backlog + 9)}")
    }
}
