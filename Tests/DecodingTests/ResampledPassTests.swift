@testable import Decoding
import ImageLoading
import ScanCore
import ScanHardware
import TestThreads
import Testing

/// The last look before the rune reader: the frame enlarged 2.5 times with bicubic
/// interpolation (`ImagePass.resampled`), and what its reads must show to count.
@Suite(.onTestThreads) struct ResampledPassTests {
    /// A 6x5 frame of random grays and OpenCV 4's `cv2.resize(src, None, fx=2.5, fy=2.5,
    /// interpolation=cv2.INTER_CUBIC)` of it (OpenCV works in fixed point: within one gray level).
    @Test func theEnlargementIsOpenCVsBicubic() {
        let src: [UInt8] = [168, 229, 184, 171, 238, 171, 20, 206, 245, 153, 204, 5, 37, 53, 213, 206, 192, 173, 6, 120,
                            63, 96, 236, 131, 118, 4, 87, 161, 124, 71]
        let opencv: [UInt8] = [
            179, 189, 213, 231, 222, 195, 173, 164, 169, 194, 228, 242, 222, 194, 184, 148, 162, 196, 225, 226, 206, 185, 169, 167,
            189, 225, 233, 202, 163, 148, 77, 104, 163, 221, 246, 235, 211, 180, 158, 176, 218, 214, 153, 85, 56, 11, 46, 122,
            200, 249, 254, 236, 194, 155, 166, 209, 195, 113, 25, 0, 0, 21, 75, 140, 203, 240, 249, 217, 177, 176, 202, 183,
            117, 49, 18, 22, 32, 43, 73, 139, 205, 248, 238, 208, 198, 198, 183, 155, 128, 116, 33, 35, 28, 40, 93, 158,
            208, 213, 201, 199, 199, 194, 188, 181, 178, 5, 18, 43, 74, 104, 120, 137, 139, 144, 175, 209, 224, 205, 178, 168,
            0, 12, 66, 114, 119, 89, 72, 70, 90, 148, 213, 239, 202, 148, 128, 27, 39, 68, 93, 88, 62, 54, 64, 91,
            142, 193, 208, 170, 119, 99, 90, 81, 59, 41, 41, 55, 80, 107, 131, 154, 163, 153, 123, 92, 78, 139, 114, 52,
            2, 5, 48, 101, 140, 162, 162, 140, 110, 88, 71, 62]
        let big = ImagePass.cubic(GrayFrame(width: 6, height: 5, pixels: src), scale: 2.5)
        #expect(big.width == 15 && big.height == 12, "OpenCV rounds 12.5 rows to 12")
        for y in 0..<12 {
            for x in 0..<15 {
                #expect(abs(Int(big[x, y]) - Int(opencv[y * 15 + x])) <= 1, "at \(x),\(y): \(big[x, y]) vs \(opencv[y * 15 + x])")
            }
        }
        // An even field stays even, and the taps of every output pixel weigh 1 together.
        let even = ImagePass.cubic(GrayFrame(width: 7, height: 3, pixels: [UInt8](repeating: 93, count: 21)), scale: 1.7)
        #expect(even.width == 12 && even.height == 5)
        #expect((0..<5).allSatisfy { y in (0..<12).allSatisfy { even[$0, y] == 93 } })
        let taps = ImagePass.cubicTaps(count: 17, source: 7, scale: 2.5)
        for i in 0..<17 { #expect(abs(taps.weight[4 * i..<4 * i + 4].reduce(0, +) - 1) < 1e-5) }
        #expect(taps.index.allSatisfy { (0..<7).contains($0) }, "edges are clamped")
    }

    /// A QR code of 25 modules about 28 pixels wide in a 1080p frame, and an upside-down Aztec,
    /// both cut from generated scenes: no other pass reads them; the enlarged frame does, and
    /// the read is placed on the code in the frame it came from.
    @Test(arguments: [("qr-small.png", "ID:parcel-655804718048"), ("aztec-upsidedown-small.png", "parcel-1386081")])
    func smallCodesAreReadInTheEnlargedFrame(file: String, text: String) throws {
        let frame = try ImageFile.load(Fixture.path(file))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .resampled })
        #expect(without.decode(frame).isEmpty)
        let read = DecodePipeline(passes: [.resampled]).decode(frame)
        #expect(read.map(\.text) == [text])
        let corners = try #require(read.first?.corners)
        #expect(corners.allSatisfy { abs($0.x - frame.width / 2) < frame.width / 3 && abs($0.y - frame.height / 2) < frame.height / 3 },
                "on the code near the crop's centre: \(corners)")
        #expect(DecodePipeline().decode(frame).map(\.text) == [text])
        #expect(DecodePipeline(quality: .accurate).decode(frame).map(\.text) == [text])
    }

    /// A QR code out of focus (cut from a generated blur scene): only the sharpened frame,
    /// enlarged, reads it; the plain enlargement does not.
    @Test func aBlurredCodeIsReadSharpenedAndEnlarged() throws {
        let frame = try ImageFile.load(Fixture.path("qr-blurred.png"))
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .resampled })
        #expect(without.decode(frame).isEmpty)
        let images = ImagePass.resampled.apply(frame)
        #expect(images.count == 5 && images.allSatisfy { $0.eanMustFit && $0.frame.width == 250 })
        let engines: [any BarcodeDecoder] = [ZXingDecoder(), ZBarDecoder()]
        #expect(engines.allSatisfy { $0.decode(images[0].frame).isEmpty }, "the plain enlargement reads nothing")
        #expect(DecodePipeline(passes: [.resampled]).decode(frame).map(\.text) == ["ID:kiosk-37605"])
        #expect(DecodePipeline().decode(frame).map(\.text) == ["ID:kiosk-37605"])
    }

    /// A small Aztec (cut from seed 5151): only the enlargement sharpened after it (the look's
    /// fourth image) reads it; sharpened before, as it is, or under the glare curve, it is not.
    @Test func aSmallAztecIsReadEnlargedThenSharpened() throws {
        let frame = try ImageFile.load(Fixture.path("aztec-small-sharp.png"))
        let text = "https://example.org/scand-7051027"
        let without = DecodePipeline(passes: ImagePass.passes(for: .balanced).filter { $0 != .resampled })
        #expect(without.decode(frame).isEmpty)
        let images = ImagePass.resampled.apply(frame)
        #expect(images.count == 5)
        let engines: [any BarcodeDecoder] = [ZXingDecoder(), ZBarDecoder()]
        for image in images.prefix(3) { #expect(engines.allSatisfy { $0.decode(image.frame).isEmpty }) }
        #expect(images[3].frame[40, 40] == ImagePass.sharpen(images[0].frame)[40, 40])
        #expect(ZXingDecoder().decode(images[3].frame).map(\.text) == [text])
        #expect(DecodePipeline().decode(frame).map(\.text) == [text])
    }

    /// A UPC-E printed light on a dark label at 1.2 pixels a module in a 720p scene (a tryout's
    /// generated scene): the whole-frame negative (`invert`) has too few pixels a module, the
    /// enlargements too few light ones; the enlargement's negative, `resampled`'s fifth image,
    /// reads it (a tryout's 144 light-on-dark codes at 1.2-3 px a module: 99 read before, 110
    /// after, 128 of the same codes dark on light).
    @Test func aSmallLightCodeOnADarkLabelIsReadFromTheEnlargementsNegative() throws {
        let frame = try ImageFile.load(Fixture.path("upce-small-inverted-scene.jpg"))
        #expect(DecodePipeline(passes: [.invert]).decode(frame).isEmpty)
        let images = ImagePass.resampled.apply(frame)
        #expect(images.map(\.inverted) == [false, false, false, false, true])
        #expect(images[4].frame[100, 100] == 255 &- images[0].frame[100, 100])
        let found = DecodePipeline(passes: [.resampled]).decode(frame)
        #expect(found.map(\.symbology) == [.upcE] && found.map(\.text) == ["04628721"])
        #expect(DecodePipeline().decode(frame).map(\.text) == ["04628721"])
    }

    /// A frame is enlarged to at most 6 megapixels (a 1080p frame 1.7 times), and not at all when
    /// that would be less than 1.25 times.
    @Test func theEnlargementIsBounded() {
        let hd = ImagePass.resampled.apply(GrayFrame(width: 1920, height: 1080, pixels: [UInt8](repeating: 128, count: 1920 * 1080)))
        #expect(hd.count == 5 && hd[0].frame.width * hd[0].frame.height <= 6_000_000 && hd[0].frame.width == 3266)
        let vga = ImagePass.resampled.apply(GrayFrame(width: 640, height: 480, pixels: [UInt8](repeating: 128, count: 640 * 480)))
        #expect(vga.first?.frame.width == 1600 && vga.first?.frame.height == 1200 && vga.first?.scale == 0.4)
        #expect(ImagePass.resampled.apply(GrayFrame(width: 3000, height: 1600, pixels: [UInt8](repeating: 128, count: 3000 * 1600))).isEmpty)
    }

    /// zxing-cpp's `upca-4/6.png` (a UPC-A of 0023942431015 printed with bars that bleed):
    /// enlarged 2.5 times, zxing and zbar both read it as the EAN-13 9074932437075. Two engines
    /// alike count anywhere else; here the read must fit its bars, and it does not.
    @Test func anEANReadFromTheEnlargedFrameMustFitItsBars() throws {
        let frame = try ImageFile.load(Fixture.shared("zxing-cpp/upca-4/6.png"))
        let big = ImagePass.resampled.apply(frame)[0]
        #expect(big.eanMustFit)
        #expect(ZXingDecoder().decode(big.frame).map(\.text).contains("9074932437075"), "the misread this guards against")
        #expect(ZBarDecoder().decode(big.frame).map(\.text).contains("9074932437075"))
        #expect(DecodePipeline(passes: [.resampled]).decode(frame).isEmpty)
        #expect(DecodePipeline().decode(frame).isEmpty)
    }

    /// A blurred QR code at 640x480 (seed 5678's `QR-Code-04-blur.jpg`, `make-devset.py`) that
    /// no pass reads alone: the frame deconvolved and then enlarged (`deblurredResampled`) does,
    /// on one thread or two; the balanced passes without that one do not.
    @Test func aBlurredSmallQRCodeReadsDeconvolvedAndEnlarged() throws {
        let frame = try ImageFile.load(Fixture.path("qr-blur.jpg"))
        let want = "https://example.org/parcel-84576444"
        for workers in [1, 2] {
            #expect(DecodePipeline(workers: workers).decode(frame).map(\.text) == [want], "\(workers) workers")
        }
        let without = ImagePass.passes(for: .balanced).filter { $0 != .deblurredResampled }
        #expect(DecodePipeline(passes: without).decode(frame).isEmpty)
        // The pass reads 2D codes only: one more look at a linear code is one more chance of a misread.
        let pipeline = DecodePipeline()
        let readers = pipeline.lookers(.deblurredResampled, pipeline.engines).compactMap { $0 as? ZXingDecoder }
        #expect(readers.count == 1 && readers.allSatisfy { $0.enabled.contains(.qrCode) && $0.enabled.allSatisfy { !$0.isLinear } })
        #expect(DecodePipeline(symbologies: [.ean13, .code128]).lookers(.deblurredResampled, pipeline.engines).isEmpty)
    }
}
