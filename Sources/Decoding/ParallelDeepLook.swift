import Dispatch
import ScanCore
import ScanHardware

extension DecodePipeline {
    /// What `deepLook` gives, with the reading spread over `workers` helper threads: each takes
    /// the next job, reading an image of a pass whose images are made (earliest first) with one
    /// of its own engines, or else making the next pass's images. The calling thread only weighs
    /// the reads (confirmations, rules) image by image and engine by engine in pass order, as
    /// `deepLook` does, so the result does not depend on which thread was quicker; it weighs
    /// each read as soon as it is in (a quick read that finds the code is not held up behind a
    /// slow one, zbar's look at the whole frame, that the calling thread would otherwise be
    /// running). Once an image has a code nothing more is handed out, and the helpers are
    /// waited for: nothing of a frame runs on after `decode`. Where the system gives no thread,
    /// the calling thread reads too.
    ///
    /// After a deferred first look (zxing found nothing) the region as it is is read by zxing's
    /// other thresholds before zbar, and the `thresholds` pass is not repeated: one thread's
    /// order is zxing, zbar (the first look), then the thresholds. With one code in view both
    /// give the same code; only which pass reads it, and when, differs.
    func deepLookInParallel(_ look: FirstLook, abandon: (() -> Bool)? = nil) -> [Symbol] {
        // Already out of time after the first look: no helper starts a job it cannot be stopped in.
        guard look.region.width > 0, let doubts = look.doubts as? Doubts, abandon?() != true else { return [] }
        // A deferred first look: the region as it is comes first, its first engine's read
        // (nothing) already in; zxing's other thresholds read it before zbar (`lookers(.asIs)`).
        let (order, made) = plan(for: look.region)
        let passes = look.deferred ? [ImagePass.asIs] + order.filter { $0 != .thresholds } : order
        // Jobs may run up to three passes after the one being weighed (four after a deferred
        // look, beside the other engines' look at the whole region, the slowest job of a frame).
        // With one pass ahead, a helper idled while the other read the pass's zbar look (twice
        // zxing's time); three ahead gave a 4.8 % lower mean and the same verdicts on 2,697
        // images in one run, and more gave nothing more. A job started for a pass after the one
        // that reads the code is waited for, so no further.
        let run = ParallelDeepLook(pipeline: self, region: look.region, steps: passes, made: made, ahead: look.deferred ? 4 : 3)
        if look.deferred {
            run.shared.withLock { $0.given(0, [TransformedFrame(frame: look.region, scale: 1)], reads: [[]]) }
        }
        let helpers = helperEngines.indices.filter { k in spawnThread { run.helper(k + 1) } }.count
        var found: [Symbol] = []
        var p = 0, i = 0, k = 0
        reading: while p < passes.count && abandon?() != true {
            // Weigh every engine's read of every image, in order.
            while p < passes.count {
                let (frames, complete, lists) = run.shared.withLock { s in
                    (s.frames[p], s.complete(p), s.frames[p] != nil && i < s.reads[p].count ? s.reads[p][i] : nil)
                }
                guard let frames else { break }
                if i >= frames.count {
                    // The pass's next group of images is still being made.
                    guard complete else { break }
                    p += 1; i = 0; k = 0
                    // Jobs of one more pass may be handed out now.
                    let weighing = p
                    run.shared.withLock { $0.weighing = weighing; $0.weighed = 0 }
                    run.changed(by: 0)
                    continue
                }
                guard let lists, lists[k] != nil else { break }
                doubts.image = PassImage(pass: p, index: i)
                let symbols = weighSoFar(lists[...k].compactMap { $0 }, by: lookers(passes[p], engines), in: frames[i], doubts, region: look.region)
                if !symbols.isEmpty {
                    found = Self.placed(symbols, in: look.region, at: look.origin)
                    break reading
                }
                k += 1
                if k == lists.count { i += 1; k = 0 }
            }
            guard p < passes.count else { break }
            // How far this pass is weighed, for a held read (`ParallelPasses.holds`).
            if run.shared.withLock({ s in
                let progress = i * s.lookers[p] + k
                defer { s.weighed = progress }
                return s.weighing == p && s.weighed != progress
            }) { run.changed(by: 0) }
            // Wait for a helper's read (or, with no helper, read); told to give up, look again
            // every 20 ms (a read of a large image takes seconds), and no further job starts.
            if helpers > 0 || !run.work(0) {
                if abandon == nil { run.wake[0].wait() } else { _ = run.wake[0].wait(timeout: .now() + .milliseconds(20)) }
            }
        }
        run.stop(helpers: helpers)
        return found
    }
}

