@testable import Decoding
import ImageLoading
import ScanCore
import TestThreads
import Testing

@Suite(.onTestThreads) struct AddOnReaderTests {
    /// An add-on's modules drawn into a profile as a camera would see them: `perModule` samples
    /// a module, each module's darkness spread into its neighbours' (`spread`), 7 modules of
    /// paper before it and 12 after, black 40 and paper 220.
    static func profile(_ digits: [Int], parities: [Bool], spread: Double) -> [Double] {
        var modules = Array(repeating: false, count: 7) + [true, false, true, true]
        for (i, d) in digits.enumerated() {
            if i > 0 { modules += [false, true] }
            modules += parities[i] ? EANVerifier.Layout.g[d] : EANVerifier.Layout.l[d]
        }
        modules += Array(repeating: false, count: 12)
        let n = Int(AddOnReader.perModule)
        let sharp = modules.flatMap { Array(repeating: $0 ? 1.0 : 0.0, count: n) }
        let reach = Int(spread * AddOnReader.perModule)
        return sharp.indices.map { i in
            let part = sharp[max(0, i - reach)...min(sharp.count - 1, i + reach)]
            return 220 - 180 * part.reduce(0, +) / Double(part.count)
        }
    }

    static func parities(_ pattern: String) -> [Bool] { pattern.map { $0 == "G" } }

    /// The default rules with `symbology`'s add-ons read as `addOn` says.
    /// What the balanced pipeline on `workers` threads reads in fixture `file` with `symbology`'s
    /// add-ons read, and the reads as a message.
    static func read(_ file: String, _ symbology: Symbology, workers: Int) throws -> ([Symbol], String) {
        let read = DecodePipeline(quality: .balanced, rules: rules(symbology, .read), workers: workers).decode(try ImageFile.load(Fixture.path(file)))
        return (read, "\(file), \(workers) workers: \(read.map { "\($0.text)+\($0.addOn ?? "")" })")
    }

    static func rules(_ symbology: Symbology, _ addOn: SymbologyRules.AddOn, also others: [Symbology] = []) -> SymbologyRules {
        var rules = SymbologyRules()
        for s in [symbology] + others {
            var rule = rules.rule(s)
            rule.addOn = addOn
            rules.rules[s] = rule
        }
        return rules
    }

    /// An EAN-5 (52495: 3 x (5+4+5) + 9 x (2+9) = 141, check 1, parities GLGLL) and an EAN-2
    /// (34: 34 mod 4 = 2, GL) read from sharp and from blurred profiles.
    @Test func readsAddOnsSharpAndBlurred() {
        for spread in [0.0, 0.5] {
            let five = AddOnReader.decode(Self.profile([5, 2, 4, 9, 5], parities: Self.parities("GLGLL"), spread: spread), nominal: AddOnReader.perModule)
            #expect(five?.digits == "52495", "spread \(spread)")
            let two = AddOnReader.decode(Self.profile([3, 4], parities: Self.parities("GL"), spread: spread), nominal: AddOnReader.perModule)
            #expect(two?.digits == "34", "spread \(spread)")
        }
    }

    /// Digits whose parities are not their check (an EAN-5 with one digit's parity turned, an
    /// EAN-2 of 34 drawn LG) read as nothing, however clear their bars.
    @Test func aWrongCheckIsNoRead() {
        #expect(AddOnReader.decode(Self.profile([5, 2, 4, 9, 5], parities: Self.parities("GLGLG"), spread: 0), nominal: AddOnReader.perModule) == nil)
        #expect(AddOnReader.decode(Self.profile([3, 4], parities: Self.parities("LG"), spread: 0), nominal: AddOnReader.perModule) == nil)
    }

    /// Paper with no bars reads as nothing.
    @Test func noBarsNoRead() {
        #expect(AddOnReader.decode(Array(repeating: 200, count: 300), nominal: AddOnReader.perModule) == nil)
    }

