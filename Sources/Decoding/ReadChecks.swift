import Glibc
import ScanCore
import ScanHardware

/// The checks that drop a read the engines agree on but the image does not bear out: a part of
/// a longer code, a thin band that misfits its bars, two overlapping parts of one code, an
/// EAN/UPC under glare that the highlights curve reads otherwise.
extension DecodePipeline {
    /// EAN/UPC reads of a code under glare that the highlights curve reads otherwise are
    /// dropped. Glare lifts the bars of part of a code towards white and clips the paper around
    /// them: thresholded halfway, the lifted bars come out thinner, and a few digits can turn
    /// into others that still make a valid code whose bars fit the image, in zbar and zxing
    /// alike (seed 3579's UPC-A 739695422681 read as 739695488687 by both). Under the curve
    /// (`ImagePass.highlights`) the edges are taken just under white; EAN/UPC reads there none
    /// of which is this one contradict it. Asked only where the code has clipped
    /// paper and bars lifted past mid-grey somewhere along it (`underGlare`): a crop read by
    /// two engines, a few milliseconds.
    func withoutGlareMisreads(_ symbols: [Symbol], in frame: GrayFrame) -> [Symbol] {
        symbols.filter { s in
            guard s.symbology.isEANFamily, s.corners.count >= 2, Self.underGlare(frame, around: s) else { return true }
            let rect = Self.area(around: s, in: frame, sides: 8)
            guard rect.width > 16, rect.height > 8 else { return true }
            let lifted = ImagePass.highlighted(frame.cropped(to: rect))
            let reads = engines.flatMap { $0.decode(lifted) }.filter(\.symbology.isEANFamily)
            return reads.isEmpty || reads.contains { Self.same($0, s) }
        }
    }

    /// Whether the bars of a read look glared: across the read's span (its corners' columns, and
    /// rows enough to hold its bars) at least 5 % of the pixels clipped white (250 and up), and
    /// in one of eight strips across it even the darkest twentieth (its bars) lighter than
    /// mid-grey. A code in even light has dark bars in every strip; a low-contrast one has no
    /// clipped paper.
    static func underGlare(_ frame: GrayFrame, around s: Symbol) -> Bool {
        guard s.corners.count >= 2 else { return false }
        let b = s.bounds
        let my = max(8, b.width / 10 - b.height / 2)
        let rect = PixelRect(x: b.x, y: b.y - my, width: b.width, height: b.height + 2 * my).clamped(width: frame.width, height: frame.height)
        return rect.width > 0 && rect.height > 0 && underGlare(frame.cropped(to: rect))
    }

    /// The glare test on a crop that holds only the code's bars (`underGlare(_:around:)`).
    static func underGlare(_ crop: GrayFrame) -> Bool {
        let w = crop.width, h = crop.height, strips = 8
        guard w >= strips, h >= 2 else { return false }
        // One 256-level histogram a strip, side by side.
        var histograms = [Int](repeating: 0, count: strips * 256)
        var clipped = 0
        for y in 0..<h {
            for x in 0..<w {
                let v = Int(crop[x, y])
                histograms[(x * strips / w) * 256 + v] += 1
                if v >= 250 { clipped += 1 }
            }
        }
        guard clipped * 20 >= w * h else { return false }
        return (0..<strips).contains { strip in
            let histogram = histograms[(strip * 256)..<(strip * 256 + 256)]
            let twentieth = max(1, histogram.reduce(0, +) / 20)
            var seen = 0
            for (level, count) in zip(0..., histogram) {
                seen += count
                if seen >= twentieth { return level >= 128 }
            }
            return false
        }
    }