/// One frame's deep passes on several threads (`DecodePipeline.deepLookInParallel`): the jobs,
/// the threads' wake-ups, the helpers' end.
final class ParallelDeepLook: @unchecked Sendable {
    let pipeline: DecodePipeline
    /// The passes, in order.
    let steps: [ImagePass]
    let shared: Locked<ParallelPasses>
    let wake: [DispatchSemaphore]
    let finished = DispatchSemaphore(value: 0)
    /// Each pass's groups of images (`ImagePass.makers`; one group of none where no engine
    /// reads the pass or it does not apply), sharing the images one pass makes and a later
    /// one uses again.
    let makers: [[@Sendable () -> [TransformedFrame]]]

    init(pipeline: DecodePipeline, region: GrayFrame, steps: [ImagePass], made: MadeImages = MadeImages(), ahead: Int = 1) {
        self.pipeline = pipeline
        self.steps = steps
        let lookers = steps.map { pipeline.lookers($0, pipeline.engines) }
        // zbar's look at the region as it is, the slowest read of a frame, waits until zxing's
        // other thresholds' reads of it have found nothing (and no job after it starts first):
        // a helper started on it would hold up the frame's end by its whole length when a quick
        // read before it finds the code.
        let holds = zip(steps, lookers).map { step, set -> Int? in
            step == .asIs && set.count > 2 ? set.count - 1 : nil
        }
        makers = zip(steps, lookers).map { step, set in
            let groups = set.isEmpty ? [] : step.makers(region, made: made)
            return groups.isEmpty ? [{ [] }] : groups
        }
        shared = Locked(ParallelPasses(lookers: lookers.map(\.count), groups: makers.map(\.count), holds: holds, ahead: ahead))
        wake = (0...pipeline.workers).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Thread `me`'s engines: the pipeline's own for the calling thread (0), a helper's set else.
    func engines(_ me: Int) -> [any BarcodeDecoder] { me == 0 ? pipeline.engines : pipeline.helperEngines[me - 1] }

    /// Tells the other threads that something changed.
    func changed(by me: Int) { for k in wake.indices where k != me { wake[k].signal() } }

    /// Does one job for thread `me`; false when there was none to take.
    func work(_ me: Int) -> Bool {
        switch shared.withLock({ $0.next() }) {
        case .make(let p, let m):
            let frames = makers[p][m]()
            shared.withLock { $0.made(p, m, frames) }
        case .read(let p, let i, let k, let t):
            let list = pipeline.lookers(steps[p], engines(me))[k].decode(t.frame)
            shared.withLock { $0.reads[p][i][k] = list }
        case .wait, .over: return false
        }
        changed(by: me)
        return true
    }

    /// A helper thread's loop: jobs until nothing more will come.
    func helper(_ me: Int) {
        while true {
            if work(me) { continue }
            if shared.withLock({ !$0.moreMayCome }) { break }
            wake[me].wait()
        }
        finished.signal()
    }

    /// Nothing more is handed out; returns when every helper (`helpers` were started) has ended.
    func stop(helpers: Int) {
        shared.withLock { $0.stopped = true }
        changed(by: 0)
        for _ in 0..<helpers { finished.wait() }
    }
}

/// The jobs of a parallel deep look: which passes' images are made (a group at a time,
/// `ImagePass.makers`), which images are read by which engine, and what to hand out next.
struct ParallelPasses {
    /// Make pass `p`'s group `m` of images; read pass `p`'s image `i` with engine `k`.
    enum Job { case make(Int, Int), read(Int, Int, Int, TransformedFrame), wait, over }
    /// How many engines read each pass's images.
    let lookers: [Int]
    /// How many groups each pass's images are made in.
    let groups: [Int]
    /// Each pass's groups of images as they are made (nil: not yet).
    var groupsMade: [[[TransformedFrame]?]]
    /// Each pass's images that can be read: its groups in order up to the first not yet made
    /// (nil: not even its first group is made).
    var frames: [[TransformedFrame]?]
    /// Each pass's images' reads, one list an engine.
    var reads: [[[[Symbol]?]]]
    /// How many reads of each pass are handed out (image by image, engine by engine).
    var taken: [Int]
    /// The next group to hand out: `nextGroup` of pass `nextPass`.
    var nextPass = 0, nextGroup = 0
    var stopped = false
    /// The pass being weighed: jobs go no further than `ahead` passes after it (a job that would
    /// only be thrown away when this pass has a code is not started, and cannot delay the end).
    var weighing = 0
    /// How many reads of the pass being weighed are weighed (image by image, engine by engine).
    var weighed = 0
    let ahead: Int
    /// For each pass, the engine whose read of an image is handed out only once the reads of
    /// that image before it are weighed (nil: none waits).
    let holds: [Int?]

