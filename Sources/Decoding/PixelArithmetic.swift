// The per-pixel arithmetic the filters share, each the same to the last bit as its plain form
// (`FastPixelPathTests`): exact division by a fixed divisor, rounding to a byte and down to a
// whole number without the C library, and eight floats at a time.

/// Division by a fixed divisor as a multiply and a shift (Granlund and Montgomery), for the
/// numerators a box of levels sums to (0 to 2^24 - 1): the same quotient as `/`, rounded down,
/// without a division instruction per pixel (a divisor known only at run time gets one).
struct QuotientByMultiply {
    let multiplier: UInt64, shift: UInt64

    /// The numerators' bound: 24 bits, and a product under 2^49.
    static let numeratorBits: UInt64 = 24

    init(_ divisor: Int32) {
        precondition(divisor > 0 && divisor < 1 << 16)
        // shift = 24 + ceil(log2 d), multiplier = ceil(2^shift / d): the multiplier's excess
        // over 2^shift / d (under d / 2^shift) adds less than 1/d to any numerator's quotient.
        let d = UInt64(divisor), log = UInt64(64 - (d - 1).leadingZeroBitCount)
        shift = Self.numeratorBits + log
        multiplier = ((1 << shift) + d - 1) / d
    }

    @inline(__always) func callAsFunction(_ x: Int32) -> Int32 {
        Int32(truncatingIfNeeded: (UInt64(UInt32(bitPattern: x)) &* multiplier) &>> shift)
    }
}

/// `v` rounded to the nearest whole number (halves away from zero) and clamped to a byte: the
/// same as `UInt8(max(0, min(255, v.rounded())))`, without the C library's `round` per pixel
/// (a call where the processor has no rounding instruction for it, as x86-64's baseline has
/// not). Under 0.5 rounds to 0 or below; from 0.5 on, adding 0.5 and truncating rounds alike
/// (the sum is exact there, or rounds to no other whole number).
@inline(__always) func roundedByte(_ v: Double) -> UInt8 {
    v < 0.5 ? 0 : UInt8(min(255, v + 0.5))
}

/// `Int(v.rounded(.down))` for a `v` within Int's range, without the C library's `floor` per
/// pixel (x86-64's baseline has no instruction for it; `roundedByte`).
@inline(__always) func floorInt(_ v: Double) -> Int {
    let t = Int(v)
    return Double(t) > v ? t &- 1 : t
}

/// `roundedByte` of a float.
@inline(__always) func roundedByte(_ v: Float) -> UInt8 {
    v < 0.5 ? 0 : UInt8(min(255, v + 0.5))
}

/// Eight floats worked on at once (SSE or AVX, as the target has): each lane's arithmetic is
/// the scalar arithmetic, so a filter gives the same image to the last bit either way.
typealias Lanes = SIMD8<Float>

extension SIMD8 where Scalar == Float {
    /// How many floats: 8.
    static var count: Int { 8 }

    /// Eight floats from `p` on (no alignment needed).
    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> Self {
        UnsafeRawPointer(p).loadUnaligned(as: Self.self)
    }

    /// The eight floats stored from `p` on.
    @inline(__always) func store(_ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: self, as: Self.self)
    }
}
