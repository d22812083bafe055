#if canImport(Glibc)
import Glibc
#endif
import ImageLoading
import ScanHardware
import Testing

@Suite struct ImageFileTests {
    @Test func pngJpegAndPgmLoadAsGray() throws {
        let png = try ImageFile.load(Fixture.path("ean13.png"))
        let jpeg = try ImageFile.load(Fixture.path("ean13.jpg"))
        #expect(png.width == jpeg.width && png.height == jpeg.height)
        #expect(png[0, 0] == 255)
        let pgm = try ImageFile.load(Fixture.path("ean8.pgm"))
        #expect(pgm.width == 404 && pgm.height == 220)
    }

    @Test func plainPGMWithCommentsAndMaxValue() throws {
        let text = "P2\n# a comment\n3 2\n15\n0 15 7\n15 0 3\n"
        let frame = try ImageFile.decode(Array(text.utf8))
        #expect(frame.width == 3 && frame.height == 2)
        #expect(frame.packedPixels() == [0, 255, 119, 255, 0, 51])
    }

    @Test func truncatedJPEGIsAClearError() {
        #expect {
            _ = try ImageFile.load(Fixture.path("truncated.jpg"))
        } throws: { error in
            let e = error as? ImageLoadError
            return e?.path.hasSuffix("truncated.jpg") == true && e?.reason.contains("JPEG") == true
        }
    }

    @Test func nonImageFileIsAClearError() {
        #expect(throws: ImageLoadError.self) { try ImageFile.load(Fixture.path("not-an-image.txt")) }
        do {
            _ = try ImageFile.load(Fixture.path("not-an-image.txt"))
        } catch {
            #expect(error.reason == "not a PNG, JPEG or PGM image")
        }
    }

    @Test func missingFileAndDirectoryAreClearErrors() {
        do { _ = try ImageFile.load("/nonexistent/x.png"); Issue.record("no error") } catch {
            #expect(error.reason.contains("cannot open"))
        }
        do { _ = try ImageFile.load(Fixture.folder.path); Issue.record("no error") } catch {
            #expect(error.reason == "is a directory")
        }
    }

    @Test func corruptPNGAndTruncatedPGMDoNotCrash() {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += [UInt8](repeating: 0x41, count: 64)
        #expect(throws: ImageLoadError.self) { try ImageFile.decode(png) }
        #expect(throws: ImageLoadError.self) { try ImageFile.decode(Array("P5\n100 100\n255\n".utf8) + [1, 2, 3]) }
        #expect(throws: ImageLoadError.self) { try ImageFile.decode(Array("P5\n-3 x\n".utf8)) }
        #expect(throws: ImageLoadError.self) { try ImageFile.decode([]) }
    }

    @Test func croppedViewSharesPixels() {
        let frame = GrayFrame(width: 4, height: 3, pixels: Array(0..<12))
        let crop = frame.cropped(to: PixelRect(x: 1, y: 1, width: 2, height: 5))
        #expect(crop.width == 2 && crop.height == 2 && crop.stride == 4)
        #expect(crop.packedPixels() == [5, 6, 9, 10])
    }
}

/// Hostile images (issue 12): refused from their header, before any allocation, with a reason.
@Suite struct HostileImageTests {
    func reason(_ path: String, limits: ImageLimits = ImageLimits()) -> String? {
        do { _ = try ImageFile.load(path, limits: limits); return nil } catch { return error.reason }
    }

    @Test func decompressionBombsAreRefusedFromTheirHeader() {
        #expect(reason(Fixture.path("bomb-20000x20000.png")) == "PNG: 20000x20000 is more than 40000000 pixels; not decoded")
        #expect(reason(Fixture.path("bomb-65000x65000.jpg")) == "JPEG: 65000x65000 is more than 40000000 pixels; not decoded")
        #expect(reason(Fixture.path("huge-header.pgm")) == "PGM: number 4294967296 is too large")
        #expect(reason(Fixture.path("qr.png"), limits: ImageLimits(maxPixels: 100)) == "PNG: 198x198 is more than 100 pixels; not decoded")
    }

    @Test func onlyRegularFilesAreRead() throws {
        let link = "/tmp/scand-zero-\(getpid()).pgm"
        symlink("/dev/zero", link)
        defer { unlink(link) }
        #expect(reason(link) == "is a device, not a regular file")
        #expect(reason(Fixture.path("qr.png"), limits: ImageLimits(maxFileBytes: 10))?.hasSuffix("at most 10 are read") == true)
    }
}
