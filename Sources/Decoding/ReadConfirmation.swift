import Glibc
import ScanCore
import ScanHardware

/// Whether a read stands: a 2D code or a code with a mandatory check character on its own; a
/// linear code (and a PDF417 that spent its error correction) when another engine reads it too,
/// or its own engine again from new samples, or its bars fit the image (EAN/UPC). The reads of
/// one frame that were not accepted wait in `Doubts` for a later look that confirms them.
extension DecodePipeline {
    /// A linear read that only `family`'s engine made, read again by an engine of another
    /// family from a crop around it: alike, it is checked within the frame (`verifiedInFrame`)
    /// and the kiosk need not wait for a second frame. A few milliseconds, paid only when a code
    /// is found.
    func checkedTwice(_ s: Symbol, readBy family: ObjectIdentifier, in frame: GrayFrame) -> Symbol {
        guard checksReadsInFrame, s.symbology.isLinear, !s.verifiedInFrame, s.corners.count >= 2 else { return s }
        var s = s
        s.verifiedInFrame = engines.contains { Self.family($0) != family && rereads(s, with: $0, in: frame, resample: false) }
        return s
    }

    /// A first-look read that needs no second engine: a 2D code (its own error correction), a
    /// Code 128 or Code 93 (mandatory check characters, checked by the engine), an EAN/UPC
    /// whose bars fit the image, or a PDF417 with error correction to spare or that its engine
    /// reads again from a resampled crop (`readsTwice`; no other engine reads PDF417).
    func standsAlone(_ s: Symbol, in frame: GrayFrame) -> Bool {
        switch s.symbology {
        case .code128, .code93: return true
        case .pdf417: return !Self.readsTwice(s) || s.corners.count < 2 || rereads(s, with: engines[0], in: frame)
        default: return s.symbology.isEANFamily ? s.verifiedInFrame || EANVerifier.verify(s, in: frame) == .fits : !s.symbology.isLinear
        }
    }

    /// Whether a read of one engine alone must be confirmed (`accepts`): a linear code, and a
    /// PDF417 that spent all its error correction (or whose engine does not say). Damaged past
    /// what its check words mend (small codes get 8), a PDF417 may be "corrected" into another
    /// valid message: zxing-cpp 3.1 reads a blurred, noisy, slanted PDF417 of
    /// "locker-54037243476" as "VFXZXKR-@WHBI-TWQY", all its correction spent, and the same code
    /// cropped reads as nothing or as the right text. A real read reads again.
    static func readsTwice(_ s: Symbol) -> Bool {
        s.symbology.isLinear || (s.symbology == .pdf417 && (s.spareErrorCorrection ?? 0) <= 0)
    }

    /// The results of `lookers` (one list each, in order) merged, where a linear code that no
    /// other engine read must be accepted on its own (`accepts`). zxing with another binarizer is
    /// still zxing: its reads confirm nothing zxing read.
    func confirmed(_ lists: [[Symbol]], by lookers: [any BarcodeDecoder], in frame: GrayFrame, _ doubts: Doubts = Doubts(),
                   enlarged: Double = 1) -> [Symbol] {
        guard lists.count > 1 else { return merge(lists).map { checkedTwice($0, readBy: Self.family(lookers[0]), in: frame) } }
        var kept = lists
        for (i, list) in lists.enumerated() {
            let family = Self.family(lookers[i])
            let others = lists.indices.filter { Self.family(lookers[$0]) != family }.flatMap { lists[$0] }
            kept[i] = list.compactMap { s in
                guard Self.readsTwice(s), !s.corners.isEmpty else { return s }
                var s = s
                // One engine that reads two different EAN/UPC codes in one place contradicts
                // itself (a line across the code: the scan lines beside it read the code, those
                // along it another valid one, and the other engine may read both alike): neither
                // counts from this image, nor as a doubt.
                if s.symbology.isEANFamily, list.contains(where: { $0.symbology.isEANFamily && !Self.same($0, s) && Symbol.overlap($0, s) }) {
                    return nil
                }
                // Two engines alike: checked within the frame.
                if others.contains(where: { Self.same($0, s) }) { s.verifiedInFrame = true; return s }
                return accepts(s, readBy: lookers[i], in: frame, doubts, besides: others, enlarged: enlarged) ? checkedTwice(s, readBy: family, in: frame) : nil
            }
        }
        return merge(kept)
    }

