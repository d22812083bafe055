@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// Two misreads of a never-seen generated set (seed 3579) that both engines made alike: a UPC-A
/// under glare read as another valid UPC-A, and a turned ITF read as two parts of itself.
@Suite(.onTestThreads) struct MisreadGuardTests {
    /// Cut from seed 3579 (UPC-A-10-glare.jpg, make-fixtures.sh): glare lifts the bars of the
    /// right half, and zbar and zxing both read 739695488687, whose bars fit the image. Under
    /// the highlights curve zbar reads 739695422681, the code: the read is dropped, and the
    /// pipeline gives the code (from the highlights pass).
    @Test func aGlaredEANReadThatTheCurveContradictsIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("upca-glare-misread.png"))
        let misread = try #require(ZBarDecoder().decode(frame).first)
        #expect(misread.text == "739695488687", "the misread this guards against")
        #expect(EANVerifier.verify(misread, in: frame) == .fits)
        #expect(DecodePipeline.underGlare(frame, around: misread))
        let pipeline = DecodePipeline()
        #expect(pipeline.firstLook(frame, viewport: .full).symbols.isEmpty)
        #expect(pipeline.decode(frame).map(\.text) == ["739695422681"])
        #expect(DecodePipeline(quality: .accurate).decode(frame).map(\.text) == ["739695422681"])
    }

    /// `make-devset.py OUT --seed 4343 --crossed 20`, Code-39-19-crossed.jpg as it is: a Code 39
    /// `L5YPU` with a steep dark line across its `Y`; the `resampled` pass read `L5.PU` on every
    /// row it took. The median of the lines across the code, aligned to the bars' lean, leaves
    /// the line out and reads `L5YPU`: the read is dropped (a no-read, not a misread).
    @Test func aCodeWithoutACheckCharacterReadThroughACrossingLineIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("code39-crossed-line.jpg"))
        let pipeline = DecodePipeline()
        #expect(!pipeline.decode(frame).contains { $0.text == "L5.PU" })
        let misread = Symbol(symbology: .code39, text: "L5.PU", corners: [PixelPoint(x: 239, y: 220), PixelPoint(x: 107, y: 220)])
        let median = try #require(MedianProfile.image(of: misread, in: frame))
        #expect(pipeline.engines.flatMap { $0.decode(median) }.map(\.text).contains("L5YPU"))
        #expect(pipeline.withoutCrossedMisreads([misread], in: frame).isEmpty)
    }

    /// `make-devset.py OUT --seed 7272 --crossed 20`, UPC-E-01-crossed.png cut: a UPC-E of
    /// 04165286 crossed by a dark line, which both engines' first looks read as 04165246 (a
    /// valid check digit). The median of the lines across it reads 04165286: the misread is
    /// dropped, and a later pass reads the code.
    @Test func aShortEANReadThroughACrossingLineIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("upce-crossed-median.png"))
        let pipeline = DecodePipeline()
        #expect(!pipeline.firstLook(frame, viewport: .full).symbols.contains { $0.text == "04165246" })
        #expect(pipeline.decode(frame).map(\.text) == ["04165286"])
    }

    /// zint codes placed so that the kiosk's default viewport (0.1, 0.1, 0.8, 0.8) ends inside
    /// them (a second tryout's images): the EAN-13 5008798113518 was read as the UPC-E 10087985
    /// of its left half, the ITF 891643175950 as the ITF 89164317. Past the viewport's edge
    /// the frame shows the bars going on: no read (the code is to be held inside the viewport);
    /// the whole frame reads each code. A code near the edge with plain paper past it stays.
    @Test func aCodeCutByTheViewportIsNotReadAsAPartOfIt() throws {
        let viewport = Viewport(x: 0.1, y: 0.1, width: 0.8, height: 0.8)
        for (file, whole) in [("ean13-past-viewport.png", "5008798113518"), ("itf-past-viewport.png", "891643175950")] {
            let frame = try ImageFile.load(Fixture.path(file))
            #expect(DecodePipeline().decode(frame, viewport: viewport).isEmpty, "\(file)")
            #expect(DecodePipeline().decode(frame).map(\.text) == [whole], "\(file)")
        }
        let itf = try ImageFile.load(Fixture.path("itf.png"))
        #expect(DecodePipeline().decode(itf, viewport: Viewport(x: 0, y: 0, width: 0.93, height: 1)).map(\.text) == ["12345678"])
    }

    /// Real codes without a check character, clean, glared, blurred, turned: the median of the
    /// lines across each reads it as it is (clean and turned) or reads nothing (glare and blur
    /// leave too little in one line), never another text; the read stays.
    @Test func theMedianOfARealCodeReadsTheCodeOrNothing() throws {
        let pipeline = DecodePipeline()
        for (file, text, medianReads) in [("code39.png", "SCAND-39", true), ("code39-glare.png", "T0QLMGE", false),
                                          ("code39-blur-wide.png", "HB01J", false), ("itf.png", "12345678", true),
                                          ("itf-turned.jpg", "885877356459", true)] {
            let frame = try ImageFile.load(Fixture.path(file))
            let read = try #require(pipeline.decode(frame).first { $0.text == text }, "\(file)")
            let median = try #require(MedianProfile.image(of: read, in: frame), "\(file)")
            let reads = pipeline.engines.flatMap { $0.decode(median) }.filter { $0.symbology == read.symbology }
            #expect(reads.allSatisfy { $0.text == text } && reads.isEmpty != medianReads, "\(file): \(reads.map(\.text))")
            #expect(pipeline.withoutCrossedMisreads([read], in: frame).map(\.text) == [text], "\(file)")
        }
    }

    /// The glare test is narrow: a code in even light (dark bars everywhere) and a low-contrast
    /// one (no clipped paper) are not glared, so their reads cost no crop read.
    @Test func onlyAGlaredCropCountsAsGlared() throws {
        for file in ["upca.png", "ean13.png", "ean13.jpg"] {
            let frame = try ImageFile.load(Fixture.path(file))
            let read = try #require(ZBarDecoder().decode(frame).first)
            #expect(!DecodePipeline.underGlare(frame, around: read), "\(file)")
        }
        let grey = GrayFrame(width: 64, height: 16, pixels: (0..<(64 * 16)).map { UInt8(100 + ($0 % 64) / 4) })
        #expect(!DecodePipeline.underGlare(grey))
        // Clipped paper, bars lifted to 200 in the right strips: glared.
        let lifted = GrayFrame(width: 64, height: 16, pixels: (0..<(64 * 16)).map { i in
            let x = i % 64
            return x % 4 == 0 ? (x < 32 ? 20 : 200) : 255
        })
        #expect(DecodePipeline.underGlare(lifted))
    }

    /// Seed 3579's turned ITF of 63041682 read along two slanted lines (the pipeline's localRange
    /// and resampled images): 630416 and 041682, the same kind, overlapping spans and texts.
    /// Both go; a lone read, two different codes side by side, and a Code 128 (check character)
    /// stay.
    @Test func partsOfOneCodeReadAlongTwoLinesAreDropped() {
        let a = Symbol(symbology: .itf, text: "041682", corners: [PixelPoint(x: 130, y: 352), PixelPoint(x: 395, y: 352), PixelPoint(x: 394, y: 354), PixelPoint(x: 131, y: 354)])
        let b = Symbol(symbology: .itf, text: "630416", corners: [PixelPoint(x: 70, y: 311), PixelPoint(x: 335, y: 311), PixelPoint(x: 335, y: 307), PixelPoint(x: 72, y: 307)])
        #expect(DecodePipeline.withoutOverlappingParts([a, b]).isEmpty)
        #expect(DecodePipeline.withoutOverlappingParts([a]).map(\.text) == ["041682"])
        // Texts that do not overlap, or codes far apart along the line: two codes.
        let other = Symbol(symbology: .itf, text: "987654", corners: b.corners)
        #expect(DecodePipeline.withoutOverlappingParts([a, other]).count == 2)
        let apart = Symbol(symbology: .itf, text: "630416", corners: [PixelPoint(x: 500, y: 311), PixelPoint(x: 765, y: 311)])
        #expect(DecodePipeline.withoutOverlappingParts([a, apart]).count == 2)
        let c128 = Symbol(symbology: .code128, text: "630416", corners: b.corners)
        #expect(DecodePipeline.withoutOverlappingParts([a, c128]).count == 2)
    }

    /// Cut from a crossed set (seed 4343, UPC-E-07-crossed.png): a dark line across a UPC-E of
    /// 07249969. zxing with its fixed threshold reads the code and 07249949 in one place (the
    /// scan lines along the stroke), and the misread passed the checks: the pipeline's answer
    /// on this crop. One engine's two different EAN/UPC reads in one place now count for
    /// neither; a later pass reads the code alone.
    @Test func twoDifferentEANReadsInOnePlaceCountForNeither() throws {
        let frame = try ImageFile.load(Fixture.path("upce-crossed.png"))
        var effort = ZXingDecoder.Effort.standard
        effort.binarizer = 2
        let both = ZXingDecoder(effort: effort).decode(frame)
        #expect(Set(both.map(\.text)) == ["07249969", "07249949"], "the two reads this guards against")
        #expect(both.count == 2 && Symbol.overlap(both[0], both[1]))
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text) == ["07249969"], "\(workers) workers")
        }
        #expect(DecodePipeline(quality: .accurate).decode(frame).map(\.text) == ["07249969"])
    }

    /// The same crop enlarged (`resampled`): zbar reads 07249949 there from a thin band of lines
    /// (across under a thirtieth of its length, the whole code long) whose bars fit the enlarged
    /// image. A thin EAN/UPC
    /// read of an enlarged image does not count: the pass, now early for a frame in focus,
    /// would answer the misread before the sharpened frame's read.
    @Test func aThinEANReadOfAnEnlargedImageDoesNotCount() throws {
        let frame = try ImageFile.load(Fixture.path("upce-crossed.png"))
        let zbar = ZBarDecoder()
        let misreads = ImagePass.resampled.apply(frame).flatMap { zbar.decode($0.frame) }.filter { $0.text == "07249949" }
        #expect(misreads.contains { $0.corners.count >= 2 && DecodePipeline.isThin($0) }, "\(misreads.map(\.corners))")
        for workers in [1, 2] {
            #expect(!DecodePipeline(workers: workers, passes: [.resampled]).decode(frame).contains { $0.text == "07249949" }, "\(workers) workers")
        }
        let order = ImagePass.passes(for: .balanced, condition: FrameCondition(of: frame))
        #expect(order.firstIndex(of: .resampled)! < order.firstIndex(of: .sharpen)!)
    }

    /// The rule on reads alone: an engine that reads two different EAN/UPC codes in one place
    /// confirms neither, even where the other engine reads one of them alike; the other
    /// engine's read still counts (confirmed by the first engine's like read). Codes apart are
    /// two codes.
    @Test func anEngineThatContradictsItselfConfirmsNothing() {
        let pipeline = DecodePipeline()
        let line = { (y: Int) in [PixelPoint(x: 79, y: y), PixelPoint(x: 203, y: y), PixelPoint(x: 203, y: y + 2), PixelPoint(x: 79, y: y + 2)] }
        let code = Symbol(symbology: .upcE, text: "07249969", corners: line(95))
        let misread = Symbol(symbology: .upcE, text: "07249949", corners: line(105))
        #expect(Symbol.overlap(code, misread))
        #expect(pipeline.confirmed([[code, misread], [code, misread]], by: pipeline.engines, in: GrayFrame(width: 280, height: 200, pixels: [UInt8](repeating: 200, count: 280 * 200))).isEmpty)
        let blank = GrayFrame(width: 600, height: 200, pixels: [UInt8](repeating: 200, count: 600 * 200))
        #expect(pipeline.confirmed([[code, misread], [code]], by: pipeline.engines, in: blank).map(\.text) == ["07249969"])
        var apart = misread
        apart.corners = apart.corners.map { PixelPoint(x: $0.x + 300, y: $0.y) }
        #expect(!Symbol.overlap(code, apart))
        #expect(Set(pipeline.confirmed([[code, apart], [code, apart]], by: pipeline.engines, in: blank).map(\.text)) == ["07249969", "07249949"])
    }

    /// A blurred Code 128 (seed 6262, Code-128-04-blur.jpg) that only zxing reads, from the
    /// sharpened frame and from the deconvolved one, and never again from a crop of either:
    /// two passes' images that agree count for a code whose check character zxing checks.
    @Test func aCheckedCodeThatTwoPassesReadAlikeCounts() throws {
        let frame = try ImageFile.load(Fixture.path("code128-blur.jpg"))
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text) == ["U8b82T"], "\(workers) workers")
        }
    }

    /// The rule on reads alone: one engine's doubtful Code 128 or Code 93 read counts when the
    /// same engine read it from another pass's image (not from the same image with another
    /// threshold, and not in the first look); a code without a check character (Code 39) does not.
    @Test func onlyAnotherImageOfTheSameEngineConfirmsACheckedCode() {
        let pipeline = DecodePipeline()
        let zxing = pipeline.engines[0]
        let blank = GrayFrame(width: 400, height: 200, pixels: [UInt8](repeating: 200, count: 400 * 200))
        let line = [PixelPoint(x: 60, y: 100), PixelPoint(x: 340, y: 100)]
        for (symbology, counts) in [(Symbology.code128, true), (.code93, true), (.code39, false)] {
            let read = Symbol(symbology: symbology, text: "U8B82T", corners: line)
            let doubts = DecodePipeline.Doubts()
            #expect(!pipeline.accepts(read, readBy: zxing, in: blank, doubts), "the first look: nothing reads it again")
            doubts.image = .init(pass: 3, index: 0)
            #expect(!pipeline.accepts(read, readBy: zxing, in: blank, doubts), "a first pass image")
            #expect(!pipeline.accepts(read, readBy: pipeline.thresholdEngines[0], in: blank, doubts), "the same image, another threshold")
            doubts.image = .init(pass: 5, index: 1)
            #expect(pipeline.accepts(read, readBy: zxing, in: blank, doubts) == counts, "\(symbology): another pass's image")
        }
    }

    /// An EAN-13 (4006381333931, zint's size) turned 16° and shrunk to 0.55: modules of 1.1
    /// pixels. zxing's other thresholds read 4018381333231 (a valid check digit) whose bars do
    /// not fit the image, and no other engine read anything there to contradict it (zxing-cpp 3.1
    /// and zbar read nothing). A zxing read that does not fit, with modules finer than
    /// `finestModule`, reads again from a resampled crop before it counts: this one does not,
    /// and the code is read right from a later pass.
    @Test func aFineCodesReadThatDoesNotFitMustReadAgain() throws {
        let frame = try ImageFile.load(Fixture.path("ean13-fine-turned.png"))
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text).allSatisfy { $0 == "4006381333931" }, "\(workers) workers")
        }
        let misread = Symbol(symbology: .ean13, text: "4018381333231", corners: [PixelPoint(x: 41, y: 79), PixelPoint(x: 148, y: 79), PixelPoint(x: 150, y: 86), PixelPoint(x: 43, y: 86)])
        #expect(DecodePipeline.isFine(misread, enlarged: 1))
        let twice = Symbol(symbology: .ean13, text: "4006381333931", corners: misread.corners.map { PixelPoint(x: 2 * $0.x, y: 2 * $0.y) })
        #expect(!DecodePipeline.isFine(twice, enlarged: 1))
        #expect(DecodePipeline.isFine(twice, enlarged: 2), "read from a pass's image enlarged twice")
    }
}