    /// Reads of a code without a check character (Interleaved 2 of 5, Code 39, Codabar) that
    /// are parts of one code read along two slanted lines: the same kind, lines that overlap
    /// over more than half their length, and texts that overlap (one holds the other, or one
    /// ends with what the other begins with, three characters or more). Seed 3579's turned ITF
    /// of 63041682 reads as 630416 and 041682 that way. Both are dropped: neither is the code.
    static func withoutOverlappingParts(_ found: [Symbol]) -> [Symbol] {
        func textsOverlap(_ a: String, _ b: String) -> Bool {
            if a.contains(b) || b.contains(a) { return true }
            let a = Array(a), b = Array(b)
            for n in stride(from: min(a.count, b.count) - 1, through: 3, by: -1) {
                if a.suffix(n) == b.prefix(n) || b.suffix(n) == a.prefix(n) { return true }
            }
            return false
        }
        func spansOverlap(_ a: Symbol, _ b: Symbol) -> Bool {
            guard a.corners.count >= 2, b.corners.count >= 2 else { return false }
            // Along the first read's line: each read's extent projected on it.
            let dx = Double(a.corners[1].x - a.corners[0].x), dy = Double(a.corners[1].y - a.corners[0].y)
            let length = (dx * dx + dy * dy).squareRoot()
            guard length >= 8 else { return false }
            func extent(_ s: Symbol) -> (Double, Double) {
                let t = s.corners.map { (Double($0.x - a.corners[0].x) * dx + Double($0.y - a.corners[0].y) * dy) / length }
                return (t.min()!, t.max()!)
            }
            let (a0, a1) = extent(a), (b0, b1) = extent(b)
            let common = min(a1, b1) - max(a0, b0)
            return common > 0.5 * min(a1 - a0, b1 - b0)
        }
        var parts = Set<Int>()
        for i in found.indices {
            for j in found.indices where j > i {
                guard sameKindOfPart(found[i], found[j]), found[i].text != found[j].text else { continue }
                if textsOverlap(found[i].text, found[j].text) && spansOverlap(found[i], found[j]) { parts.formUnion([i, j]) }
            }
        }
        return found.indices.filter { !parts.contains($0) }.map { found[$0] }
    }

    /// EAN/UPC reads that only a thin band of lines gave (across less than a thirtieth of the
    /// code's length) and whose bars do not fit the image (`EANVerifier`) are dropped: a band
    /// where print or moiré bends the bars reads as another valid code in zbar and zxing alike,
    /// so their agreement proves nothing there (zxing-cpp's `upca-4/1.png`). Such a code is read,
    /// if at all, on a later frame or from another band.
    /// `fitting`: reads already found to fit `frame`.
    static func withoutThinMisfits(_ symbols: [Symbol], in frame: GrayFrame, fitting: [Symbol] = []) -> [Symbol] {
        symbols.filter { s in
            guard s.symbology.isEANFamily, s.corners.count == 4 else { return true }
            if fitting.contains(where: { $0.text == s.text && $0.corners == s.corners }) { return true }
            guard isThin(s) else { return true }
            if case .misfit = EANVerifier.verify(s, in: frame) { return false }
            return true
        }
    }

    /// UPC-E and EAN-8 reads that are a part of a longer code are dropped: every such read
    /// needs a quiet zone past each end (`BarRun.hasQuietEnds`, measured across the bars
    /// through the middle of the read's line). A scan line across the left half of an EAN-13
    /// turned 27° meets its start guard, six digits and the centre guard, and the centre guard
    /// with the next bar reads as UPC-E's end guard: zxing-cpp 3.1, asked for every code, reads
    /// an EAN-13 of 7674269897560 with an add-on (seed 4242's `EAN-13plus2-skew-03.png`) as
    /// the UPC-E 16742697 alone, whose bars fit the image. The EAN-13's right half follows its
    /// end where a real code has its quiet zone (or its add-on, 7 modules away or more).
    static func withoutPartsOfLongerEAN(_ symbols: [Symbol], in frame: GrayFrame) -> [Symbol] {
        symbols.filter { (s: Symbol) -> Bool in
            guard [.upcE, .ean8].contains(s.symbology), let modules = EANVerifier.Layout.modules(of: s.symbology),
                  let (p, q) = s.readEnds else { return true }
            let centre = (x: (p.x + q.x) / 2, y: (p.y + q.y) / 2)
            let rect = area(around: s, in: frame, sides: 4)
            guard rect.width > 16, rect.height > 16, let axis = ImagePass.barAngle(frame.cropped(to: rect)) else { return true }
            let t: Double = (q.x - centre.x) * cos(axis) + (q.y - centre.y) * sin(axis)
            return BarRun.hasQuietEnds(in: frame, centre: centre, angle: axis, ends: (-abs(t), abs(t)), modules: modules)
        }
    }

