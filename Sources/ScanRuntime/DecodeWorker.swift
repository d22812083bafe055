import Decoding
import Dispatch
import ScanCore
import ScanHardware

/// Decodes frames on a thread of its own (a serial dispatch queue), never on the cooperative
/// pool: a frame can take a few hundred milliseconds, and the kiosk loop, the button and the
/// host link must not wait for it.
public final class DecodeWorker: Sendable {
    private let queue = DispatchQueue(label: "scand.decode", qos: .userInitiated)

    /// The symbols in `frame` within `viewport`, nearest the viewport's centre first, and the
    /// seconds the decoding took.
    func decode(_ frame: GrayFrame, decoder: any BarcodeDecoder, viewport: Viewport) async -> ([Symbol], Double) {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Self.decodeNow(frame, decoder: decoder, viewport: viewport))
            }
        }
    }

    /// The same, on the calling thread (virtual-time drivers, benchmarks).
    public static func decodeNow(_ frame: GrayFrame, decoder: any BarcodeDecoder, viewport: Viewport) -> ([Symbol], Double) {
        let cx = (viewport.x + viewport.width / 2) * Double(frame.width)
        let cy = (viewport.y + viewport.height / 2) * Double(frame.height)
        let started = ContinuousClock.now
        let symbols = decoder.decode(frame, viewport: viewport).sortedByDistance(toX: cx, y: cy)
        return (symbols, (ContinuousClock.now - started).milliseconds / 1000)
    }
}
