import Glibc
import ScanCore
import ScanHardware

/// Decoding that gets more from a frame than either engine alone: the viewport crop, zxing-cpp
/// and zbar on it, and only when nothing was found, further passes on transformed images
/// (`ImagePass`), as many as the quality level allows. Results are checked against the
/// symbology rules and returned nearest the viewport centre first.
public final class DecodePipeline: StagedDecoder, @unchecked Sendable {
    /// The seed's quality levels: how many extra passes a frame may get.
    public typealias Quality = DecodeQuality

    public let name: String
    public let supportedSymbologies: Set<Symbology>
    public let quality: Quality
    public let rules: SymbologyRules
    /// Whether a linear read that one engine made is read again by another engine from a crop
    /// (`Symbol.verifiedInFrame`): the kiosk then answers from one frame. Off for batch decoding,
    /// where nothing waits for a second frame and a few milliseconds a code are better saved.
    public let checksReadsInFrame: Bool
    /// Whether a frame without any cell of code-like contrast (`ContrastGate`) is passed over
    /// (off only to measure what the gate saves).
    public let passesOverEvenFrames: Bool
    let engines: [any BarcodeDecoder]
    /// The first engine as the first look asks it: zxing stops at the first code it reads (a
    /// kiosk session ends at one; zxing-cpp 3.1 otherwise looks on along every line for more:
    /// `stopsAtFirstCode`, off for `scand decode`, which gives every code in a file) and
    /// reads linear codes along the frame's rows only (3.1 scans the columns as well, even after
    /// a find: about half its time on a frame with a linear code). A turned linear code is read
    /// by the passes, which ask for all, turned.
    let firstLooker: any BarcodeDecoder
    /// How many threads `decode` spreads a frame's deep passes over (1: the calling thread
    /// alone, as the kiosk wants: its other core gives the next frame its first look).
    public let workers: Int
    let helperEngines: [[any BarcodeDecoder]]
    let passes: [ImagePass]
    /// Whether the passes were given (`init(passes:)`): then every frame gets them in that
    /// order, not the order its condition asks for (`passes(for:)`).
    let passesGiven: Bool
    /// zxing with a global-histogram and a fixed threshold instead of its local one: blurred and
    /// low-resolution linear codes it otherwise misses.
    let thresholdEngines: [ZXingDecoder]
    /// The Aztec rune reader, where Aztec is read: the last pass.
    let runeReaders: [any BarcodeDecoder]
    /// zxing for the 2D codes alone (QR, DataMatrix, Aztec, PDF417, where read): the
    /// `deblurredResampled` pass's reader.
    let matrixReaders: [any BarcodeDecoder]
    /// The engines `whole` reads a turned-upright code with, by symbology: each reads only the
    /// code's own kind (Interleaved 2 of 5, Code 39, Codabar), the only reads `whole` asks about
    /// (a look for every symbology costs several times as much).
    let kindReaders: [Symbology: [any BarcodeDecoder]]
    /// zxing for EAN/UPC with their add-ons, where a rule reads add-ons: reads an add-on
    /// again from new samples, or finds it, before it counts (`withAddOnsChecked`).
    let addOnReader: ZXingDecoder?
    /// zbar and zxing for the enabled codes of two bar widths (Code 39, Codabar, Interleaved 2
    /// of 5): the look `withoutTwoWidthLookalikes` gives an EAN/UPC read.
    let twoWidthReaders: [any BarcodeDecoder]

    /// The engines by name, in the order the config may give them.
    public typealias Engine = DecodingEngine

