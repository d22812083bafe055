import ScanHardware

/// Images of one frame that a pass made and a later pass uses again (the deconvolved frames,
/// by lens blur; the `resampled` pass's enlargement): one frame's deep look keeps them (its
/// passes' images may be made on several threads). Each is made once: a thread that asks for
/// an image another thread is making waits for it.
public final class MadeImages: @unchecked Sendable {
    enum Kind: Hashable { case deblurred(Double), enlarged }
    private let images = Locked<[Kind: Locked<GrayFrame?>]>([:])
    /// The frame's own lens blur (`FrameCondition.fittedLensBlur(beyond:)`), which `deblurred` also
    /// deconvolves for.
    public let fittedLensBlur: Double?
    /// The frame's lens blur where it is out of focus (`FrameCondition.blur`), which
    /// `deblurredResampled` deconvolves for in two dimensions (`PlaneDeconvolution`).
    public let lensBlur: Double?

    public init(fittedLensBlur: Double? = nil, lensBlur: Double? = nil) {
        self.fittedLensBlur = fittedLensBlur
        self.lensBlur = lensBlur
    }

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
