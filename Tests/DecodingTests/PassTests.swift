@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import Testing

@Suite struct PassTests {
    /// A short, wide linear code at 25°: no horizontal or vertical scan line crosses all of it.
    @Test func aSlantedLinearCodeIsTurnedUpright() throws {
        let upright = try ImageFile.load(Fixture.path("code93.png"))
        let padded = ImagePass.bordered(upright, upright.width / 2)
        let slanted = ImagePass.rotated(padded, by: 25 * Double.pi / 180, factor: 1, originX: 0, originY: 0).frame
        let angle = try #require(ImagePass.barAngle(slanted))
        #expect(abs(abs(angle) - 25 * Double.pi / 180) < 0.1, "\(angle * 180 / Double.pi)°")
        #expect(DecodePipeline(quality: .fast).decode(slanted).isEmpty, "the first look alone does not read it")
        let read = DecodePipeline().decode(slanted)
        #expect(read.map(\.text) == ["SCAND93"])
        let corners = try #require(read.first?.corners)
        #expect(corners.allSatisfy { $0.x >= 0 && $0.x <= slanted.width && $0.y >= 0 && $0.y <= slanted.height }, "\(corners)")
        #expect(ImagePass.barAngle(try ImageFile.load(Fixture.path("qr.png"))) == nil, "a 2D code has no one direction")
    }

    @Test func aCodeThatFillsTheCropGetsAQuietZone() throws {
        let frame = try ImageFile.load(Fixture.path("datamatrix.png"))
        let border = 10
        let bordered = ImagePass.bordered(frame, border)
        #expect(bordered.width == frame.width + 2 * border && bordered[0, 0] == 255 && bordered[border + 5, border + 5] == frame[5, 5])
        let t = ImagePass.quietZone.apply(frame)[0]
        let s = t.mapBack(Symbol(symbology: .qrCode, text: "x", corners: [PixelPoint(x: t.frame.width / 10 + 3, y: 40)]))
        #expect(s.corners.first?.x == t.frame.width / 10 + 3 - (t.frame.width - frame.width) / 2)
    }
}
