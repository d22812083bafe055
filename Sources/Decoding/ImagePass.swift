import Glibc
import ScanCore
import ScanHardware

/// The passes that defeat what stops the engines on a first look: inverted codes, low contrast
/// and uneven light, small codes (upscaling), large frames (downscaling).
public enum ImagePass: String, Sendable, CaseIterable {
    case thresholds, quietZone, rotate, regionLooks, invert, stretch, sharpen, regions, enhancedRegions, flatField, deblurred, localRange, highlights, smallUpscale, tiles, upscale, downscale, runes, matrixGrid, resampled, deblurredResampled
    /// The frame as it is, for the engines the first look left out and zxing's other
    /// thresholds (`DecodePipeline.decode` on several threads: these looks run beside the first
    /// deep passes). In no quality's list.
    case asIs

    /// The passes each quality level may spend on a frame where nothing was found. `matrixGrid`
    /// and `stretch` read nothing on any development set since zxing-cpp 3.1 (they did with 1.4):
    /// accurate keeps them, balanced no longer pays for them. `flatField`, `downscale`,
    /// `deblurred` and `localRange` read hard scenes (a shadow across a blurred code; a dark,
    /// noisy frame; a code out of focus; glare that lifts bars towards the paper) that nothing
    /// else reads; `resampled`, the costliest look, small, noisy and blurred codes.
    /// `regionLooks` (right after `rotate`) gives the small dense regions'
    /// crops four of those whole-frame looks first: a small code under glare, in a shadow or
    /// inverted was read only after every whole-frame pass before the one that reads it,
    /// `resampled`'s enlargements among them.
    public static func passes(for quality: DecodePipeline.Quality) -> [ImagePass] {
        switch quality {
        case .fast: return []
        case .balanced: return [.rotate, .regionLooks, .thresholds, .quietZone, .regions, .invert, .flatField, .sharpen, .enhancedRegions, .downscale, .smallUpscale, .deblurred, .localRange, .highlights, .resampled, .deblurredResampled, .runes]
        case .accurate: return [.rotate, .regionLooks, .thresholds, .quietZone, .regions, .matrixGrid, .invert, .stretch, .flatField, .sharpen, .enhancedRegions, .deblurred, .localRange, .highlights, .tiles, .upscale, .downscale, .resampled, .deblurredResampled, .runes]
        }
    }

    /// The passes for a frame in `condition`: `passes(for:)`, with those that read such frames
    /// moved up to just after `quietZone` (out of focus: `deblurred`, then `deblurredResampled`;
    /// dark: `downscale`), where their reads no longer wait for every pass before them. Not
    /// before `quietZone`: a code without a quiet zone is read right there, before a
    /// deconvolved frame's look can misread it.
    ///
    /// A frame in focus gets `resampled` right after `flatField`, seven passes earlier: a code
    /// of modules under 2 px that only the enlargement reads waited for every pass before it
    /// (one run on 2 threads, 2,805 images: the same verdicts; the generated sets' scene-fault
    /// images over 150 ms 68 -> 59 of 1,248, p95 164 -> 132 ms; the mean of all images the same;
    /// the crossed sets 3-5 % slower). Not before `invert` and `flatField`: the inverted, glared,
    /// shadowed and upside-down scenes would pay for it (in a census of one thread, their mean
    /// 1.7 times with it after `regions`, 1.3 after `invert`, 1.05 after `flatField`). A frame
    /// out of focus keeps it late, behind the deconvolutions.
    public static func passes(for quality: DecodePipeline.Quality, condition: FrameCondition) -> [ImagePass] {
        let all = passes(for: quality)
        let order = condition.isOutOfFocus ? all : moving([.resampled], after: .flatField, in: all)
        let wanted: [ImagePass] = (condition.isOutOfFocus ? [.deblurred, .deblurredResampled] : []) + (condition.isDark ? [.downscale] : [])
        return moving(wanted, after: .quietZone, in: order)
    }

