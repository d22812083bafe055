import Decoding
import ImageLoading
import ScanCore
import ScanHardware

/// One frame as the pipeline sees it: the codes it reads inside the viewport, the code-like
/// regions it could not read, guidance and measures. `render()` draws it for a person; `json`
/// says it for a program. Used by `scand snapshot` and the setup page.
public struct Snapshot: Sendable {
    public var frame: GrayFrame { didSet { prepared = nil } }
    public var viewport: Viewport { didSet { prepared = nil } }
    /// Codes read inside the viewport, nearest its centre first.
    public var symbols: [Symbol] { didSet { prepared = nil } }
    /// Code-like regions seen when nothing was read (frame pixels, largest first).
    public var regions: [PixelRect] { didSet { prepared = nil } }
    public var advice: [Advice] { didSet { prepared = nil } }
    public var measures: FrameMeasures { didSet { prepared = nil } }
    /// What the camera delivers, e.g. `640x480 GREY from /dev/video0`.
    public var capture: String { didSet { prepared = nil } }
    /// Which of the daemon's snapshot decodes made it (`SnapshotGate`: requests that waited for
    /// the same decode share its number); nil outside the daemon.
    public var decode: Int?
    /// The overlay drawn and encoded once (`prepare()`), shared by every copy; a change to what
    /// is drawn drops it.
    private var prepared: Prepared?

    private final class Prepared: Sendable {
        let image: RGBImage
        let png: [UInt8]
        init(image: RGBImage, png: [UInt8]) { self.image = image; self.png = png }
    }

    /// Decodes `frame` inside `viewport` with `decoder` and, when nothing is read, asks
    /// `Guidance` why.
    public init(frame: GrayFrame, viewport: Viewport, decoder: any BarcodeDecoder, torchOn: Bool, capture: String) {
        self.frame = frame
        self.viewport = viewport
        self.capture = capture
        let v = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        symbols = decoder.decode(frame, viewport: viewport)
            .sortedByDistance(toX: Double(v.x) + Double(v.width) / 2, y: Double(v.y) + Double(v.height) / 2)
        measures = FrameMeasures(frame: frame, viewport: viewport)
        if symbols.isEmpty {
            (advice, regions) = Guidance.assess(frame, viewport: viewport, torchOn: torchOn)
        } else {
            advice = []
            regions = []
        }
    }

    public static let viewportColour = RGB(0, 190, 255)
    public static let codeColour = RGB(0, 230, 60)
    public static let regionColour = RGB(255, 150, 0)
    public static let adviceColour = RGB(255, 230, 0)

    /// The frame in colour with the viewport (blue), each read code's outline (green) with its
    /// symbology and text, unread code-like regions (orange), guidance (yellow, top) and a status
    /// line (bottom): capture, brightness, focus, blown-out share.
    public func render() -> RGBImage { prepared?.image ?? draw() }

    /// Draws and encodes the overlay now, once for every request that shares this snapshot
    /// (`SnapshotGate` does it on its low-priority thread).
    public mutating func prepare() throws(ImageLoadError) {
        let image = draw()
        prepared = Prepared(image: image, png: try image.png())
    }

    /// The PNG of the overlay (`render()`; made once when prepared), or with `raw` of the frame only.
    public func png(raw: Bool = false) throws(ImageLoadError) -> [UInt8] {
        if raw { return try ImageEncoding.png(frame) }
        if let prepared { return prepared.png }
        return try render().png()
    }

    private func draw() -> RGBImage {
        var image = RGBImage(gray: frame)
        let scale = frame.width >= 640 ? 2 : 1
        let thick = frame.width >= 640 ? 2 : 1
        let v = viewport.pixels(frameWidth: frame.width, frameHeight: frame.height)
        Draw.rectangle(PixelRect(x: v.x, y: v.y, width: v.width, height: v.height), thickness: thick, Self.viewportColour, on: &image)
        for region in regions {
            Draw.rectangle(region, thickness: thick, Self.regionColour, on: &image)
        }
        for symbol in symbols where symbol.corners.count >= 2 {
            Draw.polygon(symbol.corners, thickness: thick + 1, Self.codeColour, on: &image)
            let top = symbol.corners.min { $0.y < $1.y }!, left = symbol.corners.min { $0.x < $1.x }!
            let label = Self.printable("\(symbol.symbology.rawValue): \(symbol.text)", max: 40)
            Draw.label(label, x: left.x, y: top.y - (BitmapFont.glyphHeight + 3) * scale, scale: scale, Self.codeColour, on: &image)
        }
        var y = 4
        for advice in advice {
            Draw.label(Self.printable(advice.message, max: 60), x: 4, y: y, scale: scale, Self.adviceColour, on: &image)
            y += (BitmapFont.glyphHeight + 4) * scale
        }
        // The status: measures above, capture below.
        let small = frame.width >= 1000 ? 2 : 1
        let line = (BitmapFont.glyphHeight + 4) * small
        let columns = max(10, frame.width / (BitmapFont.advance * small) - 2)
        Draw.label(Self.printable(measures.summary, max: columns), x: 4, y: frame.height - 2 * line, scale: small, RGB(255, 255, 255), on: &image)
        Draw.label(Self.printable(capture, max: columns), x: 4, y: frame.height - line, scale: small, RGB(255, 255, 255), on: &image)
        return image
    }

