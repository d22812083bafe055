import Dispatch

/// Runs frame work (decoding, the change detector) on a thread of its own (a serial dispatch
/// queue), never on the cooperative pool: a frame can take a few hundred milliseconds, and the
/// kiosk loop, the button and the host link must not wait for it.
final class DecodeWorker: Sendable {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label, qos: .userInitiated) }

    /// `body`'s result, computed on the decode thread.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