    /// `passes` with those of `moved` it holds taken out and put back right after `anchor`, in
    /// `moved`'s order (as they were where `anchor` is not among them).
    static func moving(_ moved: [ImagePass], after anchor: ImagePass, in passes: [ImagePass]) -> [ImagePass] {
        let moved = moved.filter(passes.contains)
        guard !moved.isEmpty, passes.contains(anchor) else { return passes }
        var rest = passes.filter { !moved.contains($0) }
        rest.insert(contentsOf: moved, at: rest.firstIndex(of: anchor)! + 1)
        return rest
    }

    /// The transformed images to try, in order (none when the pass does not apply). `made`:
    /// images of this frame made by an earlier pass, to use again (the deconvolved frames of
    /// `deblurred`, that `deblurredResampled` enlarges).
    public func apply(_ frame: GrayFrame, made: MadeImages? = nil) -> [TransformedFrame] {
        makers(frame, made: made).flatMap { $0() }
    }

    /// A pass's images (`apply`'s, in the same order) in groups, each made only when called:
    /// the deep look makes a group once the images before it have read nothing, so a code read
    /// from a pass's first image does not pay for the rest (the `resampled` pass's four
    /// enlargements, one deconvolution for each lens blur), and on several threads the groups of
    /// one pass are made at once.
    public func makers(_ frame: GrayFrame, made: MadeImages? = nil) -> [@Sendable () -> [TransformedFrame]] {
        switch self {
        case .deblurred:
            // A code out of focus: the frame deconvolved for a lens blur of 1.5 and of 2 pixels
            // (`deblurred`), modules that the blur ran together apart again; first for the
            // frame's own blur where it is larger (`MadeImages.fittedLensBlur`), the nearest to
            // what the frame measures. (Deconvolving only the dense regions' crops read half as
            // many.)
            let blurs = (made?.fittedLensBlur.map { [$0] } ?? []) + Self.lensBlurs
            return blurs.map { sigma in
                {
                    var t = TransformedFrame(frame: Self.deblurred(frame, sigma: sigma, made: made), scale: 1)
                    t.deconvolved = true
                    return [t]
                }
            }
        case .resampled:
            // The frame enlarged 2.5 times (to at most 6 megapixels) with bicubic interpolation
            // (`cubic`), as it is and sharpened first (`sharpen`): each module edge lands at
            // another phase of the engines' sampling, and their local thresholds' blocks span
            // fewer modules. Small, noisy, slanted and upside-down 2D codes are read in the
            // first, blurred QR codes and blurred or hard linear codes in the second, that no
            // other pass reads; the third is the first under the `highlights` curve (Aztec and
            // PDF417 under glare, too small to read at their size), the fourth the first
            // sharpened (small Aztecs, whose bullseye the enlargement softens); the fifth the
            // enlargement's negative: a light code on a dark label with modules under 2 px, which
            // the whole-frame `invert` has too few pixels for (a tryout's 144 codes light on dark
            // at 1.2-3 px a module: 99 read before, 110 after, 128 of them dark on light; its 72
            // at 1.2-1.5 px: 27 before, 38 after). One more look is one more chance of a misread that both engines
            // make alike (zxing-cpp's `upca-4/6.png` reads as another EAN-13 in both at 2.5x),
            // so an EAN/UPC read counts here only when its bars fit the image.
            let scale = Self.resampledScale(frame)
            guard scale >= 1.25 else { return [] }
            let made = made ?? MadeImages()
            let big: @Sendable () -> GrayFrame = { made.image(.enlarged) { Self.cubic(frame, scale: scale) } }
            let looks: [@Sendable () -> GrayFrame] = [big, { Self.cubic(Self.sharpen(frame), scale: scale) }, { Self.highlighted(big()) }, { Self.sharpen(big()) },
                                                      { Self.map(big()) { 255 &- $0 } }]
            return looks.enumerated().map { k, look in
                {
                    var t = TransformedFrame(frame: look(), scale: 1 / scale)
                    t.eanMustFit = true
                    t.inverted = k == 4
                    return [t]
                }
            }
        case .deblurredResampled:
            // A 2D code both out of focus and small (or blurred, noisy and slanted): the
            // `deblurred` frames enlarged as `resampled` enlarges the frame. Deconvolving gives
            // the modules back their edges, and enlarging gives the detectors pixels enough to
            // trace them; neither does alone. Read for 2D codes only (`DecodePipeline.matrixReaders`):
            // a linear code has passes enough, and one more look at it is one more chance of
            // a misread. Then, for a frame out of focus (`MadeImages.lensBlur`), the frame
            // deconvolved in two dimensions for its own blur rounded down and up to a quarter
            // pixel (`PlaneDeconvolution`), enlarged twice up to 640x480 (as it is at 720p; not
            // beyond): blurred Aztec, DataMatrix and QR codes that neither the one-way
            // deconvolutions nor zxing-cpp 3.1 read.
            let scale = Self.resampledScale(frame)
            guard scale >= 1.25 else { return [] }
            var groups: [@Sendable () -> [TransformedFrame]] = Self.lensBlurs.map { sigma in
                { [TransformedFrame(frame: Self.cubic(Self.deblurred(frame, sigma: sigma, made: made), scale: scale), scale: 1 / scale)] }
            }
            if let blur = made?.lensBlur {
                let below = (blur * 4).rounded(.down) / 4
                let enlarge = frame.width * frame.height <= PlaneDeconvolution.largestEnlarged
                groups.append {
                    PlaneDeconvolution.deblurred(frame, sigmas: [below, below + 0.25]).map {
                        enlarge ? TransformedFrame(frame: Self.cubic($0, scale: 2), scale: 0.5) : TransformedFrame(frame: $0, scale: 1)
                    }
                }
            }
            return groups
        case .regionLooks:
            // Each small dense region (`regionLooks(in:)`) through the looks that read most
            // of the slow scenes (`regionLookPasses`), one crop's look at a time.
            return Self.regionLooks(in: frame).flatMap { rect in
                Self.regionLookPasses.map { look -> @Sendable () -> [TransformedFrame] in
                    {
                        look.images(frame.cropped(to: rect), made: nil).map { t in
                            var t = t
                            t.offsetX += rect.x
                            t.offsetY += rect.y
                            return t
                        }
                    }
                }
            }
        case .regions:
            // Aztec bullseyes first (zxing 1.4 looks for them only from the image centre),
            // enlarged to about 4 pixels per module; then each dense region on its own,
            // enlarged when its modules would be few pixels, one region at a time: a code read
            // in the first region does not pay for the others' enlargements. The regions are
            // found once, by whichever group is made first (groups may be made on several
            // threads, `ParallelDeepLook`).
            let rects = Locked<[PixelRect]?>(nil)
            let region: @Sendable (Int) -> [TransformedFrame] = { k in
                let all = rects.withLock { found in
                    let all = found ?? RegionFinder.candidates(in: frame)
                    found = all
                    return all
                }
                guard k < all.count else { return [] }
                let crop = frame.cropped(to: all[k])
                let factor = min(crop.width, crop.height) < 400 ? 2 : 1
                let image = factor == 1 ? crop : Self.resize(crop, factor: factor)
                return [TransformedFrame(frame: image, scale: 1 / Double(factor), offsetX: all[k].x, offsetY: all[k].y)]
            }
            let bullseyes: @Sendable () -> [TransformedFrame] = { Self.bullseyeImages(frame) }
            return [bullseyes] + (0..<RegionFinder.candidateLimit).map { k -> @Sendable () -> [TransformedFrame] in { region(k) } }
        default:
            return [{ self.images(frame, made: made) }]
        }
    }