    /// Whether a read came from a thin band of lines: across less than a thirtieth of its length.
    static func isThin(_ s: Symbol) -> Bool {
        guard !s.corners.isEmpty else { return false }
        let b = s.bounds
        return min(b.width, b.height) * 30 < max(b.width, b.height)
    }

    /// The reads that are not a part of a longer code. A code without a check character
    /// (Interleaved 2 of 5, Code 39, Codabar) gives a valid part of itself two ways, and a read
    /// is dropped on any of three signs:
    /// - A scan line that crosses the bars of a turned code obliquely leaves the code through its
    ///   top or bottom edge, and the part it crossed can be a code of its own (a 12-digit ITF read
    ///   as 8 of its digits). Such a read (its line more than 7° off the bars' normal) is dropped
    ///   when the code turned upright (a square of three times its length around it, so the whole
    ///   code is in it) reads as a longer code of its kind that holds its text.
    /// - A dark stroke across an ITF code (a pen line, a fold) can start a read at the stroke, and
    ///   a row across another code's bars can read as a short Codabar (`C573A` out of two EAN
    ///   codes one over the other, make-misreads.py --only stacked --seed 61). Such a read is
    ///   dropped when the bars along its axis run on, without a quiet zone, past the bars its
    ///   characters have (`BarRun.mostBars`), to the frame's edge too (a code cut by it): a part
    ///   whose whole could not be read.
    /// - A longer code of its kind that holds its text was read in the frame, by two engines or
    ///   confirmed, in this image or in an earlier pass's (`doubts.checked`, whether or not it was
    ///   kept there): a part that an image which cannot show the rest (glare stretched out of
    ///   the quiet zone, bars cut at a region's edge) would let through.
    func whole(_ found: [Symbol], in frame: GrayFrame, _ doubts: Doubts = Doubts()) -> [Symbol] {
        doubts.checked += found.filter { Self.partKinds.contains($0.symbology) }
        return found.filter { s in
            guard Self.partKinds.contains(s.symbology), s.corners.count >= 2 else { return true }
            if doubts.checked.contains(where: { Self.holds($0, s) }) { return false }
            return isWhole(s, in: frame)
        }
    }

    /// Interleaved 2 of 5, with or without the ITF-14 length: one kind.
    static let itfKinds: Set<Symbology> = [.itf, .itf14]
    /// The codes without a check character that a part of one can be read as a code of its
    /// own, by kind (`kindReaders` reads each kind alone).
    static let partKindGroups: [Set<Symbology>] = [itfKinds, [.code39], [.codabar]]
    static let partKinds: Set<Symbology> = partKindGroups.reduce([]) { $0.union($1) }

    /// Whether two reads are of one kind among `partKindGroups`.
    static func sameKindOfPart(_ a: Symbol, _ b: Symbol) -> Bool {
        partKindGroups.contains { $0.contains(a.symbology) && $0.contains(b.symbology) }
    }

    /// Whether `longer` is a longer code of `s`'s kind whose text holds `s`'s.
    static func holds(_ longer: Symbol, _ s: Symbol) -> Bool {
        sameKindOfPart(longer, s) && longer.text.count > s.text.count && longer.text.contains(s.text)
    }

