import Foundation
import ScanConfig
import ScanCore
import Testing

/// Issue 41: `web.listen` parsed once by the rules the server binds by, and a configuration that
/// reads no symbology refused however it is spelled.
@Suite struct ListenAndSymbologyTests {
    func parse(_ text: String) throws(ConfigErrors) -> ScandConfig {
        try ConfigLoader.parse(text, file: "test.toml", overrides: [], boardsDirectory: ConfigLoaderTests.boards)
    }

    func errors(_ text: String) -> [String] {
        do { _ = try parse(text); return [] } catch { return error.errors.map(\.description) }
    }

    func listen(_ value: String) throws -> ListenAddress? {
        try parse("[web]\nlisten = \"\(value)\"\ntoken = \"0123456789abcdef\"").webListen
    }

    @Test func listenHostsAreCanonical() throws {
        #expect(try listen("127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try listen("0.0.0.0:80") == ListenAddress(host: "0.0.0.0", port: 80))
        #expect(try listen("255.255.255.255:65535") == ListenAddress(host: "255.255.255.255", port: 65535))
        // localhost in any case is handed to the server as `localhost`.
        #expect(try listen("LOCALHOST:8080") == ListenAddress(host: "localhost", port: 8080))
        #expect(try listen("LocalHost:8080")?.isLoopback == true)
        // IPv6 in brackets, kept in its short form (so that the loopback test sees `::1`).
        #expect(try listen("[::1]:8080") == ListenAddress(host: "::1", port: 8080))
        #expect(try listen("[0:0:0:0:0:0:0:1]:8080") == ListenAddress(host: "::1", port: 8080))
        #expect(try listen("[0:0:0:0:0:0:0:1]:8080")?.isLoopback == true)
        #expect(try listen("[::]:8080") == ListenAddress(host: "::", port: 8080))
        #expect(try listen("[::FFFF:127.0.0.1]:8080") == ListenAddress(host: "::ffff:127.0.0.1", port: 8080))
    }

    @Test func listenHostsOutsideTheRulesAreRefusedSayingWhatIsAllowed() {
        let allowed = "use host:port with a numeric IPv4 address of four parts (e.g. 127.0.0.1:8080), an IPv6 address in brackets (e.g. [::1]:8080) or localhost"
        for bad in ["127.1", "LOCALHOST.", "127.0.0.01", "256.0.0.1", "1.2.3.4.5", "0x7f.0.0.1", "127.0.0.1 ", "kiosk.local", "example.org",
                    "::1", "[::1", "::1]", "[fe80::1%eth0]", "[]", "[127.0.0.1]", "", "-1.2.3.4", "1.2.3.-4"] {
            let found = errors("[web]\nlisten = \"\(bad):8080\"")
            #expect(found.count == 1 && found[0].contains("test.toml:2: web.listen:") && found[0].contains("is not a listen address: host")
                    && found[0].contains(allowed), "\(bad): \(found)")
        }
        for (bad, why) in [("127.0.0.1:0", "port \"0\" is not a number from 1 to 65535"), ("127.0.0.1:65536", "port \"65536\""),
                           ("127.0.0.1:+80", "port \"+80\""), ("127.0.0.1:0080000", "port \"0080000\""), ("127.0.0.1", "no port")] {
            #expect(errors("[web]\nlisten = \"\(bad)\"").contains { $0.contains(why) }, "\(bad)")
        }
        // A control character is never echoed.
        #expect(errors("[web]\nlisten = \"127.0.0.1\\u0007:80\"").allSatisfy { !$0.contains("\u{7}") })
        // The same rules outside the config (the web helper's server gets `host` as it is).
        #expect(ListenAddress("127.1:8080") == nil && ListenAddress("LOCALHOST:8080")?.host == "localhost")
    }

    @Test func everySymbologyTurnedOffIsRefusedNamingTheKeys() {
        // Every symbology disabled one by one.
        let allOff = Symbology.allCases.map { "[symbology.\"\($0.rawValue)\"]\nenabled = false" }.joined(separator: "\n")
        let found = errors(allOff)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("no symbology is left to read: symbology.") == true, "\(found)")
        #expect(found.first?.contains("symbology.QR-Code.enabled") == true && found.first?.contains("symbology.EAN-13.enabled") == true)
        // A list of one, turned off in its table; spelled another way.
        let one = errors("[scan]\nsymbologies = [\"qr\"]\n[symbology.qr]\nenabled = false")
        #expect(one.count == 1 && one[0].contains("test.toml:4: symbology.qr.enabled: no symbology is left to read: scan.symbologies, symbology.qr.enabled leave none on"),
                "\(one)")
        // An empty list.
        #expect(errors("[scan]\nsymbologies = []").contains { $0.contains("scan.symbologies: enable at least one symbology") })
        // Through a --set override too.
        do {
            _ = try ConfigLoader.parse("[scan]\nsymbologies = [\"ean13\"]", file: "test.toml", overrides: ["symbology.ean13.enabled=false"],
                                       boardsDirectory: ConfigLoaderTests.boards)
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("no symbology is left to read"), "\(error)")
        }
        // One left on is fine.
        let kept = Symbology.allCases.dropFirst().map { "[symbology.\"\($0.rawValue)\"]\nenabled = false" }.joined(separator: "\n")
        #expect((try? parse(kept))?.symbologies == [Symbology.allCases[0]])
    }
}
