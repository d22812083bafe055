import Glibc
import ScanCore
import ScanHardware

/// A transformed image for a further decoding pass, with the way back to frame coordinates.
public struct TransformedFrame {
    public var frame: GrayFrame
    /// Scale from transformed to original pixels.
    public var scale: Double
    /// Where the transformed image's origin lies in the original, in original pixels.
    public var offsetX = 0, offsetY = 0
    /// For a rotated image: its point to the original's (instead of scale and offset).
    var unrotate: (@Sendable (Double, Double) -> (Double, Double))?
    /// Whether an EAN/UPC read from this image counts only when its bars fit the image
    /// (`EANVerifier`), even when both engines read it (`ImagePass.resampled`).
    var eanMustFit = false
    /// Whether the image was deconvolved (`ImagePass.deblurred`): an EAN/UPC read from it is
    /// also checked for two codes in it (`DecodePipeline.weigh`).
    var deconvolved = false
    /// Whether the image is the negative of the frame's (`ImagePass.invert`): a light code on
    /// dark, read dark on light. Checks in the region then look at its negative too, where the
    /// code's quiet zone is light (`DecodePipeline.weighSoFar`).
    var inverted = false

    /// Whether the image shows only a part of `region` (a crop, a tile), whose edges may cut
    /// a code that goes on past them. A turned image shows the whole region.
    func isPart(of region: GrayFrame) -> Bool {
        guard unrotate == nil else { return false }
        return offsetX > 0 || offsetY > 0 || Double(frame.width) * scale + Double(offsetX) < Double(region.width) - 1
            || Double(frame.height) * scale + Double(offsetY) < Double(region.height) - 1
    }

    func mapBack(_ s: Symbol) -> Symbol {
        var s = s
        s.corners = s.corners.map {
            if let unrotate {
                let (x, y) = unrotate(Double($0.x), Double($0.y))
                return PixelPoint(x: Int(x.rounded()), y: Int(y.rounded()))
            }
            return PixelPoint(x: Int((Double($0.x) * scale).rounded()) + offsetX, y: Int((Double($0.y) * scale).rounded()) + offsetY)
        }
        return s
    }
}