    /// `passes`: the deep passes instead of `quality`'s list (`ImagePass.passes(for:)`), to
    /// measure what one pass gives.
    public init(symbologies: Set<Symbology> = defaultSymbologies, quality: Quality = .balanced,
                rules: SymbologyRules = SymbologyRules(), engines order: [Engine] = [.zxing, .zbar], checksReadsInFrame: Bool = false,
                passesOverEvenFrames: Bool = true, workers: Int = 1, stopsAtFirstCode: Bool = true,
                passes: [ImagePass]? = nil) {
        self.checksReadsInFrame = checksReadsInFrame
        self.workers = max(1, min(workers, 8))
        self.passesOverEvenFrames = passesOverEvenFrames
        // zxing looks for EAN-2/EAN-5 add-ons where a rule reads them (`SymbologyRules.apply`
        // keeps, drops or requires them per symbology); zbar's reads carry none.
        var base = ZXingDecoder.Effort.standard
        base.readsAddOns = rules.readsAddOns
        let makeEngines = {
            order.map { engine -> any BarcodeDecoder in
                switch engine {
                case .zxing: return ZXingDecoder(symbologies: symbologies, effort: base)
                case .zbar: return ZBarDecoder(symbologies: symbologies)
                }
            }
        }
        engines = makeEngines()
        if let zxing = engines[0] as? ZXingDecoder {
            var effort = zxing.effort
            effort.maxSymbols = stopsAtFirstCode ? 1 : 0
            effort.tryRotate = false
            firstLooker = ZXingDecoder(symbologies: zxing.enabled, effort: effort, name: zxing.name)
        } else {
            firstLooker = engines[0]
        }
        // zbar's scanner serves one call at a time: each helper thread has engines of its own
        // (`deepLookInParallel`: `workers` helpers read, the calling thread weighs).
        helperEngines = self.workers > 1 ? (0..<self.workers).map { _ in makeEngines() } : []
        supportedSymbologies = engines.reduce(into: Set<Symbology>()) { $0.formUnion($1.supportedSymbologies) }
        self.quality = quality
        self.rules = rules
        name = "pipeline-\(quality.rawValue)"
        self.passes = passes ?? ImagePass.passes(for: quality)
        passesGiven = passes != nil
        // The fixed threshold first: cheaper, and it reads more of what the first look missed.
        thresholdEngines = order.contains(.zxing) ? ([2, 1] as [Int32]).map { binarizer in
            var effort = base
            effort.binarizer = binarizer
            return ZXingDecoder(symbologies: symbologies, effort: effort, name: "zxing-binarizer-\(binarizer)")
        } : []
        runeReaders = symbologies.contains(.aztec) ? [AztecRuneReader()] : []
        let matrix = symbologies.filter { !$0.isLinear }.intersection(ZXingDecoder.supported)
        matrixReaders = order.contains(.zxing) && !matrix.isEmpty ? [ZXingDecoder(symbologies: matrix, name: "zxing-2d")] : []
        var kindReaders: [Symbology: [any BarcodeDecoder]] = [:]
        for kind in Self.partKindGroups where !symbologies.isDisjoint(with: kind) {
            let readers = order.map { engine -> any BarcodeDecoder in
                engine == .zxing ? ZXingDecoder(symbologies: Set(kind)) : ZBarDecoder(symbologies: Set(kind))
            }
            for symbology in kind { kindReaders[symbology] = readers }
        }
        self.kindReaders = kindReaders
        let ean = symbologies.intersection([.ean13, .ean8, .upcA, .upcE, .isbn10, .isbn13])
        let twoWidth = symbologies.intersection([.code39, .codabar, .itf, .itf14])
        twoWidthReaders = twoWidth.isEmpty ? [] : order.map { engine -> any BarcodeDecoder in
            engine == .zxing ? ZXingDecoder(symbologies: twoWidth, name: "zxing-two-widths") : ZBarDecoder(symbologies: twoWidth)
        }
        addOnReader = rules.readsAddOns && order.contains(.zxing) && !ean.isEmpty ? ZXingDecoder(symbologies: ean, effort: base, name: "zxing-addons") : nil
    }

    public func decode(_ frame: GrayFrame, viewport: Viewport) -> [Symbol] {
        decode(frame, viewport: viewport, giveUp: nil)
    }

