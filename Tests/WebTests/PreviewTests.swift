import ScanCore
import ScanHardware
import SetupPage
import Synchronization
import Testing

/// The preview encodes only while a page watches, at most 5 frames a second, and leaves the
/// camera to the kiosk when the last page goes; the event hub cuts off a page that falls behind.
@Suite struct PreviewTests {
    final class Camera: Sendable {
        let asked = Atomic<Int>(0)
        let viewing = Locked<[Bool]>([])
        let frame = GrayFrame(width: 64, height: 48, pixels: [UInt8](repeating: 128, count: 64 * 48))
        func next() async -> GrayFrame? {
            asked.add(1, ordering: .relaxed)
            try? await Task.sleep(for: .milliseconds(5))
            return frame
        }
    }

    @Test func framesAreEncodedOnlyWhileAPageWatches() async throws {
        let camera = Camera()
        let preview = Preview(frames: { await camera.next() }, view: { on in camera.viewing.withLock { $0.append(on) } })
        try await Task.sleep(for: .milliseconds(300))
        #expect(camera.asked.load(ordering: .relaxed) == 0, "nobody watches: the camera is not asked")
        #expect(preview.encodedCount == 0)

        var page = preview.watch().makeAsyncIterator()
        let started = ContinuousClock.now
        var jpegs = 0
        while ContinuousClock.now - started < .milliseconds(1500), let jpeg = await page.next() {
            #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]), "a JPEG")
            jpegs += 1
        }
        // 1.5 s at most 5 a second: 8 at the very most (one at the start of each 200 ms); a
        // loaded machine (sanitizers, parallel suites) may give fewer, never more.
        #expect((1...9).contains(jpegs), "\(jpegs) frames in 1.5 s")
        #expect(camera.viewing.withLock { $0 } == [true])
        page = AsyncStream<[UInt8]>.makeStream().stream.makeAsyncIterator() // the page goes away
        for _ in 0..<100 where camera.viewing.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(camera.viewing.withLock { $0 } == [true, false], "the kiosk is told the last viewer left")
        let asked = camera.asked.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(400))
        #expect(camera.asked.load(ordering: .relaxed) <= asked + 1, "no more frames asked for")
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
