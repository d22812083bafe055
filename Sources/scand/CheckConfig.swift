import ArgumentParser
import ImageLoading
import ScanApp
import ScanConfig
import ScanCore
import ScanHardware
import SimulatedHardware

/// `scand check-config`: validate a config file without starting anything.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a config file; print every problem with its line, key and allowed values.")

    @Argument(help: "The TOML config file.")
    var file: String

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a key, as for `scand run`.", valueName: "key=value"))
    var overrides: [String] = []

    func run() throws {
        let c: ScandConfig
        do { c = try Board.loadConfig(path: file, overrides: overrides) } catch {
            printError(error.description)
            // The simulated camera's images too, as the file gives them: every problem at once.
            if case .string("simulated")? = ConfigLoader.rawValue(of: "hardware", inFile: file, overrides: overrides),
               case .array(let list)? = ConfigLoader.rawValue(of: "camera.images", inFile: file, overrides: overrides) {
                loading(list.compactMap { if case .string(let path) = $0, !path.utf8.contains(0) { path } else { nil } }).problems.forEach(printError)
            }
            throw ExitCode(1)
        }
        // Values from the file are shown escaped: a control character never reaches the terminal.
        func show(_ text: String) -> String { PayloadText.escaped(text) }
        let lines = c.lines.keys.sorted().map { role in
            let l = c.lines[role]!
            return "\(role)=\(show(l.pin))(\(show(l.chip)):\(l.offset)\(l.activeLow ? ",active-low" : ""))"
        }
        // The simulated camera's images load as `run` would load them: one that cannot is
        // this config's problem too.
        let (images, problems) = c.hardware == .simulated ? loading(c.camera.images) : ([], [])
        guard problems.isEmpty else {
            problems.forEach(printError)
            throw ExitCode(1)
        }
        print("\(show(file)): ok")
        let libcameraID = c.camera.id.isEmpty ? "(the first camera)" : show(c.camera.id)
        let camera = switch (c.hardware, c.camera.backend) {
        case (.simulated, _): images.count == 1 ? images[0]
            : "\(images.count) images: " + (images.count <= 4 ? images : images.prefix(3) + ["and \(images.count - 3) more"]).joined(separator: ", ")
        case (.linux, .v4l2): show(c.camera.device)
        case (.linux, .libcamera): "libcamera \(libcameraID)"
        case (.linux, .auto): "libcamera \(libcameraID) if libcamera lists it, else \(show(c.camera.device))"
        }
        print("  hardware \(c.hardware.rawValue), camera \(camera)")
        if c.hardware == .linux {
            print("  capture \(c.camera.width)x\(c.camera.height) at \(c.camera.fps) fps (quality \(c.camera.quality.rawValue)), "
                  + "formats in order: \(c.camera.formats.map(\.rawValue).joined(separator: ", "))"
                  + (c.camera.backend == .v4l2 ? "" : "; through libcamera: the first of R8, NV12, NV21, YUV420, YUYV, UYVY, RGB888, BGR888 it offers"))
        }
        print("  focus " + Self.focus(c.kiosk))
        print("  lines: \(lines.isEmpty ? "none" : lines.joined(separator: " "))")
        print("  trigger \(c.kiosk.trigger.rawValue)" + (c.kiosk.trigger == .presentation ? " (idle \(c.kiosk.presentationIdle))" : "")
              + ", up to \(c.kiosk.multiple) code(s) per read, camera \(c.camera.keepStreaming ? "kept streaming" : "stopped") between sessions")
        print("  outbox " + (c.outboxDirectory.map { show($0) + " (capacity \(c.outboxCapacity), \(c.outboxPolicy.rawValue))" }
                             ?? "in memory only: results waiting for the host are lost on a restart"))
        let m = c.mqtt
        print("  mqtt " + (m.url.map { url in
            let id = m.clientID.isEmpty ? Board.hostName() : m.clientID
            return "\(url) as \(show(id)), topics \(show(m.topicPrefix.isEmpty ? "scand/\(id)" : m.topicPrefix))/..., qos \(m.qos)"
                + (m.username.isEmpty ? "" : ", user \(show(m.username))") + (m.tlsCA.map { ", CA \(show($0))" } ?? "")
                + ", commands \(m.commands ? "on" : "off"), events \(m.events ? "on" : "off")"
        } ?? "off"))
        print("  feedback " + Self.feedback(c.feedback))
        let sp = c.feedback.speech
        print("  speech " + (sp.enabled
            ? "espeak-ng voice \(show(sp.voice)) at \(sp.rate) words/min, volume \(sp.volume), says \(sp.say.rawValue), "
                + (sp.wavDirectory.map { "WAV files in \(show($0))" } ?? "on ALSA \(show(sp.device))")
                + ", results \(sp.deliver == .after ? "after the announcement" : "at once")"
                + (sp.replacesFlash ? ", replaces the flash" : "")
            : "off"))
        print("  torch \(c.kiosk.hasTorch ? c.kiosk.torchMode.rawValue : "not configured"), alphanumeric \(c.kiosk.alphanumeric.rawValue), serial \(c.serial.device.isEmpty ? "off" : show(c.serial.device))")
    }

    /// The patterns `[feedback]` replaces, e.g. `good_read beep [30], flash none; ready led [0]`.
    /// `camera.focus` as it acts under the trigger mode: `auto-on-press: one autofocus cycle per
    /// press, after the torch (a camera without autofocus ignores it)`.
    /// The simulated camera's images (files and folders of them), loaded as `run` loads them:
    /// each with its size, and a problem line for each that does not load, or folder without any.
    func loading(_ paths: [String]) -> (images: [String], problems: [String]) {
        var images: [String] = [], problems: [String] = []
        // `FILE:LINE: camera.images: ...`, as the loader's own problems are given; a `--set
        // camera.images=...` is named as `--set` names its other problems.
        let givenBySet = overrides.contains { (try? Override($0))?.name == "camera.images" }
        func problem(_ index: Int, _ message: String) -> String {
            ConfigError(file: givenBySet ? "--set" : file,
                        line: givenBySet ? nil : ConfigLoader.line(of: "camera.images[\(index)]", inFile: file),
                        key: "camera.images", message: message).description
        }
        for (index, entry) in paths.enumerated() {
            let files = SimulatedCamera<ContinuousClock>.expand([entry])
            // A folder without images gives none (every path given is a file or a folder).
            if files.isEmpty { problems.append(problem(index, "\(entry): no PNG, JPEG or PGM files in this folder")) }
            for path in files {
                do {
                    let frame = try ImageFile.load(path)
                    images.append("\(PayloadText.escaped(path)) (\(frame.width)x\(frame.height))")
                } catch {
                    problems.append(problem(index, "\(path): \(error.reason)"))
                }
            }
        }
        return (images, problems)
    }

    static func focus(_ k: KioskSettings) -> String {
        guard let mode = k.focusMode else { return "set by camera.controls (focus_auto, focus_absolute)" }
        let what = switch mode {
        case .onRequest: "one autofocus cycle per press, after the torch"
        case .continuous: k.focus == .continuous ? "continuous autofocus" : "continuous autofocus (scan.trigger = \(k.trigger.rawValue) has no press)"
        case .manual(let d): "lens fixed at " + FocusMode.lensText(d)
        }
        return "\(k.focus.rawValue): \(what)" + (k.focus == .fixed ? " (a camera without a lens position control ignores it)" : " (a camera without autofocus ignores it)")
    }

    static func feedback(_ f: ScandConfig.FeedbackConfig) -> String {
        func name(_ raw: String) -> String { String(raw.map { $0 == "-" ? "_" : $0 }) }
        func steps(_ ms: [Int]) -> String { ms.isEmpty ? "none" : "[" + ms.map(String.init).joined(separator: ", ") + "]" }
        var parts: [String] = []
        for outcome in Feedback.allCases {
            var own = [("beep", f.beep[outcome]), ("flash", f.flash[outcome]), ("torch", f.torch[outcome])]
                .compactMap { kind, ms in ms.map { "\(kind) \(steps($0))" } }
            if let hz = f.tone[outcome] { own.append("tone \(hz) Hz") }
            if !own.isEmpty { parts.append(name(outcome.rawValue) + " " + own.joined(separator: ", ")) }
        }
        for indication in StatusIndication.allCases {
            let own = [("led", f.led[indication]), ("beep", f.entryBeep[indication])].compactMap { kind, ms in ms.map { "\(kind) \(steps($0))" } }
            if !own.isEmpty { parts.append(name(indication.rawValue) + " " + own.joined(separator: ", ")) }
        }
        return parts.isEmpty ? "built-in patterns" : parts.joined(separator: "; ") + " (the rest built in)"
    }
}