    /// `decode`, with the deep passes given up (nothing found) once `abandon` says so: it is
    /// asked between one image's reads and the next (`scand decode --time-limit`).
    public func decode(_ frame: GrayFrame, viewport: Viewport, abandon: @escaping @Sendable () -> Bool) -> [Symbol] {
        decode(frame, viewport: viewport, giveUp: abandon)
    }

    private func decode(_ frame: GrayFrame, viewport: Viewport, giveUp abandon: (() -> Bool)?) -> [Symbol] {
        guard workers > 1 else {
            let look = firstLook(frame, viewport: viewport)
            return look.symbols.isEmpty ? deepLook(look, abandon: abandon ?? { false }) : look.symbols
        }
        // On several threads, where the first engine found nothing the other engines' look at
        // the frame is the first job of the deep look (`ImagePass.asIs`), beside its passes.
        let look = firstLook(frame, viewport: viewport, othersDeferred: true)
        return look.symbols.isEmpty ? deepLookInParallel(look, abandon: abandon) : look.symbols
    }

    /// Where the first engine finds nothing and the quality's deep passes follow, the other
    /// engines' look at the region is left to them (`deepLook`): the first look is the first
    /// engine's alone. Passes given (`init(passes:)`) follow every engine's first look.
    public func firstLook(_ frame: GrayFrame, viewport: Viewport) -> FirstLook {
        firstLook(frame, viewport: viewport, othersDeferred: !passes.isEmpty && !passesGiven)
    }

    /// `othersDeferred`: where the first engine finds nothing, the other engines do not look
    /// here; the look says so (`FirstLook.deferred`) and the deep look starts with them.
    func firstLook(_ frame: GrayFrame, viewport: Viewport, othersDeferred: Bool) -> FirstLook {
        let roi = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        guard roi.width > 0, roi.height > 0 else {
            return FirstLook(symbols: [], region: GrayFrame(width: 0, height: 0, pixels: []), origin: (0, 0), doubts: nil)
        }
        let region = frame.cropped(to: PixelRect(x: roi.x, y: roi.y, width: roi.width, height: roi.height))
        // An even, noisy scene: nothing to read, and the engines' costliest frame.
        guard !passesOverEvenFrames || ContrastGate.mayHoldCode(region) else { return FirstLook(symbols: [], region: region, origin: (roi.x, roi.y), doubts: nil) }
        let doubts = Doubts()
        if roi.width < frame.width || roi.height < frame.height { doubts.view = (frame, (roi.x, roi.y)) }
        let (lists, fitting, othersSkipped) = lookFirst(region, othersDeferred: othersDeferred)
        if othersDeferred, lists.count == 1, lists[0].isEmpty, engines.count > 1 {
            // Deferred: nothing to weigh yet.
            return FirstLook(symbols: [], region: region, origin: (roi.x, roi.y), doubts: doubts, deferred: true)
        }
        let checked = withoutCrossedMisreads(kept(lists, by: engines, in: region, doubts, fitting: fitting), in: region)
        let found = Self.withoutCutReads(Self.withoutJoinedHalves(withoutGlareMisreads(checked, in: region), in: region, doubts), in: region, doubts)
        if othersSkipped && found.isEmpty {
            // The other engines have not looked at the region: the deep look starts with them.
            return FirstLook(symbols: [], region: region, origin: (roi.x, roi.y), doubts: doubts, deferred: true)
        }
        return FirstLook(symbols: Self.placed(found, in: region, at: (roi.x, roi.y)), region: region, origin: (roi.x, roi.y), doubts: doubts)
    }

