@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

@Suite(.onTestThreads) struct AztecRuneTests {
    @Test func theCheckWordsAreTheStandardsAndEveryRuneIsItsOwn() {
        // A rune's seven words: two of value, five checks; any two runes differ in at least six
        // (so one wrong word can be taken without ever reading one rune as another).
        let words = AztecRuneReader.codewords
        #expect(words.count == 256 && words.allSatisfy { $0.count == 7 && $0.allSatisfy { $0 < 16 } })
        #expect(words[0] == [0, 0, 0, 0, 0, 0, 0])
        var nearest = 7
        for a in 0..<256 { for b in (a + 1)..<256 { nearest = min(nearest, zip(words[a], words[b]).filter { $0 != $1 }.count) } }
        #expect(nearest == 6)
    }

    @Test func runesDrawnByZintAreRead() throws {
        for (file, text) in [("aztec-rune-68.png", "068"), ("aztec-rune-201.png", "201")] {
            let frame = try ImageFile.load(Fixture.path(file))
            #expect(ZXingDecoder().decode(frame).isEmpty, "zxing reads no runes: scand does not ask it for them")
            let read = AztecRuneReader().decode(frame)
            #expect(read.map(\.text) == [text], "\(file)")
            #expect(read.first?.aimIdentifier == "]zC")
            #expect(DecodePipeline().decode(frame).map(\.text) == [text], "\(file) through the pipeline")
        }
    }

    @Test func aRuneTurnedMirroredInvertedOrResampledIsRead() throws {
        let pure = try ImageFile.load(Fixture.path("aztec-rune-68.png"))
        let bordered = ImagePass.bordered(pure, 30)
        let turned = ImagePass.rotated(bordered, by: 0.3, factor: 0.8, originX: 0, originY: 0).frame
        #expect(AztecRuneReader().decode(turned).map(\.text) == ["068"], "turned 17° and resampled")
        let quarter = ImagePass.rotated(bordered, by: Double.pi / 2, factor: 1, originX: 0, originY: 0).frame
        #expect(AztecRuneReader().decode(quarter).map(\.text) == ["068"], "a quarter turn")
        var mirrored = [UInt8](repeating: 0, count: bordered.width * bordered.height)
        bordered.withUnsafeBytes { p in
            for y in 0..<bordered.height { for x in 0..<bordered.width { mirrored[y * bordered.width + x] = p[y * bordered.stride + bordered.width - 1 - x] } }
        }
        #expect(AztecRuneReader().decode(GrayFrame(width: bordered.width, height: bordered.height, pixels: mirrored)).map(\.text) == ["068"])
        #expect(AztecRuneReader().decode(ImagePass.map(bordered) { 255 &- $0 }).map(\.text) == ["068"], "light on dark")
        // The corners frame the 11x11 core (6 px modules, 30 px border + 24 px quiet zone).
        let corners = try #require(AztecRuneReader().decode(bordered).first?.corners)
        #expect(corners.allSatisfy { abs($0.x - 54) <= 2 || abs($0.x - 120) <= 2 } && corners.allSatisfy { abs($0.y - 54) <= 2 || abs($0.y - 120) <= 2 }, "\(corners)")
    }

    @Test func aCompactAztecIsNoRuneAndABlankIsNothing() throws {
        // The fixture's compact code has a mode message whose even bits are not inverted.
        let aztec = try ImageFile.load(Fixture.path("aztec.png"))
        #expect(AztecRuneReader().decode(aztec).isEmpty)
        #expect(AztecRuneReader().decode(GrayFrame(width: 64, height: 64, pixels: [UInt8](repeating: 200, count: 64 * 64))).isEmpty)
        #expect(AztecRuneReader().decode(GrayFrame(width: 8, height: 8, pixels: [UInt8](repeating: 0, count: 64))).isEmpty)
    }

    @Test func oneWrongWordIsTakenTwoAreNot() throws {
        let pure = try ImageFile.load(Fixture.path("aztec-rune-68.png"))
        // Modules of the layout's top row (6 px each, after a 24 px quiet zone) flipped: cols 2
        // and 3 are in the ring's first word, 2 ... 8 reach into its second.
        func flipped(_ cols: ClosedRange<Int>, row: Int = 0) -> GrayFrame {
            var pixels = [UInt8](repeating: 0, count: pure.width * pure.height)
            pure.withUnsafeBytes { p in for i in 0..<pixels.count { pixels[i] = p[i / pure.width * pure.stride + i % pure.width] } }
            for col in cols { for y in 0..<6 { for x in 0..<6 { pixels[(24 + 6 * row + y) * pure.width + 24 + 6 * col + x] ^= 0xFF } } }
            return GrayFrame(width: pure.width, height: pure.height, pixels: pixels)
        }
        #expect(AztecRuneReader().decode(flipped(2...3)).map(\.text) == ["068"], "one word wrong")
        #expect(AztecRuneReader().decode(flipped(2...8)).isEmpty, "two words wrong")
    }
}
