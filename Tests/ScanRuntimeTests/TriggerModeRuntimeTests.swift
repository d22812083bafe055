import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// The trigger modes and the warm camera through the loop and the simulated camera, in
/// virtual time.
@Suite struct TriggerModeRuntimeTests {
    static let line = "https://example.org/kiosk?id=42\r\n"

    @Test func levelAReleaseWithoutACodeEndsTheSessionWithTheNoReadPattern() throws {
        let h = try Harness(images: ["no-code.png"]) { $0.trigger = .level }
        h.start()
        h.advance(.milliseconds(100))
        h.trace.clear()
        h.button.press()
        h.advance(.milliseconds(400))
        h.button.release() // at 500 ms
        h.advance(.seconds(1))
        #expect(h.timeline("torch", "camera", "buzzer") == [
            "100 torch inactive", "100 torch active", "100 camera start",
            "500 camera stop", "500 torch inactive", "500 buzzer active", "750 buzzer inactive", "870 buzzer active", "1120 buzzer inactive",
        ])
        #expect(h.status.metrics.closedWithoutScan == 1 && h.status.framesDecoded == 12)
    }

    /// Blank for 2 s, the code for 2 s, blank, the code again: presentation wakes on the change,
    /// reads once while the code stays in view, watches again when the scene is still, and reads
    /// the code when it is presented again after the same-symbol time.
    @Test func presentationWakesOnAChangeAndDoesNotRereadACodeLeftInView() throws {
        let h = try Harness(images: ["no-code.png", "qr.png"], repeatEach: 60, settings: {
            $0.trigger = .presentation
            $0.presentationIdle = .milliseconds(1500)
        }, sameSymbolTimeout: .milliseconds(1500))
        h.start()
        h.advance(.milliseconds(1900))
        #expect(h.status.phase == "watching" && h.status.framesDecoded == 0)
        #expect(h.trace.of("torch") == ["inactive"])
        h.advance(.milliseconds(400)) // the code appears at 2 s
        #expect(h.hostReceived() == Self.line)
        #expect(h.status.phase == "scanning" && h.status.metrics.presses == 0)
        let readAt = h.timeline("serial").first.map { Int($0.split(separator: " ")[0])! } ?? 0
        #expect(readAt > 2000 && readAt <= 2000 + 2 * 34, "read within two frame periods of the change: \(readAt) ms")
        h.advance(.milliseconds(1300)) // 3.6 s: the code stays in view: held back, no beep
        #expect(h.hostReceived() == Self.line)
        #expect(h.trace.of("buzzer").filter { $0 == "active" }.count == 1)
        #expect(h.status.duplicatesSuppressed > 0)
        // Blank from 4 s: a change, then still: watching again 1.5 s later, the torch off.
        h.advance(.milliseconds(2100)) // 5.7 s
        #expect(h.status.phase == "watching")
        #expect(h.trace.of("torch").last == "inactive")
        // At 6 s the code is presented again, 2 s after it was last seen: read again.
        h.advance(.milliseconds(800))
        #expect(h.hostReceived() == Self.line + Self.line)
        // Watching, scanning and watching again share one stream: a driver restarting it at
        // once would still hold the old buffers (EBUSY on V4L2), and a restart costs frames.
        #expect(h.trace.of("camera") == ["open", "start"], "\(h.trace.timeline)")
    }

    /// `watch_fps`: the camera watches at 10 fps, is back at its 30 fps for the session the change
    /// wakes, and at 10 fps again when the scene is still; the stream never restarts for it.
    @Test func presentationWatchesAtTheLowerRateAndScansAtTheFullOne() throws {
        let h = try Harness(images: ["no-code.png", "qr.png"], repeatEach: 60, settings: {
            $0.trigger = .presentation
            $0.presentationIdle = .milliseconds(1500)
            $0.watchFPS = 10
        }, sameSymbolTimeout: .milliseconds(1500))
        h.start()
        h.advance(.milliseconds(1900))
        #expect(h.status.phase == "watching")
        let watched = h.camera.framesDelivered
        #expect((17...20).contains(watched), "about 10 frames a second while watching: \(watched) in 1.9 s")
        h.advance(.milliseconds(400)) // the code appears at 2 s
        #expect(h.hostReceived() == Self.line)
        let readAt = h.timeline("serial").first.map { Int($0.split(separator: " ")[0])! } ?? 0
        #expect(readAt > 2000 && readAt <= 2000 + 100 + 2 * 34, "read within a watching and two scanning periods: \(readAt) ms")
        h.advance(.milliseconds(3300)) // still from 2 s: watching at 3.5 s; blank at 4 s wakes it, watching again by 5.7 s
        #expect(h.status.phase == "watching")
        #expect(h.trace.of("camera") == ["open", "start"] + Array(repeating: ["rate 10 fps", "rate 30 fps"], count: 2).joined() + ["rate 10 fps"],
                "\(h.trace.timeline)")
        #expect(h.logged("30 fps") && h.logged("10 fps while watching"))
    }

    /// A camera that takes no rate change while streaming (uvcvideo: EBUSY) is said once and
    /// watches at its full rate.
    @Test func aCameraRefusingTheRateWatchesAtTheFullRate() throws {
        let h = try Harness(images: ["no-code.png", "qr.png"], repeatEach: 60, settings: {
            $0.trigger = .presentation
            $0.watchFPS = 10
        })
        h.camera.refuseRateChanges()
        h.start()
        h.advance(.milliseconds(1900))
        #expect(h.status.phase == "watching")
        #expect(h.camera.framesDelivered >= 55, "the full rate: \(h.camera.framesDelivered) frames in 1.9 s")
        #expect(h.logged("watching at the full rate") && h.logged("EBUSY"))
        h.advance(.milliseconds(400))
        #expect(h.hostReceived() == Self.line)
    }

    /// With no same-symbol time (0) a code left in view is still reported once, not once per
    /// frame: it must leave the view first.
    @Test func presentationWithNoSameSymbolTimeReadsACodeLeftInViewOnce() throws {
        let h = try Harness(images: ["no-code.png", "qr.png"], repeatEach: 90, settings: {
            $0.trigger = .presentation
            $0.presentationIdle = .seconds(5)
        }, sameSymbolTimeout: .zero)
        h.start()
        h.advance(.milliseconds(5900)) // blank 0-3 s, the code 3-6 s
        #expect(h.hostReceived() == Self.line)
        #expect(h.status.metrics.goodReads == 1 && h.status.duplicatesSuppressed > 30)
        h.advance(.milliseconds(3300)) // blank 6-9 s, the code again from 9 s
        #expect(h.hostReceived() == Self.line + Self.line)
    }

    /// A code left in view is reported once; presented again after the same-symbol time (here
    /// after a second out of view), it is reported again.
    @Test func continuousReportsEachNewPresentationOfACode() throws {
        let events = Locked<[String]>([])
        let h = try Harness(images: ["qr.png", "no-code.png"], repeatEach: 30, settings: { $0.trigger = .continuous },
                            sameSymbolTimeout: .milliseconds(500), onEvent: { line in
            if line.contains("\"result\"") { events.withLock { $0.append(line) } }
        })
        h.start()
        h.advance(.milliseconds(3500))
        #expect(h.hostReceived() == String(repeating: Self.line, count: 2))
        #expect(events.withLock { $0.count } == 2)
        #expect(h.status.phase == "scanning" && h.status.metrics.goodReads == 2)
        #expect(h.trace.of("camera") == ["open", "start"], "the stream never stops between reads")
        h.send(.hostStop)
        #expect(h.status.phase == "idle" && h.trace.of("camera").last == "stop")
        h.advance(.seconds(2))
        #expect(h.status.metrics.goodReads == 2, "paused until the next trigger")
        h.send(.hostTrigger(from: .host))
        #expect(h.status.phase == "scanning")
    }

    /// A warm camera streams between sessions: a press uses the next frame, and the stream
    /// goes on after the read.
    @Test func aWarmCameraReadsTheNextFrameAfterAPress() throws {
        let h = try Harness(keepStreaming: true)
        h.start()
        #expect(h.trace.of("camera") == ["open", "start"])
        h.advance(.milliseconds(500))
        #expect(h.status.framesDecoded == 0, "frames between sessions are drained, not decoded")
        h.trace.clear()
        h.button.click() // at 500 ms; frames are due every 33.3 ms from 33 ms
        h.advance(.milliseconds(100))
        let read = h.timeline("serial").first.map { Int($0.split(separator: " ")[0])! } ?? 0
        #expect(read == 533, "the next frame (533 ms) is read: \(h.trace.timeline)")
        #expect(!h.trace.of("camera").contains("stop"))
    }

    @Test func severalCodesInViewAreReportedNearestFirst() throws {
        let h = try Harness(images: ["two-codes.png"]) { $0.multiple = 4 }
        h.start()
        h.button.click()
        h.advance(.milliseconds(100))
        #expect(h.status.metrics.goodReads >= 2, "\(h.hostReceived())")
    }
}
