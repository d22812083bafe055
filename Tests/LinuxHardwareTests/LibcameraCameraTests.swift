@testable import LinuxHardware
import ScanCore
import ScanHardware
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct LibcameraCameraTests {
    func camera(_ fake: FakeLibcamera, id: String = "", width: Int = 6, height: Int = 4,
                _ configure: (inout LibcameraSettings) -> Void = { _ in }) -> LibcameraCamera {
        var s = LibcameraSettings(id: id, width: width, height: height, fps: 30)
        // Generous: no test here waits for a stall; a starved machine must not make one.
        s.stallTimeoutMs = 120_000
        configure(&s)
        return LibcameraCamera(settings: s, shim: fake)
    }

    static func pattern(_ x: Int, _ y: Int) -> UInt8 { UInt8(10 * y + x + 1) }

    @Test func framesArriveAtTheConfiguredSizeAsTheirLumaAndTheRequestGoesBack() async throws {
        let fake = FakeLibcamera()
        let cam = camera(fake)
        try cam.open()
        #expect(cam.negotiated == .init(id: "/base/soc/i2c0mux/i2c@1/imx708@1a", layout: .yuv(.nv12), libcameraFormat: "NV12", width: 6, height: 4,
                                        stride: 32, buffers: 4, controlProblems: []))
        #expect(cam.name == "libcamera /base/soc/i2c0mux/i2c@1/imx708@1a")
        try cam.startCapture()
        let device = try #require(fake.device)
        device.complete(2, nanos: 5_000) { Self.pattern($0, $1) }
        let frame = try await cam.nextFrame()
        #expect(frame.width == 6 && frame.height == 4 && frame.stride == 6 && frame.timestampNanos == 5_000)
        #expect(frame.packedPixels() == (0..<4).flatMap { y in (0..<6).map { x in Self.pattern(x, y) } })
        await device.requeued(2)
        cam.close()
        #expect(fake.trace == ["acquire (first)", "configure 6x4 4 buffers", "frame duration 33333", "start", "stop", "release"])
    }

    @Test func onlyTheNewestFrameIsKeptAndTheOlderRequestsAreRecycled() async throws {
        let fake = FakeLibcamera()
        let cam = camera(fake)
        try cam.open()
        try cam.startCapture()
        let device = try #require(fake.device)
        device.complete(0) { _, _ in 1 }
        device.complete(1) { _, _ in 2 }
        device.complete(3) { _, _ in 3 }
        // Nobody waited: the first two were replaced and went back to libcamera.
        await device.requeued(0)
        await device.requeued(1)
        let frame = try await cam.nextFrame()
        #expect(frame[0, 0] == 3 && frame[5, 3] == 3)
        #expect(cam.droppedFrames == 2)
        await device.requeued(3)
        cam.close()
        #expect(cam.droppedFrames == 2)
    }

    @Test func aFailedRequestIsCountedAndQueuedBack() async throws {
        let fake = FakeLibcamera()
        let cam = camera(fake)
        try cam.open()
        try cam.startCapture()
        let device = try #require(fake.device)
        device.complete(0, status: .failed) { _, _ in 9 }
        device.complete(1) { _, _ in 7 }
        let frame = try await cam.nextFrame()
        #expect(frame[2, 2] == 7)
        await device.requeued(0)
        #expect(cam.droppedFrames == 1)
        cam.close()
    }

    @Test func aRequestThatCannotBeQueuedBackEndsTheStreamNamingTheCall() async throws {
        let fake = FakeLibcamera()
        let cam = camera(fake)
        try cam.open()
        try cam.startCapture()
        fake.state.withLock { $0.requeueErrno = EIO }
        try #require(fake.device).complete(0) { _, _ in 1 }
        await #expect { _ = try await cam.nextFrame() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .disconnected && e?.operation == "Camera::queueRequest" && e?.errno == EIO
        }
        cam.close()
    }

    /// A camera streaming, one frame already taken.
    func streaming(_ fake: FakeLibcamera) async throws -> (LibcameraCamera, FakeLibcameraDevice) {
        let cam = camera(fake)
        try cam.open()
        try cam.startCapture()
        let device = try #require(fake.device)
        device.complete(0) { _, _ in 1 }
        _ = try await cam.nextFrame()
        return (cam, device)
    }

    @Test func aCameraGoneMidStreamIsDisconnectedWithAHint() async throws {
        let (cam, device) = try await streaming(FakeLibcamera())
        device.unplug()
        await #expect { _ = try await cam.nextFrame() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .disconnected && e?.operation == "Camera::requestCompleted"
                && e?.description.contains("ribbon cable") == true
        }
        #expect { try cam.check() } throws: { ($0 as? HardwareError)?.kind == .disconnected }
        cam.close()
        #expect(device.released)
    }

    /// libcamera 0.0.3 does not report a platform camera whose driver was unbound: its frames
    /// just stop. A second without one asks the shim, which finds the node gone, long before
    /// the stall bound (two minutes here).
    @Test func aCameraWhoseDriverWasUnboundIsDisconnectedNotStalled() async throws {
        let (cam, device) = try await streaming(FakeLibcamera())
        device.unbind()
        await #expect { _ = try await cam.nextFrame() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .disconnected && e?.operation == "Camera::disconnected"
                && e?.description.contains("/dev/video3 was removed") == true
        }
        cam.close()
        #expect(device.released)
    }

    @Test func stopCaptureWakesAWaiterAndAStreamStartsAgain() async throws {
        let fake = FakeLibcamera()
        let cam = camera(fake)
        try cam.open()
        try cam.startCapture()
        let waiting = Task { try await cam.nextFrame() }
        // The stop finds it waiting (bounded: a wait that failed at once would never be seen).
        for _ in 0..<5000 where !cam.isAwaitingFrame { try await Task.sleep(for: .milliseconds(1)) }
        try #require(cam.isAwaitingFrame)
        cam.stopCapture()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        try cam.startCapture()
        try #require(fake.device).complete(1) { _, _ in 4 }
        #expect(try await cam.nextFrame()[0, 0] == 4)
        cam.close()
        #expect(fake.trace.filter { $0 == "start" || $0 == "stop" } == ["start", "stop", "start", "stop"])
    }

    @Test(arguments: [
        (EBUSY, HardwareError.Kind.busy, "another program holds the camera"),
        (EACCES, .permissionDenied, "group video"),
    ])
    func acquireFaultsKeepTheirMeaningAndHint(code: Int32, kind: HardwareError.Kind, hint: String) {
        let fake = FakeLibcamera()
        fake.state.withLock { $0.acquireErrno = code }
        let cam = camera(fake)
        #expect { try cam.open() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == kind && e?.operation == "Camera::acquire" && e?.errno == code && e?.hint?.contains(hint) == true
        }
    }

    @Test func noCameraIsNotFoundAndSaysWhatToCheck() {
        let fake = FakeLibcamera()
        fake.state.withLock { $0.cameras = [] }
        #expect { try camera(fake).open() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .notFound && e?.hint?.contains("rpicam-hello --list-cameras") == true
                && e?.description.contains("libcamera finds no camera") == true
        }
        let other = FakeLibcamera()
        #expect { try camera(other, id: "/base/imx219@10").open() } throws: { e in
            (e as? HardwareError)?.kind == .notFound && (e as? HardwareError)?.description.contains("/base/imx219@10") == true
        }
    }

    @Test func aFormatScandDoesNotTakeIsRefusedAndTheCameraReleased() throws {
        let fake = FakeLibcamera()
        fake.state.withLock { $0.format = "SBGGR10" }
        let cam = camera(fake)
        #expect { try cam.open() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .invalidFormat && e?.operation == "Camera::configure" && e?.hint?.contains("SBGGR10") == true
        }
        #expect(try #require(fake.device).released)
    }

    @Test func configControlsAreSetByLibcameraNamesAndUnknownOnesReported() throws {
        let fake = FakeLibcamera()
        let cam = camera(fake) { $0.controls = ["gain": 250, "exposure_absolute": 100, "focus_auto": 1, "power_line_frequency": 1] }
        try cam.open()
        let device = try #require(fake.device)
        #expect(device.controlValues == ["AnalogueGain": 2.5, "ExposureTime": 10_000, "AfMode": 2])
        #expect(cam.negotiated?.controlProblems == ["power_line_frequency: libcamera has no such control"])
        // Clamped by libcamera's range, read back in config units.
        #expect(try cam.setControl("gain", to: 9_999) == 1_600)
        #expect(try cam.setControl("brightness", to: -30) == -30)
        #expect(device.controlValues["Brightness"] == -0.3)
        #expect { try cam.setControl("contrast", to: 1) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .invalidFormat && e?.description.contains("no control contrast") == true && e?.hint?.contains("gain") == true
        }
        let settings = try cam.controlSettings()
        #expect(settings.map(\.name) == ["exposure_absolute", "gain", "brightness", "focus_auto", "focus_absolute"])
        #expect(settings.first { $0.name == "gain" } == CameraControlSetting(name: "gain", minimum: 100, maximum: 1_600, defaultValue: 100, value: 1_600))
        #expect(settings.first { $0.name == "exposure_absolute" }?.value == 100)
        // The short names work too, in libcamera's own units (µs, dioptres / 100).
        #expect(try cam.setControl("exposure", to: 8_000) == 8_000)
        #expect(device.controlValues["ExposureTime"] == 8_000)
        cam.close()
    }

    /// A control set while running outlives a close: the next open (a camera unbound and bound
    /// again is a new device) sets it again, over the config's value.
    @Test func controlsSetWhileRunningAreSetAgainAtTheNextOpen() throws {
        let fake = FakeLibcamera()
        let cam = camera(fake) { $0.controls = ["gain": 250] }
        try cam.open()
        #expect(try cam.setControl("brightness", to: 25) == 25)
        #expect(try cam.setControl("gain", to: 400) == 400)
        let first = try #require(fake.device)
        cam.close()
        try cam.open()
        let again = try #require(fake.device)
        #expect(again !== first)
        #expect(again.controlValues["Brightness"] == 0.25)
        #expect(again.controlValues["AnalogueGain"] == 4)
        cam.close()
    }

    @Test func theFrameRateIsAskedThroughFrameDurationLimitsAndClampedToTheSensor() throws {
        let fake = FakeLibcamera()
        let cam = camera(fake)
        try cam.open()
        try cam.startCapture()
        #expect(try cam.setFrameRate(5) == 5)
        #expect(try cam.setFrameRate(120) == 30) // the sensor's shortest frame is 33.3 ms
        #expect(try cam.setFrameRate(0) == 30)   // back to settings.fps
        #expect(fake.trace.filter { $0.hasPrefix("frame duration") } == ["frame duration 33333", "frame duration 200000", "frame duration 33333", "frame duration 33333"])
        cam.close()
        let fixed = FakeLibcamera()
        fixed.state.withLock { $0.frameDurationLimits = nil }
        let other = camera(fixed)
        try other.open() // a camera without the control opens at its own rate
        #expect { try other.setFrameRate(5) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .invalidFormat && e?.description.contains("has no frame rate control") == true
        }
    }

    /// camera.focus through the shim: the lens mode set when asked and again at every start; a
    /// cycle asked before the start goes out once the camera runs, one asked while streaming at once.
    @Test func focusModesAndCyclesGoThroughAfModeAndAfTrigger() throws {
        let fake = FakeLibcamera()
        let cam = camera(fake)
        try cam.open()
        try cam.setFocus(.onRequest)
        try cam.startAutofocus() // the kiosk asks right after the torch, before the stream starts
        try cam.startCapture()
        try cam.startAutofocus() // and a second cycle (the automatic torch lit) while it streams
        cam.stopCapture()
        try cam.setFocus(.manual(dioptres: 40))
        try cam.startCapture()
        cam.close()
        #expect(fake.trace.filter { $0.contains("Af") || $0 == "start" || $0 == "stop" } == [
            "set AfMode Auto", "set AfMode Auto", "set AfMode Auto", "start", "set AfMode Auto, AfTrigger Start",
            "set AfMode Auto, AfTrigger Start", "stop", "set AfMode Manual, LensPosition 32.0", "set AfMode Manual, LensPosition 32.0", "start", "stop",
        ])
        // Reopened: nothing is set until the kiosk asks again.
        try cam.open()
        try cam.startCapture()
        #expect(fake.trace.suffix(2) == ["frame duration 33333", "start"])
        cam.close()
    }

    /// No AfMode (a fixed-focus module, or libcamera before 0.0.4): ENOTSUP becomes the HAL's
    /// "no autofocus", which the kiosk says once; the camera streams as before.
    @Test func aCameraWithoutAutofocusAnswersNoFocusControl() throws {
        let fake = FakeLibcamera()
        fake.state.withLock { $0.autofocus = false }
        let cam = camera(fake)
        try cam.open()
        #expect { try cam.setFocus(.continuous) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .invalidFormat && e?.errno == ENOTSUP && e?.operation == "AfMode"
                && e?.description == "libcamera /base/soc/i2c0mux/i2c@1/imx708@1a has no autofocus (AfMode: ENOTSUP); the camera has no autofocus (AfMode); it keeps its lens where it is"
        }
        #expect { try cam.startAutofocus() } throws: { e in (e as? HardwareError)?.kind == .invalidFormat }
        #expect { try cam.setFocus(.manual(dioptres: 2)) } throws: { e in (e as? HardwareError)?.operation == "LensPosition" }
        try cam.startCapture()
        cam.close()
        #expect(!fake.trace.contains { $0.contains("Af") })
    }

    @Test func packedYUVWithAWideStrideGivesItsYBytes() async throws {
        let fake = FakeLibcamera()
        fake.state.withLock { $0.format = "UYVY"; $0.stride = 40 }
        let cam = camera(fake)
        try cam.open()
        #expect(cam.negotiated?.format == .uyvy)
        try cam.startCapture()
        try #require(fake.device).complete(0) { Self.pattern($0, $1) }
        let frame = try await cam.nextFrame()
        #expect(frame.packedPixels() == (0..<4).flatMap { y in (0..<6).map { x in Self.pattern(x, y) } })
        cam.close()
    }

    @Test func vimcsBGR888OpensAndGivesGrayFrames() async throws {
        let fake = FakeLibcamera()
        fake.state.withLock { $0.format = "BGR888"; $0.stride = 6 * 3 }
        let cam = camera(fake)
        try cam.open()
        #expect(cam.negotiated?.layout == .rgb24(red: 0, blue: 2) && cam.negotiated?.format == nil)
        #expect(cam.summary.hasPrefix("libcamera BGR888 6x4"))
        try cam.startCapture()
        try #require(fake.device).complete(0) { Self.pattern($0, $1) }
        let frame = try await cam.nextFrame()
        #expect(frame.packedPixels() == (0..<4).flatMap { y in (0..<6).map { x in Self.pattern(x, y) } })
        cam.close()
    }
}

