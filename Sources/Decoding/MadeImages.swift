import ScanHardware

/// Images of one frame that a pass made and a later pass uses again (the deconvolved frames,
/// by lens blur; the `resampled` pass's enlargement): one frame's deep look keeps them (its
/// passes' images may be made on several threads). Each is made once: a thread that asks for
/// an image another thread is making waits for it.
public final class MadeImages: @unchecked Sendable {
    enum Kind: Hashable { case deblurred(Double), enlarged }
    private let images = Locked<[Kind: Locked<GrayFrame?>]>([:])
    /// The frame's condition, measured before its passes (nil: not measured, no blur of its own).
    public let condition: FrameCondition?

    public init(condition: FrameCondition? = nil) {
        self.condition = condition
    }

    /// The frame's own lens blur beyond the fixed ones (`FrameCondition.fittedLensBlur(beyond:)`),
    /// which `deblurred` also deconvolves for.
    var fittedLensBlur: Double? { condition?.fittedLensBlur(beyond: ImagePass.lensBlurs.max()!) }
    /// The frame's lens blur where it is out of focus, which `deblurredResampled` deconvolves for
    /// in two dimensions (`PlaneDeconvolution`).
    var lensBlur: Double? { condition.flatMap { $0.isOutOfFocus ? $0.blur : nil } }

    /// The image of `kind`, made by `make` the first time it is asked for.
    func image(_ kind: Kind, make: () -> GrayFrame) -> GrayFrame {
        let slot = images.withLock { all in
            if let slot = all[kind] { return slot }
            let slot = Locked<GrayFrame?>(nil)
            all[kind] = slot
            return slot
        }
        // Held while it is made: a second asker waits instead of making it again.
        return slot.withLock { image in
            if let image { return image }
            let made = make()
            image = made
            return made
        }
    }

    /// The frame deconvolved for `sigma`, made by `make` the first time it is asked for.
    func deblurred(sigma: Double, make: () -> GrayFrame) -> GrayFrame { image(.deblurred(sigma), make: make) }
}
