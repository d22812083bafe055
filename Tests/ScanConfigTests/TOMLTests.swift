import Foundation
import ScanConfig
import Testing

/// The parser's bounds and errors, and the config file rules built on it.
@Suite struct TOMLTests {
    func error(_ text: String, limits: TOMLLimits = TOMLLimits()) -> TOMLError? {
        do { _ = try TOML.parse(Array(text.utf8), limits: limits); return nil } catch { return error }
    }

    @Test func errorsCarryLineAndColumn() {
        #expect(error("a = 1\nb = [1,}\n")?.description == "2:8: expected a value (a string, number, true/false, date, array or inline table), found '}'")
        #expect(error("a = \"é\u{1}\"") == TOMLError(line: 1, column: 7, message: "control character U+0001 in a string; write it as an escape"))
        #expect(error("[a]\n[a]")?.message == "table [a] is defined twice")
        #expect(error("a = 9223372036854775808")?.message == "integer out of range (a 64-bit signed integer)")
    }

    @Test func boundsAreErrorsNotCrashes() {
        var limits = TOMLLimits()
        limits.maxBytes = 100
        #expect(error(String(repeating: "#", count: 101), limits: limits)?.message.hasPrefix("document is 101 bytes") == true)
        #expect(error("a = " + String(repeating: "[", count: 100_000))?.message == "arrays and inline tables nested more than 32 deep")
        #expect(error("a = " + String(repeating: "{b=", count: 100))?.message == "arrays and inline tables nested more than 32 deep")
        #expect(error("[" + Array(repeating: "a", count: 40).joined(separator: ".") + "]")?.message == "key has more than 32 parts")
        #expect(error("a = \"" + String(repeating: "x", count: 70_000) + "\"")?.message == "string longer than 65536 bytes")
        #expect(error("a = 1\u{0}b = 2")?.message.contains("U+0000") == true)
        #expect(error("a = \"\u{FF}\"") == nil) // U+00FF as UTF-8 is fine
        do { _ = try TOML.parse([97, 32, 61, 32, 34, 0xFF, 34]); Issue.record("invalid UTF-8 accepted") } catch {
            #expect(error == TOMLError(line: 1, column: 6, message: "not valid UTF-8"))
        }
    }

    @Test func valuesParseOnTheirOwn() throws {
        #expect(try TOML.parseValue("[0.1, 0.1, 0.8, 0.8]") == .array([.double(0.1), .double(0.1), .double(0.8), .double(0.8)]))
        #expect(try TOML.parseValue(" true ") == .bool(true))
        #expect(throws: TOMLError.self) { try TOML.parseValue("[0.1,0.1,0.8,}") }
        #expect(throws: TOMLError.self) { try TOML.parseValue("1 2") }
    }

    @Test func keysRecordTheirLines() throws {
        let doc = try TOML.parse(Array("a = 1\n[b.c]\nd.e = 2\n[[f]]\ng = 3\n".utf8))
        #expect(doc.lines == ["a": 1, "b.c": 2, "b.c.d.e": 3, "f": 4, "f.g": 5])
    }
}

