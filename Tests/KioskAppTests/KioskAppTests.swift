import Foundation
import Logging
import ScanApp
import ScanCore
import ServiceLifecycle
import Testing

/// The kiosk as `scand run` composes it, driven through its simulated button and observed
/// through its events: what these tests run is what ships.
@Suite struct KioskAppTests {
    /// A press reads the camera's code through the composed kiosk, and a graceful shutdown ends
    /// the group without an error, torch, buzzer and status LED off, nothing logged as an error.
    @Test func aPressIsReadAndAGracefulStopIsClean() async throws {
        let kiosk = try ComposedKiosk("[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\n[scan]\nalphanumeric = \"immediate\"\n")
        try await kiosk.start()
        kiosk.app.simulatedButton?.click()
        let result = try await kiosk.event(containing: "\"result\"")
        #expect(result.contains("https://example.org/kiosk?id=42"))
        let ended = try await kiosk.stop()
        if case .failure(let error) = ended { Issue.record("the group ended with \(error)") }
        #expect(kiosk.logged(atLeast: .error) == [])
        let trace = try #require(kiosk.app.simulatedTrace)
        for line in ["torch", "buzzer", "status_led"] {
            #expect(trace.of(line).last == "inactive", "\(line): \(trace.of(line).suffix(3))")
        }
        #expect(await kiosk.app.runtime.status.phase == "stopped")
    }

    /// Issue 39, defect 1: with `scan.multiple = 4` a frame with a DataMatrix between two QR
    /// codes gave one QR per press (the composition built the decoder to stop at the first
    /// code). Now each press reports the three codes of the frame, nearest the centre first.
    @Test func scanMultipleReportsEveryCodeOfTheFrameNearestTheCentreFirst() async throws {
        let kiosk = try ComposedKiosk("[camera]\nimages = [\"\(Fixture.path("three-codes.png"))\"]\n[scan]\nviewport = [0.0, 0.0, 1.0, 1.0]\n"
            + "alphanumeric = \"immediate\"\nmultiple = 4\n")
        try await kiosk.start()
        kiosk.app.simulatedButton?.click()
        var texts: [String] = [], sequences: [Double] = []
        for _ in 0..<3 {
            let result = try JSONValue.parse(Array(try await kiosk.event(containing: "\"result\"").utf8))
            texts.append(try #require(result["text"]?.string))
            sequences.append(try #require(result["seq"]?.number))
        }
        #expect(sequences == [1, 2, 3])
        // The DataMatrix in the middle, then the QR code 251 px right of the centre, then the
        // one 281 px left of it.
        #expect(texts == ["scand DataMatrix fixture", "scand second QR", "https://example.org/kiosk?id=42"])
        _ = try await kiosk.stop()
    }
}
