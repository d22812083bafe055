import ScanCore
#if canImport(Glibc)
import Glibc
#endif

// Results out: the same-symbol filter, the outputs, retries of kept results, acknowledgements
// and the event stream.
extension KioskRuntime {

    func deliver(_ result: ScanResult) {
        let now = elapsed()
        guard sameSymbol.admit(result.symbol, at: now) else {
            duplicates += 1
            logger.info("result \(result.sequence) is the same code as the last within the same-symbol time: not reported again")
            return
        }
        let s = result.symbol
        event("result", ["seq": "\(result.sequence)", "symbology": JSONText.string(s.symbology.rawValue),
                         "text": JSONText.string(s.text), "payload": PayloadClassifier.classify(s).json])
        let millis = Self.unixMillis()
        for output in outputs {
            do { try output.deliver(result, unixMillis: millis) } catch {
                logger.error("output \(output.name): \(error)")
            }
        }
        scheduleRetry()
    }

    /// While any output keeps results, retries every second (quietly) until all are written.
    func scheduleRetry() {
        guard retry == nil, outputs.contains(where: { $0.pendingCount > 0 }) else { return }
        let clock = self.clock
        retry = Task { [weak self] in
            do { try await clock.sleep(for: .seconds(1)) } catch { return }
            await self?.retryOutputs()
        }
    }

    func retryOutputs() {
        retry = nil
        guard !stopped else { return }
        for output in outputs where output.pendingCount > 0 {
            let before = output.pendingCount
            do {
                try output.retry()
                if before > 0 && output.pendingCount == 0 { logger.notice("output \(output.name): \(before) kept result(s) delivered") }
            } catch {
                logger.debug("output \(output.name): retry failed: \(error)")
            }
        }
        onStatus?(status)
        scheduleRetry()
    }

    /// The host acknowledged result `seq` (serial `ACK n`).
    public func acknowledge(_ seq: Int) -> Bool {
        outputs.map { $0.acknowledge(seq) }.contains(true)
    }

    /// One JSON event for the event stream.
    func event(_ type: String, _ fields: [String: String]) {
        guard let onEvent else { return }
        let body = fields.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value)" }
        onEvent("{\"event\":\(JSONText.string(type))" + (body.isEmpty ? "" : "," + body.joined(separator: ",")) + "}")
    }

    static func elapsedTime<C: Clock>(on clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    static func unixMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