    /// A linear code (or a PDF417: `readsTwice`) that one engine alone read. An EAN/UPC read
    /// must fit the bars in the image (`EANVerifier`); if it does not, a zxing read may still
    /// count (zxing's EAN/UPC reader checks each digit's bars and seldom misreads): a
    /// full-length EAN-13/UPC-A when no other engine reads a different EAN/UPC in the frame
    /// and, with modules finer than `finestModule`, zxing reads it again from a resampled crop
    /// (at 1.1 px a module its other thresholds read EAN-13s with wrong digits and a valid
    /// check digit: 5 of 540 turned images of `bench/make-misreads.py --turns`); otherwise
    /// (contradicted, or a short UPC-E/EAN-8) only when zxing reads the same from the frame at
    /// half size. zbar's EAN/UPC reads of blurred codes, the misreads this stops, must
    /// fit. Any other linear code, a PDF417 (or an EAN/UPC the image cannot judge) must read the
    /// same again from a resampled crop. A read that fails is kept as a doubt: when a different
    /// engine reads the same in a later pass of the same frame, both count.
    func accepts(_ s: Symbol, readBy engine: any BarcodeDecoder, in frame: GrayFrame, _ doubts: Doubts,
                 besides others: [Symbol] = [], enlarged: Double = 1) -> Bool {
        guard Self.readsTwice(s), !s.corners.isEmpty else { return true }
        let family = Self.family(engine)
        if doubts.list.contains(where: { $0.family != family && Self.same($0.symbol, s) }) { return true }
        // A code whose check character the engine checks (Code 128, Code 93) that the same
        // engine read alike from another pass's image: two looks at differently made samples
        // (a blurred code sharpened, then deconvolved) agree, as two engines would.
        if s.symbology == .code128 || s.symbology == .code93, doubts.image != nil,
           doubts.list.contains(where: { $0.family == family && $0.image != nil && $0.image != doubts.image && Self.same($0.symbol, s) }) {
            return true
        }
        let ok = s.symbology.isEANFamily ? acceptsEAN(s, readBy: engine, in: frame, doubts, besides: others, enlarged: enlarged)
                                         : rereads(s, with: engine, in: frame)
        if !ok { doubts.list.append((s, family, doubts.image)) }
        return ok
    }

    private func acceptsEAN(_ s: Symbol, readBy engine: any BarcodeDecoder, in frame: GrayFrame, _ doubts: Doubts,
                            besides others: [Symbol], enlarged: Double) -> Bool {
        let family = Self.family(engine)
        let fromZXing = engine is ZXingDecoder
        let fullLength = [.ean13, .upcA, .isbn13].contains(s.symbology)
        let contradicted = (others + doubts.list.filter { $0.family != family }.map(\.symbol))
            .contains { $0.symbology.isEANFamily && !Self.same($0, s) }
        switch EANVerifier.verify(s, in: frame) {
        case .fits: return true
        case .misfit(let by):
            // A short code (UPC-E, EAN-8) from an enlarged crop must read again at half its
            // camera size: a glare or a line that hides a bar turns one into another valid code,
            // and the crop halved once gives back the same samples. A full-length code keeps the
            // one halving: its six more digits make such a chance read rare, unless its modules
            // are finer than `finestModule` (then it must read again from a resampled crop).
            guard by.isFinite, fromZXing else { return false }
            if fullLength, !contradicted, !Self.isFine(s, enlarged: enlarged) || rereads(s, with: engine, in: frame) { return true }
            return readsAtHalfSize(s, with: engine, in: frame, enlarged: fullLength ? 1 : enlarged)
        case .cannotTell:
            return (fromZXing && fullLength && (!contradicted || readsAtHalfSize(s, with: engine, in: frame)))
                || rereads(s, with: engine, in: frame)
        }
    }

    /// Whether the fitted look (`AddOnReader`) reads an EAN-2 other than `addOn` on a band of
    /// rows and `addOn` on none. An EAN-2's only check is its value modulo 4 in its parities,
    /// and zxing's edge measurements can turn one bar into another valid value in every look
    /// alike (a tryout: `590123412345+12` turned 7° at 0.75 read as `72`).
    static func disputed(_ addOn: String, by fitted: [AddOnReader.Read?]) -> Bool {
        guard addOn.count == 2 else { return false }
        let digits = fitted.compactMap { $0?.digits }
        return !digits.isEmpty && !digits.contains(addOn)
    }

