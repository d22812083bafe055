@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import Glibc
import TestThreads
import Testing

/// An ITF code crossed by a dark stroke: the digits on one side of the stroke, a valid ITF of
/// their own, are not reported; the bars that run on past them without a quiet zone show that
/// they are a part (issue 18).
@Suite(.onTestThreads) struct BarRunTests {
    /// `frame` with a dark stroke `width` pixels wide through (x, y) at `degrees` from the x axis.
    static func stroked(_ frame: GrayFrame, x: Double, y: Double, degrees: Double, width: Double) -> GrayFrame {
        let a = degrees * Double.pi / 180, c = cos(a), s = sin(a)
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height)
        for v in 0..<frame.height {
            for u in 0..<frame.width {
                // Distance from the line through (x, y) along (c, s).
                let d = abs(-(Double(u) - x) * s + (Double(v) - y) * c)
                pixels[v * frame.width + u] = d <= width / 2 ? 40 : frame[u, v]
            }
        }
        return GrayFrame(width: frame.width, height: frame.height, pixels: pixels)
    }

    @Test func aCleanCodeHasTheBarsOfItsDigits() throws {
        let itf = ImagePass.bordered(try ImageFile.load(Fixture.path("itf.png")), 60)
        let y = Double(itf.height) / 2
        #expect(BarRun.bars(in: itf, centre: (Double(itf.width) / 2, y), angle: 0, reach: itf.width / 2 - 4) == BarRun.itfBars(digits: 8))
        let itf14 = ImagePass.bordered(try ImageFile.load(Fixture.path("itf14.png")), 60)
        #expect(BarRun.bars(in: itf14, centre: (Double(itf14.width) / 2, Double(itf14.height) / 2), angle: 0,
                            reach: itf14.width / 2 - 4) == BarRun.itfBars(digits: 14))
        // Where the run goes on past the look's reach, the image cannot tell.
        #expect(BarRun.bars(in: itf, centre: (Double(itf.width) / 2, y), angle: 0, reach: 60) == nil)
        // Nor in an even frame.
        let even = GrayFrame(width: 200, height: 100, pixels: [UInt8](repeating: 128, count: 20000))
        #expect(BarRun.bars(in: even, centre: (100, 50), angle: 0, reach: 90) == nil)
    }

    /// A camera's quiet zone is not even: its noise, measured against the middle of its own
    /// narrow range, read as bars of its own, and a whole code (the generated set 1357's
    /// turned ITF) was dropped as a part of a longer one.
    @Test func aNoisyQuietZoneStaysLight() throws {
        let itf = ImagePass.bordered(try ImageFile.load(Fixture.path("itf.png")), 120)
        var seed: UInt32 = 2024
        let noisy = ImagePass.map(itf) { v -> UInt8 in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let n = Int(seed >> 28) - 8 // -8 ... 7
            return UInt8(max(0, min(255, Int(v) - 8 + n)))
        }
        let y = Double(noisy.height) / 2
        #expect(BarRun.bars(in: noisy, centre: (Double(noisy.width) / 2, y), angle: 0, reach: noisy.width / 2 - 4) == BarRun.itfBars(digits: 8))
        // The camera frame it came from (see Tests/Fixtures/make-fixtures.sh): read whole, on
        // one thread as the kiosk decodes and on two.
        let turned = try ImageFile.load(Fixture.path("itf-turned.jpg"))
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(turned).map(\.text) == ["885877356459"], "\(workers) workers")
        }
    }

    @Test func thePartRightOfAStrokeIsDroppedTheWholeKept() throws {
        // ITF-14 1540014128876(3) with a stroke nearly along its bars, a little right of its middle.
        let plain = ImagePass.bordered(try ImageFile.load(Fixture.path("itf14.png")), 60)
        let frame = Self.stroked(plain, x: Double(plain.width) / 2 + 20, y: Double(plain.height) / 2, degrees: 86, width: 4)
        let y = frame.height / 2, x = frame.width / 2
        let pipeline = DecodePipeline()
        // Eight digits right of the stroke, placed where they are: a part, dropped.
        let part = WholeReadTests.read("41288763", .itf, from: x + 24, to: x + 300, y: y)
        #expect(pipeline.whole([part], in: frame).isEmpty)
        // The whole code's text along the whole code: kept, stroke and all.
        let whole = WholeReadTests.read("15400141288763", .itf14, from: x - 300, to: x + 300, y: y)
        #expect(pipeline.whole([whole], in: frame).map(\.text) == ["15400141288763"])
        // Whatever the pipeline makes of the frame, never a part of the code.
        for s in pipeline.decode(frame) where [.itf, .itf14].contains(s.symbology) {
            #expect(s.text == "15400141288763", "read \(s.text)")
        }
    }

    @Test func aCameraFrameOfACrossedCodeGivesNoPart() throws {
        // A generated camera frame in which zbar and zxing read the right of the stroke as an
        // ITF of 8 digits (see Tests/Fixtures/make-fixtures.sh).
        let frame = try ImageFile.load(Fixture.path("itf14-crossed.jpg"))
        let found = DecodePipeline(workers: 2).decode(frame)
        #expect(found.allSatisfy { $0.text == "12183637890192" }, "read \(found.map(\.text))")
    }
}
