import Decoding
import Foundation
import ImageLoading
import ScanHardware
import TestThreads
import Testing

/// The gate that spares the engines a frame with nothing to read.
@Suite(.onTestThreads) struct ContrastGateTests {
    /// An even scene with sensor noise of `amplitude` levels around `level`.
    static func noise(_ width: Int, _ height: Int, level: Int = 116, amplitude: UInt32 = 9) -> GrayFrame {
        var seed: UInt32 = 2463534242
        return GrayFrame(width: width, height: height, pixels: (0..<width * height).map { _ in
            seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5
            return UInt8(level + Int(seed % amplitude))
        })
    }

    /// `frame`'s levels squeezed into `low...low+span`.
    static func squeezed(_ frame: GrayFrame, low: Int, span: Int) -> GrayFrame {
        GrayFrame(width: frame.width, height: frame.height, pixels: frame.packedPixels().map { UInt8(low + Int($0) * span / 255) })
    }

    @Test func aNoisyEvenSceneIsNotLookedAt() {
        let blank = Self.noise(640, 480)
        #expect(ContrastGate.strongestCellContrast(blank) < ContrastGate.threshold)
        #expect(!ContrastGate.mayHoldCode(blank))
        let pipeline = DecodePipeline(checksReadsInFrame: true)
        let look = pipeline.firstLook(blank, viewport: .full)
        #expect(look.symbols.isEmpty && pipeline.deepLook(look, abandon: { false }).isEmpty)
    }

    @Test func aLowContrastCodeIsStillRead() throws {
        let qr = try ImageFile.load(Fixture.path("qr.png"))
        let faint = Self.squeezed(qr, low: 100, span: 40)
        #expect(ContrastGate.mayHoldCode(faint))
        #expect(DecodePipeline().decode(faint).map(\.text) == ["https://example.org/kiosk?id=42"])
        // The documented limit: a code spanning fewer levels than the threshold is not looked at.
        #expect(!ContrastGate.mayHoldCode(Self.squeezed(qr, low: 100, span: 12)))
    }

    /// Every code of the scenes corpus (dark, low-contrast, blurred, glare...) clears the gate
    /// with room to spare.
    @Test func everyCorpusCodeClearsTheGateTwice() throws {
        let folder = Fixture.shared("scenes")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }
        #expect(names.count >= 100)
        for name in names {
            let frame = try ImageFile.load(folder + "/" + name)
            let contrast = ContrastGate.strongestCellContrast(frame)
            #expect(contrast >= 2 * ContrastGate.threshold, "\(name): \(contrast)")
        }
    }

    @Test func tinyFramesAreLeftToTheEngines() {
        #expect(ContrastGate.mayHoldCode(GrayFrame(width: 10, height: 10, pixels: [UInt8](repeating: 128, count: 100))))
        #expect(ContrastGate.strongestCellContrast(GrayFrame(width: 0, height: 0, pixels: [])) == 255)
    }
}
