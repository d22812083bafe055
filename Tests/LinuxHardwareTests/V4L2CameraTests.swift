import CV4L2
@testable import LinuxHardware
import ScanHardware
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct V4L2CameraTests {
    func camera(_ fake: FakeV4L2, width: Int = 8, height: Int = 4, _ configure: (inout CameraSettings) -> Void = { _ in }) -> V4L2Camera {
        var s = CameraSettings(device: "/dev/video9", width: width, height: height, fps: 30)
        // Generous: a test waits this long for a frame only when the machine is starved (other
        // test suites decoding images in parallel); no test here waits for a stall.
        s.stallTimeoutMs = 120_000
        configure(&s)
        return V4L2Camera(settings: s, syscalls: fake.syscalls)
    }

    @Test func negotiationTakesTheFirstPreferredFormatOffered() throws {
        let fake = FakeV4L2()
        fake.state.withLock { $0.offered = [scand_V4L2_PIX_FMT_MJPEG, scand_V4L2_PIX_FMT_YUYV] }
        let cam = camera(fake)
        try cam.open()
        #expect(cam.negotiated?.format == .yuyv)
        #expect(cam.negotiated?.bytesPerLine == 16)
        fake.state.withLock { $0.offered = [scand_V4L2_PIX_FMT_MJPEG, scand_V4L2_PIX_FMT_NV12, scand_V4L2_PIX_FMT_GREY] }
        try cam.open()
        #expect(cam.negotiated?.format == .grey)
        let mjpegFirst = camera(fake) { $0.formats = [.mjpeg, .yuyv] }
        try mjpegFirst.open()
        #expect(mjpegFirst.negotiated?.format == .mjpeg)
    }

    @Test func noUsableFormatWithoutConversionIsAClearError() {
        let fake = FakeV4L2()
        fake.state.withLock { $0.offered = [0x3231_5652] } // 'RV12'
        let cam = camera(fake) { $0.allowConversion = false }
        #expect { try cam.open() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .invalidFormat && e?.operation == "VIDIOC_ENUM_FMT" && e?.description.contains("RV12") == true
        }
        #expect(fake.state.withLock { $0.closed }, "the fd is closed on the error path")
    }

    @Test func driverThatSetsAnotherFormatIsRejected() {
        let fake = FakeV4L2()
        fake.state.withLock { $0.forcedFormat = 0x3231_5652 }
        #expect { try camera(fake).open() } throws: { ($0 as? HardwareError)?.operation == "VIDIOC_S_FMT" }
    }

    @Test func notACaptureDeviceIsSaid() {
        let fake = FakeV4L2()
        fake.state.withLock { $0.capabilities = UInt32(V4L2_CAP_STREAMING) }
        #expect { try camera(fake).open() } throws: { ($0 as? HardwareError)?.description.contains("not a video capture device") == true }
    }

    static let errnoCases: [(call: String, errno: Int32, kind: HardwareError.Kind)] = [
        ("open", ENOENT, .notFound), ("open", EACCES, .permissionDenied), ("open", EBUSY, .busy),
        ("VIDIOC_S_FMT", EBUSY, .busy),
    ]

    @Test("errors map to the kiosk's camera states", arguments: errnoCases)
    func errnoMapping(call: String, errno: Int32, kind: HardwareError.Kind) {
        let fake = FakeV4L2()
        fake.fail(call, with: errno)
        #expect { try camera(fake).open() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == kind && e?.operation == call && e?.errno == errno && e?.device == "/dev/video9"
        }
    }

    @Test func permissionDeniedCarriesTheFix() {
        let fake = FakeV4L2()
        fake.fail("open", with: EACCES)
        do { try camera(fake).open() } catch {
            #expect("\(error)" == "permission denied on /dev/video9 (open: EACCES); add the service user to group video (usermod -aG video scand)")
        }
    }

    @Test func busyAtReqbufsIsInUse() throws {
        let fake = FakeV4L2()
        let cam = camera(fake)
        try cam.open()
        fake.fail("VIDIOC_REQBUFS", with: EBUSY)
        #expect { try cam.startCapture() } throws: { ($0 as? HardwareError)?.kind == .busy }
    }

    /// A stream stopped and started again at once (a presentation session going back to
    /// watching) while a frame is awaited: the new stream waits for the old buffers to be
    /// unmapped (the driver refuses new ones with EBUSY until then) instead of calling the
    /// camera busy.
    @Test func aStreamRestartedAtOnceWaitsForItsOwnBuffers() async throws {
        let fake = FakeV4L2()
        let cam = camera(fake, width: 4, height: 2)
        try cam.open()
        for _ in 0..<5 {
            try cam.startCapture()
            let waiting = Task { try? await cam.nextFrame() }
            // A deliberate gap: the stop usually finds the frame awaited, sometimes already
            // delivered; the restart must find its own buffers either way.
            try await Task.sleep(for: .milliseconds(5))
            cam.stopCapture()
            try cam.startCapture() // EBUSY here if the old buffers were still mapped
            _ = await waiting.value
            cam.stopCapture()
        }
        try cam.startCapture()
        fake.push([10, 1, 20, 2, 30, 3, 40, 4, 50, 5, 60, 6, 70, 7, 80, 8])
        let frame = try await cam.nextFrame()
        #expect(frame.packedPixels() == [10, 20, 30, 40, 50, 60, 70, 80])
        cam.stopCapture()
    }

    /// A frame of the stopped stream kept past the wait (GREY frames borrow the driver's
    /// buffer): the error says so, not "another program".
    @Test func aBorrowedFrameKeptTooLongIsNamed() async throws {
        let fake = FakeV4L2()
        fake.state.withLock { $0.offered = [scand_V4L2_PIX_FMT_GREY] }
        let cam = camera(fake, width: 4, height: 2) { $0.formats = [.grey] }
        try cam.open()
        try cam.startCapture()
        fake.push([1, 2, 3, 4, 5, 6, 7, 8])
        var kept: GrayFrame? = try await cam.nextFrame()
        cam.stopCapture()
        #expect { try cam.startCapture() } throws: { e in
            "\(e)".contains("the previous stream's frames are still in use")
        }
        #expect(kept?.width == 4)
        kept = nil
        try cam.startCapture()
        cam.stopCapture()
    }

    @Test func controlsAreSetByNameAndUnknownOnesReported() throws {
        let fake = FakeV4L2()
        let cam = camera(fake) { $0.controls = ["focus_auto": 0, "focus_absolute": 40, "zoom": 3] }
        try cam.open()
        #expect(fake.state.withLock { $0.controls[scand_V4L2_CID_FOCUS_ABSOLUTE] } == 40)
        #expect(fake.state.withLock { $0.controls[scand_V4L2_CID_FOCUS_AUTO] } == 0)
        #expect(cam.negotiated?.controlProblems == ["zoom: unknown control"])
    }

    /// camera.focus through VIDIOC_S_CTRL: continuous, one cycle per press, a lens position
    /// mapped onto FOCUS_ABSOLUTE's range (0 dioptres at its minimum, 10 and nearer at its maximum).
    @Test func focusModesGoThroughTheFocusControls() throws {
        let fake = FakeV4L2()
        let cam = camera(fake)
        try cam.open()
        try cam.setFocus(.continuous)
        try cam.setFocus(.onRequest)
        try cam.startAutofocus()
        try cam.setFocus(.manual(dioptres: 4))
        try cam.setFocus(.manual(dioptres: 50))
        try cam.setFocus(.manual(dioptres: 0))
        #expect(fake.state.withLock { $0.controlLog } == [
            "FOCUS_AUTO=1", "FOCUS_AUTO=0", "AUTO_FOCUS_START=1",
            "FOCUS_AUTO=0", "FOCUS_ABSOLUTE=100", "FOCUS_AUTO=0", "FOCUS_ABSOLUTE=250", "FOCUS_AUTO=0", "FOCUS_ABSOLUTE=0",
        ])
        // A manual lens has no cycle.
        #expect { try cam.startAutofocus() } throws: { e in (e as? HardwareError)?.kind == .invalidFormat }
    }

    /// A USB webcam with continuous autofocus only (no AUTO_FOCUS_START): on request is emulated,
    /// a cycle restarts its continuous autofocus.
    @Test func aCameraWithoutOneShotAutofocusRestartsItsContinuousAutofocus() throws {
        let fake = FakeV4L2()
        fake.state.withLock { $0.missingControls = [scand_V4L2_CID_AUTO_FOCUS_START] }
        let cam = camera(fake)
        try cam.open()
        try cam.setFocus(.onRequest)
        try cam.startAutofocus()
        #expect(fake.state.withLock { $0.controlLog } == ["FOCUS_AUTO=1", "FOCUS_AUTO=0", "FOCUS_AUTO=1"])
    }

    /// A fixed-focus camera: EINVAL from VIDIOC_QUERYCTRL is the HAL's "no autofocus", named.
    @Test func aFixedFocusCameraAnswersNoFocusControl() throws {
        let fake = FakeV4L2()
        fake.state.withLock { $0.missingControls = [scand_V4L2_CID_FOCUS_AUTO, scand_V4L2_CID_AUTO_FOCUS_START, scand_V4L2_CID_FOCUS_ABSOLUTE] }
        let cam = camera(fake)
        try cam.open()
        for mode in [FocusMode.onRequest, .continuous, .manual(dioptres: 1)] {
            #expect { try cam.setFocus(mode) } throws: { e in
                let e = e as? HardwareError
                return e?.kind == .invalidFormat && e?.errno == EINVAL && e?.description.hasPrefix("/dev/video9 has no ") == true
            }
        }
        #expect { try cam.startAutofocus() } throws: { e in "\(e)" == "/dev/video9 has no autofocus (V4L2_CID_AUTO_FOCUS_START); it keeps its lens where it is" }
        #expect(fake.state.withLock { $0.controlLog } == [])
        // A focus control that fails for another reason is the device's failure, named.
        fake.state.withLock { $0.missingControls = [] }
        fake.fail("VIDIOC_S_CTRL", with: EIO)
        #expect { try cam.setFocus(.continuous) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .disconnected && e?.operation == "VIDIOC_S_CTRL V4L2_CID_FOCUS_AUTO"
        }
    }

    /// `watch_fps`: S_PARM while streaming, the driver's rounding returned; 0 asks for the
    /// configured rate again (this fake sensor tops out at 25).
    @Test func theFrameRateChangesWhileStreaming() throws {
        let fake = FakeV4L2()
        let cam = camera(fake)
        try cam.open()
        #expect(fake.state.withLock { $0.fps } == 25)
        try cam.startCapture()
        defer { cam.close() }
        #expect(try cam.setFrameRate(5) == 5)
        #expect(fake.state.withLock { ($0.fps, $0.streaming) } == (5, true))
        #expect(try cam.setFrameRate(0) == 25)
        #expect(fake.calls.filter { $0 == "VIDIOC_STREAMON" }.count == 1, "no restart")
    }

    @Test func aRateChangeRefusedIsNamedWithItsReason() throws {
        let fake = FakeV4L2()
        fake.state.withLock { $0.rateBusyWhileStreaming = true }
        let cam = camera(fake)
        try cam.open()
        try cam.startCapture()
        defer { cam.close() }
        #expect(throws: HardwareError.self) { _ = try cam.setFrameRate(5) }
        do { _ = try cam.setFrameRate(5) } catch {
            #expect("\(error)".contains("VIDIOC_S_PARM") && "\(error)".contains("EBUSY") && "\(error)".contains("while streaming"), "\(error)")
        }
        #expect(fake.state.withLock { $0.fps } == 25, "the rate stays")
        fake.state.withLock { $0.rateControl = false }
        do { _ = try cam.setFrameRate(5); Issue.record("no rate control: an error") } catch {
            #expect("\(error)".contains("no frame rate control"), "\(error)")
        }
        cam.close()
        #expect(throws: HardwareError.self) { _ = try cam.setFrameRate(5) }
    }

    @Test func yuyvFramesBecomeTheirLumaPlane() async throws {
        let fake = FakeV4L2()
        let cam = camera(fake, width: 4, height: 2)
        try cam.open()
        try cam.startCapture()
        // Y0 U Y1 V ... : luma 10,20,30,40 / 50,60,70,80
        fake.push([10, 1, 20, 2, 30, 3, 40, 4, 50, 5, 60, 6, 70, 7, 80, 8])
        let frame = try await cam.nextFrame()
        #expect(frame.width == 4 && frame.height == 2)
        #expect(frame.packedPixels() == [10, 20, 30, 40, 50, 60, 70, 80])
        cam.stopCapture()
    }

    /// A camera that offers none of scand's formats (only RGB24 here) is opened again through
    /// the converting call set (libv4l2 on a board), which offers YU12: frames come as gray.
    @Test func aCameraWithNoneOfOurFormatsWorksThroughTheConversion() async throws {
        let camera = FakeV4L2(), libv4l2 = FakeV4L2()
        camera.state.withLock { $0.offered = [0x3342_4752] } // 'RGB3': RGB24 only
        libv4l2.state.withLock { $0.offered = [0x3342_4752, scand_V4L2_PIX_FMT_YUV420] } // what libv4l2 emulates
        var settings = CameraSettings(device: "/dev/video9", width: 4, height: 2, fps: 30)
        settings.stallTimeoutMs = 120_000
        let cam = V4L2Camera(settings: settings, syscalls: camera.syscalls, converting: libv4l2.syscalls)
        try cam.open()
        #expect(cam.negotiated?.format == .yu12 && cam.negotiated?.converted == true)
        #expect(camera.state.withLock { $0.closed }, "the direct descriptor is closed")
        #expect(!camera.calls.contains("VIDIOC_S_FMT") && libv4l2.calls.contains("VIDIOC_S_FMT"))
        try cam.startCapture()
        for value in UInt8(1)...5 {
            libv4l2.push([9, 8, 7, 6, 5, 4, 3, value, 128, 128, 128, 128])
            let frame = try await cam.nextFrame()
            #expect(frame.packedPixels() == [9, 8, 7, 6, 5, 4, 3, value])
        }
        cam.stopCapture()
        // libv4l2 writes "error dequeuing buf" to stderr at every EAGAIN: the reader asks the
        // device first and never dequeues from an empty queue.
        #expect(libv4l2.state.withLock { $0.dequeuedNothing } == 0)
        // Without conversion allowed, the same camera is a clear error naming what it offers.
        settings.allowConversion = false
        #expect { try V4L2Camera(settings: settings, syscalls: camera.syscalls, converting: libv4l2.syscalls).open() } throws: {
            ($0 as? HardwareError)?.description.contains("RGB3") == true
        }
    }

    @Test func greyAndNV12FramesAreBorrowedAndTheBufferRequeuedWhenReleased() async throws {
        let fake = FakeV4L2()
        fake.state.withLock { $0.offered = [scand_V4L2_PIX_FMT_NV12] }
        let cam = camera(fake, width: 4, height: 2)
        try cam.open()
        #expect(cam.negotiated?.format == .nv12)
        try cam.startCapture()
        let queuedAtStart = fake.state.withLock { $0.qbufCount }
        fake.push([1, 2, 3, 4, 5, 6, 7, 8, 128, 128, 128, 128])
        var frame: GrayFrame? = try await cam.nextFrame()
        #expect(frame?.packedPixels() == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(fake.state.withLock { $0.qbufCount } == queuedAtStart, "held while the frame lives")
        frame = nil
        // Released at once; the bounded wait only covers a starved machine.
        let deadline = ContinuousClock.now + .seconds(120)
        while fake.state.withLock({ $0.qbufCount }) < queuedAtStart + 1 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(fake.state.withLock { $0.qbufCount } == queuedAtStart + 1, "requeued when released")
        cam.stopCapture()
    }

    @Test func newestFrameWinsAndOlderOnesAreCountedAsDropped() async throws {
        let fake = FakeV4L2()
        fake.state.withLock { $0.offered = [scand_V4L2_PIX_FMT_GREY] }
        let cam = camera(fake, width: 2, height: 1)
        try cam.open()
        try cam.startCapture()
        fake.push([1, 1]); fake.push([2, 2]); fake.push([3, 3])
        for _ in 0..<200 where cam.droppedFrames < 2 { try await Task.sleep(for: .milliseconds(2)) }
        let frame = try await cam.nextFrame()
        #expect(frame.packedPixels() == [3, 3])
        #expect(cam.droppedFrames == 2)
        cam.stopCapture()
    }

    @Test func mjpegFramesAreDecodedToGray() async throws {
        let jpeg = try #require(FixtureJPEG.bytes)
        let fake = FakeV4L2()
        fake.state.withLock { $0.offered = [scand_V4L2_PIX_FMT_MJPEG] }
        let cam = camera(fake, width: 16, height: 8)
        try cam.open()
        try cam.startCapture()
        fake.push(Array("not a jpeg at all".utf8)) // corrupt: dropped, not fatal
        fake.push(jpeg)
        let frame = try await cam.nextFrame()
        #expect(frame.width == 16 && frame.height == 8)
        #expect(frame[0, 0] < 40 && frame[15, 0] > 215, "dark left, light right")
        cam.stopCapture()
    }

    @Test func enodevMidStreamIsADisconnect() async throws {
        let fake = FakeV4L2()
        let cam = camera(fake, width: 4, height: 2)
        try cam.open()
        try cam.startCapture()
        fake.fail("VIDIOC_DQBUF", with: ENODEV)
        fake.push([UInt8](repeating: 0, count: 16))
        await #expect { _ = try await cam.nextFrame() } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .disconnected && e?.operation == "VIDIOC_DQBUF"
        }
    }

    @Test func stopCaptureWakesAWaiter() async throws {
        let fake = FakeV4L2()
        let cam = camera(fake, width: 4, height: 2)
        try cam.open()
        try cam.startCapture()
        let waiter = Task { try await cam.nextFrame() }
        // A deliberate gap: the stop finds the waiter waiting, or (a starved machine) comes
        // before the wait begins; either way the waiter ends with a CancellationError.
        try await Task.sleep(for: .milliseconds(20))
        cam.stopCapture()
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
    }
}

/// A 16x8 JPEG, black on the left half and white on the right (Tests/Fixtures/make-fixtures.sh).
enum FixtureJPEG {
    static var bytes: [UInt8]? {
        let path = Fixture.path("gradient-16x8.jpg")
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true { let n = fread(&buf, 1, 4096, f); if n <= 0 { break }; out += buf[0..<n] }
        return out
    }
}

@Suite struct ProbeTests {
    @Test func probeListsFormatsThroughTheSeam() {
        let fake = FakeV4L2()
        let camera = Probe.camera(at: "/dev/video9", fake.syscalls)
        #expect(camera.error == nil)
        #expect(camera.formats.map { String($0.prefix(4)) } == ["YUYV", "MJPG"])
    }

    @Test func probeReportsAnUnopenableNode() {
        let fake = FakeV4L2()
        fake.fail("open", with: EACCES)
        #expect(Probe.camera(at: "/dev/video9", fake.syscalls).error?.contains("group video") == true)
    }
}
