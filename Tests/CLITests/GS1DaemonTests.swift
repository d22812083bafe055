import Foundation
import Testing

/// GS1 codes made by zint (Tests/Fixtures/make-fixtures.sh) read end to end by `scand run` on the
/// simulated camera, its results on standard output: the human-readable form with
/// `output.stdout.gs1 = "hri"`, the AIs as an object in JSON.
@Suite struct GS1DaemonTests {
    static let images = ["gs1-datamatrix.png", "gs1-128.png", "gs1-digital-link.png", "gs1-128-bad-check.png"]

    /// The first line `scand run` writes on stdout for each image (one daemon per image, the
    /// camera showing it, a press every 0.3 s) with `stdout` in `[output.stdout]`.
    func lines(_ stdout: String) async throws -> [String] {
        var lines: [String] = []
        for image in Self.images { lines.append(try await firstLine(image, stdout)) }
        return lines
    }

    func firstLine(_ image: String, _ stdout: String) async throws -> String {
        // A Code 128 is sent at once (not after a confirming press), read across the frame.
        try await StdoutDaemon.firstLine(image, "[scan]\nalphanumeric = \"immediate\"\nviewport = [0.0, 0.0, 1.0, 1.0]\n"
                                             + "[output.stdout]\nenabled = true\n" + stdout, pressEvery: "0.3", folder: "scand-gs1")
    }

    @Test func hriTextForElementStringsAndDigitalLinks() async throws {
        #expect(try await lines("gs1 = \"hri\"\n") == ["(01)09506000134352(17)201231(10)ABC123(21)XYZ", "(01)09506000134352(3103)001250(15)261200(10)LOT7",
                                                       "(01)09506000134352(10)ABC(17)201231", "(01)09506000134353(17)261231"])
    }

    @Test func rawTextByDefault() async throws {
        #expect(try await lines("") == ["01095060001343521720123110ABC123\\x1D21XYZ", "010950600013435231030012501526120010LOT7",
                                        "https://id.gs1.org/01/09506000134352/10/ABC?17=201231", "010950600013435317261231"])
    }

    @Test func jsonCarriesTheAIsInOrderAndWhatIsWrong() async throws {
        let gs1 = [#""gs1":{"01":"09506000134352","17":"201231","10":"ABC123","21":"XYZ"}}"#,
                   #""gs1":{"01":"09506000134352","3103":"001250","15":"261200","10":"LOT7"}}"#,
                   #""gs1":{"01":"09506000134352","10":"ABC","17":"201231"}}"#,
                   #""gs1":{"01":"09506000134353","17":"261231"},"gs1Errors":["(01) 09506000134353: check digit 3 is wrong, 2 expected: a misprinted or misread code"]}"#]
        let lines = try await lines("format = \"json\"\n")
        for (line, ais) in zip(lines, gs1) {
            #expect(line.hasSuffix(ais), "\(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(object["gs1"] is [String: String], "\(line)")
        }
        #expect(lines[0].contains(#""aim":"]d2""#) && lines[0].contains(#""payload":{"type":"gs1","gtin":"09506000134352","expiry":"2020-12-31","lot":"ABC123","serial":"XYZ"}"#))
        #expect(lines[2].contains(#""payload":{"type":"url","#), "a Digital Link's payload stays a URL")
    }

    @Test func checkConfigRefusesABadValueAndNamesTheKey() throws {
        let dir = try Fixture.temporaryFolder("scand-gs1-check")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("scand.toml")
        try "hardware = \"simulated\"\n[camera]\nimages = [\"\(Fixture.path("gs1-128.png"))\"]\n[output.stdout]\nenabled = true\ngs1 = \"hri\"\n[output.serial]\ngs1 = \"(01)\"\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let bad = try Run.scand(["check-config", file.path])
        #expect(bad.status != 0 && bad.stderr.contains("\(file.path):8: output.serial.gs1: \"(01)\" is not allowed; use one of: raw, hri"), "\(bad.stdout)\(bad.stderr)")
        let good = try Run.scand(["check-config", file.path, "--set", "output.serial.gs1=raw"])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
    }
}