    /// One JSON object: size, viewport, codes (with corners), regions, guidance, measures.
    public var json: String {
        let codes = symbols.map { s in
            "{\"symbology\":\(JSONText.string(s.symbology.rawValue)),\"text\":\(JSONText.string(s.text)),\"corners\":["
                + s.corners.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]}"
        }
        return "{\"width\":\(frame.width),\"height\":\(frame.height),\"capture\":\(JSONText.string(capture)),"
            + "\"viewport\":[\(viewport.x),\(viewport.y),\(viewport.width),\(viewport.height)],"
            + "\"codes\":[\(codes.joined(separator: ","))],"
            + "\"regions\":[\(regions.map { "[\($0.x),\($0.y),\($0.width),\($0.height)]" }.joined(separator: ","))],"
            + "\"guidance\":[\(advice.map(\.json).joined(separator: ","))],\(measures.jsonFields)"
            + (decode.map { ",\"decode\":\($0)" } ?? "") + "}"
    }

    /// `text` with anything the font cannot draw as `?`, cut to `max` characters.
    static func printable(_ text: String, max: Int) -> String {
        var out = String(String.UnicodeScalarView(text.unicodeScalars.map { (0x20...0x7E).contains($0.value) ? $0 : "?" }))
        if out.count > max { out = String(out.prefix(max - 3)) + "..." }
        return out
    }
}

/// Lines, boxes and labels on an `RGBImage`, clipped to it.
enum Draw {
    static func line(from a: PixelPoint, to b: PixelPoint, thickness: Int, _ colour: RGB, on image: inout RGBImage) {
        // Bresenham, each point a thickness-wide square.
        var x = a.x, y = a.y
        let dx = abs(b.x - a.x), dy = -abs(b.y - a.y)
        let sx = a.x < b.x ? 1 : -1, sy = a.y < b.y ? 1 : -1
        var err = dx + dy
        let lo = -(thickness - 1) / 2, hi = thickness / 2
        var steps = 0
        while steps <= 20_000 {
            for oy in lo...hi { for ox in lo...hi { image.set(x: x + ox, y: y + oy, colour) } }
            if x == b.x && y == b.y { break }
            let e2 = 2 * err
            if e2 >= dy { err += dy; x += sx }
            if e2 <= dx { err += dx; y += sy }
            steps += 1
        }
    }

    static func polygon(_ points: [PixelPoint], thickness: Int, _ colour: RGB, on image: inout RGBImage) {
        for i in points.indices {
            line(from: points[i], to: points[(i + 1) % points.count], thickness: thickness, colour, on: &image)
        }
    }

    /// The outline of `r`, `thickness` pixels wide, inside it.
    static func rectangle(_ r: PixelRect, thickness: Int, _ colour: RGB, on image: inout RGBImage) {
        let t = max(1, min(thickness, r.width, r.height))
        for y in r.y..<(r.y + r.height) {
            let band = y < r.y + t || y >= r.y + r.height - t
            for x in r.x..<(r.x + r.width) where band || x < r.x + t || x >= r.x + r.width - t {
                image.set(x: x, y: y, colour)
            }
        }
    }

    /// Text on a black band, kept inside the image.
    static func label(_ text: String, x: Int, y: Int, scale: Int, _ colour: RGB, on image: inout RGBImage) {
        let w = BitmapFont.width(of: text, scale: scale) + 2 * scale, h = (BitmapFont.glyphHeight + 2) * scale
        let left = max(0, min(x, image.width - w)), top = max(0, min(y, image.height - h))
        for yy in top..<min(image.height, top + h) {
            for xx in left..<min(image.width, left + w) { image.set(x: xx, y: yy, RGB(0, 0, 0)) }
        }
        BitmapFont.draw(text, x: left + scale, y: top + scale, scale: scale, colour: colour, on: &image)
    }
}