    /// The whole-frame passes `regionLooks` runs on each small region's crop, in this order.
    static let regionLookPasses: [ImagePass] = [.localRange, .highlights, .invert, .flatField]

    /// The regions `regionLooks` crops: the three largest dense regions (`RegionFinder`) that
    /// each cover at most a fifth of the frame. A larger region is most of the frame, which the
    /// whole-frame passes look at anyway.
    static func regionLooks(in frame: GrayFrame) -> [PixelRect] {
        let area = frame.width * frame.height
        return RegionFinder.candidates(in: frame, limit: 3).filter { $0.width * $0.height * 5 <= area }
    }

    /// The `regions` pass's images of Aztec bullseyes (`RegionFinder.bullseyes`): each one's
    /// code drawn again on a clean grid (`AztecGrid`: cheap, and nothing when the rings do not
    /// fit one), then the best four seen square-on and as crops.
    static func bullseyeImages(_ frame: GrayFrame) -> [TransformedFrame] {
        let found = RegionFinder.bullseyes(in: frame, limit: 8)
        return found.flatMap { AztecGrid.redrawn(frame, x: Double($0.x), y: Double($0.y), module: $0.module).map(Self.enlarged) }
            + found.prefix(4).flatMap { found in
                // Seen square-on, for the engine's own detector (a steep slant).
                AztecGrid.rectified(frame, x: Double(found.x), y: Double(found.y), module: found.module).map { warped in
                    var t = TransformedFrame(frame: warped.frame, scale: 1)
                    t.unrotate = warped.map
                    return t
                }
            }
            + found.prefix(4).map { found -> TransformedFrame in
                let crop = frame.cropped(to: found.rect)
                let factor = max(1, min(3, Int((6 / found.module).rounded(.up))))
                return TransformedFrame(frame: factor == 1 ? crop : Self.resize(crop, factor: factor), scale: 1 / Double(factor),
                                        offsetX: found.rect.x, offsetY: found.rect.y)
            }
    }

