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

    @Test func aConfigurationThatReadsNoSymbologyIsRefused() throws {
        let run = try check("[scan]\nsymbologies = [\"qr\", \"ean13\"]\n[symbology.qr]\nenabled = false\n[symbology.EAN-13]\nenabled = false\n")
        #expect(run.status == 1)
        #expect(run.stderr.contains("symbology.qr.enabled: no symbology is left to read: scan.symbologies, symbology.EAN-13.enabled, symbology.qr.enabled leave none on; enable at least one"),
                "\(run.stderr)")
    }
}
