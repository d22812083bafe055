import ScanCore
import ScanHardware

/// A transformed image for a further decoding pass, with the way back to frame coordinates.
public struct TransformedFrame {
    public var frame: GrayFrame
    /// Scale from transformed to original pixels.
    public var scale: Double
    /// Where the transformed image's origin lies in the original, in original pixels.
    public var offsetX = 0, offsetY = 0

    func mapBack(_ s: Symbol) -> Symbol {
        var s = s
        s.corners = s.corners.map {
            PixelPoint(x: Int((Double($0.x) * scale).rounded()) + offsetX, y: Int((Double($0.y) * scale).rounded()) + offsetY)
        }
        return s
    }
}

/// The passes that defeat what stops the engines on a first look: inverted codes, low contrast
/// and uneven light, small codes (upscaling), large frames (downscaling).
public enum ImagePass: String, Sendable, CaseIterable {
    case thresholds, invert, stretch, sharpen, regions, enhancedRegions, tiles, upscale, downscale

    /// The passes each quality level may spend on a frame where nothing was found.
    public static func passes(for quality: DecodePipeline.Quality) -> [ImagePass] {
        switch quality {
        case .fast: return []
        case .balanced: return [.thresholds, .regions, .invert, .stretch, .sharpen, .enhancedRegions]
        case .accurate: return [.thresholds, .regions, .invert, .stretch, .sharpen, .enhancedRegions, .tiles, .upscale, .downscale]
        }
    }

    /// The transformed images to try, in order (none when the pass does not apply).
    public func apply(_ frame: GrayFrame) -> [TransformedFrame] {
        switch self {
        case .thresholds: return [TransformedFrame(frame: frame, scale: 1)]
        case .invert: return [TransformedFrame(frame: Self.map(frame) { 255 &- $0 }, scale: 1)]
        case .stretch: return Self.stretch(frame).map { [TransformedFrame(frame: $0, scale: 1)] } ?? []
        case .sharpen: return [TransformedFrame(frame: Self.sharpen(frame), scale: 1)]
        case .enhancedRegions:
            // Regions of the contrast-stretched, sharpened image: dark or blurred small codes.
            return ImagePass.regions.apply(Self.sharpen(Self.stretch(frame) ?? frame))
        case .regions:
            // Aztec bullseyes first (zxing 1.4 looks for them only from the image centre),
            // enlarged to about 4 pixels per module; then each dense region on its own,
            // enlarged when its modules would be few pixels.
            let bullseyes = RegionFinder.bullseyes(in: frame).map { found -> TransformedFrame in
                let crop = frame.cropped(to: found.rect)
                let factor = max(1, min(3, Int((6 / found.module).rounded(.up))))
                return TransformedFrame(frame: factor == 1 ? crop : Self.resize(crop, factor: factor), scale: 1 / Double(factor),
                                        offsetX: found.rect.x, offsetY: found.rect.y)
            }
            return bullseyes + RegionFinder.candidates(in: frame).map { rect in
                let crop = frame.cropped(to: rect)
                let factor = min(crop.width, crop.height) < 400 ? 2 : 1
                let image = factor == 1 ? crop : Self.resize(crop, factor: factor)
                return TransformedFrame(frame: image, scale: 1 / Double(factor), offsetX: rect.x, offsetY: rect.y)
            }
        case .tiles:
            // Half-size windows on a half-window grid: a detector that looks from the centre
            // (zxing's Aztec) sees each part of the frame near a window's centre once.
            let size = min(frame.width, frame.height) / 2
            guard size >= 64 else { return [] }
            let step = size / 2
            var out: [TransformedFrame] = []
            var y = 0
            while y + size <= frame.height {
                var x = 0
                while x + size <= frame.width {
                    let crop = frame.cropped(to: PixelRect(x: x, y: y, width: size, height: size))
                    let factor = size < 400 ? 2 : 1
                    out.append(TransformedFrame(frame: factor == 1 ? crop : Self.resize(crop, factor: factor),
                                                scale: 1 / Double(factor), offsetX: x, offsetY: y))
                    x += step
                }
                y += step
            }
            return out
        case .upscale:
            guard frame.width * frame.height <= 1_000_000 else { return [] }
            return [TransformedFrame(frame: Self.resize(frame, factor: 2), scale: 0.5)]
        case .downscale:
            guard frame.width * frame.height >= 600_000 else { return [] }
            return [TransformedFrame(frame: Self.halve(frame), scale: 2)]
        }
    }

