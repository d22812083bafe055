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
        let makeEngines = {
            order.map { engine -> any BarcodeDecoder in
                switch engine {
                case .zxing: return ZXingDecoder(symbologies: symbologies)
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
        // The fixed threshold first: cheaper, and it reads more of what the first look missed.
        thresholdEngines = order.contains(.zxing) ? ([2, 1] as [Int32]).map { binarizer in
            var effort = ZXingDecoder.Effort.standard
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
    }

    public func decode(_ frame: GrayFrame, viewport: Viewport) -> [Symbol] {
        guard workers > 1 else {
            let look = firstLook(frame, viewport: viewport)
            return look.symbols.isEmpty ? deepLook(look, abandon: { false }) : look.symbols
        }
        // On several threads, where the first engine found nothing the other engines' look at
        // the frame is the first job of the deep look (`ImagePass.asIs`), beside its passes.
        let look = firstLook(frame, viewport: viewport, othersDeferred: true)
        return look.symbols.isEmpty ? deepLookInParallel(look) : look.symbols
    }

    public func firstLook(_ frame: GrayFrame, viewport: Viewport) -> FirstLook {
        firstLook(frame, viewport: viewport, othersDeferred: false)
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
        let (lists, fitting, othersSkipped) = lookFirst(region, othersDeferred: othersDeferred)
        if othersDeferred, lists.count == 1, lists[0].isEmpty, engines.count > 1 {
            // Deferred: nothing to weigh yet.
            return FirstLook(symbols: [], region: region, origin: (roi.x, roi.y), doubts: doubts, deferred: true)
        }
        let found = withoutGlareMisreads(kept(lists, by: engines, in: region, doubts, fitting: fitting), in: region)
        if othersSkipped && found.isEmpty {
            // The other engines have not looked at the region: the deep look starts with them.
            return FirstLook(symbols: [], region: region, origin: (roi.x, roi.y), doubts: doubts, deferred: true)
        }
        return FirstLook(symbols: Self.placed(found, in: region, at: (roi.x, roi.y)), region: region, origin: (roi.x, roi.y), doubts: doubts)
    }

    public func deepLook(_ look: FirstLook, abandon: () -> Bool) -> [Symbol] {
        guard look.region.width > 0, let doubts = look.doubts as? Doubts else { return [] }
        let region = look.region
        let made = MadeImages()
        for (p, pass) in passes.enumerated() {
            let lookers = lookers(pass, engines)
            guard !lookers.isEmpty else { continue }
            for (i, transformed) in pass.apply(region, made: made).enumerated() {
                doubts.image = PassImage(pass: p, index: i)
                var lists: [[Symbol]] = []
                for looker in lookers {
                    if abandon() { return [] }
                    lists.append(looker.decode(transformed.frame))
                    let found = weighSoFar(lists, by: lookers, in: transformed, doubts, region: region)
                    if !found.isEmpty { return Self.placed(found, in: region, at: look.origin) }
                }
            }
        }
        return []
    }

    /// The codes of an image that the first of `lookers` have read (`lists`, in order) give:
    /// each engine's read is weighed as it comes, the others' counted as empty (a code the first
    /// engine reads and that stands on its own spares the image the other engines' looks); a
    /// read that needs another engine's word waits for it as a doubt. Nothing new when the
    /// newest read found nothing. In `region` coordinates, checked for glare there
    /// (`withoutGlareMisreads`: a pass's image may no longer show the glare).
    func weighSoFar(_ lists: [[Symbol]], by lookers: [any BarcodeDecoder], in t: TransformedFrame, _ doubts: Doubts,
                    region: GrayFrame) -> [Symbol] {
        guard let newest = lists.last, !newest.isEmpty else { return [] }
        let found = weigh(lists + Array(repeating: [], count: max(0, lookers.count - lists.count)), by: lookers, in: t, doubts)
        return withoutGlareMisreads(found, in: region)
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
        // cost as much as zxing's.
        case .deblurred:
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
    func weigh(_ lists: [[Symbol]], by lookers: [any BarcodeDecoder], in t: TransformedFrame, _ doubts: Doubts) -> [Symbol] {
        kept(lists, by: lookers, in: t.frame, doubts, enlarged: t.unrotate == nil ? 1 / t.scale : 1)
            .filter { !t.eanMustFit || !$0.symbology.isEANFamily || EANVerifier.verify($0, in: t.frame) == .fits }
            .map { t.mapBack($0) }
    }

    /// The codes that reads of one image give, the first look's or a pass's: confirmed, whole,
    /// no thin misfit, within the rules; in that image's coordinates. `fitting`: EAN/UPC reads
    /// already found to fit this image.
    func kept(_ lists: [[Symbol]], by lookers: [any BarcodeDecoder], in frame: GrayFrame, _ doubts: Doubts,
              enlarged: Double = 1, fitting: [Symbol] = []) -> [Symbol] {
        let found = Self.withoutOverlappingParts(whole(confirmed(lists, by: lookers, in: frame, doubts, enlarged: enlarged), in: frame, doubts))
        return rules.apply(Self.withoutThinMisfits(found, in: frame, fitting: fitting))
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
                if s.symbology.isEANFamily, list.contains(where: { $0.symbology.isEANFamily && !Self.same($0, s) && Self.overlap($0, s) }) {
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
    /// full-length EAN-13/UPC-A when no other engine reads a different EAN/UPC in the frame,
    /// otherwise (contradicted, or a short UPC-E/EAN-8) only when zxing reads the same from the
    /// frame at half size. zbar's EAN/UPC reads of blurred codes, the misreads this stops, must
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
            // one halving: its six more digits make such a chance read rare.
            return by.isFinite && fromZXing && ((fullLength && !contradicted)
                || readsAtHalfSize(s, with: engine, in: frame, enlarged: fullLength ? 1 : enlarged))
        case .cannotTell:
            return (fromZXing && fullLength && (!contradicted || readsAtHalfSize(s, with: engine, in: frame)))
                || rereads(s, with: engine, in: frame)
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
        return engine.decode(half).contains { Self.same($0, s) }
    }

    /// Whether `engine` reads `s` again from a crop around it, resampled (`resample`: the same
    /// engine's second look needs new samples) or as it is (another engine's look is new anyway).
    func rereads(_ s: Symbol, with engine: any BarcodeDecoder, in frame: GrayFrame, resample: Bool = true) -> Bool {
        let rect = Self.area(around: s, in: frame, sides: 4)
        guard rect.width > 8, rect.height > 8 else { return false }
        let crop = frame.cropped(to: rect)
        guard resample else { return engine.decode(crop).contains { Self.same($0, s) } }
        // Two resamplings, either of which confirms: the crop enlarged twice (halved when it is
        // large), and at three quarters of its size (other samples again, and a wider look for
        // the local threshold: a glare spot that hid bars from the enlarged crop). The cheaper
        // first: an enlarged crop has four times the pixels and often is not needed.
        let large = crop.width * crop.height > 400_000
        let looks: [() -> GrayFrame] = [
            { large ? ImagePass.halve(crop) : ImagePass.resize(crop, factor: 2) },
            { ImagePass.scaled(crop, by: 0.75) },
        ]
        return (large ? looks : looks.reversed()).contains { look in engine.decode(look()).contains { Self.same($0, s) } }
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
    /// engine's, which carries the AIM identifier).
    func merge(_ lists: [[Symbol]]) -> [Symbol] {
        var out: [Symbol] = []
        for list in lists {
            for s in list where !out.contains(where: { Self.same($0, s) }) { out.append(s) }
        }
        return out
    }

    static func same(_ a: Symbol, _ b: Symbol) -> Bool {
        if a.bytes == b.bytes { return true }
        // UPC-A is EAN-13 with a leading 0; UPC-E may come expanded.
        let ta = a.text, tb = b.text
        return "0" + ta == tb || "0" + tb == ta || UPC.expandUPCE(ta).map { $0 == tb || "0" + $0 == tb } == true
            || UPC.expandUPCE(tb).map { $0 == ta || "0" + $0 == ta } == true
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