    /// All of a pass's images at once (`makers` splits the costly ones into groups).
    private func images(_ frame: GrayFrame, made: MadeImages?) -> [TransformedFrame] {
        switch self {
        case .deblurred, .resampled, .deblurredResampled, .regionLooks, .regions:
            return makers(frame, made: made).flatMap { $0() }
        case .thresholds, .runes, .asIs:
            // The frame as it is: the pipeline reads it with zxing's other binarizers, or with
            // the Aztec rune reader (`AztecRuneReader`), which zxing 1.4 lacks, or with the
            // engines as the first look does.
            return [TransformedFrame(frame: frame, scale: 1)]
        case .quietZone:
            // A code that fills the crop to its edges (a tight viewport, a close-up) has no
            // quiet zone, and the detectors need one: a light border of a tenth of the size.
            guard frame.width * frame.height <= 500_000 else { return [] } // a large frame has room around its codes
            let border = Self.quietBorder(frame)
            var out = [TransformedFrame(frame: Self.bordered(frame, border), scale: 1, offsetX: -border, offsetY: -border)]
            // A tiny image (a code printed at one pixel per module, a thumbnail) also enlarged
            // with hard pixel edges, so each module becomes a square the detectors can find.
            let side = max(frame.width, frame.height)
            if side < 160 {
                let factor = (160 + side - 1) / side
                let big = Self.nearest(frame, factor: factor)
                let b = max(8, 160 / 10)
                out.append(TransformedFrame(frame: Self.bordered(big, b), scale: 1 / Double(factor),
                                            offsetX: -b / factor, offsetY: -b / factor))
            }
            return out
        case .rotate:
            // A linear code at a slant: each dense region whose edges run one way (a structure
            // tensor says how much and which way) turned so its bars stand upright. Scan lines
            // then cross the whole code, which a slanted short code does not allow.
            return RegionFinder.candidates(in: frame).compactMap { rect -> TransformedFrame? in
                let crop = frame.cropped(to: rect)
                guard let angle = Self.barAngle(crop) else { return nil }
                let nearest = (angle / (Double.pi / 2)).rounded() * (Double.pi / 2)
                guard abs(angle - nearest) > 0.12 else { return nil } // within 7° of upright: engines cope
                let factor = min(crop.width, crop.height) < 300 ? 2.0 : 1.0
                return Self.rotated(crop, by: angle, factor: factor, originX: rect.x, originY: rect.y)
            }
        case .invert:
            var t = TransformedFrame(frame: Self.map(frame) { 255 &- $0 }, scale: 1)
            t.inverted = true
            return [t]
        case .stretch: return Self.stretch(frame).map { [TransformedFrame(frame: $0, scale: 1)] } ?? []
        case .sharpen: return [TransformedFrame(frame: Self.sharpen(frame), scale: 1)]
        case .flatField:
            // Light that falls unevenly across the code (a shadow's edge, a lamp's slope) divided
            // out, then the edges made steep again: a code half in shadow, blurred and noisy,
            // that no one threshold and no local window of the engines splits into bars.
            return [TransformedFrame(frame: Self.sharpen(Self.flattened(frame)), scale: 1)]
        case .localRange:
            // Glare that lifts the bars of part of a code towards the paper: each pixel
            // stretched between the dark and the light level near it (`rangeNormalized`).
            return [TransformedFrame(frame: Self.rangeNormalized(frame), scale: 1)]
        case .highlights:
            // Glare that clips the paper to white and leaves the bars under it a light grey: the
            // brightest tones spread over the whole range (`highlightCurve`), so the engines'
            // threshold falls just under white, where the clipped edges still are.
            return [TransformedFrame(frame: Self.highlighted(frame), scale: 1)]
        case .enhancedRegions:
            // Regions of the contrast-stretched, sharpened image: dark or blurred small codes.
            return ImagePass.regions.apply(Self.sharpen(Self.stretch(frame) ?? frame))
        case .matrixGrid:
            // Each dense region's DataMatrix drawn again from its finder (`DataMatrixGrid`):
            // small modules, noise, blur and a slant that zxing's own detector does not trace.
            // Regions found in the contrast-stretched frame (faint and dark codes), and in it
            // at half size (where sensor noise hides a small code's edges).
            let stretched = Self.stretch(frame) ?? frame
            var rects = RegionFinder.candidates(in: stretched, limit: 4)
            for r in RegionFinder.candidates(in: Self.halve(stretched), limit: 4) {
                let big = PixelRect(x: 2 * r.x, y: 2 * r.y, width: 2 * r.width, height: 2 * r.height)
                if !rects.contains(where: { $0.overlapShare(big) > 0.5 }) { rects.append(big) }
            }
            var drawings = rects.prefix(6).flatMap { DataMatrixGrid.redrawn(frame, in: $0) }
            // A code that fills a small image to its edges (a tight viewport's crop, a close-up
            // of a label; smaller than a 640x480 camera frame) has no quiet zone to tell its
            // finder from: the image inside a light border, as a whole (dark ink: a light border
            // gives a light-on-dark code no quiet zone).
            if frame.width * frame.height < 300_000 {
                let border = Self.quietBorder(frame)
                let bordered = Self.bordered(frame, border)
                drawings += DataMatrixGrid.redrawn(bordered, in: PixelRect(x: 0, y: 0, width: bordered.width, height: bordered.height),
                                                   lightInk: [false], shift: -border)
            }
            return drawings.map(Self.enlarged)
        case .tiles:
            // Half-size windows on a half-window grid: a detector that looks from the centre
            // (zxing's Aztec) sees each part of the frame near a window's centre once.
            let size = min(frame.width, frame.height) / 2
            guard size >= 64 else { return [] }
            let step = size / 2
            var out: [TransformedFrame] = []
            var y = 0
            while y + size <= frame.height {
                var x = 0
                while x + size <= frame.width {
                    let crop = frame.cropped(to: PixelRect(x: x, y: y, width: size, height: size))
                    let factor = size < 400 ? 2 : 1
                    out.append(TransformedFrame(frame: factor == 1 ? crop : Self.resize(crop, factor: factor),
                                                scale: 1 / Double(factor), offsetX: x, offsetY: y))
                    x += step
                }
                y += step
            }
            return out
        case .smallUpscale:
            // A small crop or image (a viewport, a low-resolution camera) enlarged: thin bars
            // and small modules get pixels enough.
            return Self.doubled(frame, upTo: 320_000)
        case .upscale:
            return Self.doubled(frame, upTo: 1_000_000)
        case .downscale:
            guard frame.width * frame.height >= 600_000 else { return [] }
            return [TransformedFrame(frame: Self.halve(frame), scale: 2)]
        }
    }

