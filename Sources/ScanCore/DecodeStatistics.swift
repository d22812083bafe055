/// Decode statistics as boxed scanners keep them: per symbology the reads with a histogram of
/// their decode time, and the codes refused; the sessions that ended without a read, with a
/// histogram of how long they ran. Pure: every time comes in as an argument.
///
/// Decode time is from the start of the attempt to the good read, on the core's time. A
/// trigger starts an attempt (a press, a host `TRIGGER`, a presentation wake). Without one (a
/// continuous session, and after a read in a session that goes on reading) the attempt starts
/// at the first of the frames in a row that showed a code: a code held up to a scanner that
/// always scans is timed from when it came into view, not from when scanning began.
public struct DecodeStatistics: Equatable, Sendable {
    /// Counts of durations in Zebra's decode-time bins: ≤75, ≤110, ≤170, ≤300, ≤600, ≤1000,
    /// ≤1500 and over 1500 ms, with their sum.
    public struct Histogram: Equatable, Sendable {
        /// The bins' upper bounds (inclusive); the last bin holds everything above the last bound.
        public static let boundsMs = [75, 110, 170, 300, 600, 1000, 1500]
        public static let bounds: [Duration] = boundsMs.map { .milliseconds($0) }

        /// How many durations fell in each bin, `bounds.count + 1` of them.
        public private(set) var bins = [Int](repeating: 0, count: bounds.count + 1)
        /// All durations added up.
        public private(set) var sum = Duration.zero

        public init() {}

        public var count: Int { bins.reduce(0, +) }

        public mutating func add(_ duration: Duration) {
            bins[Self.bounds.firstIndex { duration <= $0 } ?? Self.bounds.count] += 1
            sum += duration
        }

        /// The bin the median duration is in (nil: empty).
        public var medianBin: Int? { Self.medianBin(bins) }

        /// The bin the median of a histogram's `bins` is in (nil: empty).
        public static func medianBin(_ bins: [Int]) -> Int? {
            let count = bins.reduce(0, +)
            guard count > 0 else { return nil }
            var seen = 0
            return bins.indices.first { seen += bins[$0]; return 2 * seen >= count }
        }

        /// A bin as people write it: `≤75 ms`, `>1500 ms`.
        public static func label(_ bin: Int) -> String {
            bin < boundsMs.count ? "≤\(boundsMs[bin]) ms" : ">\(boundsMs[boundsMs.count - 1]) ms"
        }

        /// `{"count":3,"bins":[0,2,1,0,0,0,0,0],"seconds":0.31}`.
        public var json: String {
            "{\"count\":\(count),\"bins\":[\(bins.map(String.init).joined(separator: ","))],\"seconds\":\(JSONText.number(sum.milliseconds / 1000, decimals: 3))}"
        }
    }

    /// Decode times of the reads, per symbology.
    public private(set) var reads: [Symbology: Histogram] = [:]
    /// Codes read but refused (`scan.accept`, `scan.accept_pattern`), per symbology.
    public private(set) var refused: [Symbology: Int] = [:]
    /// How long the sessions that ended without a read (timeout, release, cancel) ran.
    public private(set) var noReads = Histogram()
    private var attempt = Attempt.none
    /// The codes of the last decoded frame, and those of them already read: a code read and
    /// still in view (held back as a repeat) is not a new code coming into view.
    private var inView: Set<CodeIdentity> = []
    private var readInView: Set<CodeIdentity> = []

    /// The attempt being timed.
    private enum Attempt: Equatable, Sendable {
        /// No session.
        case none
        /// A trigger started it at `start`; no read yet.
        case triggered(start: Duration)
        /// No trigger (a continuous session) or a read before it: a read is timed from the first
        /// of the frames in a row that showed a code (`sighted`; nil while none shows one), a
        /// session's end without a read from `since` (the session's start or the last read).
        case sighting(since: Duration, sighted: Duration?)
    }

    public init() {}

    /// The symbologies with a read or a refusal, in `Symbology`'s order.
    public var symbologies: [Symbology] {
        Symbology.allCases.filter { reads[$0] != nil || refused[$0] != nil }
    }

    /// A session started at `now`, by a trigger or not.
    public mutating func sessionStarted(at now: Duration, triggered: Bool) {
        attempt = triggered ? .triggered(start: now) : .sighting(since: now, sighted: nil)
    }

    /// A frame of the session was decoded at `now`, showing `codes` (none, or some). A code
    /// not read yet starts a sighting; codes already read that stay in view do not.
    public mutating func frame(showing codes: [Symbol], at now: Duration) {
        inView = Set(codes.filter { !$0.isEmpty }.map(CodeIdentity.init))
        readInView.formIntersection(inView)
        guard case .sighting(let since, let sighted) = attempt else { return }
        let showingNewCode = !inView.isSubset(of: readInView)
        attempt = .sighting(since: since, sighted: showingNewCode ? sighted ?? now : nil)
    }

    /// Codes of `symbologies` were read at `now`; the session, if it goes on, times its next
    /// read from the next code that comes into view.
    public mutating func read(_ symbologies: [Symbology], at now: Duration) {
        let start: Duration
        switch attempt {
        case .none: return
        case .triggered(let at): start = at
        case .sighting(_, let sighted): start = sighted ?? now
        }
        for symbology in symbologies { reads[symbology, default: Histogram()].add(now - start) }
        readInView.formUnion(inView.filter { symbologies.contains($0.symbology) })
        attempt = .sighting(since: now, sighted: nil)
    }

    public mutating func refused(_ symbology: Symbology) {
        refused[symbology, default: 0] += 1
    }

    /// The session ended at `now` without a read (since its start, or since its last read).
    public mutating func endedWithoutRead(at now: Duration) {
        switch attempt {
        case .none: return
        case .triggered(let start), .sighting(let start, _): noReads.add(now - start)
        }
        attempt = .none
    }

    /// `{"binsMs":[75,...,1500],"symbologies":{"Code-128":{"reads":..,"refused":..,"bins":[..],"seconds":..}},"noReads":{..}}`.
    public var json: String {
        let bounds = Histogram.boundsMs.map(String.init).joined(separator: ",")
        let each = symbologies.map { s -> String in
            let h = reads[s] ?? Histogram()
            return "\(JSONText.string(s.rawValue)):{\"reads\":\(h.count),\"refused\":\(refused[s] ?? 0),"
                + "\"bins\":[\(h.bins.map(String.init).joined(separator: ","))],\"seconds\":\(JSONText.number(h.sum.milliseconds / 1000, decimals: 3))}"
        }
        return "{\"binsMs\":[\(bounds)],\"symbologies\":{\(each.joined(separator: ","))},\"noReads\":\(noReads.json)}"
    }
}
