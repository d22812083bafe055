import Foundation
import Testing

/// EAN-2/EAN-5 add-ons read end to end by `scand run` on the simulated camera, its results on
/// standard output: a book's price beside its ISBN, sent after the main code with the
/// configured separator and as its own JSON field with the price classified; a lone add-on
/// printed near a code that is not its own is never sent with it.
@Suite struct AddOnDaemonTests {
    /// The first line `scand run` writes on stdout with the camera showing `image` (a press
    /// every 5 s: a press in a session ends it, and the add-on's looks take a debug build on
    /// a busy machine far longer than the GS1 tests' 0.3 s), with `settings` in the config.
    func firstLine(_ image: String, _ settings: String) async throws -> String {
        try await StdoutDaemon.firstLine(image, "[scan]\nviewport = [0.0, 0.0, 1.0, 1.0]\n" + settings, pressEvery: "5", folder: "scand-addon")
    }

    @Test func aBooksPriceIsSentAfterItsISBN() async throws {
        let read = "[symbology]\naddon_separator = \" \"\n[symbology.ean13]\naddon = \"read\"\n"
        #expect(try await firstLine("isbn-price.png", read + "[output.stdout]\nenabled = true\n") == "9780306406157 52495")
        let json = try await firstLine("isbn-price.png", read + "[output.stdout]\nenabled = true\nformat = \"json\"\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        #expect(object["text"] as? String == "9780306406157" && object["addon"] as? String == "52495" && object["aim"] as? String == "]E3", "\(json)")
        let payload = try #require(object["payload"] as? [String: Any], "\(json)")
        #expect(payload["currency"] as? String == "USD" && payload["price"] as? String == "24.95", "\(json)")
        // Ignored by default: the main code alone.
        #expect(try await firstLine("isbn-price.png", "[output.stdout]\nenabled = true\n") == "9780306406157")
    }

    @Test func aLoneAddOnNearACodeIsNotSentWithIt() async throws {
        let read = "[symbology.upca]\naddon = \"read\"\n[output.stdout]\nenabled = true\n"
        #expect(try await firstLine("upca-lone-ean2-90-below.png", read) == "725272730706")
        let price = "[symbology.ean13]\naddon = \"read\"\n[output.stdout]\nenabled = true\n"
        #expect(try await firstLine("isbn-lone-ean5-past-price.png", price) == "978030640615752495")
    }
}
