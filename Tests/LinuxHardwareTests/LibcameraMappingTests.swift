@testable import LinuxHardware
import ScanCore
import ScanHardware
import Testing
#if canImport(Glibc)
import Glibc
#endif

// libcamera's parts that open no camera: the control mapping, the system's listing, the probe's lines.

@Suite struct LibcameraControlMappingTests {
    @Test func configNamesMapToLibcameraControlsInTheirUnits() {
        let m = LibcameraControlMapping.self
        #expect(m.forConfig("exposure")?.libcameraName == "ExposureTime")
        #expect(m.forConfig("exposure")?.libcameraValue(8_000) == 8_000)
        #expect(m.forConfig("exposure_absolute")?.libcameraValue(157) == 15_700) // V4L2's 100 µs units
        #expect(m.forConfig("gain")?.libcameraName == "AnalogueGain")
        #expect(m.forConfig("gain")?.libcameraValue(400) == 4.0)
        #expect(m.forConfig("brightness")?.libcameraName == "Brightness")
        #expect(m.forConfig("brightness")?.libcameraValue(-50) == -0.5)
        #expect(m.forConfig("focus")?.libcameraName == "LensPosition")
        #expect(m.forConfig("focus_absolute")?.libcameraName == "LensPosition")
        #expect(m.forConfig("focus")?.libcameraValue(250) == 2.5)
        #expect(m.forConfig("power_line_frequency") == nil)
        #expect(m.forConfig("white_balance_auto") == nil)
    }

    @Test func listedValuesMapBothWays() throws {
        let ae = try #require(LibcameraControlMapping.forConfig("exposure_auto"))
        #expect(ae.libcameraName == "AeEnable")
        #expect([1, 2, 3].map(ae.libcameraValue) == [0, 1, 1])
        #expect(ae.libcameraValue(0) == nil)
        #expect(ae.configValue(1) == 3 && ae.configValue(0) == 1)
        let af = try #require(LibcameraControlMapping.forConfig("focus_auto"))
        #expect(af.libcameraName == "AfMode")
        #expect(af.libcameraValue(1) == 2 && af.libcameraValue(0) == 0)
        #expect(af.configValue(2) == 1 && af.configValue(0) == 0)
    }

    @Test func scaledValuesRoundTripAndRangesConvert() throws {
        let gain = try #require(LibcameraControlMapping.forConfig("gain"))
        #expect(gain.configValue(2.345) == 235)
        let setting = gain.setting(LibcameraControlInfo(name: "AnalogueGain", minimum: 1, maximum: 10.666, defaultValue: 1), value: nil)
        #expect(setting == CameraControlSetting(name: "gain", minimum: 100, maximum: 1_067, defaultValue: 100, value: 100))
    }
}

/// The real shim against the real libcamera of this machine: it links, starts a camera
/// manager and answers. On a machine without a camera (this one: no V4L2, no vimc) it lists
/// none, and opening the first camera fails as "not found" with what to check.
@Suite struct LibcameraSystemTests {
    @Test func theRealShimListsCamerasAndOpeningWithoutOneSaysWhatToCheck() throws {
        #expect(SystemLibcamera.version.split(separator: ".").count == 3)
        let cameras = try SystemLibcamera().cameras()
        let cam = LibcameraCamera(settings: LibcameraSettings(id: "", width: 640, height: 480, fps: 30))
        if cameras.isEmpty {
            #expect { try cam.open() } throws: { e in
                let e = e as? HardwareError
                return e?.kind == .notFound && e?.operation == "Camera::acquire" && e?.errno == ENOENT
                    && e?.description.contains("libcamera finds no camera") == true && e?.hint?.contains("rpicam-hello") == true
            }
        } else {
            // A board with a camera: every listed camera has an id and at least one format.
            #expect(cameras.allSatisfy { !$0.id.isEmpty && !$0.formats.isEmpty })
        }
    }
}

@Suite struct LibcameraProbeTests {
    @Test func probeListsEachCameraWithFormatsAndControlsByTheirConfigNames() {
        let fake = FakeLibcamera()
        fake.state.withLock {
            $0.cameras[0].controls = [
                LibcameraControlInfo(name: "AnalogueGain", minimum: 1, maximum: 10.5, defaultValue: 1),
                LibcameraControlInfo(name: "ExposureTime", minimum: 26, maximum: 220_000, defaultValue: 20_000),
                LibcameraControlInfo(name: "ScalerCrop", minimum: 0, maximum: 1, defaultValue: 0),
            ]
        }
        #expect(Probe.libcameraLines(fake, version: "0.0.3") == [
            "libcamera cameras (libcamera 0.0.3):",
            "  /base/soc/i2c0mux/i2c@1/imx708@1a: imx708",
            "    format NV12 64x64-4608x2592",
            "    control AnalogueGain [1..10.5, default 1] (camera.controls.gain)",
            "    control ExposureTime [26..220000, default 20000] (camera.controls.exposure_absolute, camera.controls.exposure)",
            "    control ScalerCrop [0..1, default 0]",
        ])
    }

    @Test func probeWithoutCamerasSaysWhatToCheck() throws {
        let fake = FakeLibcamera()
        fake.state.withLock { $0.cameras = [] }
        let lines = Probe.libcameraLines(fake, version: "0.0.3")
        #expect(lines.count == 1)
        #expect(try #require(lines.first).hasPrefix("libcamera cameras (libcamera 0.0.3): none; is the camera's ribbon cable seated"))
    }
}