/// Issue 42: a short code of two bar widths read as an EAN/UPC.
@Suite(.onTestThreads) struct TwoWidthLookalikeTests {
    /// A Code 39 `1HAH` beside a Code 128 (the misread corpus, seed 777): four characters of
    /// Code 39 are 59 bars and spaces over 95 modules, as an EAN-13 is, and zxing-cpp 3.1 reads
    /// them backwards as the EAN-13 4181222111111 (check digit valid). A Code 39 read in the
    /// same place tells: the pipeline answers with the codes in the frame and never the EAN-13.
    @Test func aCode39ReadAsAnEAN13IsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("code39-beside-code128.jpg"))
        let kinds: Set<Symbology> = [.ean13, .code39, .code128, .itf, .codabar]
        #expect(ZXingDecoder(symbologies: kinds).decode(frame).map(\.text).contains("4181222111111"), "the misread this guards against")
        let all = Set(Symbology.allCases).subtracting([.isbn10, .isbn13])
        let read = DecodePipeline(symbologies: all).decode(frame)
        #expect(!read.isEmpty && read.allSatisfy { ["1HAH", "9NB3H9A7Z8DBSNJBM8V"].contains($0.text) }, "\(read.map(\.text))")
        #expect(DecodePipeline(symbologies: all, stopsAtFirstCode: false).decode(frame).allSatisfy { !$0.symbology.isEANFamily })
        // Without a two-width symbology enabled, nothing can say so: the guard has no reader.
        #expect(DecodePipeline(symbologies: [.ean13, .code128]).twoWidthReaders.isEmpty)
    }
}