    /// Whether the bars along a read's axis (`angle`, across its bars) run on, without a quiet
    /// zone, past the bars its characters have (`BarRun.mostBars`): `whole`'s second sign.
    /// `atLeast`: a run that reaches the frame's edge counts the bars in view.
    static func barsRunOn(_ s: Symbol, in frame: GrayFrame, angle: Double, atLeast: Bool = false) -> Bool {
        guard s.corners.count >= 2, let most = BarRun.mostBars(of: s) else { return false }
        let length = hypot(Double(s.corners[1].x - s.corners[0].x), Double(s.corners[1].y - s.corners[0].y))
        guard let run = BarRun.bars(in: frame, centre: s.bounds.centre, angle: angle, reach: Int(2 * length) + 32, atLeast: atLeast) else { return false }
        return run > most + 3
    }

    /// The bars' normal in the band a read crossed (its box, 8 pixels round): a code with short
    /// bars (a strip a few modules tall) fills too little of the square `isWhole` looks in for
    /// its bars to show a direction over the paper's noise there (enlarged and sharpened most of
    /// all). Nil where the band is too small or shows none.
    static func barAngle(inBandOf s: Symbol, in frame: GrayFrame) -> Double? {
        let b = s.bounds
        let band = PixelRect(x: b.x - 8, y: b.y - 8, width: b.width + 16, height: b.height + 16).clamped(width: frame.width, height: frame.height)
        guard band.width > 16, band.height > 16 else { return nil }
        return ImagePass.barAngle(frame.cropped(to: band))
    }

    /// `whole`'s two looks at one read.
    private func isWhole(_ s: Symbol, in frame: GrayFrame) -> Bool {
        let dx = Double(s.corners[1].x - s.corners[0].x), dy = Double(s.corners[1].y - s.corners[0].y)
        let length = (dx * dx + dy * dy).squareRoot()
        guard length >= 8 else { return true }
        let (cx, cy) = s.bounds.centre
        let half = Int(1.5 * length) + 16
        let rect = PixelRect(x: Int(cx) - half, y: Int(cy) - half, width: 2 * half, height: 2 * half).clamped(width: frame.width, height: frame.height)
        guard rect.width > 16, rect.height > 16 else { return true }
        let crop = frame.cropped(to: rect)
        guard let bars = ImagePass.barAngle(crop) ?? Self.barAngle(inBandOf: s, in: frame) else { return true }
        // A code cut by the frame's edge: the bars in view that run on past the read's count.
        if Self.barsRunOn(s, in: frame, angle: bars, atLeast: true) { return false }
        // The line's angle against the bars' normal, folded into 0 ... pi/2.
        var off = abs(remainder(bars - atan2(dy, dx), Double.pi))
        off = min(off, Double.pi - off)
        guard off > 0.12 else { return true }
        let upright = ImagePass.rotated(crop, by: bars, factor: min(crop.width, crop.height) < 300 ? 2 : 1, originX: rect.x, originY: rect.y)
        // A longer code of its kind read there, that holds this one's text: this was a part
        // of it. Anything else (the same, a shorter part, nothing under a blur or a steep
        // perspective) says nothing against it.
        return !(kindReaders[s.symbology] ?? engines).contains { engine in
            engine.decode(upright.frame).contains { Self.holds($0, s) }
        }
    }
}

extension Symbol {
    /// The bounding box of the read's corners (at least one).
    var bounds: PixelRect {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return PixelRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }

    /// The ends of the line a read runs along: the middles of a quadrilateral's start and end
    /// sides (corners 0-3 and 1-2), or a line's two points; nil under two corners.
    var readEnds: (start: (x: Double, y: Double), end: (x: Double, y: Double))? {
        guard corners.count >= 2 else { return nil }
        let c = corners.map { (x: Double($0.x), y: Double($0.y)) }
        guard c.count >= 4 else { return (c[0], c[1]) }
        return (((c[0].x + c[3].x) / 2, (c[0].y + c[3].y) / 2), ((c[1].x + c[2].x) / 2, (c[1].y + c[2].y) / 2))
    }
}

extension PixelRect {
    /// The rectangle's centre.
    var centre: (x: Double, y: Double) { (Double(2 * x + width) / 2, Double(2 * y + height) / 2) }
}