    /// A UPC-E's EAN-5 reaches further past the code's end (up to 64 modules with its quiet
    /// zone) than the UPC-E is long (51): the crop the add-on is looked for in reached only the
    /// code's own width past it and cut the add-on's last digit off, so with `addon = "read"` the
    /// code went out without it (a tryout; `require` found it later, in the deep passes).
    @Test func aUPCEsFiveDigitAddOnIsReadWithIt() throws {
        let frame = try ImageFile.load(Fixture.path("upce-addon5.png"))
        for addOn in [SymbologyRules.AddOn.read, .require] {
            let rules = Self.rules(.upcE, addOn)
            let read = DecodePipeline(quality: .balanced, rules: rules).decode(frame)
            #expect(read.map { "\($0.text)+\($0.addOn ?? "")" } == ["01234565+12345"], "\(addOn)")
        }
    }

    /// An ISBN with its price turned 30°: read from the `rotate` pass's image, whose turn cut
    /// the add-on off (a turned image loses the region's corners), the code went out without
    /// it (a tryout: EAN-13+5 turned 20-45°). The add-on is looked for again in the region.
    @Test func aTurnedCodesAddOnIsLookedForInTheWholeRegion() throws {
        let frame = try ImageFile.load(Fixture.path("isbn-price-turned.png"))
        for addOn in [SymbologyRules.AddOn.read, .require] {
            let rules = Self.rules(.ean13, addOn)
            for workers in [1, 2] {
                let read = DecodePipeline(quality: .balanced, rules: rules, workers: workers).decode(frame)
                #expect(read.map { "\($0.text)+\($0.addOn ?? "")" } == ["9780306406157+52495"], "\(addOn), \(workers) workers")
            }
        }
    }

    /// A plain EAN-13 stacked under a book's ISBN with its price, turned: the price's bars lie
    /// past the EAN-13's end beside its bars, and the fitted look read them as its add-on (a
    /// tryout: at 23 of 60 turns). An add-on that another code in the image carries, read by
    /// zxing with it, is that code's.
    @Test func anAddOnAnotherCodeCarriesIsNotFittedToThePlainOne() throws {
        let frame = try ImageFile.load(Fixture.path("isbn-over-ean13-turned.png"))
        for addOn in [SymbologyRules.AddOn.read, .require] {
            let rules = Self.rules(.ean13, addOn)
            let read = DecodePipeline(quality: .balanced, rules: rules, stopsAtFirstCode: false).decode(frame)
            let want = addOn == .read ? ["5901234123457+", "9780306406157+52495"] : ["9780306406157+52495"]
            #expect(read.map { "\($0.text)+\($0.addOn ?? "")" }.sorted() == want, "\(addOn)")
        }
    }

