import Foundation
import Testing

/// Issue 41, as a person meets it: `scand check-config` refuses a `web.listen` host the setup
/// page could not bind as written (before: accepted, then a misleading errno at start) and a
/// configuration that reads no symbology (before: accepted, then the kiosk read nothing).
@Suite struct CheckConfigRulesTests {
    func check(_ text: String) throws -> Run {
        let dir = try Fixture.temporaryFolder("scand-check")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("scand.toml")
        try ("hardware = \"simulated\"\n[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\n" + text).write(to: file, atomically: true, encoding: .utf8)
        return try Run.scand(["check-config", file.path])
    }

    @Test func listenHostsTheServerCannotTakeAsWrittenAreRefused() throws {
        for host in ["127.1", "LOCALHOST.", "0x7f.0.0.1", "kiosk.local", "::1"] {
            let run = try check("[web]\nlisten = \"\(host):8080\"\n")
            #expect(run.status == 1, "\(host): \(run.stdout)")
            #expect(run.stderr.contains("scand.toml:5: web.listen: \"\(host):8080\" is not a listen address: host \"\(host)\" is not allowed: use host:port with a numeric IPv4 address of four parts (e.g. 127.0.0.1:8080), an IPv6 address in brackets (e.g. [::1]:8080) or localhost"),
                    "\(run.stderr)")
        }
        // LOCALHOST is localhost: taken.
        let upper = try check("[web]\nlisten = \"LOCALHOST:8080\"\n")
        #expect(upper.status == 0, "\(upper.stderr)")
    }

    /// The simulated camera's images are loaded as `scand run` would load them: a missing or
    /// broken one, or a folder without images, is refused in one line naming it, every one of
    /// them (before: "ok", then `run` refused it); the ones that load are listed with their sizes.
    @Test func simulatedImagesThatCannotBeLoadedAreRefused() throws {
        let dir = try Fixture.temporaryFolder("scand-check-images")
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.png"), empty = dir.appendingPathComponent("empty")
        try "not an image".write(to: broken, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("scand.toml")
        func check(_ images: [String]) throws -> Run {
            let list = images.map { "\"\($0)\"" }.joined(separator: ", ")
            try "hardware = \"simulated\"\n[camera]\nimages = [\(list)]\n".write(to: file, atomically: true, encoding: .utf8)
            return try Run.scand(["check-config", file.path])
        }
        let qr = Fixture.path("qr.png"), glare = Fixture.path("upca-glare.png")
        for (images, named) in [([qr, dir.path + "/missing.png"], dir.path + "/missing.png"), ([broken.path], broken.path), ([empty.path], empty.path)] {
            let run = try check(images)
            #expect(run.status == 1 && run.stdout.isEmpty, "\(images): \(run.stdout)")
            let lines = run.stderr.split(separator: "\n")
            // With the line that lists the images, as the loader's problems.
            #expect(lines.count == 1 && lines[0].hasPrefix("\(file.path):3: camera.images: \(named)"), "\(run.stderr)")
        }
        // Every problem, one line each.
        let all = try check([dir.path + "/missing.png", broken.path, empty.path, qr])
        #expect(all.status == 1 && all.stderr.split(separator: "\n").count == 3, "\(all.stderr)")
        // A list over several lines: each problem names its entry's line (before: the line of `images = [`).
        try "hardware = \"simulated\"\n[camera]\nimages = [\n  \"\(qr)\",\n  # a comment\n  \"\(dir.path)/missing.png\",\n  \"\(empty.path)\"]\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let listed = try Run.scand(["check-config", file.path]).stderr.split(separator: "\n")
        #expect(listed.count == 2 && listed[0].hasPrefix("\(file.path):6: camera.images: \(dir.path)/missing.png")
                && listed[1].hasPrefix("\(file.path):7: camera.images: \(empty.path)"), "\(listed)")
        // With the file's other problems: all of them, the images' too.
        try "hardware = \"simulated\"\nbogus = 1\n[camera]\nimages = [\"\(dir.path)/missing.png\"]\n".write(to: file, atomically: true, encoding: .utf8)
        let more = try Run.scand(["check-config", file.path])
        #expect(more.status == 1 && more.stderr.contains("bogus") && more.stderr.contains("\(file.path):4: camera.images: \(dir.path)/missing.png"), "\(more.stderr)")
        // Images given by --set are named as --set's other problems are.
        let set = try Run.scand(["check-config", file.path, "--set", "camera.images=[\"\(dir.path)/gone.png\"]"])
        #expect(set.stderr.contains("--set: camera.images: \(dir.path)/gone.png"), "\(set.stderr)")
        let good = try check([qr, glare])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("camera 2 images: \(qr) ("), "\(good.stdout)")
        #expect(good.stdout.contains("\(glare) (380x240)"), "\(good.stdout)")
    }

    @Test func aConfigurationThatReadsNoSymbologyIsRefused() throws {
        let run = try check("[scan]\nsymbologies = [\"qr\", \"ean13\"]\n[symbology.qr]\nenabled = false\n[symbology.EAN-13]\nenabled = false\n")
        #expect(run.status == 1)
        #expect(run.stderr.contains("symbology.qr.enabled: no symbology is left to read: scan.symbologies, symbology.EAN-13.enabled, symbology.qr.enabled leave none on; enable at least one"),
                "\(run.stderr)")
    }
}