@Suite struct LibcameraFramesTests {
    /// A planar frame: luma rows `stride` apart (padding 0xEE), then a chroma plane of 0x80.
    func planar(width: Int, height: Int, stride: Int, chromaBytes: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xEE, count: stride * height + chromaBytes)
        for y in 0..<height { for x in 0..<width { bytes[y * stride + x] = UInt8(y * width + x) } }
        for i in (stride * height)..<bytes.count { bytes[i] = 0x80 }
        return bytes
    }

    func luma(_ plane: [UInt8], _ format: CameraFormat, width: Int, height: Int, stride: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: width * height)
        let ok = plane.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { LibcameraFrames.copyLuma(src, format: format, width: width, height: height, stride: stride, into: $0) }
        }
        return ok ? out : nil
    }

    @Test func nv12AndYUV420GiveTheirLumaRowsWithoutPaddingOrChroma() {
        let expected = (0..<(5 * 3)).map { UInt8($0) }
        let nv12 = planar(width: 5, height: 3, stride: 8, chromaBytes: 8 * 2)
        #expect(luma(nv12, .nv12, width: 5, height: 3, stride: 8) == expected)
        let yuv420 = planar(width: 5, height: 3, stride: 8, chromaBytes: 2 * 4 * 2)
        #expect(luma(yuv420, .yu12, width: 5, height: 3, stride: 8) == expected)
        let grey = planar(width: 5, height: 3, stride: 5, chromaBytes: 0)
        #expect(luma(grey, .grey, width: 5, height: 3, stride: 5) == expected)
    }

    @Test func yuyvGivesItsEvenBytesAndUYVYItsOddOnes() {
        let yuyv: [UInt8] = [1, 0x80, 2, 0x80, 0xEE, 0xEE, 3, 0x80, 4, 0x80, 0xEE, 0xEE]
        #expect(luma(yuyv, .yuyv, width: 2, height: 2, stride: 6) == [1, 2, 3, 4])
        let uyvy: [UInt8] = [0x80, 1, 0x80, 2, 0xEE, 0xEE, 0x80, 3, 0x80, 4]
        #expect(luma(uyvy, .uyvy, width: 2, height: 2, stride: 6) == [1, 2, 3, 4])
    }

    @Test func aPlaneTooShortOrAStrideTooNarrowIsRefused() {
        let nv12 = planar(width: 5, height: 3, stride: 8, chromaBytes: 0)
        #expect(luma(Array(nv12.prefix(8 * 2 + 4)), .nv12, width: 5, height: 3, stride: 8) == nil)
        #expect(luma(nv12, .nv12, width: 5, height: 3, stride: 4) == nil)
        #expect(luma(nv12, .mjpeg, width: 5, height: 3, stride: 8) == nil)
        #expect(LibcameraFrames.planeBytesNeeded(.yuyv, width: 4, height: 2, stride: 10) == 18)
    }

    @Test func rgb888AndBGR888GiveTheLumaOfEachPixel() {
        // Two pixels a row, rows 8 bytes apart: white, black / pure red, pure blue (in R, G, B).
        let rgb: [[UInt8]] = [[255, 255, 255], [0, 0, 0], [255, 0, 0], [0, 0, 255]]
        func packed(_ order: (([UInt8]) -> [UInt8])) -> [UInt8] {
            order(rgb[0]) + order(rgb[1]) + [0xEE, 0xEE] + order(rgb[2]) + order(rgb[3]) + [0xEE, 0xEE]
        }
        let expected: [UInt8] = [255, 0, 77, 29]
        let orders: [(String, ([UInt8]) -> [UInt8])] = [("RGB888", { Array($0.reversed()) }), ("BGR888", { $0 })]
        for (name, order) in orders {
            let layout = LibcameraFrames.layout(named: name)
            var out = [UInt8](repeating: 0, count: 4)
            let ok = packed(order).withUnsafeBytes { src in
                out.withUnsafeMutableBytes { LibcameraFrames.copyLuma(src, layout: layout!, width: 2, height: 2, stride: 8, into: $0) }
            }
            #expect(ok && out == expected, "\(name)")
        }
        var out = [UInt8](repeating: 0, count: 4)
        let short = [UInt8](repeating: 0, count: 8 + 5)
        #expect(!short.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { LibcameraFrames.copyLuma(src, layout: .rgb24(red: 2, blue: 0), width: 2, height: 2, stride: 8, into: $0) }
        })
        #expect(LibcameraFrames.layout(named: "NV12") == .yuv(.nv12))
        #expect(LibcameraFrames.layout(named: "SRGGB10_CSI2P") == nil)
    }

    @Test func libcameraFormatNamesMapToScandFormats() {
        #expect(["R8", "NV12", "NV21", "YUV420", "YVU420", "YUYV", "UYVY"].map(LibcameraFrames.format(named:))
                == [.grey, .nv12, .nv21, .yu12, .yu12, .yuyv, .uyvy])
        #expect(LibcameraFrames.format(named: "SRGGB10_CSI2P") == nil)
        #expect(LibcameraFrames.format(named: "MJPEG") == nil)
    }
}