/// A UPC-E or EAN-8 read out of a part of a longer code: its ends lack a quiet zone
/// (`DecodePipeline.withoutPartsOfLongerEAN`).
@Suite(.onTestThreads) struct PartOfLongerEANTests {
    /// Cut from bench/make-misreads.py's add-on set --seed 4242 (EAN-13plus2-skew-03.png): an
    /// EAN-13 of 7674269897560 with its add-on 66, turned 27°. zxing-cpp 3.1 asked for every
    /// code reads along a row across its left half the UPC-E 16742697 (start guard, six digits,
    /// the centre guard and the next bar as UPC-E's end guard), bars that fit the image, and
    /// nothing else: `scand decode` reported it. Past its end the EAN-13's right half goes on
    /// where a whole code has its quiet zone: dropped, and the pipeline reads the EAN-13.
    @Test func aUPCEReadFromTheLeftHalfOfAnEAN13IsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("ean13-addon-skew.png"))
        var effort = ZXingDecoder.Effort.standard
        effort.maxSymbols = 0
        effort.tryRotate = false
        let misread = try #require(ZXingDecoder(effort: effort).decode(frame).first { $0.symbology == .upcE })
        #expect(misread.text == "16742697", "the misread this guards against")
        #expect(EANVerifier.verify(misread, in: frame) == .fits)
        #expect(DecodePipeline.withoutPartsOfLongerEAN([misread], in: frame).isEmpty)
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers, stopsAtFirstCode: false).decode(frame)
            #expect(read.map(\.text) == ["7674269897560"], "\(workers) workers")
        }
    }

    /// The same EAN-13 turned 58°, where only UPC-E and EAN-8 are read, at the accurate
    /// quality: a tile of the frame reads the UPC-E 16742697 with the tile's edge where the
    /// EAN-13's right half goes on. A pass's read is checked in the whole region, not in its
    /// tile: nothing is read (the kiosk reads no EAN-13 here).
    @Test func aPassReadsQuietZoneIsCheckedInTheWholeRegion() throws {
        let frame = try ImageFile.load(Fixture.path("ean13-addon-turned.png"))
        for workers in [1, 2] {
            let read = DecodePipeline(symbologies: [.upcE, .ean8], quality: .accurate, workers: workers).decode(frame)
            #expect(read.isEmpty, "\(workers) workers: \(read.map(\.text))")
        }
        #expect(DecodePipeline(workers: 1).decode(frame).map(\.text) == ["7674269897560"])
    }

    /// The left 51 modules of an upright EAN-13 taken as a UPC-E, and its left 67 as an EAN-8:
    /// bars go on past their right ends. The whole EAN-13's own span, taken as a code of its
    /// length, has quiet zones.
    @Test func aShortCodesSpanWithBarsPastItsEndFails() throws {
        let frame = try ImageFile.load(Fixture.path("ean13.png"))
        let code = try #require(ZXingDecoder().decode(frame).first)
        let b = code.bounds
        let module = Double(b.width) / 95, y = b.y + b.height / 2
        for (symbology, modules) in [(Symbology.upcE, 51), (.ean8, 67)] {
            let end = b.x + Int((Double(modules) * module).rounded())
            let part = Symbol(symbology: symbology, text: "01234565", corners: [PixelPoint(x: b.x, y: y), PixelPoint(x: end, y: y)])
            #expect(DecodePipeline.withoutPartsOfLongerEAN([part], in: frame).isEmpty, "\(symbology)")
            #expect(!BarRun.hasQuietEnds(in: frame, centre: (Double(b.x + end) / 2, Double(y)), angle: 0,
                                         ends: (-Double(end - b.x) / 2, Double(end - b.x) / 2), modules: modules), "\(symbology)")
        }
        #expect(BarRun.hasQuietEnds(in: frame, centre: (Double(b.x) + Double(b.width) / 2, Double(y)), angle: 0,
                                    ends: (-Double(b.width) / 2, Double(b.width) / 2), modules: 95))
        // An even frame, or a span whose end the frame cuts: the image cannot tell.
        let even = GrayFrame(width: 200, height: 100, pixels: [UInt8](repeating: 128, count: 20000))
        #expect(BarRun.hasQuietEnds(in: even, centre: (100, 50), angle: 0, ends: (-60, 60), modules: 51))
        #expect(BarRun.hasQuietEnds(in: frame, centre: (Double(b.x) + Double(b.width) / 2, Double(y)), angle: 0,
                                    ends: (-Double(b.width) / 2 - 60, Double(b.width) / 2 + 60), modules: 51))
    }

    /// Whole UPC-E codes with an add-on 7 modules past their end guard (the least a printer
    /// leaves), where a guard that looked for any bars a few modules past the end dropped the
    /// two zxing-cpp samples: a zint code with an EAN-2, and zxing-cpp's upce-2/10.png (an
    /// add-on 6.5 modules off, a box edge past it) and upce-3/11.png (faint bars, an EAN-2 7
    /// modules off). Each is read, and its read passes.
    @Test func wholeUPCEsWithAnAddOnBesideThemStay() throws {
        let codes = [(Fixture.path("upce-addon2.png"), "01234565"), (Fixture.shared("zxing-cpp/upce-2/10.png"), "04963406"),
                     (Fixture.shared("zxing-cpp/upce-3/11.png"), "04965802")]
        for (path, text) in codes {
            let frame = try ImageFile.load(path)
            let read = DecodePipeline(stopsAtFirstCode: false).decode(frame)
            #expect(read.map(\.text) == [text], "\(path)")
            #expect(DecodePipeline.withoutPartsOfLongerEAN(read, in: frame).count == read.count, "\(path)")
        }
    }
}