    public func deepLook(_ look: FirstLook, abandon: () -> Bool) -> [Symbol] {
        guard look.region.width > 0, let doubts = look.doubts as? Doubts else { return [] }
        let region = look.region
        let (order, made) = plan(for: region)
        var passes = order
        // After a deferred first look, the region as it is is read by zxing's other thresholds,
        // then by the other engines (`asIs`), where the `thresholds` pass would be: after
        // `rotate`, which reads a turned linear code for a few milliseconds. (Two threads put it
        // first, beside the passes after it: `deepLookInParallel`.)
        if look.deferred {
            if let t = passes.firstIndex(of: .thresholds) { passes[t] = .asIs } else { passes.insert(.asIs, at: 0) }
        }
        for (p, pass) in passes.enumerated() {
            let lookers = lookers(pass, engines)
            guard !lookers.isEmpty else { continue }
            // A pass's images a group at a time: those after a read are not made.
            var i = 0
            for make in pass.makers(region, made: made) {
                if abandon() { return [] }
                for transformed in make() {
                    doubts.image = PassImage(pass: p, index: i)
                    i += 1
                    var lists: [[Symbol]] = []
                    for (k, looker) in lookers.enumerated() {
                        if abandon() { return [] }
                        // After a deferred first look, its first engine has read the region.
                        if pass == .asIs && k == 0 { lists.append([]); continue }
                        lists.append(looker.decode(transformed.frame))
                        let found = weighSoFar(lists, by: lookers, in: transformed, doubts, region: region)
                        if !found.isEmpty { return Self.placed(found, in: region, at: look.origin) }
                    }
                }
            }
        }
        return []
    }

    /// The deep passes for `region`, in order: those that read a frame out of focus or a dark
    /// one early where it is so (`FrameCondition`, a fraction of a millisecond to tell); and
    /// the store for the images they make, which knows the frame's own lens blur.
    func plan(for region: GrayFrame) -> (passes: [ImagePass], made: MadeImages) {
        guard !passes.isEmpty else { return (passes, MadeImages()) }
        let condition = FrameCondition(of: region)
        return (passesGiven ? passes : ImagePass.passes(for: quality, condition: condition), MadeImages(condition: condition))
    }

    /// The codes of an image that the first of `lookers` have read (`lists`, in order) give:
    /// each engine's read is weighed as it comes, the others' counted as empty (a code the first
    /// engine reads and that stands on its own spares the image the other engines' looks); a
    /// read that needs another engine's word waits for it as a doubt. Nothing new when the
    /// newest read found nothing. In `region` coordinates, checked for glare there
    /// (`withoutGlareMisreads`: a pass's image may no longer show the glare). A read from a
    /// part of the region (a crop, a tile) is also checked there for a quiet zone past each end
    /// of a UPC-E or EAN-8 (`withoutPartsOfLongerEAN`): the part may end where the longer code
    /// goes on, and an ITF, Code 39 or Codabar read there for the bars that run on past it
    /// (`whole`: a crop of two crossed EAN/UPC codes read as the ITF 122544, whose bars along
    /// its axis in the region are 30). A whole image of the region was checked in itself
    /// (`kept`), with its own polarity: an inverted code's quiet zone is dark in the region.
    func weighSoFar(_ lists: [[Symbol]], by lookers: [any BarcodeDecoder], in t: TransformedFrame, _ doubts: Doubts,
                    region: GrayFrame) -> [Symbol] {
        guard let newest = lists.last, !newest.isEmpty else { return [] }
        let found = weigh(lists + Array(repeating: [], count: max(0, lookers.count - lists.count)), by: lookers, in: t, doubts, region: region)
        let seen = t.inverted && t.isPart(of: region) ? ImagePass.map(region) { 255 &- $0 } : region
        let inRegion = t.isPart(of: region) ? whole(Self.withoutPartsOfLongerEAN(found, in: seen), in: seen) : found
        return Self.withoutCutReads(Self.withoutJoinedHalves(withoutGlareMisreads(inRegion, in: region), in: region, doubts), in: region, doubts)
    }

