@testable import Decoding
import ImageLoading
import POSIX
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// The deep passes spread over threads give what one thread gives.
@Suite(.onTestThreads) struct ParallelPassesTests {
    @Test func twoThreadsReadWhatOneReads() throws {
        var frames: [GrayFrame] = [
            try DataMatrixGridTests.camera(turn: 0.2, scale: 0.34, noise: 50),
            try AztecRectifiedTests.slanted(),
            ImagePass.bordered(try ImageFile.load(Fixture.path("aztec-rune-68.png")), 20),
            ImagePass.map(try ImageFile.load(Fixture.path("qr.png"))) { 255 &- $0 },
            GrayFrame(width: 320, height: 240, pixels: (0..<(320 * 240)).map { UInt8(($0 * 7919) % 97 + 80) }),
        ]
        frames += try PipelineTests.seed.prefix(6).map { try ImageFile.load(Fixture.path($0.file)) }
        let one = DecodePipeline(), two = DecodePipeline(workers: 2)
        #expect(two.workers == 2 && two.helperEngines.count == 2)
        for (k, frame) in frames.enumerated() {
            let a = one.decode(frame), b = two.decode(frame)
            #expect(a.map(\.text) == b.map(\.text), "frame \(k)")
            #expect(a.map(\.corners) == b.map(\.corners), "frame \(k)")
        }
        // The hard frames above are read only by the deep passes, the noise by nothing.
        #expect(two.decode(frames[0]).map(\.text) == ["scand DataMatrix fixture"])
        #expect(two.decode(frames[2]).map(\.text) == ["068"])
        #expect(two.decode(frames[4]).isEmpty)
    }

    /// A decode told to give up (`scand decode --time-limit`) stops its deep passes, on one
    /// thread and on two, and still gives what the first look read.
    @Test func anAbandonedDecodeStopsItsDeepPasses() throws {
        let deepOnly = ImagePass.bordered(try ImageFile.load(Fixture.path("aztec-rune-68.png")), 20)
        let plain = try ImageFile.load(Fixture.path("qr.png"))
        for pipeline in [DecodePipeline(), DecodePipeline(workers: 2)] {
            #expect(pipeline.decode(deepOnly).map(\.text) == ["068"], "workers \(pipeline.workers)")
            let asked = Locked(0)
            let given = pipeline.decode(deepOnly, viewport: .full, abandon: { asked.withLock { $0 += 1; return true } })
            #expect(given.isEmpty && asked.withLock { $0 } > 0, "workers \(pipeline.workers)")
            #expect(!pipeline.decode(plain, viewport: .full, abandon: { true }).isEmpty, "workers \(pipeline.workers): the first look's read")
        }
    }

    @Test func theJobsGoInPassOrderAndNoFurtherThanOnePassAhead() {
        // Four passes; pass 1's images are read by two engines.
        var jobs = ParallelPasses(lookers: [1, 2, 1, 1])
        guard case .make(0, 0) = jobs.next() else { Issue.record("first: make pass 0"); return }
        guard case .make(1, 0) = jobs.next() else { Issue.record("then: make pass 1"); return }
        // Pass 2 is two ahead of the pass being weighed (0): not yet.
        guard case .wait = jobs.next() else { Issue.record("wait while passes 0 and 1 are made"); return }
        let blank = TransformedFrame(frame: GrayFrame(width: 1, height: 1, pixels: [0]), scale: 1)
        jobs.made(1, [blank, blank])
        jobs.made(0, [blank])
        guard case .read(0, 0, 0, _) = jobs.next() else { Issue.record("the earliest image first"); return }
        // Image by image, engine by engine.
        guard case .read(1, 0, 0, _) = jobs.next() else { Issue.record("then pass 1's first image, first engine"); return }
        guard case .read(1, 0, 1, _) = jobs.next() else { Issue.record("its second engine"); return }
        guard case .read(1, 1, 0, _) = jobs.next() else { Issue.record("then pass 1's second image"); return }
        #expect(jobs.moreMayCome)
        guard case .read(1, 1, 1, _) = jobs.next() else { Issue.record("and its second engine"); return }
        guard case .wait = jobs.next() else { Issue.record("pass 2 waits for pass 0 to be weighed"); return }
        #expect(jobs.reads[1].count == 2 && jobs.reads[1][0].count == 2)
        jobs.weighing = 1
        guard case .make(2, 0) = jobs.next() else { Issue.record("then pass 2"); return }
        jobs.stopped = true
        guard case .over = jobs.next() else { Issue.record("stopped: over"); return }
        #expect(!jobs.moreMayCome)
    }

