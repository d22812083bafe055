import ArgumentParser
import Decoding
import ImageLoading
import LinuxHardware
import ScanCore
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Announcements with the real espeak-ng: the delay from asking (a good read asks in the same
/// loop step) to the first audio sample, on an ALSA PCM and into WAV files; synthesis speed as
/// a real-time factor; and whether speaking slows decoding (frames decoded on one thread while
/// announcements are synthesised back to back, against the same frames in silence).
struct SpeechBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "speech", abstract: "Read-to-voice delay and the cost of speech to decoding.")

    @Option(help: "Announcements per output.")
    var announcements = 20

    @Option(help: "espeak-ng voice.")
    var voice = "en"

    @Option(help: "ALSA PCM to play on (null: ALSA's sink that discards, for machines without sound).")
    var device = "null"

    @Option(help: "What is said.")
    var text = "QR code scanned"

    @Option(help: "Image decoded while speech runs, e.g. Tests/Fixtures/qr.png.")
    var image: String

    @Option(help: "Frames decoded in each half of the decoding comparison.")
    var frames = 300

    func run() async throws {
        let dir = "/tmp/scand-bench-speech-\(getpid())"
        mkdir(dir, 0o755)
        defer { _ = try? BenchFiles.removeTree(dir) }
        let v = EspeakSpeaker.Voice(name: voice)
        let period = 1000.0 / 30
        var wholeOnDevice = 0.0
        for (label, output) in [("ALSA \(device)", EspeakSpeaker.Output.alsa(device)), ("WAV files", .wavDirectory(dir))] {
            let speaker = try EspeakSpeaker(voice: v, output: output)
            var first: [Double] = []
            var whole: [Double] = []
            for _ in 0..<announcements {
                let (f, w) = await Self.time(speaker, text)
                first.append(f)
                whole.append(w)
            }
            first.sort()
            whole.sort()
            let median = first[first.count / 2], p95 = first[min(first.count - 1, first.count * 95 / 100)]
            if case .alsa = output { wholeOnDevice = whole[whole.count / 2] }
            print("\(label): read-to-first-sample median \(fixed(median, 2)) ms = \(fixed(median / period, 3)) frame periods (30 fps); "
                  + "p95 \(fixed(p95, 2)) ms; whole announcement median \(fixed(whole[whole.count / 2], 1)) ms")
        }
        // Synthesis speed: the audio's length (from a WAV file) against the time the whole
        // announcement took on the device (ALSA's null PCM does not play in real time).
        if let bytes = ((try? BenchFiles.sizes(dir)) ?? []).first {
            let audio = Double(bytes - 44) / 2 / 22050 * 1000
            print("synthesis: \(fixed(audio, 0)) ms of audio made in \(fixed(wholeOnDevice, 1)) ms = \(fixed(audio / wholeOnDevice, 0))x real time"
                  + (device == "null" ? " (on a sound card an announcement lasts as long as its audio)" : ""))
        }
        // Decoding while announcements are synthesised back to back (on espeak's own thread).
        let frame = try ImageFile.load(image)
        let decoder = DecodePipeline()
        func decodeAll() -> Double {
            let start = ContinuousClock.now
            for _ in 0..<frames { _ = decoder.decode(frame, viewport: .full) }
            return (ContinuousClock.now - start) / .milliseconds(1)
        }
        _ = decodeAll() // warm-up
        var silent = decodeAll()
        let speaking = Locked(true)
        let speaker = try EspeakSpeaker(voice: v, output: .alsa(device))
        let said = Locked(0)
        let talker = Task.detached {
            while speaking.withLock({ $0 }) {
                _ = await Self.time(speaker, "This is a long announcement that keeps the speech engine busy all the time.")
                said.withLock { $0 += 1 }
            }
        }
        let loud = decodeAll()
        speaking.withLock { $0 = false }
        await talker.value
        silent = (silent + decodeAll()) / 2 // silence before and after, against drift
        print("decoding \(frames) frames: \(fixed(silent, 0)) ms in silence, \(fixed(loud, 0)) ms while speaking "
              + "(\(said.withLock { $0 }) announcements) = \(fixed(loud / silent, 2))x; \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores")
    }

    /// Milliseconds from `say` to the first sample and to the end.
    static func time(_ speaker: EspeakSpeaker, _ text: String) async -> (first: Double, whole: Double) {
        let start = ContinuousClock.now
        let first = Locked<Duration?>(nil)
        let end = await withCheckedContinuation { (c: CheckedContinuation<SpeechEnd, Never>) in
            speaker.say(text, started: { first.withLock { $0 = ContinuousClock.now - start } }, ended: { c.resume(returning: $0) })
        }
        if end != .said { print("announcement not said: \(end)") }
        let whole = ContinuousClock.now - start
        return ((first.withLock { $0 } ?? whole) / .milliseconds(1), whole / .milliseconds(1))
    }
}

/// The bench's WAV folder: file sizes, and removal at the end.
enum BenchFiles {
    static func sizes(_ dir: String) throws -> [Int] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [Int] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(".wav") else { continue }
            var st = stat()
            if stat(dir + "/" + name, &st) == 0 { out.append(Int(st.st_size)) }
        }
        return out
    }

    static func removeTree(_ dir: String) throws {
        guard let d = opendir(dir) else { return }
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(dir + "/" + name) }
        }
        closedir(d)
        rmdir(dir)
    }
}