    /// The engines pass `pass` reads with (`set`: the calling thread's, or a helper's).
    func lookers(_ pass: ImagePass, _ set: [any BarcodeDecoder]) -> [any BarcodeDecoder] {
        switch pass {
        case .thresholds: return thresholdEngines
        // The region as it is after a deferred first look: zxing's other thresholds (cheap)
        // before zbar's look (the slowest read of a frame; `ParallelDeepLook` holds it back
        // until they have found nothing).
        case .asIs: return [set[0]] + (passes.contains(.thresholds) ? thresholdEngines : []) + set.dropFirst()
        case .runes: return runeReaders
        case .deblurredResampled: return matrixReaders
        // The deconvolved frames by zxing alone: in a census of which look first reads each
        // of 2,192 generated and shared images, zbar read none of them, and its looks there
        // cost as much as zxing's. The region looks' crops too: zbar's looks there cost twice
        // zxing's (it chases every edge `localRange` and `flatField` make of a noisy crop's
        // grain: 100 of the scenes' Aztec-05-noisy's 190 ms), and without them every image of
        // 21 sets (4,885) and of four fresh ones had the same verdict.
        case .deblurred, .regionLooks:
            let zxing = set.filter { $0 is ZXingDecoder }
            return zxing.isEmpty ? set : zxing
        // The glare image also with zxing's global histogram: there the code's greys are spread
        // between black and white, and one threshold splits a PDF417 that zxing's local windows,
        // half in the white around it, do not.
        case .highlights: return set + thresholdEngines.filter { $0.effort.binarizer == 1 }
        default: return set
        }
    }

    /// The codes `lookers`' reads (`lists`) of a pass's image give, confirmed, whole and within
    /// the rules, in region coordinates.
    func weigh(_ lists: [[Symbol]], by lookers: [any BarcodeDecoder], in t: TransformedFrame, _ doubts: Doubts, region: GrayFrame) -> [Symbol] {
        let read = kept(lists, by: lookers, in: t.frame, doubts, enlarged: t.unrotate == nil ? 1 / t.scale : 1, ruled: false)
            .filter { !t.eanMustFit || !$0.symbology.isEANFamily || (!Self.isThin($0) && EANVerifier.verify($0, in: t.frame) == .fits) }
        // A read from a deconvolved image is also checked for two codes in that image
        // (`withoutJoinedHalves`), where its bars are as sharp as the engine saw them: in the
        // blurred region the lines fit too little of either code to tell (two labels overprinted
        // out of focus, deconvolved for 1.5 px, read as a UPC-A of neither; its lines there spell
        // the EAN-13 really under it).
        let found = withoutCrossedMisreads((t.deconvolved ? Self.withoutJoinedHalves(read, in: t.frame) : read).map { t.mapBack($0) }, in: region)
        // A turned image loses the region's corners and a crop or a tile ends where it ends: an
        // add-on beside a code read there may lie outside it (a tryout: EAN-13+5 turned 20-45°
        // and read from the `rotate` pass went out without its add-on), and is looked for in
        // the region.
        guard t.unrotate != nil || t.isPart(of: region) else { return rules.apply(found) }
        return rules.apply(found.map { s in
            guard s.addOn == nil, s.symbology.isEANFamily, rules.addOn(s.symbology) != .ignore else { return s }
            return withAddOnsChecked([s], in: region, besides: found).first ?? s
        })
    }

    /// The codes that reads of one image give, the first look's or a pass's: confirmed, whole,
    /// no thin misfit, no UPC-E or EAN-8 that is a part of a longer code, within the rules; in
    /// that image's coordinates. `fitting`: EAN/UPC reads already found to fit this image; `ruled`:
    /// false leaves the rules to the caller (a pass's image: `weigh`).
    func kept(_ lists: [[Symbol]], by lookers: [any BarcodeDecoder], in frame: GrayFrame, _ doubts: Doubts,
              enlarged: Double = 1, fitting: [Symbol] = [], ruled: Bool = true) -> [Symbol] {
        let found = Self.withoutOverlappingParts(whole(confirmed(lists, by: lookers, in: frame, doubts, enlarged: enlarged), in: frame, doubts))
        let checked = Self.withoutPartsOfLongerEAN(Self.withoutThinMisfits(found, in: frame, fitting: fitting), in: frame)
        let whole = withAddOnsChecked(withoutTwoWidthLookalikes(checked, in: frame), in: frame)
        return ruled ? rules.apply(whole) : whole
    }