    /// Whether an EAN/UPC read's modules are finer than `finestModule` camera pixels (its read
    /// line's length over its modules, in a pass's image enlarged `enlarged` times).
    static func isFine(_ s: Symbol, enlarged: Double) -> Bool {
        guard let modules = EANVerifier.Layout.modules(of: s.symbology), let (p, q) = s.readEnds else { return false }
        let length = ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
        return length / Double(modules) / max(1, enlarged) < finestModule
    }

    /// The module (camera pixels) under which zxing's EAN/UPC reads that do not fit the image
    /// must read again from a resampled crop (`acceptsEAN`).
    static let finestModule = 1.4

    /// The add-ons of EAN/UPC reads whose rule reads them, checked and looked for on a crop
    /// around the code (widened by its width each side, where an add-on sits, on the left of a
    /// code upside down, past the main code's corners; and by its height, or half its width
    /// where zxing read it along a few rows, above and below), read by zxing with add-ons as
    /// it is, at three quarters of its size and enlarged twice (halved when large), deconvolved
    /// for 1.5 and 2 px of lens blur (a blurred add-on's thin spaces back), and, where the bars
    /// slant, turned upright and at three quarters of that. An add-on's check is weak (an
    /// EAN-2's parity is its value modulo 4, an EAN-5's a weighted sum modulo 10) and a blurred one read along one band of
    /// rows may turn into other valid digits: an add-on read with the code counts when one of
    /// these looks reads it again with the same main code; a code read without one gets the
    /// add-on that two looks read alike (a slanted code's rows cross the main code's bars but
    /// miss the shorter add-on's: zxing-cpp 3.1 reads 2 of 16 add-ons of codes turned 10-30
    /// degrees). Where they do not agree, the add-on fitted on the image (`AddOnReader`) counts
    /// when a zxing look read the same, or when it reads alike, clear by `AddOnReader.margin`,
    /// on the whole band of the add-on's rows and on each half (blurred add-ons, whose thin
    /// spaces zxing no longer finds: 199 of 240 generated add-on images read whole, 228 with
    /// the fitted look). Otherwise the main code stands alone (no read where the rule requires
    /// the add-on). Paid only for EAN/UPC reads where add-ons are read.
    func withAddOnsChecked(_ found: [Symbol], in frame: GrayFrame, besides others: [Symbol] = []) -> [Symbol] {
        guard let reader = addOnReader else { return found }
        // Whether each add-on came from the fitted look alone (no zxing look read it).
        var fittedAlone = [Bool](repeating: false, count: found.count)
        let checked = found.enumerated().map { (k, s) -> Symbol in
            guard rules.addOn(s.symbology) != .ignore, s.corners.count >= 2 else { return s }
            let b = s.bounds
            // The add-on's bars may start below the rows the main code was read on (a printed
            // add-on leaves room for its digits above it): a code's height and more each way.
            // An add-on ends up to `AddOnReader.farthestEnd` modules past the code: further than
            // a UPC-E is long (51; its crop cut the add-on's last digit off).
            let modules = EANVerifier.Layout.modules(of: s.symbology) ?? AddOnReader.farthestEnd
            let reach = { (side: Int) in side * max(modules, AddOnReader.farthestEnd) / modules }
            let mx = max(16, reach(b.width)), my = max(16, reach(b.height) + 8, b.width / 2)
            let rect = PixelRect(x: b.x - mx, y: b.y - my, width: b.width + 2 * mx, height: b.height + 2 * my).clamped(width: frame.width, height: frame.height)
            guard rect.width > 16, rect.height > 16 else { return s }
            let crop = frame.cropped(to: rect)
            var looks: [() -> GrayFrame] = [
                { crop },
                { ImagePass.scaled(crop, by: 0.75) },
                { crop.width * crop.height > 400_000 ? ImagePass.halve(crop) : ImagePass.resize(crop, factor: 2) },
            ]
            let across = ImagePass.barAngle(crop)
            let unturned = looks.count
            if let bars = across, abs(remainder(bars, Double.pi)) > 0.05 {
                let upright = { ImagePass.rotated(crop, by: bars, factor: min(crop.width, crop.height) < 300 ? 2 : 1, originX: 0, originY: 0).frame }
                looks += [upright, { ImagePass.scaled(upright(), by: 0.75) }]
            }
            // A blurred add-on's thin spaces back (the `deblurred` pass's filters), looked at
            // only where the fitted look finds bars beside the code (a code without an add-on
            // does not pay for them).
            let deblurred: [() -> GrayFrame] = ImagePass.lensBlurs.map { sigma in { ImagePass.deblurred(crop, sigma: sigma) } }
            // A code that came with an add-on is placed over both (zxing's read) or over the
            // main code alone (an add-on given to a read of the code alone): where the main
            // code's bars fit its place as it is (`EANVerifier`), the add-on is looked for past
            // that end (a lone EAN-2 a code's height lower, looked for past a place taken to
            // span the code and an add-on, was found in line; an EAN-2 zxing read as 37 for
            // 47 went unfitted there and unchallenged: bench/make-lone-addons.py, make-addon-traps.py R1).
            lazy var placed = s.addOn != nil && EANVerifier.verify(Self.withoutAddOn(s), in: frame) == .fits ? Self.withoutAddOn(s) : s
            lazy var fitted = AddOnReader.reads(beside: placed, in: frame, across: across)
            // An add-on read off to one side of the code is another code's (`AddOnReader.liesBeside`),
            // and so is one whose bars stand turned against the code's: a label torn over another
            // code (`AddOnReader.standsTurned`).
            lazy var aside = AddOnReader.liesBeside(placed, in: frame, across: across) == false
            let turned = { (addOn: String) in AddOnReader.standsTurned(placed, addOn: addOn, in: frame, across: across) }
            // An add-on read on a line steeply across the code's bars is not taken (nor the
            // code's own, where its read ran so): past the code's end such a line has left its
            // rows, and the bars it crosses are a neighbour's (`readsSteeply`).
            let claimed = Self.readsSteeply(s, axis: across) ? nil : s.addOn
            var seen: [String] = []
            var whole = s
            for (i, look) in (looks + deblurred).enumerated() {
                if i == looks.count, fitted.isEmpty { break }
                // The upright looks' rows run along the code; the others' as the frame's do.
                let axis = (unturned..<looks.count).contains(i) ? 0 : across
                guard let read = reader.decode(look()).first(where: { Self.same($0, s) && $0.addOn != nil }), let addOn = read.addOn,
                      !Self.readsSteeply(read, axis: axis) else { continue }
                if addOn == claimed || seen.contains(addOn) {
                    whole.addOn = aside || Self.disputed(addOn, by: fitted) || turned(addOn) ? nil : addOn
                    return whole.addOn == nil && placed.addOn != nil ? Self.trimmedToCode(s) : whole
                }
                seen.append(addOn)
            }
            // The add-on fitted on the image where the code's geometry puts it (`AddOnReader`),
            // a look of another kind: it counts where a zxing look read the same, or where the
            // whole band of its bars and each half of it (disjoint rows) read alike.
            let digits = fitted.map { $0?.digits }
            let clear = fitted.allSatisfy { ($0?.margin ?? 0) >= AddOnReader.margin }
            whole.addOn = digits.compactMap { $0 }.first { $0 == claimed || seen.contains($0) }
            if whole.addOn == nil, fitted.count == 3, clear, digits.allSatisfy({ $0 == digits[0] }) {
                whole.addOn = digits[0]
                fittedAlone[k] = true
            }
            if let addOn = whole.addOn, aside || turned(addOn) { whole.addOn = nil }
            // A read placed over code and add-on that goes without the add-on is placed over the
            // code alone: a later look (a pass's image) placed by it took the add-on's end for the
            // code's, found nothing to judge there, and took zxing's add-on (a lone EAN-5 past an
            // EAN-8, turned 270°: bench/make-lone-addons.py --turned).
            return whole.addOn == nil && placed.addOn != nil ? Self.trimmedToCode(s) : whole
        }
        // An add-on fitted beside one code that another code in the image carries, read by
        // zxing with it, is that code's (a tryout: a plain EAN-13 stacked with a book's ISBN
        // and turned got the ISBN's price, whose bars lay past the EAN-13's end beside its
        // bars); fitted beside two codes, it is neither's for sure.
        return checked.enumerated().map { k, s in
            guard fittedAlone[k], let addOn = s.addOn else { return s }
            var bare = s
            if (checked + others).contains(where: { $0.addOn == addOn && $0.text != s.text }) { bare.addOn = nil }
            return bare
        }
    }

