import ArgumentParser
import Decoding
import ImageLoading
import ScanCore
import ScanHardware

/// What a frame that cannot be read costs the kiosk's decoder: a blank scene, a cluttered scene
/// without a code, and a code under the exposure from before the torch came on (blown out, or
/// still dark), against the same code read normally, measured in the same run. The first look
/// is what every new frame gets; the deep passes run on the other worker and never delay the
/// next frame's first look. This is the measurement behind `torch.skip_frames = 0`.
struct NoCodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "no-code", abstract: "The cost of frames with nothing readable.")

    @Option(help: "An image with a code (the reference; its exposure is spoilt for the torch cases), e.g. samples/qr-wifi.jpg.")
    var code: String

    @Option(help: "An image without a code (clutter), e.g. Tests/Fixtures/no-code.png.")
    var clutter: String

    @Option(help: "Repetitions per frame.")
    var repeats = 40

    @Option(help: "The camera's frame rate, for the share of a frame period.")
    var fps = 30

    func run() throws {
        let reference = try ImageFile.load(code)
        let scene = try ImageFile.load(clutter)
        func mapped(_ f: GrayFrame, _ level: (Int) -> Int) -> GrayFrame {
            GrayFrame(width: f.width, height: f.height, pixels: f.packedPixels().map { UInt8(clamping: level(Int($0))) })
        }
        let cases: [(String, GrayFrame)] = [
            ("the code, well exposed (reference)", reference),
            ("blank: an even scene with sensor noise", Self.evenScene(width: reference.width, height: reference.height, level: 116)),
            ("clutter without a code", scene),
            ("the code blown out (old exposure x4 under the torch)", mapped(reference) { $0 * 4 }),
            ("the code blown out (x8)", mapped(reference) { $0 * 8 }),
            ("the code still dark (old exposure x1/8)", mapped(reference) { $0 / 8 }),
            ("the code still dark (x1/16)", mapped(reference) { $0 / 16 }),
        ]
        let period = 1000.0 / Double(fps)
        print("kiosk pipeline, \(reference.width)x\(reference.height) (clutter \(scene.width)x\(scene.height)), median of \(repeats); share of a \(fps) fps frame period")
        for gate in [false, true] {
            print(gate ? "with the contrast gate (ContrastGate, threshold \(ContrastGate.threshold) levels):" : "without the contrast gate:")
            table(cases, DecodePipeline(checksReadsInFrame: true, passesOverEvenFrames: gate), period: period)
        }
    }

    func table(_ cases: [(String, GrayFrame)], _ decoder: DecodePipeline, period: Double) {
        print(padded("frame", 54) + "  read  first look                 first look + deep passes")
        var firstRef = 0.0
        for (name, frame) in cases {
            var read = false
            let first = ConvertBench.time(repeats) { read = !decoder.firstLook(frame, viewport: .full).symbols.isEmpty }
            let full = ConvertBench.time(repeats) {
                let look = decoder.firstLook(frame, viewport: .full)
                if look.symbols.isEmpty { _ = decoder.deepLook(look, abandon: { false }) }
            }
            if firstRef == 0 { firstRef = first }
            print(padded(name, 54) + "  " + padded(read ? "yes" : "no", 4) + "  "
                  + padded(fixed(first, 2) + " ms (" + fixed(first / period * 100, 1) + " %, " + fixed(first / firstRef, 2) + "x)", 26)
                  + " " + fixed(full, 2) + " ms (" + fixed(full / period * 100, 1) + " %)")
        }
    }

    /// A still, even scene as a camera shows it: `level` and up to 8 levels of sensor noise
    /// (the same pixels every time).
    static func evenScene(width: Int, height: Int, level: Int) -> GrayFrame {
        var seed: UInt32 = 2463534242
        return GrayFrame(width: width, height: height, pixels: (0..<width * height).map { _ in
            seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5
            return UInt8(clamping: level + Int(seed % 9))
        })
    }
}
