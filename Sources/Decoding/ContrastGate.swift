import ScanHardware

/// Whether a frame shows anything a code could be made of: a code is dark and light modules side
/// by side, so somewhere in the frame a small cell spans a contrast well above the sensor's
/// noise. An even scene (a wall, an empty counter, the dark) has none, and costs the engines
/// the most: zbar and zxing chase the noise's edges (a noisy blank 1280x720 frame took 80 ms
/// for a first look and 600 ms of deep passes). Cells of 16x16 pixels are sampled at every
/// second pixel of every second row (64 samples); a cell's contrast is the difference between
/// its second-brightest and second-darkest sample (one hot or dead pixel does not count).
///
/// The weakest code in `../shared/corpus/scenes` and `../shared/corpus/zxing-cpp` has a cell of
/// 46 levels (a dark scene's); a still, noisy blank frame 8 to 16. Below `threshold` nothing is
/// looked at: a code of less contrast than that is not read (the torch is for such scenes).
public enum ContrastGate {
    /// Cell contrast below which a frame is taken to hold no code.
    public static let threshold = 16

    /// Whether some cell of `frame` reaches `threshold` (stops at the first that does: a frame
    /// with a code costs a fraction of a millisecond).
    public static func mayHoldCode(_ frame: GrayFrame) -> Bool { strongestCellContrast(frame, enough: threshold) >= threshold }

    /// The largest cell contrast in `frame`, in levels (0...255); the first at or above `enough`
    /// when given.
    public static func strongestCellContrast(_ frame: GrayFrame, enough: Int = 256) -> Int {
        let cell = 16
        guard frame.width >= cell, frame.height >= cell else { return 255 } // too small to judge: let the engines look
        let stride = frame.stride
        var best = 0
        frame.withUnsafeBytes { p in
            var cy = 0
            while cy + cell <= frame.height {
                var cx = 0
                while cx + cell <= frame.width {
                    var lo1 = 255, lo2 = 255, hi1 = 0, hi2 = 0
                    var y = cy
                    while y < cy + cell {
                        let row = y * stride
                        var x = cx
                        while x < cx + cell {
                            let v = Int(p[row + x])
                            if v < lo2 { if v < lo1 { lo2 = lo1; lo1 = v } else { lo2 = v } }
                            if v > hi2 { if v > hi1 { hi2 = hi1; hi1 = v } else { hi2 = v } }
                            x += 2
                        }
                        y += 2
                    }
                    best = max(best, hi2 - lo2)
                    if best >= enough { return }
                    cx += cell
                }
                cy += cell
            }
        }
        return best
    }
}