    /// Whether `read` ran along a line more than 30° off the code's axis (`axis`, the direction
    /// across its bars, in radians; false where it is not known). Over a code and its add-on
    /// (about 150 modules: an EAN-13, the gap and an EAN-5) such a line drifts 87 modules along
    /// the bars, more than they are tall (about 70): what it reads past the code's end lies
    /// beside the code, not in line. A book's ISBN and a UPC-A side by side, turned 60°
    /// (bench/make-addon-traps.py R8): on two threads zbar read the UPC-A first, given as its
    /// bounding box, and zxing read it on a line 35° off its axis with the ISBN's price. A
    /// code's own add-on on the generated sets is read at most 25° off.
    static func readsSteeply(_ read: Symbol, axis: Double?) -> Bool {
        guard let axis, let (p, q) = read.readEnds, p.x != q.x || p.y != q.y else { return false }
        return abs(remainder(atan2(q.y - p.y, q.x - p.x) - axis, Double.pi)) > Double.pi / 6
    }

    /// EAN/UPC reads without a code of two bar widths (Code 39, Codabar, Interleaved 2 of 5)
    /// read in their place from a crop around them. A Code 39 of four characters has 59 bars
    /// and spaces over 95 modules at a 3:1 ratio, as an EAN-13 has: zxing-cpp 3.1 reads a
    /// `1HAH` backwards as the EAN-13 4181222111111 (valid check digit), and its bars fit it
    /// closely enough (elements of one and three modules where the digits want two and four).
    /// A code of two widths read there says what the bars are. Paid for EAN/UPC reads only,
    /// where such a symbology is enabled.
    func withoutTwoWidthLookalikes(_ found: [Symbol], in frame: GrayFrame) -> [Symbol] {
        guard !twoWidthReaders.isEmpty, found.contains(where: { $0.symbology.isEANFamily && $0.corners.count >= 2 }) else { return found }
        return found.filter { s in
            guard s.symbology.isEANFamily, s.corners.count >= 2 else { return true }
            let rect = Self.area(around: s, in: frame, sides: 4)
            guard rect.width > 8, rect.height > 8 else { return true }
            let crop = frame.cropped(to: rect)
            let shifted = Symbol(symbology: s.symbology, bytes: s.bytes, corners: s.corners.map { PixelPoint(x: $0.x - rect.x, y: $0.y - rect.y) })
            return !twoWidthReaders.contains { reader in reader.decode(crop).contains { Symbol.overlap($0, shifted) } }
        }
    }

