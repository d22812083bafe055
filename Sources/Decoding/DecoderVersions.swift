import CZBar
import CZXing

/// The versions of the decoding libraries scand runs with, for `scand --version`.
public enum DecoderVersions {
    /// zbar's, as the shared library reports it (`zbar_version`), e.g. "0.23.92".
    public static var zbar: String {
        var major: UInt32 = 0, minor: UInt32 = 0, patch: UInt32 = 0
        _ = zbar_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// zxing-cpp's, as compiled in (it is linked statically), e.g. "3.1.1".
    public static var zxing: String { String(cString: scand_zx_version()) }
}
