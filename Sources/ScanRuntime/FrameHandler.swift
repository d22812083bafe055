import Decoding
import ScanCore
import ScanHardware
import Viewfinder

/// What the capture child does with the frames it takes.
public enum CaptureWork: Equatable, Sendable {
    /// No stream.
    case none
    /// A warm camera between sessions: frames are taken and dropped (buffers back to the driver).
    case drain
    /// Presentation mode between sessions: frames go to the change detector only.
    case watch
    /// Frames of `session` are decoded; `watching`: the change detector looks too (a
    /// presentation session goes on while the scene changes).
    case decode(session: Int, watching: Bool)
}

/// Turns a frame into the loop's inputs for the current work: the change detector, decoding
/// and the viewport's brightness. Used on one thread at a time (the decode thread, or the
/// caller of `VirtualKiosk`).
public final class FrameHandler: @unchecked Sendable {
    private var detector = SceneChangeDetector()
    /// The newest first-looked frame's grid: a deep pass on a scene no longer in view is abandoned.
    private let newest = Locked<[UInt8]>([])

    public init() {}

    /// Deep passes still owed to a frame whose first look found nothing.
    public struct DeepJob: Sendable {
        public let work: CaptureWork
        let session: Int
        let look: FirstLook
        let decoder: any StagedDecoder
        let grid: [UInt8]
        /// The frame and viewport, for guidance when the deep passes find nothing too.
        let frame: GrayFrame
        let viewport: Viewport
    }

    /// The inputs of `frame`'s first look under `work` (the change detector, a staged decoder's
    /// first look, the brightness), and the deep passes it still needs, if any: the kiosk gives
    /// every new frame its first look at once and older frames their deep passes on the side.
    public func firstLook(for frame: GrayFrame, work: CaptureWork, tuning: KioskTuning) -> ([LoopInput], DeepJob?) {
        guard case .decode(let session, let watching) = work, let staged = tuning.decoder as? any StagedDecoder else {
            return (inputs(for: frame, work: work, tuning: tuning), nil)
        }
        var inputs: [LoopInput] = []
        if watching, detector.changed(frame) { inputs.append(.kiosk(.sceneChanged)) }
        let started = ContinuousClock.now
        let grid = SceneChangeDetector.grid(frame)
        newest.withLock { $0 = grid }
        let look = staged.firstLook(frame, viewport: tuning.viewport)
        let seconds = (ContinuousClock.now - started).milliseconds / 1000
        let brightness = tuning.settings.torchMode == .auto ? Self.brightness(of: frame, in: tuning.viewport) : nil
        inputs.append(.decoded(session: session, symbols: look.symbols, seconds: seconds, brightness: brightness))
        let deep = look.symbols.isEmpty ? DeepJob(work: work, session: session, look: look, decoder: staged, grid: grid,
                                                          frame: frame, viewport: tuning.viewport) : nil
        return (inputs, deep)
    }

    /// Whether the scene in view has changed since `job`'s frame (its deep passes are moot).
    public func sceneMovedOn(since job: DeepJob) -> Bool {
        SceneChangeDetector.differs(job.grid, newest.withLock { $0 })
    }

    /// Guidance for `job`'s frame (its deep passes found nothing).
    public static func guidance(_ job: DeepJob, torchOn: Bool) -> LoopInput {
        .guidance(session: job.session, Guidance.assess(job.frame, viewport: job.viewport, torchOn: torchOn).advice)
    }

    /// The deep passes of `job`; nothing when `abandon` says so between passes (the session
    /// ended or moved on).
    public static func deepLook(_ job: DeepJob, abandon: () -> Bool) -> [LoopInput] {
        let started = ContinuousClock.now
        let symbols = job.decoder.deepLook(job.look, abandon: abandon)
        guard !symbols.isEmpty, !abandon() else { return [] }
        return [.decoded(session: job.session, symbols: symbols, seconds: (ContinuousClock.now - started).milliseconds / 1000)]
    }

