// The words a config and the host may use, each listed once. The config reader offers exactly
// these (`CaseIterable`), the drivers and outputs take them typed.

/// Parity of a serial line.
public enum SerialParity: String, Sendable, CaseIterable { case none, even, odd }

/// Hardware flow control of a serial line.
public enum SerialFlowControl: String, Sendable, CaseIterable { case none, rtscts = "rts-cts" }

/// How results are written on a byte output: the text, or one JSON object per line.
public enum ResultFormat: String, Sendable, CaseIterable { case text, json }

/// How a text output writes GS1 data (`output.<name>.gs1`).
public enum GS1Text: String, Sendable, CaseIterable {
    /// As decoded: the element strings with FNC1 as 0x1D (sent as `\x1D`), a Digital Link as its URL.
    case raw
    /// The human-readable interpretation, `(01)09506000134352(17)201231(10)ABC`, for element
    /// strings and Digital Links whose data splits into elements whole (else as `raw`).
    case hri
}

/// What to do when an outbox is full.
public enum OutboxPolicy: String, Sendable, CaseIterable {
    /// The oldest waiting result makes room (and that is logged).
    case dropOldest = "drop-oldest"
    /// The new result is refused (and that is logged); the waiting ones stay.
    case rejectNew = "reject-new"
}

/// How hard the decoder looks at a frame (the seed's quality levels).
public enum DecodeQuality: String, Sendable, CaseIterable { case fast, balanced, accurate }

/// A decoding engine.
public enum DecodingEngine: String, Sendable, CaseIterable { case zxing, zbar }

/// A V4L2 capture format scand takes, by its fourcc name.
public enum CameraFormat: String, Sendable, CaseIterable {
    case grey = "GREY", yuyv = "YUYV", uyvy = "UYVY", nv12 = "NV12", nv21 = "NV21", yu12 = "YU12", mjpeg = "MJPG", jpeg = "JPEG"
}
