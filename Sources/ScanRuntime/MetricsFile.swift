import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk's metrics in the Prometheus text exposition format, for node_exporter's textfile
/// collector (write to its directory, e.g. /var/lib/node_exporter/textfile_collector/scand.prom).
public enum MetricsFile {
    public static func render(_ s: KioskStatus) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ value: String, labels: String = "") {
            out += "# HELP scand_\(name) \(help)\n# TYPE scand_\(name) \(type)\n"
            out += "scand_\(name)\(labels) \(value)\n"
        }
        let m = s.metrics
        out += "# HELP scand_presses_total Presses by source: the button, a host TRIGGER (serial), the web or control socket, MQTT, a presentation wake.\n"
        out += "# TYPE scand_presses_total counter\n"
        for source in PressSource.allCases {
            out += "scand_presses_total{source=\"\(source.rawValue)\"} \(m.pressesBySource[source] ?? 0)\n"
        }
        metric("good_reads_total", "counter", "Results delivered.", "\(m.goodReads)")
        metric("rejected_total", "counter", "Codes read but refused by scan.accept or scan.accept_pattern (not results).", "\(m.rejected)")
        metric("closed_without_scan_total", "counter", "Sessions ended without a code (timeout, release, cancel, STOP).", "\(m.closedWithoutScan)")
        metric("errors_total", "counter", "Presses refused or sessions broken because the camera was unavailable or the outputs were full.", "\(m.errors)")
        metric("torch_on_total", "counter", "Times the torch was switched on for a session or by the host.", "\(m.torchOn)")
        metric("torch_auto_on_total", "counter", "Times the automatic torch mode lit the torch (the viewport was dark).", "\(m.torchAutoOn)")
        metric("confirmations_expired_total", "counter", "Held results discarded for want of a confirming press.", "\(m.confirmationsExpired)")
        metric("frames_decoded_total", "counter", "Frames decoded.", "\(s.framesDecoded)")
        metric("decode_seconds_total", "counter", "Time spent decoding frames.", String(s.decodeSeconds))
        metric("frames_dropped_total", "counter", "Frames dropped because the decoder was busy.", "\(s.framesDropped)")
        metric("camera_reconnects_total", "counter", "Times the camera came back after being lost.", "\(s.cameraReconnects)")
        metric("duplicates_suppressed_total", "counter", "Reads of a code held back: seen again before it was out of view for the same-symbol time.", "\(s.duplicatesSuppressed)")
        metric("pending_results", "gauge", "Results waiting in output outboxes.", "\(s.pendingResults)")
        metric("outputs_full", "gauge", "1 while the outputs take no new result (outbox.policy = reject-new, an outbox full): presses are refused.", s.outputsFull ? "1" : "0")
        metric("results_not_stored_total", "counter", "Results an outbox file could not take (kept in memory and sent).", "\(s.outputCounts.notStored)")
        metric("results_parked_total", "counter", "Results an output can never carry (e.g. untypable on the HID layout), set aside.", "\(s.outputCounts.parked)")
        metric("commands_refused_total", "counter", "Host commands from the MQTT broker answered ERR busy and not run (over 10 a second, or too many waiting).", "\(s.outputCounts.commandsRefused)")
        metric("replies_dropped_total", "counter", "Replies to MQTT commands dropped because the broker link was full.", "\(s.outputCounts.repliesDropped)")
        out += "# HELP scand_camera_state Camera state (1 for the current one).\n# TYPE scand_camera_state gauge\n"
        for state in ["starting", "available", "unavailable", "in-use", "permission-denied", "disconnected"] {
            out += "scand_camera_state{state=\"\(state)\"} \(state == s.camera.name ? 1 : 0)\n"
        }
        metric("torch_on", "gauge", "Whether the torch is lit.", s.torch == .on ? "1" : "0")
        let d = s.decoding
        out += "# HELP scand_decode_time_seconds Decode time of reads by symbology, in Zebra's bins: from the trigger (press, TRIGGER, presentation wake), or where none started the attempt from the code coming into view, to the good read.\n"
        out += "# TYPE scand_decode_time_seconds histogram\n"
        for symbology in d.symbologies {
            out += histogram("decode_time_seconds", d.reads[symbology] ?? DecodeStatistics.Histogram(),
                             labels: "symbology=\"\(symbology.rawValue)\"")
        }
        out += "# HELP scand_no_read_seconds How long the sessions that ended without a read (timeout, release, cancel, STOP) ran.\n"
        out += "# TYPE scand_no_read_seconds histogram\n"
        out += histogram("no_read_seconds", d.noReads)
        out += "# HELP scand_rejected_by_symbology_total Codes read but refused by scan.accept or scan.accept_pattern, by symbology.\n"
        out += "# TYPE scand_rejected_by_symbology_total counter\n"
        for symbology in d.symbologies {
            out += "scand_rejected_by_symbology_total{symbology=\"\(symbology.rawValue)\"} \(d.refused[symbology] ?? 0)\n"
        }
        return out
    }

    /// A Prometheus histogram's samples: cumulative `_bucket`s at each bin's upper bound (in
    /// seconds) and `+Inf`, `_sum` and `_count`.
    static func histogram(_ name: String, _ h: DecodeStatistics.Histogram, labels: String = "") -> String {
        let prefix = labels.isEmpty ? "" : labels + ","
        let braces = labels.isEmpty ? "" : "{\(labels)}"
        var out = "", cumulative = 0
        for (bin, count) in h.bins.enumerated() {
            cumulative += count
            let le = bin < DecodeStatistics.Histogram.boundsMs.count ? String(Double(DecodeStatistics.Histogram.boundsMs[bin]) / 1000) : "+Inf"
            out += "scand_\(name)_bucket{\(prefix)le=\"\(le)\"} \(cumulative)\n"
        }
        let (whole, atto) = h.sum.components
        out += "scand_\(name)_sum\(braces) \(Double(whole) + Double(atto) / 1e18)\n"
        out += "scand_\(name)_count\(braces) \(h.count)\n"
        return out
    }

    /// Writes atomically (a temporary file renamed over the old one), as the collector requires.
    public static func write(_ s: KioskStatus, to path: String) throws(FileBytes.Failure) {
        try FileBytes.writeAtomically(Array(render(s).utf8), to: path)
    }
}
