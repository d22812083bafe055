import Glibc
@testable import Decoding
import Dispatch
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

@Suite(.onTestThreads) struct PassTests {
    /// A short, wide linear code at 25°: no horizontal or vertical scan line crosses all of it.
    @Test func aSlantedLinearCodeIsTurnedUpright() throws {
        let upright = try ImageFile.load(Fixture.path("code93.png"))
        let padded = ImagePass.bordered(upright, upright.width / 2)
        let slanted = ImagePass.rotated(padded, by: 25 * Double.pi / 180, factor: 1, originX: 0, originY: 0).frame
        let angle = try #require(ImagePass.barAngle(slanted))
        #expect(abs(abs(angle) - 25 * Double.pi / 180) < 0.1, "\(angle * 180 / Double.pi)°")
        #expect(DecodePipeline(quality: .fast).decode(slanted).isEmpty, "the first look alone does not read it")
        let read = DecodePipeline().decode(slanted)
        #expect(read.map(\.text) == ["SCAND93"])
        let corners = try #require(read.first?.corners)
        #expect(corners.allSatisfy { $0.x >= 0 && $0.x <= slanted.width && $0.y >= 0 && $0.y <= slanted.height }, "\(corners)")
        #expect(ImagePass.barAngle(try ImageFile.load(Fixture.path("qr.png"))) == nil, "a 2D code has no one direction")
    }

    /// A long, short-barred code turned by 40° fills a sixth of its upright box: it is a
    /// candidate region by its extent along its own axes, and turned upright it is read (two
    /// such Code 128s in the generated sets 2026 and 8642 were found by no pass).
    @Test func aLongCodeAtFortyDegreesIsACandidateRegion() throws {
        let code = try ImageFile.load(Fixture.path("code128.png"))
        let slanted = ImagePass.rotated(ImagePass.bordered(code, code.width / 2), by: 40 * Double.pi / 180, factor: 1, originX: 0, originY: 0).frame
        let (cx, cy) = (slanted.width / 2, slanted.height / 2)
        let rects = RegionFinder.candidates(in: slanted)
        #expect(rects.contains { $0.x < cx && cx < $0.x + $0.width && $0.y < cy && cy < $0.y + $0.height && $0.width < slanted.width }, "\(rects)")
        let upright = ImagePass.rotate.apply(slanted)
        #expect(upright.contains { ZXingDecoder().decode($0.frame).map(\.text) == ["scand-128/ok"] })
        // The camera frame (see Tests/Fixtures/make-fixtures.sh): its code, 37° on a card among
        // clutter, was no candidate, and nothing read it.
        let frame = try ImageFile.load(Fixture.path("code128-turned.jpg"))
        #expect(RegionFinder.candidates(in: frame).contains { $0.x < 280 && 280 < $0.x + $0.width && $0.y < 260 && 260 < $0.y + $0.height }, "the code's centre")
        #expect(DecodePipeline().decode(frame).map(\.text) == ["iiWIO5TPV7PL2X"])
        // A part's axes: a filled 10 x 3 block of cells gives 10 and 3 exactly.
        var marked = [Bool](repeating: false, count: 20 * 20)
        for r in 5..<8 { for c in 4..<14 { marked[r * 20 + c] = true } }
        let axes = try #require(CellGrid.components(marked, columns: 20, rows: 20).first).axes
        #expect(abs(axes.long - 10) < 1e-9 && abs(axes.short - 3) < 1e-9, "\(axes)")
        // A thin diagonal line is not a code, along its axes or not.
        var line = [UInt8](repeating: 255, count: 400 * 400)
        for i in 20..<380 { for w in 0..<3 { line[i * 400 + min(399, i + w)] = 0 } }
        #expect(RegionFinder.candidates(in: GrayFrame(width: 400, height: 400, pixels: line)).isEmpty)
    }

