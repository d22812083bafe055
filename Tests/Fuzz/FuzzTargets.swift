// libFuzzer targets for every parser that takes input from outside (issue 12). Built by
// scripts/fuzz.sh with -sanitize=fuzzer,address (not part of the SwiftPM package); the target
// is chosen by the SCAND_FUZZ_TARGET environment variable. A target traps (and libFuzzer
// reports a crash) when an invariant breaks: a parser that accepts what it must not, or a
// formatter that lets a raw control byte through.
import Delivery
import ImageLoading
import ScanConfig
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

enum FuzzTarget: String, CaseIterable {
    case toml, config, set, host, payload, gs1, format, outbox, image, frame, json, mqtturl, web, httphead, httpreq
}

let target: FuzzTarget = {
    guard let name = getenv("SCAND_FUZZ_TARGET").map({ String(cString: $0) }), let t = FuzzTarget(rawValue: name) else {
        fputs("set SCAND_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))\n", stderr)
        exit(2)
    }
    return t
}()

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fputs("invariant broken: \(message())\n", stderr); abort() }
}

func symbol(_ data: [UInt8]) -> Symbol {
    let symbologies = Symbology.allCases
    let s = symbologies[Int(data.first ?? 0) % symbologies.count]
    return Symbol(symbology: s, bytes: Array(data.dropFirst()))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    switch target {
    case .web:
        // A setup page request's parts: the body as a command and as a control change, the
        // Authorization header, the listen address.
        if case .success(let line) = WebRules.command(from: data) {
            check(line.utf8.count <= HostCommand.maxLength && line.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "a command line out of bounds")
        }
        if case .success(let change) = WebRules.control(from: data) {
            check(!change.name.isEmpty && change.name.count <= 40, "a control name out of bounds")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let token = WebRules.bearer(text) { check(token.utf8.count <= 512, "a token over the bound") }
        check(WebRules.tokenAccepted(text, required: text), "a token not equal to itself")
        if let address = ListenAddress(text) {
            check(address.port > 0 && !address.host.isEmpty, "an empty listen address")
            // Canonical: what the server is given parses back to itself.
            check(ListenAddress(address.description) == address, "a listen address that is not canonical")
        }
    case .httphead:
        if let head = try? HTTPResponseHead.parse(data, limit: 2048) {
            check((100...599).contains(head.status) && head.bodyOffset <= data.count, "a response head out of bounds")
        }
    case .httpreq:
        // The setup page's request bytes before the HTTP parser: the limits hold on any bytes
        // (nothing held past the head limit, a released request never over its limits, a refusal
        // final); and the Host/Origin rules on the first two NUL-separated parts.
        var limits = RequestHeadLimits()
        var held = 0, refused: RequestHeadLimits.Refusal?
        for b in data {
            let step = limits.consume(b)
            if let refused { check(step == .refuse(refused), "a byte passed after a refusal"); continue }
            switch step {
            case .hold: held += 1
            case .release: held = 0
            case .refuse(let r): refused = r
            }
            check(held <= RequestHeadLimits.maxHead, "more than a head's limit held")
        }
        let parts = data.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let listener = WebRules.Listener(host: "127.0.0.1", port: 8080, token: nil)
        let host = parts[0], origin = parts.count > 1 ? parts[1] : nil
        if WebRules.hostAccepted(host, at: listener) {
            let a = WebRules.authority(host)
            check(a?.port == 8080 && listener.names.contains(a?.name ?? "-"), "a foreign Host accepted: \(host)")
        }
        let head = WebRules.Head(method: "POST", path: "/api/command", host: host, origin: origin, referer: nil, authorization: nil,
                                 queryToken: nil, peerIsLoopback: true)
        if WebRules.admit(head, at: listener) == nil, let origin {
            check(origin.lowercased().hasPrefix("http://"), "a POST admitted from origin \(origin)")
            let a = WebRules.authority(String(origin.dropFirst(7)))
            check(a?.port == 8080 && listener.names.contains(a?.name ?? "-"), "a POST admitted from a foreign origin \(origin)")
        }
        check(WebRules.errorText(WebError(400, host)).hasPrefix("ERR"), "an error text not starting with ERR")
    case .toml:
        // No trap, no hang (libFuzzer's -timeout), bounded memory (-rss_limit_mb); agreement
        // with the reference parser is ScanConfigTests' differential test, over these seeds too.
        if let doc = try? TOML.parse(data) {
            check(doc.lines.count <= data.count, "more keys than bytes")
        }
    case .config:
        _ = try? ConfigLoader.parse(String(decoding: data, as: UTF8.self), file: "fuzz.toml", boardsDirectory: "/nonexistent")
    case .set:
        let text = String(decoding: data, as: UTF8.self)
        if let o = try? Override(text) {
            check(!o.key.isEmpty && o.key.allSatisfy { !$0.isEmpty }, "an empty key part was accepted")
            _ = try? ConfigLoader.parse("", file: "fuzz.toml", overrides: [text], boardsDirectory: "/nonexistent")
        }
    case .host:
        var lines = LineAssembler()
        for item in lines.feed(data) {
            guard case .line(let line) = item else { continue }
            check(line.utf8.count <= HostCommand.maxLength * 3, "a line over the bound")
            if let command = try? HostCommand.parse(line), case .set(let key, _) = command {
                check(!key.isEmpty, "SET with an empty key")
            }
        }
    case .payload:
        let info = PayloadClassifier.classify(symbol(data))
        check(JSONValue.parseOK(info.json), "payload JSON does not parse: \(info.json)")
    case .gs1:
        // Element strings and Digital Links from any bytes: bounded, never more elements than
        // the data holds, and a whole, valid reading written out again reads back the same.
        let reading = GS1.parse(elementString: data)
        check(reading.elements.count <= (data.count + 1) / 3, "\(reading.elements.count) elements from \(data.count) bytes")
        check(!reading.isComplete || !reading.elements.isEmpty, "a complete reading without elements")
        if reading.isComplete && reading.isValid {
            let again = GS1.parse(elementString: GS1.elementString(reading.elements))
            check(again.elements == reading.elements && again.isValid, "\(reading.hri) does not read back as itself")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let link = GS1.digitalLink(text) {
            check(!link.elements.isEmpty && link.source == .digitalLink, "a Digital Link without its primary key")
            // Each element adds its brackets and at most 6 zeros (a GTIN-8 made a GTIN-14);
            // percent-decoding only shortens.
            check(link.hri.unicodeScalars.count <= text.unicodeScalars.count + 8 * link.elements.count, "an HRI longer than its link")
        }
        let line = OutputFormat.jsonLines.render(ScanResult(sequence: 1, session: 1, symbol: Symbol(symbology: .dataMatrix, bytes: data, aimIdentifier: "]d2")), unixMillis: 0)
        check(JSONValue.parseOK(String(decoding: line.dropLast(), as: UTF8.self)), "GS1 JSON does not parse")
        let hri = OutputFormat.text(prefix: [], suffix: [], aim: false, gs1: .hri).render(ScanResult(sequence: 1, session: 1, symbol: Symbol(symbology: .qrCode, bytes: data)), unixMillis: 0)
        check(!hri.contains { $0 < 0x20 || $0 == 0x7F }, "a raw control byte in HRI text")
    case .format:
        let result = ScanResult(sequence: 1, session: 1, symbol: symbol(data))
        let text = OutputFormat.text(prefix: [], suffix: [], aim: data.count % 2 == 0).render(result, unixMillis: 0)
        check(!text.contains { $0 < 0x20 || $0 == 0x7F }, "a raw control byte in the text format")
        var json = OutputFormat.jsonLines.render(result, unixMillis: 0)
        check(json.last == 10, "a JSON line without its end")
        json.removeLast()
        check(!json.contains { $0 < 0x20 }, "a raw control byte in a JSON line")
        check(JSONValue.parseOK(String(decoding: json, as: UTF8.self)), "a JSON line that does not parse")
    case .outbox:
        let contents = OutboxLog.parse(data)
        check(contents.pending.allSatisfy { (1...OutboxLog.maxSequence).contains($0.seq) }, "a sequence number out of range")
        check(contents.maxSequence <= OutboxLog.maxSequence, "maxSequence out of range")
    case .image:
        if let frame = try? ImageFile.decode(data, limits: ImageLimits(maxPixels: 4_000_000)) {
            check(frame.width * frame.height <= 4_000_000, "an image over the pixel limit")
        }
    case .frame:
        // Camera bytes as a frame of any shape (width from the first byte, a stride up to 3
        // wider), through the contrast gate (Sources/Decoding/ContrastGate.swift, compiled in):
        // bounded, and its two answers agree.
        guard data.count >= 2 else { return 0 }
        let width = Int(data[0]) + 1, stride = width + Int(data[1] % 4), pixels = Array(data.dropFirst(2))
        let height = pixels.count / stride
        guard height > 0 else { return 0 }
        let frame = GrayFrame(width: width, height: height, stride: stride, pixels: Array(pixels.prefix(height * stride)))
        let strongest = ContrastGate.strongestCellContrast(frame)
        check((0...255).contains(strongest), "cell contrast \(strongest)")
        check(ContrastGate.mayHoldCode(frame) == (strongest >= ContrastGate.threshold), "the gate disagrees with its measure")
        // And through the Aztec bullseye finder and grid (RegionFinder, AztecGrid): bounded,
        // each drawing the size asked for.
        for found in RegionFinder.bullseyes(in: frame, limit: 2) {
            check(found.x >= 0 && found.x < width && found.y >= 0 && found.y < height, "a bullseye outside the frame")
            for drawing in AztecGrid.redrawn(frame, x: Double(found.x), y: Double(found.y), module: found.module, radius: 8) {
                check(drawing.modules.width == 2 * (8 + AztecGrid.quietModules) + 1, "a drawing of \(drawing.modules.width)")
            }
        }
        // Through the Aztec rune reader and the DataMatrix finder and grid (AztecRuneReader,
        // DataMatrixGrid): bounded, each drawing a DataMatrix size inside its quiet border.
        for rune in AztecRuneReader().decode(frame) { check(rune.text.count == 3 && rune.text.allSatisfy(\.isNumber), "a rune \(rune.text)") }
        for drawing in DataMatrixGrid.redrawn(frame, in: PixelRect(x: 0, y: 0, width: width, height: height)) {
            let rows = drawing.modules.height - 2 * DataMatrixGrid.quiet, columns = drawing.modules.width - 2 * DataMatrixGrid.quiet
            check(DataMatrixGrid.squares.contains(rows) && rows == columns || DataMatrixGrid.rectangles.contains { $0 == (rows, columns) },
                  "a DataMatrix drawing of \(rows) x \(columns)")
        }
        // Its condition (FrameCondition, EdgeSpread): a blur that is a finite, positive sigma
        // where one is told, a bright level that is a level.
        let condition = FrameCondition(of: frame)
        check((0...255).contains(condition.brightLevel), "bright level \(condition.brightLevel)")
        if let blur = condition.blur { check(blur.isFinite && blur > 0, "blur \(blur)") }
        // Deconvolved in two dimensions (PlaneDeconvolution) for a blur of 1-2.75 px and a
        // quarter more: bounded, an image of the frame's size for each blur, or none.
        let sigma = 1 + Double(data[1] % 8) / 4
        let planes = PlaneDeconvolution.deblurred(frame, sigmas: [sigma, sigma + 0.25])
        check(planes.isEmpty || planes.count == 2 && planes.allSatisfy { $0.width == width && $0.height == height }, "\(planes.count) deconvolved images")
        // Along a line through the middle (BarRun): bounded, a count no larger than the line's
        // dark runs could be.
        let reach = 16 + Int(data[1]), angle = Double(data[0]) * Double.pi / 128
        if let bars = BarRun.bars(in: frame, centre: (Double(width) / 2, Double(height) / 2), angle: angle, reach: reach) {
            check(bars >= 1 && bars <= reach + 1, "\(bars) bars along a line of \(2 * reach + 1)")
        }
    case .mqtturl:
        // A broker URL from the config: parsed strictly, and what parses prints back to itself.
        if case .success(let url) = MQTTURL.parse(String(decoding: data, as: UTF8.self)) {
            check((1...65535).contains(url.port) && !url.host.isEmpty, "a port or host out of bounds: \(url)")
            check(MQTTURL.parse(url.description) == .success(url), "\(url) does not read back")
        }
    case .json:
        _ = try? JSONValue.parse(data)
    }
    return 0
}

extension JSONValue {
    static func parseOK(_ text: String) -> Bool { (try? JSONValue.parse(Array(text.utf8))) != nil }
}