    /// A deferred first look: pass 0 (the region as it is) is given with its first engine's read
    /// in, so only the second engine's read of it is handed out, and two passes may run beside it.
    @Test func aGivenPassHandsOutOnlyWhatIsMissing() {
        var jobs = ParallelPasses(lookers: [2, 1, 2, 1], ahead: 2)
        let blank = TransformedFrame(frame: GrayFrame(width: 1, height: 1, pixels: [0]), scale: 1)
        jobs.given(0, [blank], reads: [[]])
        #expect(jobs.reads[0][0][0] != nil && jobs.reads[0][0][1] == nil)
        guard case .read(0, 0, 1, _) = jobs.next() else { Issue.record("the second engine's read of pass 0"); return }
        guard case .make(1, 0) = jobs.next() else { Issue.record("then pass 1"); return }
        guard case .make(2, 0) = jobs.next() else { Issue.record("and pass 2: two ahead of pass 0"); return }
        guard case .wait = jobs.next() else { Issue.record("pass 3 waits"); return }
        // Given out of turn (pass 1 is being made): ignored.
        jobs.given(1, [blank], reads: [[]])
        #expect(jobs.frames[1] == nil)
    }

    /// A pass made in groups (`ImagePass.makers`): each group is a job of its own, the groups of
    /// one pass handed out together; its images are read in order as the groups before them
    /// are in, and the pass is weighed to its end only when every group is made.
    @Test func aPassInGroupsIsReadAsItsGroupsComeInOrder() {
        var jobs = ParallelPasses(lookers: [1, 2], groups: [1, 3])
        let blank = TransformedFrame(frame: GrayFrame(width: 1, height: 1, pixels: [0]), scale: 1)
        guard case .make(0, 0) = jobs.next() else { Issue.record("make pass 0"); return }
        guard case .make(1, 0) = jobs.next() else { Issue.record("pass 1's first group"); return }
        guard case .make(1, 1) = jobs.next() else { Issue.record("its second"); return }
        guard case .make(1, 2) = jobs.next() else { Issue.record("its third"); return }
        guard case .wait = jobs.next() else { Issue.record("all handed out: wait"); return }
        // The second group is made first: nothing of pass 1 can be read before the first.
        jobs.made(1, 1, [blank])
        #expect(jobs.frames[1] == nil && !jobs.complete(1))
        guard case .wait = jobs.next() else { Issue.record("the second group waits for the first"); return }
        jobs.made(1, 0, [blank, blank])
        #expect(jobs.frames[1]?.count == 3 && jobs.reads[1].count == 3 && !jobs.complete(1))
        guard case .read(1, 0, 0, _) = jobs.next() else { Issue.record("pass 1's first image"); return }
        for _ in 0..<5 { _ = jobs.next() }
        guard case .wait = jobs.next() else { Issue.record("three images, two engines: six reads, then wait"); return }
        #expect(jobs.moreMayCome, "the third group is still being made")
        jobs.made(1, 2, [])
        jobs.made(0, 0, [])
        #expect(jobs.complete(1) && jobs.frames[1]?.count == 3)
        guard case .over = jobs.next() else { Issue.record("everything read: over"); return }
        #expect(!jobs.moreMayCome)
    }

