@testable import Decoding
import ScanHardware
import TestThreads
import Testing

/// The edge-energy cells that the decoding's `RegionFinder` and the viewfinder's `CodeFinder` share.
@Suite(.onTestThreads) struct EdgeCellsTests {
    /// The cells both region finders cut a frame into: every sampled pixel's steps to the right
    /// and down, `samplesPerCell` of them in a cell (an odd cell too), steps at the floor or
    /// below left out. The viewfinder's `CodeFinder` relies on the count for its mean step.
    @Test func edgeCellsSumTheStepsOfTheirSamples() throws {
        // 540 x 600: cells of 9 pixels, 60 x 66 of them; stripes of one pixel, 0 and 200.
        let stripes = GrayFrame(width: 540, height: 600, pixels: (0..<(540 * 600)).map { $0 % 2 == 0 ? 0 : 200 })
        let cells = try #require(EdgeCells(stripes, minimumCells: 4))
        #expect(cells.cell == 9 && cells.columns == 60 && cells.rows == 66 && cells.samplesPerCell == 16)
        #expect(cells.energy.allSatisfy { $0 == 200 * 16 } && cells.rank(50) == 200 * 16)
        #expect(try #require(EdgeCells(stripes, minimumCells: 4, stepsAbove: 200)).energy.allSatisfy { $0 == 0 })
        #expect(EdgeCells(GrayFrame(width: 31, height: 400, pixels: [UInt8](repeating: 0, count: 31 * 400)), minimumCells: 4) == nil)
    }
}