    /// Region coordinates to frame coordinates, nearest the region's centre first.
    static func placed(_ found: [Symbol], in region: GrayFrame, at origin: (x: Int, y: Int)) -> [Symbol] {
        let shifted = found.map { s -> Symbol in
            var s = s
            s.corners = s.corners.map { PixelPoint(x: $0.x + origin.x, y: $0.y + origin.y) }
            return s
        }
        let cx = Double(origin.x) + Double(region.width) / 2, cy = Double(origin.y) + Double(region.height) / 2
        return shifted.sortedByDistance(toX: cx, y: cy)
    }

    /// The first look: the first engine; the others only when it found nothing (unless
    /// `othersDeferred`) or a linear code that needs a second opinion (skipping zbar where it is
    /// not needed halves the time of a typical frame).
    /// Also gives the first engine's EAN/UPC reads whose bars fit the region (`fitting`: checked
    /// once, not again by `withoutThinMisfits`), and whether the other engines' look at the
    /// region was left to the deep look (`othersSkipped`, only with `othersDeferred`).
    func lookFirst(_ region: GrayFrame, othersDeferred: Bool = false) -> (lists: [[Symbol]], fitting: [Symbol], othersSkipped: Bool) {
        var first = firstLooker.decode(region)
        if first.isEmpty && othersDeferred { return ([first], [], true) }
        for i in first.indices where first[i].symbology.isEANFamily && EANVerifier.verify(first[i], in: region) == .fits {
            first[i].verifiedInFrame = true
        }
        let fitting = first.filter { $0.symbology.isEANFamily && $0.verifiedInFrame }
        let doubtful = first.filter { !standsAlone($0, in: region) }
        if !first.isEmpty && doubtful.isEmpty { return ([first], fitting, false) }
        // A second engine's opinion on a crop around each doubtful code costs a fraction of
        // its look at the whole frame: the crop as it is (another engine's look is new anyway; a
        // quarter of the pixels of the enlarged crop), then enlarged.
        if !first.isEmpty, doubtful.allSatisfy({ s in
            s.corners.count >= 2 && engines.dropFirst().contains { rereads(s, with: $0, in: region, resample: false) || rereads(s, with: $0, in: region) }
        }) {
            return ([first, doubtful], fitting, false) // the doubtful codes, confirmed, stand as the second opinion
        }
        // On several threads: a read without a check character (ITF, Code 39, Codabar) that
        // zxing reads again from a resampled crop is accepted on its own (as `accepts` does),
        // without the other engines' look at the whole region (zbar: 3-11 ms at 640x480); where
        // the first look keeps nothing, the deep look starts with that look.
        if othersDeferred, !first.isEmpty, doubtful.allSatisfy({ s in
            s.symbology.isLinear && !s.symbology.isEANFamily && s.corners.count >= 2 && rereads(s, with: engines[0], in: region)
        }) {
            return ([first, []], fitting, true)
        }
        return ([first] + engines.dropFirst().map { $0.decode(region) }, fitting, false)
    }
}

extension DecodingEngine {
    /// The symbologies the engine reads (ISBN counts where EAN-13 does).
    public var supportedSymbologies: Set<Symbology> {
        var set = self == .zxing ? ZXingDecoder.supported : ZBarDecoder.supported
        if set.contains(.ean13) { set.formUnion([.isbn10, .isbn13]) }
        return set
    }
}
