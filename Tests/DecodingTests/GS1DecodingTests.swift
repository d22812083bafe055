import Decoding
import ImageLoading
import ScanCore
import TestThreads
import Testing

/// Both engines say which codes carry GS1 data, so scand reads them as GS1: zxing-cpp by the AIM
/// identifier, zbar by its GS1 modifier (turned into the same identifier).
@Suite(.onTestThreads) struct GS1DecodingTests {
    @Test(arguments: ["zxing", "zbar"])
    func gs1CodesAreFlaggedAndPlainOnesAreNot(engine: String) throws {
        let decoder: any BarcodeDecoder = engine == "zbar" ? ZBarDecoder() : ZXingDecoder()
        func read(_ name: String) throws -> Symbol { try #require(decoder.decode(try ImageFile.load(Fixture.path(name))).first, "\(engine) \(name)") }
        let gs1 = try read("gs1-128.png")
        #expect(gs1.aim == "]C1")
        #expect(GS1.read(gs1)?.hri == "(01)09506000134352(3103)001250(15)261200(10)LOT7")
        #expect(GS1.read(try read("code128.png")) == nil, "a plain Code 128 is no GS1 data")
        #expect(GS1.read(try read("gs1-digital-link.png"))?.hri == "(01)09506000134352(10)ABC(17)201231")
        if engine == "zxing" {
            #expect(GS1.read(try read("gs1-datamatrix.png"))?.hri == "(01)09506000134352(17)201231(10)ABC123(21)XYZ")
        }
    }
}
