import ScanCore
import ScanHardware

extension DecodePipeline {
    /// Reads in a viewport (a region of the frame) that the frame shows to be a part of a longer
    /// code are dropped. The checks that tell a part from a whole code (a UPC-E or EAN-8 needs
    /// a quiet zone past each end, `withoutPartsOfLongerEAN`; the bars of an ITF, Code 39 or
    /// Codabar must not run on past those its characters have, `barsRunOn`) are asked of the
    /// region, where a code cut by the viewport's edge ends at the edge and they cannot tell:
    /// here they are asked again in the whole frame. An EAN-13 whose right end lay just past
    /// the viewport was read as the UPC-E of its left half; an ITF cut by it as its first digits.
    /// A code near the edge with plain paper past it stays.
    static func withoutCutReads(_ found: [Symbol], in region: GrayFrame, _ doubts: Doubts) -> [Symbol] {
        guard let (frame, origin) = doubts.view else { return found }
        return found.filter { s in
            guard partKinds.contains(s.symbology) || [.upcE, .ean8].contains(s.symbology), s.corners.count >= 2 else { return true }
            var placed = s
            placed.corners = s.corners.map { PixelPoint(x: $0.x + origin.x, y: $0.y + origin.y) }
            if !partKinds.contains(s.symbology) { return !withoutPartsOfLongerEAN([placed], in: frame).isEmpty }
            let rect = area(around: placed, in: frame, sides: 4)
            guard rect.width > 16, rect.height > 16, let axis = ImagePass.barAngle(frame.cropped(to: rect)) else { return true }
            // A run that reaches the frame's edge too: the bars in view past those the read has
            // already say it (a code cut by the viewport and by the frame, the tryout's ITF).
            return !barsRunOn(placed, in: frame, angle: axis, atLeast: true)
        }
    }
}