    @Test func aCodeThatFillsTheCropGetsAQuietZone() throws {
        let frame = try ImageFile.load(Fixture.path("datamatrix.png"))
        let border = 10
        let bordered = ImagePass.bordered(frame, border)
        #expect(bordered.width == frame.width + 2 * border && bordered[0, 0] == 255 && bordered[border + 5, border + 5] == frame[5, 5])
        let t = ImagePass.quietZone.apply(frame)[0]
        let s = t.mapBack(Symbol(symbology: .qrCode, text: "x", corners: [PixelPoint(x: t.frame.width / 10 + 3, y: 40)]))
        #expect(s.corners.first?.x == t.frame.width / 10 + 3 - (t.frame.width - frame.width) / 2)
    }

    /// An image from outside may be a sliver (a 157-byte PNG of 1x40000 pixels): no pass frames
    /// or enlarges it past what a 720p frame's passes make. The quiet zone's border, a tenth of
    /// the longer side, made it 8001x48000 pixels (29 s and 1.5 GB in `scand decode`).
    @Test func aSliverOfAnImageIsNotMadeIntoMegapixels() {
        for (width, height) in [(1, 40_000), (40_000, 1), (3, 30_000)] {
            let sliver = GrayFrame(width: width, height: height, pixels: [UInt8](repeating: 255, count: width * height))
            let made = MadeImages()
            for pass in ImagePass.allCases {
                let largest = pass.apply(sliver, made: made).map { $0.frame.width * $0.frame.height }.max() ?? 0
                #expect(largest <= ImagePass.resampledPixels, "\(pass) made \(largest) pixels of \(width)x\(height)")
            }
        }
        #expect(DecodePipeline(quality: .accurate).decode(GrayFrame(width: 1, height: 40_000, pixels: [UInt8](repeating: 255, count: 40_000))).isEmpty)
        // A code that fills a frame of usual shape keeps its border of a tenth of the longer side.
        #expect(ImagePass.quietBorder(GrayFrame(width: 400, height: 100, pixels: [UInt8](repeating: 255, count: 40_000))) == 40)
    }
}

