import KioskTestKit
import ScanCore
import ScanRuntime
import TestThreads
import Testing

/// The decode statistics of the kiosk a config composes (as `scand run`), in virtual time: a
/// read through the simulated camera and the decoder lands in its symbology and bin, a session
/// that times out is a no-read, a reload keeps the counts, and the status and the metrics show
/// the same counts.
@Suite(.onTestThreads) struct DecodeStatisticsCompositionTests {
    typealias Histogram = DecodeStatistics.Histogram

    @Test func aReadShowsInTheStatusAndTheMetricsAndSurvivesAReload() throws {
        let c = try VirtualCompositionTests.Composed("[camera]\nimages = [\"\(Fixture.path("qr.png"))\"]\nfps = 10\n"
            + "[scan]\nalphanumeric = \"immediate\"\n")
        c.kiosk.start()
        c.kiosk.advance(.milliseconds(10))
        c.kiosk.click()
        c.kiosk.advance(.milliseconds(300))
        #expect(c.results().count == 1, "\(c.results())")
        let status = c.kiosk.driver.status
        guard let qr = status.decoding.reads[.qrCode] else { Issue.record("no QR read counted: \(status.json)"); return }
        // The read came with a frame of the 10 fps camera after the press: within its period.
        #expect(qr.count == 1 && qr.sum > .zero && qr.sum <= .milliseconds(100), "\(status.json)")
        let bin = Histogram.bounds.firstIndex { qr.sum <= $0 } ?? Histogram.bounds.count
        #expect(qr.bins[bin] == 1 && qr.medianBin == bin)
        #expect(status.metrics.goodReads == 1 && status.decoding.noReads.count == 0 && status.decoding.symbologies == [.qrCode])

        // The same config again (a reload, as SIGHUP): the counts stay.
        c.kiosk.driver.reload(c.kiosk.driver.tuning, now: c.kiosk.now)
        #expect(c.kiosk.driver.status.decoding == status.decoding)

        let json = status.json
        #expect(json.contains("\"decoding\":{\"binsMs\":[75,110,170,300,600,1000,1500],\"symbologies\":{\"QR-Code\":{\"reads\":1,\"refused\":0,"
            + "\"bins\":[\(qr.bins.map(String.init).joined(separator: ","))],"), "\(json)")
        let metrics = MetricsFile.render(status)
        #expect(metrics.contains("# TYPE scand_decode_time_seconds histogram\n"))
        for (i, bound) in Histogram.boundsMs.enumerated() {
            let line = "scand_decode_time_seconds_bucket{symbology=\"QR-Code\",le=\"\(Double(bound) / 1000)\"} \(i >= bin ? 1 : 0)\n"
            #expect(metrics.contains(line), "\(line) in \(metrics)")
        }
        #expect(metrics.contains("scand_decode_time_seconds_bucket{symbology=\"QR-Code\",le=\"+Inf\"} 1\n"))
        #expect(metrics.contains("scand_decode_time_seconds_count{symbology=\"QR-Code\"} 1\n"))
        #expect(metrics.contains("scand_rejected_by_symbology_total{symbology=\"QR-Code\"} 0\n"))
    }

    /// With no code in view the session ends at its 2 s timeout: a no-read of exactly 2 s, in
    /// the bin over 1500 ms.
    @Test func aTimeoutIsANoReadOfTheSessionsLength() throws {
        let c = try VirtualCompositionTests.Composed("[camera]\nimages = [\"\(Fixture.path("no-code.png"))\"]\n[scan]\nsession_timeout_ms = 2000\n")
        c.kiosk.start()
        c.kiosk.click()
        c.kiosk.advance(.milliseconds(2000))
        let status = c.kiosk.driver.status
        #expect(status.metrics.closedWithoutScan == 1)
        #expect(status.decoding.noReads.bins == [0, 0, 0, 0, 0, 0, 0, 1] && status.decoding.noReads.sum == .seconds(2))
        #expect(status.decoding.reads.isEmpty)
        let metrics = MetricsFile.render(status)
        #expect(metrics.contains("scand_no_read_seconds_bucket{le=\"1.5\"} 0\nscand_no_read_seconds_bucket{le=\"+Inf\"} 1\n"
            + "scand_no_read_seconds_sum 2.0\nscand_no_read_seconds_count 1\n"), "\(metrics)")
    }
}