    /// `groups`: how many groups each pass's images come in (one each when not given).
    init(lookers: [Int], groups: [Int]? = nil, holds: [Int?]? = nil, ahead: Int = 1) {
        self.lookers = lookers
        self.groups = (groups ?? Array(repeating: 1, count: lookers.count)).map { max(1, $0) }
        self.holds = holds ?? Array(repeating: nil, count: lookers.count)
        self.ahead = max(1, ahead)
        groupsMade = self.groups.map { Array(repeating: nil, count: $0) }
        frames = Array(repeating: nil, count: lookers.count)
        reads = Array(repeating: [], count: lookers.count)
        taken = Array(repeating: 0, count: lookers.count)
    }

    /// Whether every group of pass `p` is made.
    func complete(_ p: Int) -> Bool { groupsMade[p].allSatisfy { $0 != nil } }

    /// Pass `p`'s only group made.
    mutating func made(_ p: Int, _ images: [TransformedFrame]) { made(p, 0, images) }

    /// Group `m` of pass `p` made: the pass's images that can be read grow by every group now
    /// made in order.
    mutating func made(_ p: Int, _ m: Int, _ images: [TransformedFrame]) {
        guard groupsMade[p].indices.contains(m), groupsMade[p][m] == nil else { return }
        groupsMade[p][m] = images
        var ready: [TransformedFrame] = []
        for group in groupsMade[p] {
            guard let group else { break }
            ready += group
        }
        guard m == 0 || frames[p] != nil else { return }
        let before = frames[p]?.count ?? 0
        frames[p] = ready
        reads[p] += Array(repeating: Array(repeating: nil, count: lookers[p]), count: ready.count - before)
    }

    /// The next pass's images made, and the first reads of its first image in (its first
    /// engines' reads, which were made elsewhere): their jobs are not handed out.
    mutating func given(_ p: Int, _ images: [TransformedFrame], reads known: [[Symbol]]) {
        guard p == nextPass, nextGroup == 0, groups[p] == 1, !images.isEmpty, known.count <= lookers[p] else { return }
        made(p, 0, images)
        for (k, list) in known.enumerated() { reads[p][0][k] = list }
        taken[p] = known.count
        nextPass = p + 1
    }

    /// The earliest read not yet handed out, else the next group of images to make; `wait` while
    /// nothing can be handed out now but more may come, `over` when nothing more will.
    mutating func next() -> Job {
        guard !stopped else { return .over }
        let reach = min(frames.count, weighing + 1 + ahead)
        for p in 0..<min(nextPass + 1, reach) {
            if let images = frames[p], taken[p] < images.count * lookers[p] {
                if let hold = holds[p], taken[p] % lookers[p] == hold, p > weighing || (p == weighing && weighed < taken[p]) { return .wait }
                taken[p] += 1
                let j = taken[p] - 1
                return .read(p, j / lookers[p], j % lookers[p], images[j / lookers[p]])
            }
        }
        if nextPass < reach {
            let job = Job.make(nextPass, nextGroup)
            nextGroup += 1
            if nextGroup == groups[nextPass] { nextPass += 1; nextGroup = 0 }
            return job
        }
        return moreMayCome ? .wait : .over
    }

    /// Whether any job may still be handed out: a group not yet made (or being made), or a read
    /// not yet taken.
    var moreMayCome: Bool {
        !stopped && (nextPass < frames.count || frames.indices.contains { p in
            !complete(p) || taken[p] < (frames[p]?.count ?? 0) * lookers[p]
        })
    }
}
