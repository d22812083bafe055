import Foundation
import Testing

/// Issue 43's press-to-focus as a person meets it, against the built `scand` on simulated
/// hardware (a camera with autofocus): the log says how the lens focuses, a TRIGGER starts one
/// autofocus cycle, `scand status` counts it; `check-config` names the focus and refuses a lens
/// position out of range.
@Suite(.serialized) struct FocusDaemonTests {
    @Test func aPressStartsAnAutofocusCycleThatScandStatusShows() async throws {
        let daemon = try SetupPageTests.Daemon(web: false, statusFile: false)
        #expect(await daemon.logged("control socket on"), "\(daemon.logText)")
        #expect(await daemon.logged("camera focus: one autofocus cycle per press"), "\(daemon.logText)")
        let socket = daemon.dir.appendingPathComponent("control.sock").path
        let config = daemon.dir.appendingPathComponent("scand.toml").path
        #expect(await Poll.until(10) { (try? ControlSocket.get(socket, "/api/status"))?.status == 200 }, "\(daemon.logText)")
        let before = try Run.scand(["status", "--config", config])
        #expect(before.stdout.contains("focus: auto-on-press\nautofocusCycles: 0\n"), "\(before.stdout)")

        let answer = try ControlSocket.command(socket, "TRIGGER")
        #expect(answer.status == 200, "\(answer)")
        var status = try Run.scand(["status", "--config", config, "--json"])
        #expect(await Poll.until(10) {
            status = (try? Run.scand(["status", "--config", config, "--json"])) ?? status
            return status.stdout.contains("\"autofocusCycles\":1")
        }, "\(status.stdout)\n\(daemon.logText)")
        let text = try Run.scand(["status", "--config", config])
        #expect(text.stdout.contains("focus: auto-on-press\nautofocusCycles: 1\n"), "\(text.stdout)")
        #expect(!daemon.logText.contains("has no effect"), "\(daemon.logText)")

        // A SET reaches the open camera at once: the lens held at 50 cm, no cycle on a press.
        #expect(try ControlSocket.command(socket, "SET camera.lens_position=2").status == 200)
        let set = try ControlSocket.command(socket, "SET camera.focus=\"fixed\"")
        #expect(set.status == 200, "\(set)")
        #expect(await daemon.logged("camera focus: lens fixed at 2 dioptres (50 cm)"), "\(daemon.logText)")
        #expect(try Run.scand(["status", "--config", config]).stdout.contains("focus: fixed at 2 dioptres (50 cm)\n"))
        // A key SET never takes is named as such, not as a clash with this run's focus SET.
        let raw = try ControlSocket.command(socket, "SET camera.controls.focus_auto=off")
        #expect(raw.text.contains("camera.controls.focus_auto is not set while running"), "\(raw.text)")
        // A value no number can be is named as written.
        let nan = try ControlSocket.command(socket, "SET camera.lens_position=nan")
        #expect(nan.text.contains("nan is not a finite number"), "\(nan.text)")
    }

    @Test func checkConfigNamesTheFocusAndRefusesALensPositionOutOfRange() throws {
        let base = "hardware = \"simulated\"\n[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\n"
        let dir = try Fixture.temporaryFolder("scand-focus-check")
        defer { try? FileManager.default.removeItem(at: dir) }
        func check(_ text: String) throws -> Run {
            let file = dir.appendingPathComponent("scand.toml")
            try (base + text).write(to: file, atomically: true, encoding: .utf8)
            return try Run.scand(["check-config", file.path])
        }
        let standard = try check("")
        #expect(standard.status == 0 && standard.stdout.contains("  focus auto-on-press: one autofocus cycle per press, after the torch (a camera without autofocus ignores it)\n"),
                "\(standard.stdout)")
        let presentation = try check("[scan]\ntrigger = \"presentation\"\n")
        #expect(presentation.stdout.contains("  focus auto-on-press: continuous autofocus (scan.trigger = presentation has no press)"), "\(presentation.stdout)")
        let fixed = try check("focus = \"fixed\"\nlens_position = 2\n")
        #expect(fixed.status == 0 && fixed.stdout.contains("  focus fixed: lens fixed at 2 dioptres (50 cm) (a camera without a lens position control ignores it)\n"),
                "\(fixed.stdout)")
        let far = try check("focus = \"fixed\"\nlens_position = 40.5\n")
        #expect(far.status == 1)
        #expect(far.stderr.contains("scand.toml:5: camera.lens_position: 40.5 is out of range; allowed: 0 to 32 dioptres (1 / metres: 0 is infinity, 2 is 50 cm, 10 is 10 cm)"),
                "\(far.stderr)")
        let unknown = try check("focus = \"macro\"\n")
        #expect(unknown.status == 1 && unknown.stderr.contains("scand.toml:4: camera.focus: \"macro\" is not allowed; use one of: auto-on-press, continuous, fixed"),
                "\(unknown.stderr)")
        let both = try check("focus = \"continuous\"\n[camera.controls]\nfocus_absolute = 30\n")
        #expect(both.status == 1 && both.stderr.contains("camera.focus: camera.controls.focus_absolute sets the lens already"), "\(both.stderr)")
        let raw = try check("[camera.controls]\nfocus_auto = 0\n")
        #expect(raw.status == 0 && raw.stdout.contains("  focus set by camera.controls (focus_auto, focus_absolute)\n"), "\(raw.stdout)")
    }
}
