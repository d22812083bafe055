import Decoding
import ScanHardware

/// Where a code may be in a frame the decoders could not read: cells whose mean gradient stands
/// well above the frame's usual texture (soft edges count, so a blurred or tiny code is found),
/// joined into regions. Looser than the decoding pipeline's `RegionFinder`, which wants strong
/// edges to spend its passes on; both cut the frame into the same `EdgeCells`.
enum CodeFinder {
    /// Code-like regions of `f`, largest first, in `f`'s pixels.
    static func regions(in f: GrayFrame, limit: Int = 3) -> [PixelRect] {
        guard let cells = EdgeCells(f, minimumCells: 3) else { return [] }
        // Every step counts; a cell is marked when its mean step (energy over samples, rounded
        // down) is at least 6 and three times the median cell's: exactly when its energy is at
        // least that many times its samples.
        let samples = cells.samplesPerCell
        let threshold = max(6, cells.rank(50) / samples * 3)
        return cells.regions(atLeast: threshold * samples, limit: limit) { part in
            // A code has some extent: at least 2x2 cells.
            part.width >= 2 && part.height >= 2 && part.cells >= 4 ? cells.pixels(of: part) : nil
        }
    }
}