    /// The same two codes turned 66°: a slanted scan line crosses the plain EAN-13 and then the
    /// ISBN's price, which lies past the EAN-13's end a code's height to one side. zxing reads
    /// them as one code with an add-on in every look (a tryout's misread at 66° and 246° of 60
    /// turns). An add-on off to one side is not the code's (`AddOnReader.liesBeside`).
    @Test func anAddOnOffToOneSideOfTheCodeIsNotItsOwn() throws {
        let frame = try ImageFile.load(Fixture.path("isbn-over-ean13-turned66.png"))
        // As a kiosk reads a frame (and `scand decode`): the first code found ends the look. On
        // two threads the first look finds the plain EAN-13 (the misread's way), on one the ISBN.
        for addOn in [SymbologyRules.AddOn.read, .require] {
            for workers in [1, 2] {
                let read = DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, addOn), workers: workers).decode(frame)
                let seen = "\(addOn), \(workers) workers: \(read.map { "\($0.text)+\($0.addOn ?? "")" })"
                #expect(!read.contains { $0.text == "5901234123457" && $0.addOn != nil }, "\(seen)")
                #expect(read.allSatisfy { $0.text == "5901234123457" || $0.text == "9780306406157" && [nil, "52495"].contains($0.addOn) }, "\(seen)")
                if addOn == .read { #expect(!read.isEmpty, "\(seen)") }
            }
        }
    }

    /// A lone add-on printed past a code's end, but a code's height higher or lower, shares a few
    /// of the code's rows: it was attached (bench/make-addon-traps.py R4 and R5). Of its rows
    /// across bars a third must be in line with the code's, and more than half of the add-on's
    /// own (bench/make-lone-addons.py, 80-90 px off, sharing a third of their rows: 9 of 96
    /// attached before, the three images here among them).
    @Test func aLoneAddOnThatSharesFewOfTheCodesRowsIsNotItsOwn() throws {
        for (file, symbology, text) in [("ean13-lone-ean5-above.png", Symbology.ean13, "5901234123457"), ("ean8-lone-ean2-below.png", .ean8, "12345670"),
                                        ("ean13-lone-ean5-80-above.png", .ean13, "5901234123457"), ("ean13-lone-ean2-80-below.png", .ean13, "5901234123457"),
                                        ("ean8-lone-ean5-90-below.png", .ean8, "12345670"), ("upca-lone-ean2-90-below.png", .upcA, "725272730706")] {
            for workers in [1, 2] {
                let (read, seen) = try Self.read(file, symbology, workers: workers)
                #expect(read.map(\.text) == [text] && read.allSatisfy { $0.addOn == nil }, "\(seen)")
            }
        }
    }

    /// A code read with an add-on may be placed over the main code alone: the bars past its
    /// end are looked for there when the code's bars fit that place (a lone EAN-2 90 px lower,
    /// sharing a few rows, was looked for past a place taken to span code and add-on, and lay
    /// in line). The fitted look reads the run of bar rows nearest the code's middle, not the
    /// longest: a lone EAN-5 printed past a book's price along its bars was as long and was
    /// sent as the price (bench/make-addon-traps.py R6).
    @Test func theAddOnIsLookedForPastTheCodesOwnEndAndInItsRows() throws {
        let upca = try ImageFile.load(Fixture.path("upca-lone-ean2-90-below.png"))
        for workers in [1, 2] {
            let (read, seen) = try Self.read("isbn-lone-ean5-past-price.png", .ean13, workers: workers)
            #expect(read.map { "\($0.text)+\($0.addOn ?? "")" } == ["9780306406157+52495"], "\(seen)")
        }
        // The UPC-A's place is its own (its bars fit it) though zxing read it with the lone
        // 12 (`scand decode`, every code in a file: stopsAtFirstCode off): the add-on's rows
        // are looked for past that end, and lie off to one side.
        for stops in [true, false] {
            for workers in [1, 2] {
                let read = DecodePipeline(quality: .balanced, rules: Self.rules(.upcA, .read), workers: workers, stopsAtFirstCode: stops).decode(upca)
                #expect(read.map { "\($0.text)+\($0.addOn ?? "")" } == ["725272730706+"], "\(stops), \(workers) workers")
            }
        }
        let plain = try #require(DecodePipeline(quality: .balanced, rules: Self.rules(.upcA, .ignore)).decode(upca).first)
        #expect(EANVerifier.verify(plain, in: upca) == .fits)
        #expect(AddOnReader.liesBeside(plain, in: upca, across: nil) == false)
    }

    /// An ISBN with its price beside a UPC-A with its own EAN-5, turned 60° (make-addon-traps.py
    /// R8): on two threads zbar read the UPC-A first (its place given as its bounding box), and
    /// zxing, on a line 35° off the code's axis that left the UPC-A's rows past its end, read
    /// it with the ISBN's price: `scand decode` sent the UPC-A with 52495 on every run. A read
    /// that steep is not taken for the add-on; each code carries its own add-on or none.
    @Test func anAddOnReadSteeplyAcrossTheBarsIsNotTaken() throws {
        let frame = try ImageFile.load(Fixture.path("isbn-beside-upca-turned60.png"))
        let own = ["725272730706": "51000", "9780306406157": "52495"]
        for stops in [true, false] {
            for workers in [1, 2, 4] {
                let read = DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .read, also: [.upcA]),
                                          workers: workers, stopsAtFirstCode: stops).decode(frame)
                let seen = "\(stops), \(workers) workers: \(read.map { "\($0.text)+\($0.addOn ?? "")" })"
                #expect(!read.isEmpty && read.allSatisfy { s in own[s.text] != nil && (s.addOn == nil || s.addOn == own[s.text]) }, "\(seen)")
            }
        }
        // The line zxing read the UPC-A on, against the bars' direction: over 30° off, refused;
        // along the code's axis, taken.
        let line = Symbol(symbology: .upcA, bytes: Array("725272730706".utf8), corners: [PixelPoint(x: 37, y: 438), PixelPoint(x: 37, y: 90)])
        #expect(DecodePipeline.readsSteeply(line, axis: -Double.pi / 2 + 35 * Double.pi / 180))
        #expect(!DecodePipeline.readsSteeply(line, axis: -Double.pi / 2 + 25 * Double.pi / 180))
        #expect(!DecodePipeline.readsSteeply(line, axis: nil))
    }

    /// Two codes printed touching (bench/make-addon-stacks.py): an EAN-13 with its EAN-2 47
    /// over a plain EAN-13, the upper code's digits on the plain code's bars, and an ISBN with
    /// its price over a plain EAN-13, turned 120°. The rows across bars past the plain code's
    /// end ran on into the upper code's, the add-on beside those lay "in line", and the plain
    /// code was sent with it (5901234123457+47, +52495). The plain code's own rows end where
    /// the other code's begin: each code carries its own add-on or none.
    @Test func anAddOnBesideATouchingCodeIsNotTaken() throws {
        let own = ["5901234123457": "", "4006381333931": "47", "9780306406157": "52495"]
        for file in ["ean13-addon2-touching-ean13.png", "isbn-touching-ean13-turned120.png"] {
            let frame = try ImageFile.load(Fixture.path(file))
            for stops in [true, false] {
                for workers in [1, 2] {
                    let read = DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .read), workers: workers, stopsAtFirstCode: stops).decode(frame)
                    let seen = "\(file), \(stops), \(workers) workers: \(read.map { "\($0.text)+\($0.addOn ?? "")" })"
                    #expect(!read.isEmpty && read.allSatisfy { s in own[s.text] != nil && (s.addOn == nil || s.addOn == own[s.text]) }, "\(seen)")
                }
            }
        }
        // The plain code's place, read alone: its add-on's place holds bars beside the other code.
        let frame = try ImageFile.load(Fixture.path("ean13-addon2-touching-ean13.png"))
        let plain = try #require(DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .ignore)).decode(frame).first { $0.text == "5901234123457" })
        #expect(AddOnReader.liesBeside(plain, in: frame, across: ImagePass.barAngle(frame)) != true)
    }

    /// An ISBN with its price 8 px over an EAN-13 with its own EAN-2, turned 180°
    /// (make-addon-stacks.py --gap 8): the fitted look read the run of bars nearest the rows
    /// read, the ISBN's price, while `liesBeside` judged the EAN-2's run, in line, and the
    /// EAN-13 went out with 52495. The fitted look reads the run that shares the most of the
    /// code's own rows.
    @Test func theFittedLookReadsTheRunInLineWithTheCode() throws {
        let frame = try ImageFile.load(Fixture.path("isbn-over-ean13-addon2-gap8-turned180.png"))
        let own = ["4006381333931": "47", "9780306406157": "52495"]
        for stops in [true, false] {
            for workers in [1, 2] {
                let read = DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .read), workers: workers, stopsAtFirstCode: stops).decode(frame)
                let seen = "\(stops), \(workers) workers: \(read.map { "\($0.text)+\($0.addOn ?? "")" })"
                #expect(!read.isEmpty && read.allSatisfy { s in own[s.text] != nil && (s.addOn == nil || s.addOn == own[s.text]) }, "\(seen)")
            }
        }
    }

    /// A lone EAN-2 90 px below an EAN-8, turned 150° (make-lone-addons.py --turned, lone083):
    /// the code's rows and the EAN-2's both ran past the window of rows sampled, and the part
    /// inside seemed all in line (11 of 11 rows): sent as 1234567012. A run the window cuts is
    /// looked at in a window twice as wide, whether or not the code's rows are cut too.
    @Test func aLoneAddOnCutByTheWindowWithTheCodeIsNotInLine() throws {
        try Self.expectEAN8Alone("ean8-lone-ean2-90-below-turned150.png")
    }

    /// `file` read with EAN-8 add-ons read as the EAN-8 12345670 alone, on 1 and 2 threads,
    /// stopping at the first code and not.
    static func expectEAN8Alone(_ file: String) throws {
        let frame = try ImageFile.load(Fixture.path(file))
        for stops in [true, false] {
            for workers in [1, 2] {
                let read = DecodePipeline(quality: .balanced, rules: rules(.ean8, .read), workers: workers, stopsAtFirstCode: stops).decode(frame)
                #expect(read.map { "\($0.text)+\($0.addOn ?? "")" } == ["12345670+"], "\(file), \(stops), \(workers) workers")
            }
        }
    }

    /// A lone EAN-5 80 px below an EAN-8, turned 270° (make-lone-addons.py --turned, lone067):
    /// zxing read the code with the EAN-5 and placed it over both. The add-on was refused (off
    /// to one side) but the place kept, and a later pass, placed by it, took the EAN-5's end for
    /// the code's, found nothing to judge past it and took zxing's 77777. A read that goes
    /// without its add-on is placed over the code alone.
    @Test func aCodeThatGoesWithoutItsAddOnIsPlacedOverTheCodeAlone() throws {
        try Self.expectEAN8Alone("ean8-lone-ean5-80-below-turned270.png")
        // An EAN-8 (67 modules) read with an EAN-5 (a 9-module gap and 47) over 123 modules: its
        // end corners go back 56 modules' worth.
        var s = Symbol(symbology: .ean8, bytes: Array("12345670".utf8),
                       corners: [PixelPoint(x: 0, y: 0), PixelPoint(x: 246, y: 0), PixelPoint(x: 246, y: 40), PixelPoint(x: 0, y: 40)])
        s.addOn = "77777"
        let bare = DecodePipeline.trimmedToCode(s)
        #expect(bare.addOn == nil)
        #expect(bare.corners == [PixelPoint(x: 0, y: 0), PixelPoint(x: 134, y: 0), PixelPoint(x: 134, y: 40), PixelPoint(x: 0, y: 40)])
    }

    /// A lone EAN-2 90 px below an EAN-8 (make-lone-addons.py's lone059): `read` sent the code
    /// alone, but `require` looked on through the deep passes, and the `sharpen` pass read the
    /// code on its top rows: the rows' window around them ended inside the lone add-on's run of
    /// bar rows, and the part of it inside seemed in line (0.61 of its rows). A run the window
    /// cuts past the code's rows is not in line: no read with `require`, the code alone with `read`.
    @Test func aRunOfAddOnRowsCutByTheWindowIsNotInLine() throws {
        let frame = try ImageFile.load(Fixture.path("ean8-lone-ean2-90-below.png"))
        for stops in [true, false] {
            for workers in [1, 2] {
                for (addOn, want) in [(SymbologyRules.AddOn.require, [String]()), (.read, ["12345670+"])] {
                    let read = DecodePipeline(quality: .balanced, rules: Self.rules(.ean8, addOn), workers: workers, stopsAtFirstCode: stops).decode(frame)
                    #expect(read.map { "\($0.text)+\($0.addOn ?? "")" } == want, "\(addOn), \(stops), \(workers) workers")
                }
            }
        }
    }

    /// zxing reads this EAN-2 47 as 37 on the rows across the code's middle and gives that
    /// read a place over code and add-on; merged with a read of the code alone, it carried the
    /// code-alone place, where the fitted look, taking the place to span both, read nothing and
    /// disputed nothing (bench/make-addon-traps.py R1: `scand decode`, which reads every code,
    /// sent 37). Placed by the code's fitted digits, the fitted look reads 47 and disputes 37.
    @Test func anEAN2ReadWrongAlongTheMiddleIsDisputedWhereverTheCodeIsPlaced() throws {
        let frame = try ImageFile.load(Fixture.path("ean13-addon2-47.png"))
        for stops in [true, false] {
            for workers in [1, 2] {
                let read = DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .read), workers: workers, stopsAtFirstCode: stops).decode(frame)
                let seen = "\(stops), \(workers) workers: \(read.map { "\($0.text)+\($0.addOn ?? "")" })"
                #expect(read.map(\.text) == ["4006381333931"] && read.allSatisfy { [nil, "47"].contains($0.addOn) }, "\(seen)")
                // As the kiosk reads (the first code ends the look): with its add-on.
                if stops { #expect(read.first?.addOn == "47", "\(seen)") }
            }
        }
    }

    /// An EAN-2 has one check, its value modulo 4 in its parities: zxing read `590123412345+12`
    /// turned 7° at 0.75 as `+72`, and an UPC-E's `+12` turned 14° at 0.70 as `+72`, in every
    /// look alike (a tryout's images, bench/make-addon-traps.py R2 and R3). Where the fitted look
    /// reads another EAN-2 and never zxing's, the code goes without it.
    @Test func anEAN2TheFittedLookContradictsIsNotSent() throws {
        for (file, symbology, text) in [("ean13-addon2-turned7.png", Symbology.ean13, "5901234123457"), ("upce-addon2-turned14.png", .upcE, "01234565")] {
            for workers in [1, 2] {
                let (read, seen) = try Self.read(file, symbology, workers: workers)
                #expect(read.map(\.text) == [text], "\(seen)")
                #expect(read.allSatisfy { [nil, "12"].contains($0.addOn) }, "\(seen)")
            }
        }
    }

    /// A label torn over another code laid in line with it, turned 1.1° apart, its right part
    /// and its EAN-5 (91936) left over the code's end (torn-addon-turned.jpg,
    /// make-retail-layouts.py tornjoin): the code 2014852858687, which has no add-on, was sent
    /// with the label's. The add-on's bars stand turned against the code's: it is not the
    /// code's. A code under a strong perspective, whose EAN-5's bars fan out 3.6° from the
    /// code's end as its own bars fan out along it, keeps its add-on (addon-perspective.jpg).
    @Test func anAddOnStandingTurnedAgainstTheCodeIsAnotherLabels() throws {
        let torn = try ImageFile.load(Fixture.path("torn-addon-turned.jpg"))
        let labels = ["2014852858687": "", "9794182068385": "91936"]
        for (stops, workers) in [(true, 1), (false, 2)] {
            let read = DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .read), workers: workers, stopsAtFirstCode: stops).decode(torn)
            let seen = "\(stops), \(workers) workers: \(read.map { "\($0.text)+\($0.addOn ?? "")" })"
            #expect(!read.isEmpty && read.allSatisfy { s in labels[s.text] == (s.addOn ?? "") }, "\(seen)")
        }
        let plain = try #require(DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .ignore)).decode(torn).first { $0.text == "2014852858687" })
        #expect(AddOnReader.standsTurned(plain, addOn: "91936", in: torn, across: ImagePass.barAngle(torn)))

        let fanned = try ImageFile.load(Fixture.path("addon-perspective.jpg"))
        let (read, seen) = try Self.read("addon-perspective.jpg", .ean13, workers: 1)
        #expect(read.contains { $0.text == "9799619680321" && $0.addOn == "92640" }, "\(seen)")
        let code = try #require(DecodePipeline(quality: .balanced, rules: Self.rules(.ean13, .ignore)).decode(fanned).first { $0.text == "9799619680321" })
        #expect(!AddOnReader.standsTurned(code, addOn: "92640", in: fanned, across: ImagePass.barAngle(fanned)))
    }

    /// Leans measured on rows of bars: bars that shift a fifth of a pixel per row lean 0.2, and
    /// the lean is followed past a whole module's shift.
    @Test func aLeanIsFollowedRowByRow() throws {
        let pattern = [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1]
        // Rows one pixel apart, sampled a pixel apart, of bars 3 px wide shifting `slope` px per row.
        func rows(slope: Double) -> [[Double]] {
            (0..<60).map { t in
                (0..<120).map { i -> Double in
                    let x = Double(i) - slope * Double(t)
                    let module = Int((x / 3).rounded(.down))
                    return module >= 0 && module < pattern.count && pattern[module] == 1 ? 30 : 220
                }
            }
        }
        for slope in [0.0, 0.2, -0.05] {
            let lean = try #require(AddOnReader.lean(rows(slope: slope), rows: 0...59, span: 10..<110, step: 1))
            #expect(abs(lean.slope - slope) < 0.01, "\(slope): \(lean)")
            #expect(lean.rows >= 50)
        }
    }
}
