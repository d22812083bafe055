/// The line protocol a host speaks to scand over the serial port. One command per line
/// (`\r\n` or `\n`), case-insensitive keywords; scand answers each with one line starting
/// `OK` or `ERR`. Every error line reads `ERR <COMMAND>: <reason>` (`ERR SET: unknown key x`);
/// a line that names no command (empty, too long, not printable ASCII) is `ERR LINE: <reason>`.
///
///     TRIGGER            start a scan session (like a press)
///     STOP               end the session (like a cancelling press)
///     TORCH ON|OFF|AUTO|DEFAULT  torch mode for this run (AUTO: lit when dark; DEFAULT: the config's)
///     BEEP               the good-read beep
///     STATUS             camera state, torch, counts
///     VERSION            scand's version
///     SET key=value      change a config key for this run (e.g. SET scan.session_timeout_ms=5000)
///     ACK n              the host has result n (with ack = true)
public enum HostCommand: Equatable, Sendable {
    case trigger, stop, torch(TorchMode?), beep, status, version
    case set(key: String, value: String)
    case ack(Int)

    /// The longest line accepted.
    public static let maxLength = 256

    /// Whether `line` is an answer (`OK ...`, `ERR ...`, any case) rather than a command: the
    /// serial door does not answer answers, so two ends that echo each other stop at once.
    public static func isAnswer(_ line: String) -> Bool {
        let word = line.trimmingSpaces.split(separator: " ", maxSplits: 1).first.map { $0.uppercased() }
        return word == "OK" || word == "ERR"
    }

    /// Parses one line (without its line end). Throws a message for the `ERR` answer.
    public static func parse(_ line: String) throws(HostCommandError) -> HostCommand {
        guard line.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
            throw HostCommandError(line: "only printable ASCII is accepted")
        }
        guard line.utf8.count <= maxLength else { throw HostCommandError(line: "too long (at most \(maxLength) bytes)") }
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard let verb = words.first?.uppercased() else { throw HostCommandError(line: "empty command; send one, e.g. TRIGGER") }
        let argument = words.count > 1 ? words[1].trimmingSpaces : ""
        func noArgument(_ c: HostCommand) throws(HostCommandError) -> HostCommand {
            guard argument.isEmpty else { throw HostCommandError(verb, "takes no argument") }
            return c
        }
        switch verb {
        case "TRIGGER": return try noArgument(.trigger)
        case "STOP": return try noArgument(.stop)
        case "BEEP": return try noArgument(.beep)
        case "STATUS": return try noArgument(.status)
        case "VERSION": return try noArgument(.version)
        case "TORCH":
            switch argument.uppercased() {
            case "ON": return .torch(.on)
            case "OFF": return .torch(.off)
            case "AUTO": return .torch(.auto)
            case "DEFAULT": return .torch(nil)
            default: throw HostCommandError(verb, "takes ON, OFF, AUTO or DEFAULT")
            }
        case "SET":
            guard let eq = argument.firstIndex(of: "="), eq != argument.startIndex,
                  argument[..<eq].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" }) else {
                throw HostCommandError(verb, "takes key=value, e.g. SET scan.session_timeout_ms=5000")
            }
            return .set(key: String(argument[..<eq]), value: String(argument[argument.index(after: eq)...]))
        case "ACK":
            guard let n = Int(argument), n > 0 else { throw HostCommandError(verb, "takes a result number") }
            return .ack(n)
        default:
            throw HostCommandError(verb, "unknown command; commands: TRIGGER STOP TORCH BEEP STATUS VERSION SET ACK")
        }
    }
}

extension HostCommand {
    /// The command line a message carries (an MQTT message, a web request's body), checked as
    /// the serial port checks its lines, so that every door answers a bad line alike: a trailing
    /// line break is dropped; an empty message, a second line, more than `maxLength` bytes or a
    /// byte outside printable ASCII is an error whose message follows `ERR `.
    public static func line(from message: some Collection<UInt8>) -> Result<String, HostCommandError> {
        var bytes = Array(message)
        while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
        guard !bytes.isEmpty else { return .failure(HostCommandError(line: "empty command; send one, e.g. TRIGGER")) }
        guard bytes.count <= maxLength else { return .failure(HostCommandError(line: "too long (at most \(maxLength) bytes)")) }
        guard !bytes.contains(where: { $0 == 10 || $0 == 13 }) else {
            return .failure(HostCommandError(line: "one command per message (a line break inside)"))
        }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return .failure(HostCommandError(line: "only printable ASCII is accepted")) }
        return .success(String(decoding: bytes, as: UTF8.self))
    }
}

/// Why a host line is refused, and the command it names: the answer is `ERR ` + `message`.
public struct HostCommandError: Error, Equatable, Sendable {
    /// The command word (`SET`, `TORCH`, an unknown word as sent), or `LINE` for a line that
    /// names none.
    public var command: String
    public var reason: String
    /// `COMMAND: reason`, what follows `ERR `.
    public var message: String { "\(command): \(reason)" }

    public init(_ command: String, _ reason: String) {
        self.command = HostCommand.word(command)
        self.reason = reason
    }

    /// An error of the line itself (empty, too long, not printable ASCII).
    public init(line reason: String) { self.init("LINE", reason) }

    /// The answer line: `ERR COMMAND: reason`.
    public var answer: String { "ERR " + message }
}

extension HostCommand {
    /// The command word a line starts with, as an answer names it: upper case, at most 20
    /// printable characters; `LINE` when the line names none.
    public static func word(_ line: some StringProtocol) -> String {
        let first = line.split(separator: " ", maxSplits: 1).first.map { String($0.prefix(20)).uppercased() } ?? ""
        guard !first.isEmpty, first.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != ":" }) else { return "LINE" }
        return first
    }
}

/// Splits a byte stream into lines, with a bound: an over-long line is reported once and
/// skipped to its end, never buffered without limit.
public struct LineAssembler: Sendable {
    public enum Item: Equatable, Sendable { case line(String), tooLong }
    private var buffer: [UInt8] = []
    private var discarding = false
    public let limit: Int

    public init(limit: Int = HostCommand.maxLength) { self.limit = limit }

    public mutating func feed(_ bytes: [UInt8]) -> [Item] {
        var out: [Item] = []
        for b in bytes {
            if b == 10 || b == 13 {
                if discarding { discarding = false; out.append(.tooLong) } else if !buffer.isEmpty {
                    out.append(.line(String(decoding: buffer, as: UTF8.self)))
                }
                buffer.removeAll(keepingCapacity: true)
            } else if !discarding {
                buffer.append(b)
                if buffer.count > limit { discarding = true; buffer.removeAll(keepingCapacity: true) }
            }
        }
        return out
    }
}

extension String {
    /// Without leading and trailing spaces.
    public var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