    /// The light border given to a code that fills its image: a tenth of the longer side, at
    /// least 8 pixels, and no wider than the shorter side (at least 8), so that a sliver of an
    /// image (1x40000 pixels) is not framed into hundreds of megapixels.
    static func quietBorder(_ frame: GrayFrame) -> Int {
        max(8, min(max(frame.width, frame.height) / 10, min(frame.width, frame.height)))
    }

    /// The most pixels the `resampled` pass enlarges a frame to (a 720p frame 2.5 times, a 1080p
    /// frame 1.7 times).
    static let resampledPixels = 6_000_000

    /// How much `resampled` enlarges `frame`: 2.5 times, or less so that it has at most
    /// `resampledPixels`.
    static func resampledScale(_ frame: GrayFrame) -> Double {
        min(2.5, (Double(resampledPixels) / Double(max(1, frame.width * frame.height))).squareRoot())
    }

    /// `frame` deconvolved for a lens blur of `sigma`, made once a frame where `made` keeps it.
    static func deblurred(_ frame: GrayFrame, sigma: Double, made: MadeImages?) -> GrayFrame {
        made?.deblurred(sigma: sigma) { deblurred(frame, sigma: sigma) } ?? deblurred(frame, sigma: sigma)
    }

    /// The lens blurs (Gaussian sigma, pixels) the `deblurred` pass undoes.
    static let lensBlurs: [Double] = [1.5, 2.0]

