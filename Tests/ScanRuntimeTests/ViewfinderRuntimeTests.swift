import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import Delivery
import ScanRuntime
import KioskTestKit
import SimulatedHardware
import Testing

/// Snapshots and guidance through the running service (issue 15).
@Suite struct ViewfinderRuntimeTests {
    /// The QR fixture on a larger canvas, box-blurred three times with `radius` (0: sharp).
    static func qrScene(blur radius: Int) throws -> GrayFrame {
        let qr = try ImageFile.load(Fixture.path("qr.png"))
        var pixels = [UInt8](repeating: 230, count: 400 * 300)
        for y in 0..<qr.height { for x in 0..<qr.width { pixels[(y + 50) * 400 + x + 100] = qr[x, y] } }
        for _ in 0..<(radius > 0 ? 3 : 0) {
            let src = pixels
            for y in 0..<300 {
                for x in 0..<400 {
                    var sum = 0, n = 0
                    for dy in -radius...radius { for dx in -radius...radius {
                        let xx = min(max(x + dx, 0), 399), yy = min(max(y + dy, 0), 299)
                        sum += Int(src[yy * 400 + xx]); n += 1
                    } }
                    pixels[y * 400 + x] = UInt8(sum / n)
                }
            }
        }
        return GrayFrame(width: 400, height: 300, pixels: pixels)
    }

    /// An idle kiosk streams for a snapshot and stops again: the frame comes, the camera rests.
    @Test func aSnapshotStreamsTheIdleCameraForOneFrame() async throws {
        let service = try ServiceKiosk()
        try await service.start()
        #expect(!service.camera.isStreaming)
        let runtime = service.runtime
        // A generous wait: in the parallel phase this task may be resumed late.
        let shot = try await service.bounded("a snapshot") { try? await runtime.snapshot(within: .seconds(50)) }
        let (frame, tuning, torchOn) = try #require(shot, "the idle camera gave no frame for the snapshot")
        #expect(frame.width == 198 && frame.height == 198)
        #expect(tuning.viewport == .full)
        #expect(!torchOn)
        #expect(!service.camera.isStreaming, "the stream stops when the last viewer goes")
        #expect(service.trace.of("camera").suffix(2) == ["start", "stop"])
        #expect(await runtime.status.phase == "idle")
        try await service.stop()
    }

    /// A camera that is not there gives no frame but a reason.
    @Test func aSnapshotOfAMissingCameraSaysWhy() async throws {
        let service = try ServiceKiosk()
        service.camera.unplug()
        try await service.start()
        await #expect(throws: KioskRuntime.NoFrame.self) { try await service.runtime.snapshot(within: .milliseconds(300)) }
        try await service.stop()
    }

    /// A session that cannot read a blurred code says so (a `guidance` event and the status), and
    /// the guidance is cleared when the session ends.
    @Test func aBlurredCodeGetsGuidanceUntilTheSessionEnds() async throws {
        // Radius 6 (three box blurs of 13 px, a lens blur of about 6.5 px): zxing-cpp 3.1 reads
        // the QR code through a blur of 3, the pipeline's two-dimensional deconvolution
        // (`PlaneDeconvolution`) through radius 4 (about 4.5 px).
        // The session outlives a slow machine's deep looks: under the parallel test phase the
        // guidance once came just before a 30 s timeout ended the session and cleared it.
        let service = try ServiceKiosk(frames: [try Self.qrScene(blur: 6)], decoder: DecodePipeline(), sessionTimeout: .seconds(600))
        try await service.start()
        service.button.click()
        let guidance = try await service.event(containing: "\"guidance\"")
        #expect(guidance.contains("\"kind\":\"blurred\""), "\(guidance)")
        #expect(await service.runtime.status.json.contains("\"guidance\":[{\"kind\":\"blurred\""))
        service.button.click() // cancels the session
        let cleared = try await service.event(containing: "\"guidance\"")
        #expect(cleared.contains("\"advice\":[]"), "\(cleared)")
        #expect(await service.runtime.status.guidance.isEmpty)
        try await service.stop()
    }
}