    static func map(_ f: GrayFrame, _ op: (UInt8) -> UInt8) -> GrayFrame {
        var out = [UInt8](repeating: 0, count: f.width * f.height)
        f.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<f.height {
                    let row = y * f.stride, o = y * f.width
                    for x in 0..<f.width { dst[o + x] = op(src[row + x]) }
                }
            }
        }
        return GrayFrame(width: f.width, height: f.height, pixels: out)
    }

    /// Contrast stretch between the 1st and 99th percentile: faint and dark codes.
    static func stretch(_ f: GrayFrame) -> GrayFrame? {
        var histogram = [Int](repeating: 0, count: 256)
        f.withUnsafeBytes { src in
            for y in stride(from: 0, to: f.height, by: 2) { for x in stride(from: 0, to: f.width, by: 2) { histogram[Int(src[y * f.stride + x])] += 1 } }
        }
        let total = histogram.reduce(0, +)
        var acc = 0, lo = 0, hi = 255
        for (v, n) in histogram.enumerated() { acc += n; if acc >= total / 100 { lo = v; break } }
        acc = 0
        for (v, n) in histogram.enumerated().reversed() { acc += n; if acc >= total / 100 { hi = v; break } }
        guard hi - lo >= 8, hi - lo < 200 else { return nil } // already full range, or flat
        var table = [UInt8](repeating: 0, count: 256)
        for v in 0..<256 { table[v] = UInt8(max(0, min(255, (v - lo) * 255 / (hi - lo)))) }
        return map(f) { table[Int($0)] }
    }

    /// Unsharp mask (original + 1.5 x (original - 5x5 box blur)): blurred edges made steep again.
    static func sharpen(_ f: GrayFrame) -> GrayFrame {
        let integral = IntegralImage(f)
        var out = [UInt8](repeating: 0, count: f.width * f.height)
        f.withUnsafeBytes { p in
            for y in 0..<f.height {
                for x in 0..<f.width {
                    let v = Int(p[y * f.stride + x])
                    out[y * f.width + x] = UInt8(max(0, min(255, v + (3 * (v - integral.mean(x: x, y: y, radius: 2))) / 2)))
                }
            }
        }
        return GrayFrame(width: f.width, height: f.height, pixels: out)
    }

    /// Bilinear upscaling by an integer factor.
    static func resize(_ f: GrayFrame, factor: Int) -> GrayFrame {
        let w = f.width * factor, h = f.height * factor
        var out = [UInt8](repeating: 0, count: w * h)
        f.withUnsafeBytes { src in
            for y in 0..<h {
                let sy = (Double(y) + 0.5) / Double(factor) - 0.5
                let y0 = max(0, min(f.height - 1, Int(sy.rounded(.down)))), y1 = min(f.height - 1, y0 + 1)
                let fy = max(0, sy - Double(y0))
                for x in 0..<w {
                    let sx = (Double(x) + 0.5) / Double(factor) - 0.5
                    let x0 = max(0, min(f.width - 1, Int(sx.rounded(.down)))), x1 = min(f.width - 1, x0 + 1)
                    let fx = max(0, sx - Double(x0))
                    let a = Double(src[y0 * f.stride + x0]), b = Double(src[y0 * f.stride + x1])
                    let c = Double(src[y1 * f.stride + x0]), d = Double(src[y1 * f.stride + x1])
                    let v = (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
                    out[y * w + x] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }

    /// 2x2 box downscaling.
    static func halve(_ f: GrayFrame) -> GrayFrame {
        let w = f.width / 2, h = f.height / 2
        var out = [UInt8](repeating: 0, count: w * h)
        f.withUnsafeBytes { src in
            for y in 0..<h {
                for x in 0..<w {
                    let i = 2 * y * f.stride + 2 * x
                    let sum = Int(src[i]) + Int(src[i + 1]) + Int(src[i + f.stride]) + Int(src[i + f.stride + 1])
                    out[y * w + x] = UInt8(sum / 4)
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }
}
