import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import ScanRuntime
import TestThreads
import Testing

/// The capture pipeline's deep looks, driven by hand: which scenes they spare.
@Suite(.onTestThreads) struct CapturePipelineTests {
    /// A deep look given up because the scene moved on did not look at the whole scene: when the
    /// scene comes back, its deep passes run again. (It was marked fruitless: in continuous mode
    /// a UPC-A under glare that only the deep passes read, alternating with another code, was
    /// sent once and then never again.)
    @Test func aDeepLookGivenUpDoesNotMarkItsSceneFruitless() throws {
        let glare = try ImageFile.load(Fixture.path("upca-glare.png"))
        let plain = try ImageFile.load(Fixture.path("no-code.png"))
        let pipeline = CapturePipeline()
        let tuning = KioskTuning(settings: KioskSettings(), viewport: .full, decoder: DecodePipeline())
        let work = CaptureWork.decode(session: 1, watching: false)
        func job(_ frame: GrayFrame) -> CapturePipeline.DeepJob? { pipeline.firstLook(for: frame, work: work, tuning: tuning).1 }
        func read(_ inputs: [KioskCore.Input]) -> [String] {
            inputs.flatMap { input -> [String] in
                if case .decoded(_, let symbols, _, _, _, _, let fromDeepLook) = input, fromDeepLook { return symbols.map(\.text) }
                return []
            }
        }

        // The first deep look: the scene moves on at its first check between passes.
        let first = try #require(job(glare), "the first look leaves the glare UPC-A to the deep passes")
        var checks = 0
        let givenUp = pipeline.deepLook(first, current: {
            checks += 1
            if checks == 2 { _ = job(plain) } // another scene's frame is first-looked meanwhile
            return true
        }, now: .zero, torchOn: false)
        let said = givenUp.filter { if case .guidance = $0 { false } else { true } }
        #expect(said.isEmpty, "given up: no code, and no frame without one (\(givenUp))")

        // The scene comes back: its deep passes run and read the code.
        let again = try #require(job(glare))
        let inputs = pipeline.deepLook(again, current: { true }, now: .seconds(1), torchOn: false)
        #expect(read(inputs) == ["725078102615"], "\(inputs)")

        // A deep look that ran to its end and found nothing does spare its scene next time.
        let empty = try #require(job(plain))
        let nothing = pipeline.deepLook(empty, current: { true }, now: .seconds(2), torchOn: false)
        #expect(nothing.contains { if case .deepLookFoundNothing(_, let s) = $0 { s > 0 } else { false } })
        let spared = pipeline.deepLook(try #require(job(plain)), current: { true }, now: .seconds(3), torchOn: false)
        #expect(spared.count == 1 && spared.contains { if case .deepLookFoundNothing(_, 0) = $0 { true } else { false } }, "\(spared)")
    }

    /// A code only the deep passes read, taken away: the scene shown instead, held still, shows
    /// something else where the code was, and when it ends the kiosk is told the code left the
    /// view, whether or not that scene's deep passes read it through (continuous mode sent such
    /// a code once and held back its returns as repeats when they did not). A scene that passed
    /// in one frame says nothing.
    @Test func aCodeTakenAwayOverAStillSceneLeftTheView() throws {
        let glare = try ImageFile.load(Fixture.path("upca-glare.png"))
        let plain = try ImageFile.load(Fixture.path("no-code.png"))
        let code = CodeIdentity(Symbol(symbology: .upcA, text: "725078102615"))
        let tuning = KioskTuning(settings: KioskSettings(), viewport: .full, decoder: DecodePipeline())
        let work = CaptureWork.decode(session: 1, watching: false)
        for framesAway in [1, CapturePipeline.stillFrames] {
            let pipeline = CapturePipeline()
            func look(_ frame: GrayFrame) -> ([KioskCore.Input], CapturePipeline.DeepJob?) { pipeline.firstLook(for: frame, work: work, tuning: tuning) }
            let read = pipeline.deepLook(try #require(look(glare).1), current: { true }, now: .zero, torchOn: false)
            #expect(read.contains { if case .decoded(_, let s, _, _, _, _, true) = $0 { s.map(CodeIdentity.init) == [code] } else { false } })
            for _ in 0..<framesAway { _ = look(plain) }
            let back = look(glare).0
            let left = back.compactMap { if case .codesLeftView(1, let codes) = $0 { codes } else { nil } }
            #expect(left == (framesAway == 1 ? [] : [[code]]), "\(framesAway) frames away: \(back)")
        }
    }

    /// A code back in view is told to have left it before its read: the read is then a new
    /// sighting. (Told when the scene's given-up deep passes noticed, after the read, the Code
    /// 128 alternating with a UPC-A under glare, 4 frames each, was sent twice in most showings.)
    @Test func aCodeIsToldToHaveLeftBeforeItsReadComesBack() throws {
        let glare = try ImageFile.load(Fixture.path("upca-glare.png"))
        let code128 = try ImageFile.load(Fixture.path("code128.png"))
        let tuning = KioskTuning(settings: KioskSettings(), viewport: .full, decoder: DecodePipeline())
        let work = CaptureWork.decode(session: 1, watching: false)
        let pipeline = CapturePipeline()
        func look(_ frame: GrayFrame) -> ([KioskCore.Input], CapturePipeline.DeepJob?) { pipeline.firstLook(for: frame, work: work, tuning: tuning) }
        for _ in 0..<CapturePipeline.stillFrames { #expect(look(code128).1 == nil, "the first look reads the Code 128") }
        var job: CapturePipeline.DeepJob?
        for _ in 0..<CapturePipeline.stillFrames { job = look(glare).1 }
        let back = look(code128).0
        let told = back.firstIndex { if case .codesLeftView = $0 { true } else { false } }
        let read = back.firstIndex { if case .decoded(_, let s, _, _, _, _, _) = $0 { !s.isEmpty } else { false } }
        #expect(told != nil && read != nil && told! < read!, "\(back)")
        // The glare scene's deep passes, given up as the Code 128 came back, say nothing more.
        let givenUp = pipeline.deepLook(try #require(job), current: { true }, now: .seconds(1), torchOn: false)
        #expect(!givenUp.contains { if case .codesLeftView = $0 { true } else { false } }, "\(givenUp)")
        // The next frame of the same showing: nothing left the view.
        #expect(!look(code128).0.contains { if case .codesLeftView = $0 { true } else { false } })
    }
}
