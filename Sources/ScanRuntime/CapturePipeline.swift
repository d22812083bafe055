import Decoding
import ScanCore
import ScanHardware
import Viewfinder

/// What the kiosk does with a frame, the same in the daemon and in virtual time: the change
/// detector, a staged decoder's first look at every new frame, the deep passes on the newest
/// frame whose first look found nothing (skipped for a scene already found fruitless, abandoned
/// when the work or the scene moves on), and guidance for what could not be read, at most twice
/// a second. The runtime calls `firstLook` on one decode thread and `deepLook` on another;
/// `VirtualKiosk` calls both on the test's thread, one after the other.
public final class CapturePipeline: Sendable {
    private struct State {
        var detector = SceneChangeDetector()
        /// The newest first-looked frame's grid: a deep pass on a scene no longer in view is abandoned.
        var newest: [UInt8] = []
        /// A scene whose deep passes found nothing is not looked at deeply again until it changes.
        var fruitless: (work: CaptureWork, grid: [UInt8])?
        var lastGuidance: Duration?
        /// The scene in view: its first frame's grid and number, and how many frames it has lasted.
        var scene: (grid: [UInt8], first: Int, frames: Int) = ([], 0, 0)
        /// Where each code was last read: its frame (by `looked`), that frame's grid and the
        /// cells under its corners.
        var sighted: [CodeIdentity: (frame: Int, grid: [UInt8], cells: [Int])] = [:]
        /// Frames first-looked so far: each frame's number.
        var looked = 0
    }
    private let state = Locked(State())
    /// Guidance is worked out at most this often (it reads a frame's viewport twice).
    public static let guidanceInterval = Duration.milliseconds(500)
    /// A scene held still this many frames is a scene, not a moment of motion.
    public static let stillFrames = 4

    public init() {}

    /// Deep passes still owed to a frame whose first look found nothing.
    public struct DeepJob: Sendable {
        public let work: CaptureWork
        let session: Int
        let look: FirstLook
        let decoder: any StagedDecoder
        let grid: [UInt8]
        /// The frame's number among those first-looked (`State.looked`).
        let number: Int
        /// The frame and viewport, for guidance when the deep passes find nothing too.
        let frame: GrayFrame
        let viewport: Viewport
    }

    /// The inputs of `frame`'s first look under `work` (the change detector, a staged decoder's
    /// first look, the brightness), and the deep passes it still needs, if any: the kiosk gives
    /// every new frame its first look at once and older frames their deep passes on the side.
    public func firstLook(for frame: GrayFrame, work: CaptureWork, tuning: KioskTuning) -> ([KioskCore.Input], DeepJob?) {
        // The scene's grid, once a frame: for the change detector and to abandon deep passes on
        // a scene no longer in view.
        func sceneChanged() -> (grid: [UInt8], number: Int, changed: Bool, left: [CodeIdentity]) {
            let grid = SceneChangeDetector.grid(frame)
            let (number, changed, left) = state.withLock { s -> (Int, Bool, [CodeIdentity]) in
                s.looked += 1
                s.newest = grid
                let changed = s.detector.changed(grid: grid)
                var left: [CodeIdentity] = []
                if changed || s.scene.frames == 0 {
                    left = Self.codesOutOfView(in: s.scene, sighted: &s.sighted)
                    s.scene = (grid, s.looked, 1)
                } else {
                    s.scene.frames += 1
                }
                return (s.looked, changed, left)
            }
            return (grid, number, changed, left)
        }
        switch work {
        case .none, .drain:
            return ([], nil)
        case .watch:
            return (sceneChanged().changed ? [.kiosk(.sceneChanged)] : [], nil)
        case .decode(let session, let watching):
            let (grid, number, changed, left) = sceneChanged()
            var inputs: [KioskCore.Input] = watching && changed ? [.kiosk(.sceneChanged)] : []
            // Before this frame's codes: one of them back in view is then a new sighting.
            if !left.isEmpty { inputs.append(.codesLeftView(session: session, codes: left)) }
            let brightness = tuning.settings.torchMode == .auto ? Self.brightness(of: frame, in: tuning.viewport) : nil
            guard let staged = tuning.decoder as? any StagedDecoder else {
                let (symbols, seconds) = Self.decode(frame, decoder: tuning.decoder, viewport: tuning.viewport)
                sight(symbols, in: number, grid: grid, frame: frame)
                return (inputs + [.decoded(session: session, symbols: symbols, seconds: seconds, brightness: brightness,
                                           frame: FrameSize(width: frame.width, height: frame.height))], nil)
            }
            let started = ContinuousClock.now
            let look = staged.firstLook(frame, viewport: tuning.viewport)
            let seconds = (ContinuousClock.now - started).milliseconds / 1000
            sight(look.symbols, in: number, grid: grid, frame: frame)
            let deep = look.symbols.isEmpty ? DeepJob(work: work, session: session, look: look, decoder: staged, grid: grid, number: number,
                                                      frame: frame, viewport: tuning.viewport) : nil
            inputs.append(.decoded(session: session, symbols: look.symbols, seconds: seconds, brightness: brightness,
                                   frame: FrameSize(width: frame.width, height: frame.height), deepLookFollows: deep != nil))
            return (inputs, deep)
        }
    }

    private func sceneMovedOn(since job: DeepJob) -> Bool {
        state.withLock { SceneChangeDetector.differs(job.grid, $0.newest) }
    }