/// Config files are regular files of bounded size; overrides are one value each.
@Suite struct ConfigFileTests {
    func tempFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString).toml").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func problems(_ path: String, overrides: [String] = []) -> [String] {
        do { _ = try ConfigLoader.load(path: path, overrides: overrides); return [] } catch { return error.errors.map(\.description) }
    }

    @Test func aNulByteIsAnErrorNotTheEnd() throws {
        let path = try tempFile(Array("hardware = \"simulated\"\u{0}\nlog_level = \"loud\"\n".utf8))
        defer { unlink(path) }
        #expect(problems(path) == ["\(path):1:23: expected the end of the line after a statement, found U+0000"])
    }

    @Test func onlyRegularFilesAreRead() throws {
        #expect(problems("/tmp") == ["/tmp: is a directory, not a config file"])
        #expect(problems("/dev/zero") == ["/dev/zero: is a device, not a config file"])
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(getpid())").path
        mkfifo(fifo, 0o600)
        defer { unlink(fifo) }
        #expect(problems(fifo) == ["\(fifo): is a FIFO, not a config file"]) // and it did not block
        let big = try tempFile([UInt8](repeating: 35, count: ConfigLoader.maxFileBytes + 1))
        defer { unlink(big) }
        #expect(problems(big).first?.hasSuffix("at most 1048576 are read") == true)
    }

    @Test func controlCharactersFromTheFileAreShownEscaped() throws {
        let path = try tempFile(Array("log_level = \"\\u001B[31mred\"\n".utf8))
        defer { unlink(path) }
        let text = problems(path).joined()
        #expect(!text.contains("\u{1B}") && text.contains("\\x1B[31mred"))
    }

    @Test func overridesAreCheckedValues() throws {
        #expect(try Override("scan.viewport=[0.1, 0.1, 0.8, 0.8]").value == .array([.double(0.1), .double(0.1), .double(0.8), .double(0.8)]))
        #expect(try Override("output.serial.device=/dev/pts/3").value == .string("/dev/pts/3"))
        #expect(try Override("outbox.directory=").value == .string(""))
        for (item, message) in [(".={}", "not a key"), ("scan..x=1", "not a key"), ("=1", "name a key"), ("novalue", "is not key=value")] {
            do { _ = try Override(item); Issue.record("\(item) accepted") } catch { #expect(error.message.contains(message), "\(item): \(error)") }
        }
        // Text that starts like TOML but is not: kept as text with the parser's reason, for the
        // reader to use when the key is not a string.
        for (item, message) in [("x=[}", "is not valid TOML"), ("scan.viewport=[0.1,0.1,0.8,}", "is not valid TOML: column 14")] {
            let o = try Override(item)
            #expect(o.problem?.contains(message) == true, "\(item): \(o)")
        }
    }

    /// A string key takes bare text in `--set` whatever it looks like (`web.listen=0.0.0.0:8080`
    /// is not TOML); another key refuses it with the parser's reason; errors of a `--set` value
    /// name `--set`, not a line of the file.
    @Test func aStringKeyTakesBareTextAndSetErrorsNameSet() throws {
        let file = """
            hardware = "simulated"
            [camera]
            images = ["a.png"]
            [scan]
            session_timeout_ms = 5000
            """
        let c = try ConfigLoader.parse(file, file: "k.toml", overrides: ["web.listen=127.0.0.1:8080", "camera.device=0"], boardsDirectory: "/nonexistent")
        #expect(c.webListen?.description == "127.0.0.1:8080" && c.camera.device == "0", "\(String(describing: c.webListen)) \(c.camera.device)")
        do {
            _ = try ConfigLoader.parse(file, file: "k.toml", overrides: ["scan.session_timeout_ms=1", "scan.viewport=[0.1,0.1,0.8,}", "scan.viewport=hello"],
                                       boardsDirectory: "/nonexistent")
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description) == [
                "--set: scan.viewport: must be [x, y, width, height]",
                "--set: scan.session_timeout_ms: 1 is out of range; allowed: 500 to 600000",
            ], "\(error)")
        }
        do {
            _ = try ConfigLoader.parse(file, file: "k.toml", overrides: ["scan.viewport=[0.1,0.1,0.8,}"], boardsDirectory: "/nonexistent")
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description) == ["--set: scan.viewport: the value [0.1,0.1,0.8,} is not valid TOML: column 14: expected a value "
                                                  + "(a string, number, true/false, date, array or inline table), found '}'"], "\(error)")
        }
    }

    @Test func aLaterOverrideReplacesAnEarlierOne() throws {
        let path = try tempFile(Array("hardware = \"simulated\"\n[camera]\nimages = [\"x\"]\n".utf8))
        defer { unlink(path) }
        let c = try ConfigLoader.load(path: path, overrides: ["scan.session_timeout_ms=1000", "scan.session_timeout_ms=2000"])
        #expect(c.kiosk.sessionTimeout == .milliseconds(2000))
    }
}