    /// Which engine a decoder is: decoders of one type (zxing with another binarizer) share
    /// their misreads, so one cannot confirm the other.
    static func family(_ engine: any BarcodeDecoder) -> ObjectIdentifier { ObjectIdentifier(type(of: engine)) }

    /// Single-engine reads of one frame that were not accepted on their own.
    final class Doubts {
        var list: [(symbol: Symbol, family: ObjectIdentifier, image: PassImage?)] = []
        /// The deep pass's image being weighed (nil: the first look).
        var image: PassImage?
        /// The confirmed reads of codes without a check character in the frame's images so far
        /// (`whole`: a shorter read that one holds is a part of it).
        var checked: [Symbol] = []
        /// Whether an EAN/UPC read was read across a torn label (`JoinedHalves.tornInLine`), as
        /// its lines showed when it was first weighed.
        var torn: [Read: Bool] = [:]
        /// The whole frame and the region's place in it, when the region is a part of it (a
        /// viewport): what lies past the region's edges (`withoutCutReads`).
        var view: (frame: GrayFrame, origin: (x: Int, y: Int))?

        /// A read by what it says, wherever a pass placed it: the code and its add-on (which
        /// decides the span the read is placed over).
        struct Read: Hashable {
            let code: CodeIdentity, addOn: String?
            init(_ s: Symbol) { code = CodeIdentity(s); addOn = s.addOn }
        }
    }

    /// One image of a deep pass: the pass's place in the pass list, the image's in the pass's.
    struct PassImage: Equatable {
        var pass: Int, index: Int
    }

    /// The same read from the frame at half size: sampled anew, a real code reads the same,
    /// and a read that another engine contradicts has to. `enlarged`: a frame that is an
    /// enlargement (a crop at twice its size) is halved until it is half its camera size (halved
    /// once, it would only give back the camera's samples, and a misread with them).
    func readsAtHalfSize(_ s: Symbol, with engine: any BarcodeDecoder, in frame: GrayFrame, enlarged: Double = 1) -> Bool {
        var half = frame, factor = 2 * max(1, enlarged)
        while factor >= 2 {
            guard half.width >= 64, half.height >= 32 else { return false }
            half = ImagePass.halve(half)
            factor /= 2
        }
        return engine.decodeAgain(half, as: s).contains { Self.same($0, s) }
    }