/// The passes for hard scenes: light that falls unevenly (a shadow's edge) divided out (the
/// flat field), noise averaged away at half size.
@Suite(.onTestThreads) struct HardScenePassTests {
    /// Paper (200) with dark bars (40), the part below a diagonal in a shadow that halves it.
    static func shadowed() -> GrayFrame {
        let w = 240, h = 160
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let ink = x >= 40 && x < 200 && (x / 6) % 3 == 0 && y >= 40 && y < 120
                let light = x + y > 200 ? 0.5 : 1.0
                pixels[y * w + x] = UInt8(Double(ink ? 40 : 200) * light)
            }
        }
        return GrayFrame(width: w, height: h, pixels: pixels)
    }

    @Test func theLightIsDividedOutAndTheBarsStayDark() {
        let frame = Self.shadowed()
        let flat = ImagePass.flattened(frame)
        #expect(flat.width == frame.width && flat.height == frame.height)
        // Paper in full light and in the shadow, away from the shadow's edge and the bars.
        for (x, y) in [(20, 20), (150, 20), (220, 140), (30, 150), (220, 60)] {
            #expect(abs(Int(flat[x, y]) - 230) <= 12, "paper at \(x),\(y): \(flat[x, y]) (was \(frame[x, y]))")
        }
        // A bar in the light and one in the shadow: both well below the paper.
        #expect(flat[56, 60] < 80 && flat[182, 100] < 80, "\(flat[56, 60]) \(flat[182, 100])")
        // In the frame, the shadowed paper (100) is darker than half the light paper's level.
        #expect(frame[220, 140] == 100)
    }

    @Test func theClosingDropsDarkMarksAndKeepsTheLight() {
        // 3 x 3: one light pixel in the corner, one dark mark in a light field.
        let corner: [Int32] = [0, 0, 9, 0, 0, 0, 0, 0, 0]
        #expect(ImagePass.boxBlurred(corner, 3, 3, radius: 1)[4] == 1)
        let grown = ImagePass.extremeFiltered(corner, 3, 3, radius: 1, max: true)
        #expect(grown == [0, 9, 9, 0, 9, 9, 0, 0, 0])
        #expect(ImagePass.extremeFiltered(grown, 3, 3, radius: 1, max: false) == corner, "a closing keeps light")
        let mark: [Int32] = [9, 9, 9, 9, 0, 9, 9, 9, 9]
        let closed = ImagePass.extremeFiltered(ImagePass.extremeFiltered(mark, 3, 3, radius: 1, max: true), 3, 3, radius: 1, max: false)
        #expect(closed == [Int32](repeating: 9, count: 9), "and drops a dark mark")
        let tiny = GrayFrame(width: 4, height: 4, pixels: [UInt8](repeating: 7, count: 16))
        #expect((0..<4).allSatisfy { ImagePass.flattened(tiny)[$0, $0] == 7 }, "too small to judge the light: as it is")
    }

    /// A Code 128 half in a shadow, in perspective, blurred and noisy (a cut of a generated
    /// "hard" scene): no pass but the flat field reads it.
    @Test func aCodeHalfInShadowIsReadOnlyOnceTheLightIsEven() throws {
        let frame = try ImageFile.load(Fixture.path("code128-shadow.png"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .flatField })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline().decode(frame).map(\.text) == ["gCZSh4zlwH"])
        #expect(DecodePipeline(quality: .accurate).decode(frame).map(\.text) == ["gCZSh4zlwH"])
    }

    /// A Code 39 whose bars a glare spot lifts towards the paper (a cut of a generated glare
    /// scene): read once each pixel is stretched between the dark and light levels near it.
    @Test func aCodeUnderGlareIsReadOnceItsLocalRangeIsStretched() throws {
        let frame = try ImageFile.load(Fixture.path("code39-glare.png"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .localRange })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline().decode(frame).map(\.text) == ["T0QLMGE"])
        #expect(DecodePipeline(passes: [.localRange]).decode(frame).map(\.text) == ["T0QLMGE"])
    }

    /// Bars under a glare ramp (paper 200 -> 250, bars 60 -> 235 from left to right) come out
    /// dark on light all along; a field with no mark near it is paper.
    @Test func theLocalRangeMakesBarsUnderGlareDarkAgain() {
        let w = 240, h = 60
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let t = Double(x) / Double(w - 1)
                let paper = 200 + 50 * t, bar = 60 + 175 * t
                pixels[y * w + x] = UInt8(((x / 6) % 2 == 0 && x < 180 ? bar : paper).rounded())
            }
        }
        let out = ImagePass.rangeNormalized(GrayFrame(width: w, height: h, pixels: pixels))
        for x in stride(from: 15, to: 165, by: 12) {
            #expect(out[x + 2, 30] < 64, "bar at \(x + 2): \(out[x + 2, 30])")
            #expect(out[x + 8, 30] > 190, "space at \(x + 8): \(out[x + 8, 30])")
        }
        let even = ImagePass.rangeNormalized(GrayFrame(width: 64, height: 64, pixels: [UInt8](repeating: 120, count: 64 * 64)))
        #expect(even[32, 32] == 255)
    }

    /// A small DataMatrix under glare in a 640x480 scene (bench/make-devset.py --seed 1818,
    /// DataMatrix-10-glare.png): of the whole-frame passes only `highlights` reads it, after
    /// twelve others (`resampled`'s four enlargements among them); the region looks read it
    /// right after `rotate`, from a crop of its region, and place it in the frame where it is
    /// (x 310-440, y 150-280).
    @Test func aSmallCodeUnderGlareIsReadFromItsRegionBeforeTheWholeFramePasses() throws {
        let frame = try ImageFile.load(Fixture.path("datamatrix-glare-scene.png"))
        let regions = ImagePass.regionLooks(in: frame)
        #expect(!regions.isEmpty && regions.count <= 3)
        #expect(regions.allSatisfy { $0.width * $0.height * 5 <= frame.width * frame.height })
        let balanced = ImagePass.passes(for: .balanced)
        #expect(balanced.firstIndex(of: .regionLooks) == balanced.firstIndex(of: .rotate).map { $0 + 1 })
        let beforeHighlights = Array(balanced.prefix { $0 != .highlights }).filter { $0 != .regionLooks }
        #expect(DecodePipeline(passes: beforeHighlights).decode(frame).isEmpty, "no whole-frame pass before highlights reads it")
        let found = DecodePipeline(passes: [.regionLooks]).decode(frame)
        #expect(found.map(\.text) == ["scand-1590"])
        for corner in found.first?.corners ?? [] {
            #expect((300...450).contains(corner.x) && (140...290).contains(corner.y), "\(corner) is not where the code is")
        }
        #expect(DecodePipeline().decode(frame).map(\.text) == ["scand-1590"])
    }

    /// A UPC-E printed light on a dark label (bench/make-devset.py --seed 6262,
    /// UPC-E-09-inverted.jpg): the region looks read it from the negative of its region's crop,
    /// and the check that a UPC-E read from a crop is not a part of a longer code looks for its
    /// quiet zones in that negative too, where they are light. In the frame as it is they are
    /// dark, and the read was dropped there: the code waited for the whole-frame `invert` pass,
    /// after `thresholds` and `regions`.
    @Test func aLightCodeOnADarkLabelIsReadFromItsRegionsNegative() throws {
        let frame = try ImageFile.load(Fixture.path("upce-inverted-scene.jpg"))
        let found = DecodePipeline(passes: [.regionLooks]).decode(frame)
        #expect(found.map(\.symbology) == [.upcE] && found.map(\.text) == ["08540775"])
        let looks = ImagePass.regionLooks.apply(frame)
        #expect(looks.contains { $0.inverted } && looks.contains { !$0.inverted })
        #expect(DecodePipeline().decode(frame).map(\.text) == ["08540775"])
    }

    /// Each region look's image is a crop's, placed back at the crop's origin; a region larger
    /// than a fifth of the frame gets none.
    @Test func theRegionLooksArePlacedAtTheirRegions() throws {
        let frame = try ImageFile.load(Fixture.path("datamatrix-glare-scene.png"))
        let regions = ImagePass.regionLooks(in: frame)
        let images = ImagePass.regionLooks.apply(frame)
        #expect(images.count == regions.count * ImagePass.regionLookPasses.count)
        for (i, t) in images.enumerated() {
            let rect = regions[i / ImagePass.regionLookPasses.count]
            #expect(t.frame.width == rect.width && t.frame.height == rect.height && t.scale == 1)
            let placed = t.mapBack(Symbol(symbology: .dataMatrix, text: "x", corners: [PixelPoint(x: 0, y: 0), PixelPoint(x: rect.width - 1, y: rect.height - 1)]))
            #expect(placed.corners == [PixelPoint(x: rect.x, y: rect.y), PixelPoint(x: rect.x + rect.width - 1, y: rect.y + rect.height - 1)])
        }
        // A close-up of the code: its region, more than a fifth of the image, is left to the
        // whole-frame passes.
        let closeUp = frame.cropped(to: PixelRect(x: 322, y: 162, width: 100, height: 100))
        let holdsCode = { (r: PixelRect) in r.x < 50 && 50 < r.x + r.width && r.y < 50 && 50 < r.y + r.height }
        #expect(RegionFinder.candidates(in: closeUp, limit: 3).contains { holdsCode($0) && $0.width * $0.height * 5 > closeUp.width * closeUp.height })
        #expect(!ImagePass.regionLooks(in: closeUp).contains(where: holdsCode), "\(ImagePass.regionLooks(in: closeUp))")
    }

    /// A dark full-HD frame: of the balanced passes, read at half size (the first to read it),
    /// stretched to its local range and enlarged (the last two), by no other.
    @Test func aDarkNoisyFrameIsReadAtHalfSize() throws {
        let frame = try ImageFile.load(Fixture.path("pdf417-dark.jpg"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { ![.downscale, .localRange, .resampled].contains($0) })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline(passes: [.downscale]).decode(frame).map(\.text) == ["https://example.org/room-0353445"])
        #expect(DecodePipeline().decode(frame).map(\.text) == ["https://example.org/room-0353445"])
    }

    /// A DataMatrix out of focus (the shared scenes' blur): read once deconvolved (at its size
    /// or enlarged), and only then.
    @Test func aBlurredDataMatrixIsReadOnceDeconvolved() throws {
        let frame = try ImageFile.load(Fixture.shared("scenes/DataMatrix-03-blur.png"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { ![.deblurred, .deblurredResampled].contains($0) })
        #expect(without.decode(frame).isEmpty)
        #expect(DecodePipeline(passes: [.deblurredResampled]).decode(frame).map(\.text) == ["tel:+49301haxednbqe8vbi"])
        #expect(DecodePipeline().decode(frame).map(\.text) == ["tel:+49301haxednbqe8vbi"])
    }

    /// The region looks' crops are read by zxing alone (zbar, where it is the only engine): a
    /// perspective Aztec that the first look misses is read in its region's crop.
    @Test func theRegionLooksAreReadByZXing() throws {
        let pipeline = DecodePipeline()
        #expect(pipeline.lookers(.regionLooks, pipeline.engines).map { $0 is ZXingDecoder } == [true])
        let zbarOnly = DecodePipeline(engines: [.zbar])
        #expect(zbarOnly.lookers(.regionLooks, zbarOnly.engines).map { $0 is ZBarDecoder } == [true])
        let frame = try ImageFile.load(Fixture.shared("scenes/Aztec-02-perspective.png"))
        #expect(DecodePipeline(passes: []).decode(frame).isEmpty)
        #expect(DecodePipeline(passes: [.regionLooks]).decode(frame).map(\.text) == ["TICKET-bigiasdwcm9edbaa6mdyl8ki8fcqotb3e"])
    }

    /// The deconvolved frames are read by zxing alone (zbar, where it is the only engine), and
    /// made once a frame: `deblurredResampled` enlarges the images `deblurred` made.
    @Test func theDeconvolvedFramesAreMadeOnceAndReadByZXing() throws {
        let pipeline = DecodePipeline()
        let readers = pipeline.lookers(.deblurred, pipeline.engines)
        #expect(readers.count == 1 && readers.allSatisfy { $0 is ZXingDecoder })
        let zbarOnly = DecodePipeline(engines: [.zbar])
        #expect(zbarOnly.lookers(.deblurred, zbarOnly.engines).map { $0 is ZBarDecoder } == [true])

        let frame = try ImageFile.load(Fixture.shared("scenes/DataMatrix-03-blur.png"))
        let made = MadeImages()
        let deblurred = ImagePass.deblurred.apply(frame, made: made)
        #expect(deblurred.count == ImagePass.lensBlurs.count)
        var madeAgain = 0
        for (sigma, image) in zip(ImagePass.lensBlurs, deblurred) {
            let kept = made.deblurred(sigma: sigma) { madeAgain += 1; return frame }
            #expect(kept.packedPixels() == image.frame.packedPixels())
        }
        #expect(madeAgain == 0, "kept, not made again")
        let enlarged = ImagePass.deblurredResampled.apply(frame, made: made)
        let fresh = ImagePass.deblurredResampled.apply(frame)
        #expect(enlarged.count == 2 && enlarged.map { $0.frame.packedPixels() } == fresh.map { $0.frame.packedPixels() })
    }

    /// The costly passes come in groups, made one at a time (a code read from the first image
    /// spares the rest): the same images as `apply`, in the same order; the enlargement that
    /// four of `resampled`'s images start from is made once, whichever group asks first.
    @Test func theCostlyPassesAreMadeInGroupsOfTheSameImages() throws {
        let frame = try ImageFile.load(Fixture.shared("scenes/DataMatrix-03-blur.png")).cropped(to: PixelRect(x: 700, y: 300, width: 320, height: 240))
        for (pass, groups) in [(ImagePass.resampled, 5), (.deblurred, 2), (.deblurredResampled, 2), (.sharpen, 1), (.regions, 1 + RegionFinder.candidateLimit)] {
            let made = MadeImages()
            let makers = pass.makers(frame, made: made)
            #expect(makers.count == groups, "\(pass)")
            // Made last group first: the same images all the same.
            let images = makers.reversed().map { $0() }.reversed().flatMap { $0 }
            let all = pass.apply(frame)
            #expect(images.map { $0.frame.packedPixels() } == all.map { $0.frame.packedPixels() }, "\(pass)")
            #expect(images.map(\.scale) == all.map(\.scale) && images.map(\.eanMustFit) == all.map(\.eanMustFit), "\(pass)")
        }
        let made = MadeImages()
        let makers = ImagePass.resampled.makers(frame, made: made)
        _ = makers[3]()
        _ = makers[2]()
        var madeAgain = 0
        let big = made.image(.enlarged) { madeAgain += 1; return frame }
        #expect(madeAgain == 0 && big.packedPixels() == makers[0]()[0].frame.packedPixels())
        // A frame too large to enlarge: no groups.
        #expect(ImagePass.resampled.makers(GrayFrame(width: 3000, height: 2000, pixels: [UInt8](repeating: 0, count: 6_000_000))).isEmpty)
    }

    /// Two threads asking at once for an image neither has made: it is made once, and both get it.
    @Test func anImageAskedForByTwoThreadsIsMadeOnce() {
        let made = MadeImages()
        let count = Locked(0)
        let frame = GrayFrame(width: 4, height: 4, pixels: [UInt8](repeating: 7, count: 16))
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            #expect(spawnThread {
                _ = made.deblurred(sigma: 1.5) {
                    count.withLock { $0 += 1 }
                    // A deliberate gap: the making takes a while, so the other thread most likely
                    // asks meanwhile. Made once holds whatever the gap (asked later, it finds the
                    // image made), so no gap length decides the result.
                    usleep(50_000)
                    return frame
                }
                done.signal()
            })
        }
        done.wait()
        done.wait()
        #expect(count.withLock { $0 } == 1)
    }

    /// The Wiener taps: symmetric, summing to one, a peak at the centre with negative lobes
    /// beside it (edges made steeper); a Gaussian blurred edge deconvolved is steeper.
    @Test func theDeconvolutionSteepensABlurredEdge() {
        let taps = ImagePass.wienerTaps(sigma: 2)
        #expect(taps.count == 17)
        #expect(abs(taps.reduce(0, +) - 1) < 1e-4)
        #expect(zip(taps, taps.reversed()).allSatisfy { abs($0 - $1) < 1e-5 })
        #expect(taps[8] == taps.max() && taps.min()! < 0)
        // A dark-to-light step (40 | 220) blurred by a Gaussian of 2 px, rows of 64.
        let w = 64, h = 24
        let blurred = (0..<(w * h)).map { i -> UInt8 in
            let x = Double(i % w) - 31.5
            let rise: Double = 0.5 * (1 + Glibc.erf(x / (2 * 2.0.squareRoot())))
            return UInt8(40 + 180 * rise)
        }
        let frame = GrayFrame(width: w, height: h, pixels: blurred)
        let sharp = ImagePass.deblurred(frame, sigma: 2)
        let before = Int(frame[33, 12]) - Int(frame[30, 12])
        let after = Int(sharp[33, 12]) - Int(sharp[30, 12])
        #expect(after > before + 20, "rise over 3 px: \(before) before, \(after) after")
        #expect(abs(Int(sharp[4, 12]) - 40) < 12 && abs(Int(sharp[60, 12]) - 220) < 12, "flat parts keep their level")
    }
}
