import ScanCore
import ScanHardware

extension KioskRuntime {
    /// Serves the host's line protocol (`HostCommand`) on `port` until the runtime stops:
    /// each line gets one answer line, `OK ...` or `ERR ...`; malformed or over-long input
    /// changes nothing. `applySet` tries `SET key=value` and returns nil or the error.
    public func serveHost(on port: any SerialPort, version: String,
                          applySet: @escaping @Sendable (String, String) async -> String?) {
        let task = Task { [weak self] in
            var lines = LineAssembler()
            for await chunk in port.received() {
                for item in lines.feed(chunk) {
                    guard let self else { return }
                    let answer: String
                    switch item {
                    case .tooLong: answer = "ERR line too long (at most \(HostCommand.maxLength) bytes)"
                    case .line(let text):
                        switch Result(catching: { () throws(HostCommandError) -> HostCommand in try HostCommand.parse(text) }) {
                        case .success(let command): answer = await self.run(command, version: version, applySet: applySet)
                        case .failure(let error): answer = "ERR " + error.message
                        }
                    }
                    do { try port.write(Array((answer + "\r\n").utf8)) } catch {
                        await self.logHostError("answer to the host not written: \(error)")
                    }
                }
            }
        }
        addTask(task)
    }

    func run(_ command: HostCommand, version: String, applySet: @Sendable (String, String) async -> String?) async -> String {
        switch command {
        case .trigger: send(.hostTrigger); return "OK TRIGGER"
        case .stop: send(.hostStop); return "OK STOP"
        case .torch(let mode):
            send(.torchOverride(mode))
            return "OK TORCH " + (mode.map { $0.rawValue.uppercased() } ?? "AUTO")
        case .beep: beep(); return "OK BEEP"
        case .status: return "OK STATUS " + status.json
        case .version: return "OK VERSION scand \(version)"
        case .set(let key, let value):
            if let problem = await applySet(key, value) { return "ERR SET \(key): \(problem)" }
            return "OK SET \(key)"
        case .ack(let seq):
            return acknowledge(seq) ? "OK ACK \(seq)" : "ERR ACK \(seq): no result \(seq) waits for an acknowledgement"
        }
    }
}