    /// Whether `engine` reads `s` again from a crop around it, resampled (`resample`: the same
    /// engine's second look needs new samples) or as it is (another engine's look is new anyway).
    func rereads(_ s: Symbol, with engine: any BarcodeDecoder, in frame: GrayFrame, resample: Bool = true) -> Bool {
        let rect = Self.area(around: s, in: frame, sides: 4)
        guard rect.width > 8, rect.height > 8 else { return false }
        let crop = frame.cropped(to: rect)
        guard resample else { return engine.decodeAgain(crop, as: s).contains { Self.same($0, s) } }
        // Two resamplings, either of which confirms: the crop enlarged twice (halved when it is
        // large), and at three quarters of its size (other samples again, and a wider look for
        // the local threshold: a glare spot that hid bars from the enlarged crop). The cheaper
        // first: an enlarged crop has four times the pixels and often is not needed.
        let large = crop.width * crop.height > 400_000
        let looks: [() -> GrayFrame] = [
            { large ? ImagePass.halve(crop) : ImagePass.resize(crop, factor: 2) },
            { ImagePass.scaled(crop, by: 0.75) },
        ]
        return (large ? looks : looks.reversed()).contains { look in engine.decodeAgain(look(), as: s).contains { Self.same($0, s) } }
    }

    /// The area around a read (at least one corner) that a second look crops: its bounding box
    /// widened by 1/`sides` of its width (at least 16 pixels) each side and by half its height
    /// and 8 pixels (at least 16) above and below, within the frame.
    static func area(around s: Symbol, in frame: GrayFrame, sides: Int) -> PixelRect {
        let b = s.bounds
        let mx = max(16, b.width / sides), my = max(16, b.height / 2 + 8)
        return PixelRect(x: b.x - mx, y: b.y - my, width: b.width + 2 * mx, height: b.height + 2 * my)
            .clamped(width: frame.width, height: frame.height)
    }

    /// One list from the engines' lists: the same payload found twice is one symbol (the first
    /// engine's, which carries the AIM identifier, with the add-on another engine read).
    func merge(_ lists: [[Symbol]]) -> [Symbol] {
        var out: [Symbol] = []
        for list in lists {
            for s in list {
                if let i = out.firstIndex(where: { Self.same($0, s) }) {
                    if out[i].addOn == nil, let a = s.addOn { out[i].addOn = a }
                } else { out.append(s) }
            }
        }
        return out
    }

    /// `s`, read with its add-on and placed over both (zxing's place), without it and placed
    /// over the code alone: its end corners moved back along the read to the code's end.
    static func trimmedToCode(_ s: Symbol) -> Symbol {
        var bare = withoutAddOn(s)
        guard s.addOn != nil, let count = EANVerifier.Layout.modules(of: s.symbology), s.corners.count >= 2 else { return bare }
        let modules = Double(count), span = AddOnReader.Geometry.span(modules, addOn: s.addOn)
        let c = s.corners
        let back = { (from: PixelPoint, to: PixelPoint) in
            PixelPoint(x: from.x + Int((Double(to.x - from.x) * modules / span).rounded()), y: from.y + Int((Double(to.y - from.y) * modules / span).rounded()))
        }
        bare.corners = c.count >= 4 ? [c[0], back(c[0], c[1]), back(c[3], c[2]), c[3]] : [c[0], back(c[0], c[1])] + c.dropFirst(2)
        return bare
    }

    /// `s` without its add-on.
    static func withoutAddOn(_ s: Symbol) -> Symbol {
        var bare = s
        bare.addOn = nil
        return bare
    }

    static func same(_ a: Symbol, _ b: Symbol) -> Bool {
        if a.bytes == b.bytes { return true }
        // UPC-A is EAN-13 with a leading 0; UPC-E may come expanded.
        let ta = a.text, tb = b.text
        return "0" + ta == tb || "0" + tb == ta || UPC.expandUPCE(ta).map { $0 == tb || "0" + $0 == tb } == true
            || UPC.expandUPCE(tb).map { $0 == ta || "0" + $0 == ta } == true
    }
}
