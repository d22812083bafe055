import Glibc
@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// Reads out of two codes' bars: two codes one over the other (`JoinedHalves.Seen`), two-width
/// reads across them, and a label torn over another in line (`JoinedHalves.Ends`).
@Suite(.onTestThreads) struct TwoCodesReadAsOneTests {
    /// Two codes one over the other, the lower one's bars over the upper one's (stacked-joined.png,
    /// make-fixtures.sh): zxing reads a row that leaves the EAN-13 for the UPC-A as 5986804068154,
    /// a valid EAN-13 of the EAN-13's first eight digits and the UPC-A's last four and neither
    /// code. Its first digits fit the lines through one code square to the bars, its last the
    /// lines through the other, none all together; the UPC-A's own read fits whole lines. The
    /// pipeline drops the joined read and gives the UPC-A.
    @Test func aReadJoiningTwoStackedCodesIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("stacked-joined.png"))
        let pipeline = DecodePipeline()
        let joined = try #require(pipeline.firstLooker.decode(frame).first)
        #expect(joined.text == "5986804068154", "the misread this guards against")
        let seen = try #require(JoinedHalves.seen(joined, in: frame))
        #expect(seen.joined)
        #expect(!seen.lines.contains { $0.filter { $0 }.count >= 11 })
        #expect(DecodePipeline.withoutJoinedHalves([joined], in: frame).isEmpty)
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers).decode(frame)
            #expect(read.map(\.text) == ["893791928154"], "\(workers) workers")
            for s in read { #expect(JoinedHalves.seen(s, in: frame)?.joined != true) }
        }
    }

    /// The rule on the lines' fits: a read is joined when one line fits its first digits and
    /// another its last, as two codes in line give them, and no line fits all of them but one.
    @Test func theJoinedRuleNeedsAPrefixAndASuffixOnDifferentLines() {
        func seen(_ lines: [String]) -> JoinedHalves.Seen { JoinedHalves.Seen(lines: lines.map { $0.map { $0 == "1" } }) }
        #expect(seen(["11111111....", "........1111"]).joined)
        // One digit where the codes' bars overlap fits on neither.
        #expect(seen(["1111111.....", "........1111"]).joined)
        // A line that fits all but one: one code.
        #expect(!seen(["11111111111.", "........1111"]).joined)
        // Windows that slide across the code (bars that fan out) fit more than two codes' halves.
        #expect(!seen(["111111111...", "..1111111111"]).joined)
        // Nothing fits (a blurred code): the lines cannot tell.
        #expect(!seen(["............", "............"]).joined)
        #expect(!seen(["1111111111..", "............"]).joined)
        // A digit in each half lost to print spread (make-stacked-labels.py seed 9393): still
        // one line's first digits and another's last.
        #expect(seen(["......111.11", "111111.1...."]).joined)
        // Two such lines that overlap by three: a code in perspective whose lines fan out
        // (make-retail-layouts.py 60 8181, lowres-0039), and make-stacked-labels.py seed 9393's
        // 0261, which is let through so.
        #expect(!seen(["1.....1.1111", "111.11111..."]).joined)
        #expect(!seen([".1111....11.", "..111.111111"]).joined)
        // Lines of a perspective code that fan out: one line loses the first digits, another the
        // last, and a third fits all but three (lowres-0039).
        #expect(!seen([".1111.......", ".1111.11111.", "...11.111111"]).joined)
        #expect(seen([".1111.......", "...11.111111"]).joined, "without the third")
        // A blurred code's lines each fit digits on both sides: one code.
        #expect(!seen(["11.1111.1111", "1111.111.111"]).joined)
        // A half's line that fits much of the other half too is no half's line.
        #expect(!seen(["111111.1.1.1", "......111.11"]).joined)
        #expect(JoinedHalves.Seen.side(Array("111.11111...").map { $0 == "1" }) == (9, 0))
    }

    /// Two codes' halves read as one, a digit of each half misfit on the lines (print spread):
    /// make-stacked-labels.py OUT 320 9393, image 0010.png as it is (stacked-halves-misfit.png, a
    /// UPC-A of 722672519764 with 245904126856 overprinted over it, turned about 45°): the
    /// pipeline answered 245904519764, the other code's left half and this one's right.
    @Test func aJoinedReadWithADigitMisfitInEachHalfIsDropped() throws {
        let misread = Symbol(symbology: .upcA, text: "245904519764",
                             corners: [PixelPoint(x: 247, y: 144), PixelPoint(x: 12, y: 144), PixelPoint(x: 11, y: 145), PixelPoint(x: 246, y: 145)])
        let seen = try Self.expectDropped(misread, in: "stacked-halves-misfit.png", codes: ["722672519764", "245904126856"])
        #expect(seen.joined, "\(seen.lines)")
    }

    /// `misread`, placed as the pipeline placed it in the fixture, is dropped, and the pipeline
    /// answers `codes` or nothing there on one thread and on two; the lines' verdict on it.
    static func expectDropped(_ misread: Symbol, in fixture: String, codes: [String]) throws -> JoinedHalves.Seen {
        try #require(JoinedHalves.seen(misread, in: expectGone(misread, in: fixture, codes: codes)))
    }

    /// The fixture, once `misread` is dropped there and the pipeline answers `codes` or nothing.
    static func expectGone(_ misread: Symbol, in fixture: String, codes: [String]) throws -> GrayFrame {
        let frame = try ImageFile.load(Fixture.path(fixture))
        #expect(DecodePipeline.withoutJoinedHalves([misread], in: frame).isEmpty)
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers, stopsAtFirstCode: false).decode(frame).map(\.text)
            #expect(read.allSatisfy { codes.contains($0) }, "\(workers) workers: \(read)")
        }
        return frame
    }

    /// A read square to the bars (the `rotate` pass's, placed along the code's axis) out of two
    /// codes whose bars overlap: make-addon-stacks.py --gap -14 (seed 1), stack070 as it is
    /// (stacked-square-joined.png: an ISBN 9780306406157+52495 with an EAN-13 4006381333931+47
    /// whose bars lie over the ISBN's digits, turned 330°); add-ons ignored, the pipeline
    /// answered UPC-A 706366406141. Lines a few modules each side of such a read show it.
    @Test func aReadSquareToTheBarsOfTwoOverlappingCodesIsDropped() throws {
        let misread = Symbol(symbology: .upcA, text: "706366406141",
                             corners: [PixelPoint(x: 120, y: 61), PixelPoint(x: 225, y: 143), PixelPoint(x: 210, y: 169), PixelPoint(x: 104, y: 88)])
        let seen = try Self.expectDropped(misread, in: "stacked-square-joined.png", codes: ["9780306406157", "4006381333931"])
        #expect(seen.square && seen.contradicts(misread.text), "\(seen.lines) \(seen.spelled)")
    }

    /// zbar read a row of the `resampled` pass's enlargement slanted across two codes printed one
    /// over the other as 5901234333931 (stacked-zbar-one-point.png, make-fixtures.sh) and placed
    /// it at one point, where no check could tell where it ran. Placed along the row its pattern
    /// fits, it shows two codes' halves.
    @Test func aReadZbarPlacesAtOnePointIsPlacedAlongItsRow() throws {
        let frame = try ImageFile.load(Fixture.path("stacked-zbar-one-point.png"))
        // The pass's second image: the frame sharpened, then enlarged.
        let big = ImagePass.cubic(ImagePass.sharpen(frame), scale: 2.5)
        let read = try #require(ZBarDecoder().decode(big).first { $0.text == "5901234333931" })
        let (p, q) = try #require(read.readEnds)
        #expect(abs(q.y - p.y) < 1 && abs(q.x - p.x) > 95 * 2, "placed along its row: \(read.corners)")
        #expect(DecodePipeline.withoutJoinedHalves([read], in: big).isEmpty)
        // At one point on that row, as zbar placed it: no check can place it; placed along the
        // row, it is the same line. A read placed along its length already is left as it is.
        var onePoint = read
        onePoint.corners = [PixelPoint(x: Int(p.x) + 30, y: Int(p.y)), PixelPoint(x: Int(p.x) + 33, y: Int(p.y))]
        #expect(JoinedHalves.seen(onePoint, in: big) == nil)
        #expect(ZBarDecoder.placedAlong(onePoint, in: big).corners == read.corners)
        #expect(ZBarDecoder.placedAlong(read, in: big).corners == read.corners)
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers, stopsAtFirstCode: false).decode(frame).map(\.text)
            #expect(read.allSatisfy { ["4006381333931", "5901234123457"].contains($0) }, "\(workers) workers: \(read)")
        }
    }

    /// A row across two EAN/UPC codes' bars that zxing with one of its other thresholds reads as
    /// a short Codabar with every symbology on (stacked-codabar.png, make-fixtures.sh): the bars along its axis run on past the 20 its
    /// five characters have, so it is a part of something longer and goes.
    @Test func aShortCodabarOutOfOtherBarsIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("stacked-codabar.png"))
        let all = Set(Symbology.allCases).subtracting([.isbn10, .isbn13])
        let pipeline = DecodePipeline(symbologies: all)
        let reads = ([pipeline.firstLooker] + pipeline.engines + pipeline.thresholdEngines).flatMap { $0.decode(frame) }
        let read = try #require(reads.first { $0.symbology == .codabar })
        #expect(read.text == "C573A", "the misread this guards against")
        #expect(BarRun.mostBars(of: read) == 20)
        #expect(pipeline.whole([read], in: frame).isEmpty)
        #expect(!pipeline.decode(frame).contains { $0.symbology == .codabar })
        // Codabar with and without its start and stop, Code 39 with room for a check character.
        #expect(BarRun.mostBars(of: Symbol(symbology: .codabar, text: "573", corners: [])) == 20)
        #expect(BarRun.mostBars(of: Symbol(symbology: .code39, text: "AB12", corners: [])) == 35)
        #expect(BarRun.mostBars(of: Symbol(symbology: .itf, text: "12345678", corners: [])) == BarRun.itfBars(digits: 8))
        #expect(BarRun.mostBars(of: Symbol(symbology: .code128, text: "AB12", corners: [])) == nil)
    }

    /// Two labels overprinted, out of focus (stacked-deconvolved.png, make-fixtures.sh): only the
    /// `deblurred` pass read anything, a UPC-A 438043946922 of neither code. In the blurred
    /// region its lines fit too little of either code to tell; in the deconvolved image the
    /// engine read, they spell the EAN-13 really under it. A real blurred UPC-A that only that
    /// pass reads (blurred-upca-deconvolved.png) stays read.
    @Test func aDeconvolvedReadIsCheckedInTheImageItWasReadFrom() throws {
        let frame = try ImageFile.load(Fixture.path("stacked-deconvolved.png"))
        let misread = Symbol(symbology: .upcA, text: "438043946922",
                             corners: [PixelPoint(x: 99, y: 223), PixelPoint(x: 99, y: 32), PixelPoint(x: 35, y: 38), PixelPoint(x: 35, y: 228)])
        #expect(DecodePipeline.withoutJoinedHalves([misread], in: frame) == [misread], "the region alone cannot tell")
        let sharp = ImagePass.deblurred(frame, sigma: 1.5)
        #expect(JoinedHalves.seen(misread, in: sharp, whole: true)?.contradicts(misread.text) == true)
        #expect(DecodePipeline.withoutJoinedHalves([misread], in: sharp).isEmpty)
        let codes = ["2431844946922", "321253068198"]
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers).decode(frame).map(\.text)
            #expect(read.allSatisfy { codes.contains($0) }, "\(workers) workers: \(read)")
        }
        let blurred = try ImageFile.load(Fixture.path("blurred-upca-deconvolved.png"))
        #expect(DecodePipeline().firstLook(blurred, viewport: .full).symbols.isEmpty, "read by the deep passes")
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(blurred).map(\.text) == ["181497000879"], "\(workers) workers")
        }
    }

    /// A read mixing one code's digits with bars where two stacked codes overlap
    /// (stacked-mixed.png, make-fixtures.sh): 982739720100, whose place's lines fit 8 of its
    /// digits and spell 988339720199, the lower code. The pipeline no longer answers it.
    @Test func aReadTheLinesShowToBeAnotherCodeIsDropped() throws {
        let frame = try ImageFile.load(Fixture.path("stacked-mixed.png"))
        let codes = ["038642869624", "988339720199"]
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers).decode(frame).map(\.text)
            #expect(read.allSatisfy { codes.contains($0) }, "\(workers) workers: \(read)")
        }
    }

    /// What a line's best patterns spell, and when lines contradict a read.
    @Test func linesThatSpellAnotherValidCodeContradictTheRead() throws {
        let layout = try #require(EANVerifier.Layout(Symbol(symbology: .ean13, text: "5901234123457")))
        // 5901234123457: first digit 5 (LGGLLG), left 901234, right 123457.
        let best = [9, 10, 11, 2, 3, 14] + [1, 2, 3, 4, 5, 7]
        #expect(JoinedHalves.spelled(best, layout: layout) == "5901234123457")
        // A wrong check digit, or parities no first digit has, spell nothing.
        #expect(JoinedHalves.spelled([9, 10, 11, 2, 3, 14] + [1, 2, 3, 4, 5, 8], layout: layout) == nil)
        #expect(JoinedHalves.spelled([19, 10, 11, 12, 13, 14] + [1, 2, 3, 4, 5, 7], layout: layout) == nil)
        let partial = Array(repeating: true, count: 8) + Array(repeating: false, count: 4)
        var seen = JoinedHalves.Seen(lines: [partial, partial], spelled: ["0988339720199", "0988339720199"])
        #expect(seen.contradicts("982739720100"))
        #expect(!seen.contradicts("988339720199"), "the read is what the lines spell")
        seen.spelled = ["0988339720199", nil]
        #expect(!seen.contradicts("982739720100"), "one line alone")
        let whole = JoinedHalves.Seen(lines: [Array(repeating: true, count: 12), partial], spelled: [nil, "0988339720199"])
        #expect(!whole.contradicts("982739720100"), "a line shows the read whole")
        let dark = JoinedHalves.Seen(lines: [Array(repeating: false, count: 12)] + [partial.map { _ in false }], spelled: ["0988339720199", "0988339720199"])
        #expect(!dark.contradicts("982739720100"), "the lines show nothing of the read (the other polarity)")
        // Each side of a read square to the bars, most lines must spell it.
        var few = JoinedHalves.Seen(lines: Array(repeating: partial, count: 6), square: true,
                                    spelled: [nil, nil, "0474807730918", nil, "0474807730918", nil])
        #expect(!few.contradicts("074807984955"), "two lines of six: a neighbour the outer lines run into")
        few.square = false
        #expect(few.contradicts("074807984955"), "between a slanted read's ends, two lines do")
        let most = JoinedHalves.Seen(lines: Array(repeating: partial, count: 7), square: true,
                                     spelled: ["0988339720199", nil, "0988339720199", nil, "0988339720199", "0988339720199", nil])
        #expect(most.contradicts("982739720100"), "four lines of seven")
    }

    /// A real code's read square to its bars whose lines, a few modules each side, run into the
    /// label it is pasted over, in perspective: make-stacked-labels.py OUT 320 9393, image
    /// 0037.png as it is (stacked-pasted-perspective.png: a UPC-A of 074807984955 pasted over an
    /// EAN-13 of 7784067454756). Two of the six lines spell another valid code; the read stays.
    @Test func aRealReadWhoseOuterLinesRunIntoItsNeighbourStays() throws {
        let frame = try ImageFile.load(Fixture.path("stacked-pasted-perspective.png"))
        let read = Symbol(symbology: .upcA, text: "074807984955",
                          corners: [PixelPoint(x: 239, y: 121), PixelPoint(x: 147, y: 33), PixelPoint(x: 156, y: 22), PixelPoint(x: 249, y: 111)])
        let seen = try #require(JoinedHalves.seen(read, in: frame))
        #expect(!seen.joined && !seen.contradicts(read.text), "\(seen.lines) \(seen.spelled)")
        #expect(DecodePipeline(workers: 1).decode(frame).map(\.text) == ["074807984955"])
    }

    /// Two codes overprinted at a slant (stacked-crossed-itf.png: make-stacked-labels.py OUT 320
    /// 5858, image 0064.png as it is, a UPC-A of 534670070785 over an EAN-13 of 3959714943806): a
    /// crop of the `enhancedRegions` pass read a column through both as the ITF 122544, whose bars
    /// along its axis the crop cut. In the whole region they are 30, past the 19 its six digits
    /// have: a part, dropped there.
    @Test func aTwoWidthReadFromACropIsCheckedInTheWholeRegion() throws {
        let frame = try ImageFile.load(Fixture.path("stacked-crossed-itf.png"))
        let part = Symbol(symbology: .itf, text: "122544", corners: [PixelPoint(x: 125, y: 250), PixelPoint(x: 125, y: 102)])
        #expect(DecodePipeline().whole([part], in: frame).isEmpty)
        for workers in [1, 2] {
            let read = DecodePipeline(workers: workers).decode(frame)
            #expect(!read.contains { $0.symbology == .itf }, "\(workers) workers: \(read.map(\.text))")
            #expect(read.allSatisfy { ["534670070785", "3959714943806"].contains($0.text) })
        }
    }

    /// A label torn over another in line (torn-tear.jpg, make-fixtures.sh: make-retail-layouts.py
    /// seed 6060, tornjoin-0019): the pipeline answered 4601109692651, the upper EAN-13's first
    /// digits and the lower one's last, valid and neither code. Every line between the read's
    /// ends fits all its digits but one; along the bars its ninth digit, where the two codes'
    /// bars meet, fits on no line and misfits far on half of them.
    @Test func aReadAcrossALabelTornOverAnotherIsDropped() throws {
        let misread = Symbol(symbology: .ean13, text: "4601109692651",
                             corners: [PixelPoint(x: 150, y: 408), PixelPoint(x: 150, y: 126), PixelPoint(x: 139, y: 125), PixelPoint(x: 139, y: 407)])
        let ends = try Self.expectTorn(misread, in: "torn-tear.jpg", codes: ["4601109693085", "2531682267651"])
        #expect(ends.lines.count >= 6, "\(ends.lines.map(\.misfit))")
    }

    /// Two labels in line that meet at the middle guard (torn-halves-apart.png, make-fixtures.sh:
    /// make-retail-layouts.py OUT 60 8181, tornjoin-0029): the pipeline answered 3748033014621,
    /// the lower EAN-13 3748033517054's left half and the torn upper 1670251014621's right half.
    /// Every digit fits on the read's line, each half in its own place: the right half stands two
    /// modules from where the left half's modules put it.
    @Test func aReadAcrossTwoLabelsMeetingAtTheMiddleGuardIsDropped() throws {
        let misread = Symbol(symbology: .ean13, text: "3748033014621",
                             corners: [PixelPoint(x: 137, y: 204), PixelPoint(x: 420, y: 204), PixelPoint(x: 420, y: 280), PixelPoint(x: 137, y: 280)])
        let ends = try Self.expectTorn(misread, in: "torn-halves-apart.png", codes: ["1670251014621", "3748033517054"])
        #expect(!ends.halvesApart.isEmpty && ends.halvesApart.allSatisfy { abs($0) >= JoinedHalves.Ends.apart }, "\(ends.halvesApart)")
    }

    /// A label torn over another in line, the two turned 0.83° apart (torn-lean.jpg,
    /// make-fixtures.sh: make-retail-layouts.py seed 9292, tornjoin-0039): the pipeline answered
    /// 2648021184736, the upper EAN-13's first eight digits and the lower UPC-A's last, valid and
    /// neither code. The tear digit fits on some lines along the bars, so the misfits cannot
    /// tell; the digits' bars lean one way up to the tear and another way past it.
    @Test func aReadAcrossTwoLabelsTurnedApartIsDropped() throws {
        let misread = Symbol(symbology: .ean13, text: "2648021184736",
                             corners: [PixelPoint(x: 168, y: 175), PixelPoint(x: 547, y: 175), PixelPoint(x: 535, y: 250), PixelPoint(x: 155, y: 250)])
        let ends = try Self.expectTorn(misread, in: "torn-lean.jpg", codes: ["2648021184156", "427322819736"])
        #expect(ends.leansApart, "\(ends.places.count) lines")
    }

    /// A real code whose last digits' lower bars a label torn over it covers (torn-covered-real.png,
    /// make-fixtures.sh: make-retail-layouts.py seed 1357, tornjoin-0005, a tryout's set): on
    /// the lines through the torn label those digits' places come from its bars, so their lean
    /// steps; but their places bend where its edge crosses them, off any straight line, where
    /// a joined read's digits each lie in one label all along their bars. The read stays, in
    /// the kiosk's pipeline (it stops at the first code).
    @Test func aCodeWhoseLastDigitsATornLabelCoversStays() throws {
        let frame = try ImageFile.load(Fixture.path("torn-covered-real.png"))
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text) == ["694644967746"], "\(workers) workers")
        }
    }

    /// The lean rule on places along 11 lines 8 px apart: one code's leans change evenly along
    /// it; two labels' step between two digits, where one misfits on some lines (`tear`).
    @Test func barsThatLeanApartAtADigitAreTwoLabels() {
        func ends(tear: Int? = 8, _ lean: (Int) -> Double, off: (digit: Int, by: Double)? = nil) -> JoinedHalves.Ends {
            var ends = JoinedHalves.Ends(lines: [])
            ends.middles = [3, 10, 17, 24, 31, 38, 50, 57, 64, 71, 78, 85].map { Double($0) + 3.5 }
            ends.misfitting = (0..<12).map { $0 == tear ? 6 : 0 }
            ends.places = (0..<11).map { row in
                let t = Double(row - 5) * 8
                return (t, ends.middles.indices.map { digit -> Double? in
                    // The lines measure places to about a twentieth of a pixel.
                    let noise: Double = 0.05 * sin(Double(7 * row + 3 * digit))
                    let stroke: Double = off?.digit == digit ? off!.by * t : 0
                    return 3 * ends.middles[digit] + lean(digit) * t + noise + stroke
                })
            }
            return ends
        }
        #expect(!ends { _ in 0.02 }.leansApart, "one code, turned")
        #expect(!ends { 0.02 + 0.002 * Double($0) }.leansApart, "one code in perspective")
        #expect(ends { $0 < 8 ? 0.0 : 0.0145 }.leansApart, "two labels 0.83° apart at the ninth digit")
        #expect(ends { $0 < 8 ? 0.0 : $0 == 8 ? 0.007 : 0.0145 }.leansApart, "with the tear digit between them")
        #expect(ends(tear: 3) { $0 < 3 ? 0.0 : -0.0145 }.leansApart, "at the fourth digit")
        #expect(!ends(tear: nil) { $0 < 8 ? 0.0 : 0.0145 }.leansApart, "no digit misfits: no tear")
        #expect(!ends(tear: 3) { $0 < 8 ? 0.0 : 0.0145 }.leansApart, "a digit misfits away from the step")
        var bent = ends(tear: 9) { $0 < 10 ? 0.0 : 0.0145 }
        bent.places = bent.places.map { line in
            (line.t, line.at.enumerated().map { $0.offset >= 10 && line.t > 0 ? $0.element! + 1.5 : $0.element })
        }
        #expect(!bent.leansApart, "the last digits' places bend (a torn label's edge crosses them)")
        #expect(!ends { $0 < 8 ? 0.0 : 0.0035 }.leansApart, "0.2° apart: too little to tell")
        #expect(!ends({ _ in 0.0 }, off: (5, 0.02)).leansApart, "one digit off (a stroke over it)")
        #expect(!ends { $0 == 0 || $0 == 11 ? 0.02 : 0.0 }.leansApart, "the end digits off (what lies past the guards)")
        var few = ends { $0 < 8 ? 0.0 : 0.0145 }
        few.places = Array(few.places.prefix(4))
        #expect(!few.leansApart, "too few lines")
    }

    /// The fits the lean rule is made of.
    @Test func leastSquaresFitsAStepAndALine() throws {
        let x: [Double] = [0, 1, 2, 3, 4, 5], step: [Double] = [0, 0, 0, 1, 1, 1]
        let y = zip(x, step).map { 2 + 0.5 * $0 - 3 * $1 }
        let fit = try #require(JoinedHalves.leastSquares([x.map { _ in 1 }, x, step], y))
        #expect(zip(fit.coefficients, [2, 0.5, -3]).allSatisfy { abs($0 - $1) < 1e-9 } && fit.rss < 1e-18, "\(fit)")
        #expect(JoinedHalves.leastSquares([x, x.map { 2 * $0 }], y) == nil, "columns that cannot be told apart")
        let line = try #require(JoinedHalves.straightFit([(0, 1), (1, 2), (2, 3), (3, 5)]))
        #expect(abs(line.slope - 1.3) < 1e-9 && line.scatter > 0.2 && line.scatter < 0.3, "\(line)")
        #expect(JoinedHalves.straightFit([(0, 1), (1, 2)]) == nil, "two points")
    }

    /// The lower label read where it shows whole beside the one torn over it (torn-under-read.jpg,
    /// seed 9292, tornjoin-0030): the lines through the upper label fit its right part alone.
    /// The read stays.
    @Test func aCodeReadBesideALabelTornOverItStays() throws {
        let frame = try ImageFile.load(Fixture.path("torn-under-read.jpg"))
        let read = Symbol(symbology: .upcA, text: "246453755610",
                          corners: [PixelPoint(x: 123, y: 80), PixelPoint(x: 383, y: 80), PixelPoint(x: 382, y: 86), PixelPoint(x: 121, y: 86)])
        let ends = try #require(JoinedHalves.ends(read, in: frame))
        #expect(!ends.torn, "\(ends.lines.map(\.misfit))")
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text) == ["246453755610"], "\(workers) workers")
        }
    }

    /// `misread`, placed as the pipeline placed it in the fixture, is dropped as torn, and the
    /// pipeline answers `codes` or nothing there on one thread and on two; the lines' verdict.
    static func expectTorn(_ misread: Symbol, in fixture: String, codes: [String]) throws -> JoinedHalves.Ends {
        let ends = try #require(JoinedHalves.ends(misread, in: expectGone(misread, in: fixture, codes: codes)))
        #expect(ends.torn)
        return ends
    }

    /// The torn rule on the lines along the bars that fit all digits but one: `#` a digit that
    /// fits, `x` one that misfits far, `~` a little.
    @Test func theTornRuleNeedsAnInnerDigitThatMisfitsOnMostLinesAndFarOnMany() {
        func ends(_ rows: [String]) -> JoinedHalves.Ends {
            let misfit: [Character: Double] = ["#": -0.5, "x": 1.0, "~": 0.4]
            return JoinedHalves.Ends(lines: rows.enumerated().map { (3 * Double($0.offset), $0.element.map { misfit[$0]! }) })
        }
        let tear = [String](repeating: "######x#####", count: 8)
        #expect(ends(tear).torn)
        #expect(ends(tear.enumerated().map { $0.offset < 4 ? "######~#####" : $0.element }).torn, "far on half the lines")
        #expect(!ends(tear.enumerated().map { $0.offset < 5 ? "######~#####" : $0.element }).torn, "far on three lines of eight")
        // Glare or a stroke across the bars: far where it lies, less away from it, and it fits
        // past it.
        #expect(!ends(["######x#####", "######x#####", "######x#####", "######x#####", "######~#####", "######~#####",
                       "######~#####", "############"]).torn, "fits on a line")
        #expect(!ends([String](repeating: "######~#####", count: 8)).torn, "a code's own digit a print spread misfits")
        #expect(!ends(Array(tear.prefix(5))).torn, "too few lines to tell")
        #expect(!ends([String](repeating: "###########x", count: 8)).torn, "the last digit: what lies past the guard")
        #expect(!ends([String](repeating: "x#####", count: 8)).torn, "a UPC-E's six digits")
    }

    /// Halves out of one code's step on every line fitted (modules at the middle guard).
    @Test func halvesApartOnEveryLineAreTwoLabels() {
        func ends(_ apart: [Double]) -> JoinedHalves.Ends {
            JoinedHalves.Ends(lines: apart.map { _ in (0, [Double](repeating: -0.5, count: 12)) }, halvesApart: apart)
        }
        #expect(ends([2.0]).torn)
        #expect(ends([-1.5, -2.25]).torn)
        #expect(!ends([1.0]).torn, "a print spread (zxing-cpp's ean13-1/15.png)")
        #expect(!ends([2.0, 0.5]).torn, "in step on a line")
        #expect(!ends([]).torn)
    }
}
