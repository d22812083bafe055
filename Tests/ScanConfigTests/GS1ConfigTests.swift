import ScanConfig
import ScanCore
import Testing

/// `output.<name>.gs1`: raw by default, "hri" for the text outputs, errors naming the key.
@Suite struct GS1ConfigTests {
    func parse(_ text: String) throws(ConfigErrors) -> ScandConfig {
        try ConfigLoader.parse(text, file: "test.toml", overrides: [], boardsDirectory: ConfigLoaderTests.boards)
    }

    func errors(_ text: String) -> [String] {
        do { _ = try parse(text); return [] } catch { return error.errors.map(\.description) }
    }

    @Test func rawByDefaultAndHRIPerTextOutput() throws {
        let defaults = try parse("")
        #expect(defaults.serial.gs1 == .raw && defaults.stdout.gs1 == .raw && defaults.hid.gs1 == .raw)
        let c = try parse("[output.serial]\ngs1 = \"hri\"\n[output.stdout]\nenabled = true\ngs1 = \"hri\"\n[output.hid]\ngs1 = \"hri\"\n")
        #expect(c.serial.gs1 == .hri && c.stdout.gs1 == .hri && c.hid.gs1 == .hri)
    }

    @Test func aBadValueOrHRIWithJSONIsNamed() {
        #expect(errors("[output.serial]\ngs1 = \"human\"\n") == ["test.toml:2: output.serial.gs1: \"human\" is not allowed; use one of: raw, hri"])
        #expect(errors("[output.stdout]\ngs1 = true\n") == ["test.toml:2: output.stdout.gs1: must be one of: raw, hri"])
        #expect(errors("[output.stdout]\nformat = \"json\"\ngs1 = \"hri\"\n")
            == ["test.toml:3: output.stdout.gs1: \"hri\" is for format = \"text\": JSON carries the AIs in its \"gs1\" object; leave gs1 out or use \"raw\""])
        #expect(errors("[output.stdout]\nformat = \"json\"\ngs1 = \"raw\"\n").isEmpty)
    }
}
