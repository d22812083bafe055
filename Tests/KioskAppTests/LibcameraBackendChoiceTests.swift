import ScanApp
import ScanConfig
import Testing

/// `camera.backend` in the composition root: which stack opens the camera.
@Suite struct LibcameraBackendChoiceTests {
    /// Records whether libcamera was asked, and answers with `ids`.
    final class Listing: @unchecked Sendable {
        var asked = 0
        let ids: [String]?
        init(_ ids: [String]?) { self.ids = ids }
        func list() -> [String]? { asked += 1; return ids }
    }

    @Test func v4l2AndLibcameraAreTakenAsSaidWithoutAskingLibcamera() {
        let listing = Listing(["/base/imx708@1a"])
        #expect(!Board.usesLibcamera(.v4l2, id: "", listed: listing.list))
        #expect(Board.usesLibcamera(.libcamera, id: "/base/other", listed: listing.list))
        #expect(listing.asked == 0)
    }

    @Test func autoTakesLibcameraWhenItListsTheCamera() {
        #expect(Board.usesLibcamera(.auto, id: "", listed: Listing(["/base/imx708@1a"]).list))
        #expect(Board.usesLibcamera(.auto, id: "/base/imx708@1a", listed: Listing(["/base/imx219@10", "/base/imx708@1a"]).list))
        #expect(!Board.usesLibcamera(.auto, id: "/base/imx477@1a", listed: Listing(["/base/imx708@1a"]).list))
        #expect(!Board.usesLibcamera(.auto, id: "", listed: Listing([]).list))
        #expect(!Board.usesLibcamera(.auto, id: "", listed: Listing(nil).list)) // libcamera did not start
    }

    @Test func theCompositionRootBuildsTheBackendTheConfigNames() throws {
        var config = ScandConfig()
        config.hardware = .linux
        config.camera.backend = .libcamera
        config.camera.id = "/base/imx708@1a"
        #expect(try Board.camera(config).name == "libcamera /base/imx708@1a")
        config.camera.backend = .v4l2
        config.camera.device = "/dev/video7"
        #expect(try Board.camera(config).name == "/dev/video7")
    }
}
