import Delivery
import InMemoryLogging
import Logging
import ScanCore
import Testing

/// The read's log line carries what was read: an EAN/UPC add-on too.
@Suite struct LogOutputTests {
    @Test func anAddOnIsInTheReadsLogLine() throws {
        let logs = InMemoryLogHandler()
        let output = LogOutput(logger: Logger(label: "test") { _ in logs })
        var book = Symbol(symbology: .ean13, text: "9780306406157")
        book.addOn = "52495"
        try output.deliver(ScanResult(sequence: 7, session: 1, symbol: book), unixMillis: 0)
        try output.deliver(ScanResult(sequence: 8, session: 1, symbol: Symbol(symbology: .ean13, text: "4006381333931")), unixMillis: 0)
        let entries = logs.entries
        #expect(entries.count == 2)
        #expect(entries.first?.message.description == "read EAN-13: 9780306406157")
        #expect(entries.first?.metadata["addon"]?.description == "52495")
        #expect(entries.last?.metadata["addon"] == nil)
    }
}