    /// A code drawn again (`AztecGrid`) at 4 pixels per module, hard edges, with the way back.
    static func enlarged(_ d: AztecGrid.Drawing) -> TransformedFrame {
        let ppm = 4.0, offset = Double(d.offset), grid = d.grid
        var t = TransformedFrame(frame: nearest(d.modules, factor: Int(ppm)), scale: 1)
        t.unrotate = { px, py in grid.map(px / ppm - offset - 0.5, py / ppm - offset - 0.5) }
        return t
    }

    /// A DataMatrix drawn again (`DataMatrixGrid`) at 4 pixels per module, with the way back.
    static func enlarged(_ d: DataMatrixGrid.Drawing) -> TransformedFrame {
        let ppm = 4.0, map = d.map
        var t = TransformedFrame(frame: nearest(d.modules, factor: Int(ppm)), scale: 1)
        t.unrotate = { px, py in map(px / ppm, py / ppm) }
        return t
    }

    /// The direction of the strongest edges (radians, the gradient's), when one direction rules
    /// (coherence of the structure tensor above one half): the bars of a linear code.
    static func barAngle(_ f: GrayFrame) -> Double? {
        guard f.width > 8, f.height > 8 else { return nil }
        var jxx = 0.0, jyy = 0.0, jxy = 0.0
        f.withUnsafeBytes { p in
            for y in stride(from: 1, to: f.height - 1, by: 2) {
                for x in stride(from: 1, to: f.width - 1, by: 2) {
                    let gx = Double(Int(p[y * f.stride + x + 1]) - Int(p[y * f.stride + x - 1]))
                    let gy = Double(Int(p[(y + 1) * f.stride + x]) - Int(p[(y - 1) * f.stride + x]))
                    jxx += gx * gx; jyy += gy * gy; jxy += gx * gy
                }
            }
        }
        let total = jxx + jyy
        guard total > 0 else { return nil }
        let coherence = ((jxx - jyy) * (jxx - jyy) + 4 * jxy * jxy).squareRoot() / total
        guard coherence > 0.5 else { return nil }
        return 0.5 * atan2(2 * jxy, jxx - jyy)
    }
}
