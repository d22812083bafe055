import CV4L2
@testable import LinuxHardware
import ScanHardware
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a driver offers beyond on/off and frames is asked through the base protocols (`any
/// OutputLine`, `any FrameSource`), as the kiosk holds them: a driver with the capability does
/// it, one without it emulates it (a plain line keeps its one pitch) or declares it.
@Suite struct CapabilityTests {
    /// A plain GPIO line asked for a pitch stays an on/off line: no libgpiod call, no error.
    @Test func aPlainLineAskedForAPitchStaysAnOnOffLine() throws {
        let fake = FakeGPIO()
        let line: any OutputLine = try GPIOOutputLine(role: "buzzer", settings: LineSettings(chip: "gpiochip0", offset: 27), gpio: fake.calls)
        try line.setPitch(3200)
        try line.setPitch(nil)
        #expect(fake.state.withLock { $0.sets } == ["27=0"], "only the request's initial level")
        try line.set(.active)
        #expect(fake.state.withLock { $0.sets } == ["27=0", "27=1"])
    }

    /// A PWM buzzer changes its period through the Syscalls seam; nil goes back to its own pitch.
    @Test func aPWMBuzzerChangesPitchThroughTheOutputLine() throws {
        let files = Locked<(open: [Int32: String], writes: [String])>(([:], []))
        var sys = Syscalls.system
        sys.open = { path, _ in files.withLock { f in
            let fd = Int32(100 + f.open.count)
            f.open[fd] = String(path.split(separator: "/").last!)
            return fd
        } }
        sys.write = { fd, buffer, count in
            let text = String(decoding: UnsafeRawBufferPointer(start: buffer, count: count), as: UTF8.self)
            files.withLock { $0.writes.append("\($0.open[fd]!)=\(text)") }
            return count
        }
        sys.close = { _ in 0 }
        let tone: any OutputLine = try SysfsPWMTone(channel: "/nonexistent/pwmchip0/pwm0", hz: 2000, syscalls: sys)
        files.withLock { $0.writes = [] }
        try tone.setPitch(4000)
        try tone.setPitch(nil)
        try tone.set(.active)
        #expect(files.withLock { $0.writes } == ["duty_cycle=0", "period=250000", "duty_cycle=125000",
                                                 "duty_cycle=0", "period=500000", "duty_cycle=250000", "enable=1"])
    }

    /// The V4L2 camera's own rate and controls answer through `any FrameSource`, not the defaults.
    @Test func theV4L2CameraKeepsItsRateAndControlsBehindTheFrameSource() throws {
        let fake = FakeV4L2()
        let v4l2 = V4L2Camera(settings: CameraSettings(device: "/dev/video9", width: 8, height: 4, fps: 25), syscalls: fake.syscalls)
        let camera: any FrameSource = v4l2
        try camera.open()
        defer { camera.close() }
        #expect(try camera.setFrameRate(5) == 5)
        #expect(fake.state.withLock { $0.fps } == 5)
        #expect(try camera.setControl("brightness", to: 7) == 7)
        #expect(fake.state.withLock { $0.controls[scand_V4L2_CID_BRIGHTNESS] } == 7)
        // A value out of the driver's range: the answer is what the camera took, read back.
        #expect(try camera.setControl("brightness", to: 999) == 64)
        #expect { try camera.setControl("loudness", to: 1) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .invalidFormat && "\(e!)".hasPrefix("/dev/video9 has no control loudness (VIDIOC_S_CTRL); known: brightness,")
        }
        fake.state.withLock { $0.rateControl = false }
        #expect { _ = try camera.setFrameRate(5) } throws: { e in
            "\(e)" == "/dev/video9 has no frame rate control (VIDIOC_G_PARM); it keeps its own rate"
        }
    }
}