    /// Remembers where `symbols`, read in frame `number` whose grid is `grid`, are (a deep
    /// read comes after newer frames' first looks: the newest sighting stays).
    private func sight(_ symbols: [Symbol], in number: Int, grid: [UInt8], frame: GrayFrame) {
        guard !symbols.isEmpty else { return }
        state.withLock { s in
            if s.sighted.count + symbols.count > 32 { s.sighted = [:] }
            for symbol in symbols {
                let code = CodeIdentity(symbol)
                if (s.sighted[code]?.frame ?? 0) < number { s.sighted[code] = (number, grid, SceneChangeDetector.cells(under: symbol.corners, in: frame)) }
            }
        }
    }

    /// The codes out of view in `scene`, which has just ended: held still, it showed something
    /// else where each code last read before it was. They leave `sighted`. Without this, a code
    /// only the deep passes read never left the view over a scene whose deep passes take longer
    /// than it stayed (given up, they read no frame through), and came back held as a repeat. A
    /// code moved about within a scene in motion stays in view.
    private static func codesOutOfView(in scene: (grid: [UInt8], first: Int, frames: Int),
                                       sighted: inout [CodeIdentity: (frame: Int, grid: [UInt8], cells: [Int])]) -> [CodeIdentity] {
        guard scene.frames >= stillFrames else { return [] }
        let gone = sighted.filter { $0.value.frame < scene.first && SceneChangeDetector.mostlyDiffer($0.value.grid, scene.grid, in: $0.value.cells) }.map(\.key)
        for code in gone { sighted[code] = nil }
        return gone
    }

    /// The deep passes of `job` while `current` says its work is still the kiosk's (checked
    /// between passes), unless the scene moved on since its frame or was already found
    /// fruitless; when they find nothing, guidance (`now`: for its interval; `torchOn`: whether
    /// the torch is lit).
    public func deepLook(_ job: DeepJob, current: () -> Bool, now: Duration, torchOn: Bool) -> [KioskCore.Input] {
        let (moved, fruitless) = state.withLock { s -> (Bool, Bool) in
            (SceneChangeDetector.differs(job.grid, s.newest),
             s.fruitless.map { $0.work == job.work && !SceneChangeDetector.differs($0.grid, job.grid) } ?? false)
        }
        guard current(), !moved else { return [] }
        // A scene already found to hold nothing: this frame holds nothing either.
        guard !fruitless else { return [.deepLookFoundNothing(session: job.session, seconds: 0)] }
        let started = ContinuousClock.now
        let symbols = job.decoder.deepLook(job.look, abandon: { !current() || sceneMovedOn(since: job) })
        let seconds = (ContinuousClock.now - started).milliseconds / 1000
        // Passes given up because the scene moved on or the work changed looked at only part of
        // the frame: they say nothing about it.
        let finished = current() && !sceneMovedOn(since: job)
        if !symbols.isEmpty, finished {
            sight(symbols, in: job.number, grid: job.grid, frame: job.frame)
            state.withLock { $0.fruitless = nil }
            return [.decoded(session: job.session, symbols: symbols, seconds: seconds,
                             frame: FrameSize(width: job.frame.width, height: job.frame.height), fromDeepLook: true)]
        }
        // The frame holds no code (its first look left it to these passes: it counts now), and
        // its scene is not looked at deeply again until it changes.
        let nothing: [KioskCore.Input] = finished ? [.deepLookFoundNothing(session: job.session, seconds: seconds)] : []
        // Nothing read: what a person could change, at most twice a second.
        let guide = state.withLock { s -> Bool in
            if finished { s.fruitless = (job.work, job.grid) }
            guard s.lastGuidance.map({ now - $0 >= Self.guidanceInterval }) ?? true else { return false }
            s.lastGuidance = now
            return true
        }
        guard guide, current() else { return nothing }
        return nothing + [.guidance(session: job.session, Guidance.assess(job.frame, viewport: job.viewport, torchOn: torchOn).advice)]
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
    public mutating func changed(_ frame: GrayFrame) -> Bool { changed(grid: Self.grid(frame)) }

    /// Whether a frame whose grid (`grid(_:)`) is `grid` differs from the previous one.
    public mutating func changed(grid: [UInt8]) -> Bool {
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

    /// Whether at least half of `cells` (indices into two grids) differ between `a` and `b`.
    static func mostlyDiffer(_ a: [UInt8], _ b: [UInt8], in cells: [Int]) -> Bool {
        guard a.count == b.count, !cells.isEmpty else { return false }
        let changed = cells.filter { $0 < a.count && abs(Int(a[$0]) - Int(b[$0])) > cellThreshold }.count
        return changed * 2 >= cells.count
    }

    /// The grid cells (indices, as `grid(_:)` lays them out) under the box around `corners` in `frame`.
    static func cells(under corners: [PixelPoint], in frame: GrayFrame) -> [Int] {
        guard !corners.isEmpty else { return [] }
        let cw = max(1, frame.width / columns), ch = max(1, frame.height / rows)
        func column(_ x: Int) -> Int { min(columns - 1, max(0, x / cw)) }
        func row(_ y: Int) -> Int { min(rows - 1, max(0, y / ch)) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return (row(ys.min()!)...row(ys.max()!)).flatMap { r in (column(xs.min()!)...column(xs.max()!)).map { r * columns + $0 } }
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