    /// zbar's look at the region as it is (the last engine of the given pass) waits until the
    /// reads before it are weighed, and nothing after it is handed out first: a quick read
    /// that finds the code ends the frame without a slow one running on.
    @Test func theSlowReadWaitsForTheQuickReadsBeforeIt() {
        var jobs = ParallelPasses(lookers: [4, 2], holds: [3, nil], ahead: 2)
        let blank = TransformedFrame(frame: GrayFrame(width: 1, height: 1, pixels: [0]), scale: 1)
        jobs.given(0, [blank], reads: [[]])
        guard case .read(0, 0, 1, _) = jobs.next() else { Issue.record("the first quick read"); return }
        guard case .read(0, 0, 2, _) = jobs.next() else { Issue.record("the second quick read"); return }
        guard case .wait = jobs.next() else { Issue.record("the slow read waits, and pass 1 behind it"); return }
        jobs.weighed = 2
        guard case .wait = jobs.next() else { Issue.record("one quick read still to weigh"); return }
        jobs.weighed = 3
        guard case .read(0, 0, 3, _) = jobs.next() else { Issue.record("both weighed: the slow read"); return }
        guard case .make(1, 0) = jobs.next() else { Issue.record("then pass 1"); return }
    }

    /// The frames with nothing for the first engine: two threads (the second engine's look beside
    /// the first passes) give what one gives.
    @Test func aDeferredFirstLookGivesWhatOneThreadGives() throws {
        let frames = [
            try ImageFile.load(Fixture.path("glare-itf14.png")),
            try ImageFile.load(Fixture.path("blurred-upca.png")),
            try ImageFile.load(Fixture.path("itf14-crossed.jpg")),
        ]
        let one = DecodePipeline(), two = DecodePipeline(workers: 2)
        for (k, frame) in frames.enumerated() {
            #expect(one.decode(frame).map(\.text) == two.decode(frame).map(\.text), "frame \(k)")
        }
        // zxing reads nothing in the crossed ITF-14 at first look; the look is deferred, and
        // the read comes from the deep look.
        let look = two.firstLook(frames[2], viewport: .full, othersDeferred: true)
        #expect(look.deferred && look.symbols.isEmpty)
        #expect(two.decode(frames[2]).map(\.text) == one.decode(frames[2]).map(\.text))
    }

    /// One thread defers as well: where zxing's first look reads nothing, the first look is
    /// zxing's alone, and the deep look reads the region as it is with zxing's other thresholds,
    /// then zbar, in the place of the `thresholds` pass (after `rotate`, which reads a turned
    /// linear code sooner). A pipeline without deep passes (`fast`), or given its passes to
    /// measure them, still has every engine look first.
    @Test func oneThreadLeavesTheOtherEnginesLookToTheDeepLook() throws {
        let one = DecodePipeline()
        for (file, text) in [("upca-glare.png", "725078102615"), ("itf-turned.jpg", "885877356459")] {
            let frame = try ImageFile.load(Fixture.path(file))
            let look = one.firstLook(frame, viewport: .full)
            #expect(look.deferred && look.symbols.isEmpty, "\(file)")
            #expect(one.deepLook(look, abandon: { false }).map(\.text) == [text], "\(file)")
            #expect(one.decode(frame).map(\.text) == [text], "\(file)")
            #expect(!DecodePipeline(quality: .fast).firstLook(frame, viewport: .full).deferred, "\(file)")
            #expect(!DecodePipeline(passes: [.rotate]).firstLook(frame, viewport: .full).deferred, "\(file)")
        }
    }

    /// A Code 39 under glare that zxing reads and zbar does not (cut from seed 2468): the first
    /// look accepts zxing's read on zxing's own reread from a resampled crop, and leaves zbar's
    /// look at the whole region (3-11 ms) to the deep look, which is not needed; a first look
    /// that does not defer (`lookFirst`'s default) still has zbar look. Both give the code.
    @Test func aReadZXingReadsAgainNeedsNoOtherLookAtTheWholeFrame() throws {
        let frame = try ImageFile.load(Fixture.path("code39-zxing-only.png"))
        #expect(ZBarDecoder().decode(frame).isEmpty)
        let two = DecodePipeline(workers: 2)
        let look = two.lookFirst(frame, othersDeferred: true)
        #expect(look.othersSkipped && look.lists.count == 2 && look.lists[1].isEmpty)
        #expect(look.lists[0].map(\.text) == ["H83UJ"])
        let one = DecodePipeline()
        #expect(!one.lookFirst(frame).othersSkipped)
        #expect(two.firstLook(frame, viewport: .full, othersDeferred: true).symbols.map(\.text) == ["H83UJ"])
        #expect(two.decode(frame).map(\.text) == ["H83UJ"])
        #expect(one.decode(frame).map(\.text) == ["H83UJ"])
    }
}