    /// The inputs `frame` gives under `work`, with `tuning`'s decoder and viewport (the whole
    /// decoding at once).
    public func inputs(for frame: GrayFrame, work: CaptureWork, tuning: KioskTuning) -> [LoopInput] {
        switch work {
        case .none, .drain:
            return []
        case .watch:
            return detector.changed(frame) ? [.kiosk(.sceneChanged)] : []
        case .decode(let session, let watching):
            var inputs: [LoopInput] = []
            if watching, detector.changed(frame) { inputs.append(.kiosk(.sceneChanged)) }
            let (symbols, seconds) = Self.decode(frame, decoder: tuning.decoder, viewport: tuning.viewport)
            let brightness = tuning.settings.torchMode == .auto ? Self.brightness(of: frame, in: tuning.viewport) : nil
            inputs.append(.decoded(session: session, symbols: symbols, seconds: seconds, brightness: brightness))
            return inputs
        }
    }

    /// The symbols in `frame` within `viewport`, nearest the viewport's centre first, and the
    /// seconds the decoding took.
    public static func decode(_ frame: GrayFrame, decoder: any BarcodeDecoder, viewport: Viewport) -> ([Symbol], Double) {
        let cx = (viewport.x + viewport.width / 2) * Double(frame.width)
        let cy = (viewport.y + viewport.height / 2) * Double(frame.height)
        let started = ContinuousClock.now
        let symbols = decoder.decode(frame, viewport: viewport).sortedByDistance(toX: cx, y: cy)
        return (symbols, (ContinuousClock.now - started).milliseconds / 1000)
    }

    /// The viewport's mean level (0...255) from a sparse grid of about a thousand samples.
    public static func brightness(of frame: GrayFrame, in viewport: Viewport) -> Double {
        let x0 = Int(viewport.x * Double(frame.width)), y0 = Int(viewport.y * Double(frame.height))
        let w = max(1, Int(viewport.width * Double(frame.width))), h = max(1, Int(viewport.height * Double(frame.height)))
        let step = max(1, Int((Double(w * h) / 1024).squareRoot()))
        return frame.withUnsafeBytes { bytes -> Double in
            var sum = 0, count = 0
            var y = y0
            while y < min(frame.height, y0 + h) {
                var x = x0
                let row = y * frame.stride
                while x < min(frame.width, x0 + w) {
                    sum += Int(bytes[row + x]); count += 1
                    x += step
                }
                y += step
            }
            return count == 0 ? 0 : Double(sum) / Double(count)
        }
    }
}

/// A cheap change detector: the frame as a 16x12 grid of cell means (from a sparse sample of
/// each cell), compared with the previous frame's; a change is a few cells that moved by more
/// than a lighting flicker does. Costs about 2,000 byte reads per frame whatever its size.
public struct SceneChangeDetector: Sendable {
    static let columns = 16, rows = 12
    /// A cell counts as changed when its mean moved this many levels.
    static let cellThreshold = 24
    /// The scene changed when at least this many cells did (about 3 % of the grid).
    static let cellsNeeded = 6
    private var last: [UInt8] = []

    public init() {}

    /// Whether `frame` differs from the previous frame (the first frame only sets the reference).
    public mutating func changed(_ frame: GrayFrame) -> Bool {
        let grid = Self.grid(frame)
        defer { last = grid }
        return Self.differs(last, grid)
    }

    /// Whether two grids show different scenes (grids of different sizes never do).
    static func differs(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var cells = 0
        for i in 0..<a.count where abs(Int(a[i]) - Int(b[i])) > cellThreshold { cells += 1 }
        return cells >= cellsNeeded
    }

    static func grid(_ frame: GrayFrame) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: columns * rows)
        let cw = max(1, frame.width / columns), ch = max(1, frame.height / rows)
        let step = max(1, min(cw, ch) / 3)
        frame.withUnsafeBytes { bytes in
            for r in 0..<rows {
                for c in 0..<columns {
                    var sum = 0, n = 0
                    var y = r * ch + step / 2
                    while y < min(frame.height, (r + 1) * ch) {
                        let row = y * frame.stride
                        var x = c * cw + step / 2
                        while x < min(frame.width, (c + 1) * cw) { sum += Int(bytes[row + x]); n += 1; x += step }
                        y += step
                    }
                    out[r * columns + c] = n == 0 ? 0 : UInt8(sum / n)
                }
            }
        }
        return out
    }
}
