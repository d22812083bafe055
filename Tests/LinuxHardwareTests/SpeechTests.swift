import Foundation
@testable import LinuxHardware
import ScanCore
import ScanHardware
import Testing

/// espeak-ng for real: announcements as WAV files (the kiosk's `wav_dir`), ALSA's `null` PCM
/// for the device path, voices that load or are named in an error.
@Suite(.serialized) struct SpeechTests {
    /// A WAV file's rate and 16-bit mono samples; nil when it is not one.
    static func samples(ofWAV bytes: [UInt8]) -> (rate: Int, samples: [Int16])? {
        func le(_ at: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        guard bytes.count >= 44, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<16]) == Array("WAVEfmt ".utf8),
              le(20, 2) == 1, le(22, 2) == 1, le(34, 2) == 16, Array(bytes[36..<40]) == Array("data".utf8),
              le(40, 4) == bytes.count - 44, le(4, 4) == bytes.count - 8 else { return nil }
        let samples = stride(from: 44, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        return (le(24, 4), samples)
    }

    static func say(_ speaker: EspeakSpeaker, _ text: String, cutOnStart: Bool = false) async -> (SpeechEnd, started: Bool) {
        let started = Locked(false)
        let end = await withCheckedContinuation { (c: CheckedContinuation<SpeechEnd, Never>) in
            speaker.say(text, started: {
                started.withLock { $0 = true }
                if cutOnStart { speaker.cutShort() }
            }, ended: { c.resume(returning: $0) })
        }
        return (end, started.withLock { $0 })
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scand-speech-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func anAnnouncementIsAValidWAVOfPlausibleLengthAndNotSilent() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let speaker = try EspeakSpeaker(voice: .init(name: "en", rate: 175, volume: 100), output: .wavDirectory(dir.path))
        let text = SpeechPhrases(say: .both).text(for: .read([Symbol(symbology: .ean13, text: "4006381333931")]))
        #expect(text == "EAN 13 barcode: 4 0 0 6 3 8 1 3 3 3 9 3 1")
        let (end, started) = await Self.say(speaker, text)
        #expect(end == .said)
        #expect(started)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".wav") }
        #expect(files.count == 1)
        let wav = try #require(Self.samples(ofWAV: Array(try Data(contentsOf: dir.appendingPathComponent(files[0])))))
        #expect(wav.rate == 22050)
        // Fifteen words at 175 words a minute: about five seconds; certainly 2..12 s.
        let seconds = Double(wav.samples.count) / Double(wav.rate)
        #expect(seconds > 2 && seconds < 12, "\(seconds) s")
        let rms = (wav.samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(wav.samples.count)).squareRoot()
        #expect(rms > 500, "RMS \(rms): not silent")
        // A faster rate says the same in less time.
        let fast = try EspeakSpeaker(voice: .init(name: "en", rate: 350, volume: 100), output: .wavDirectory(dir.path))
        #expect(await Self.say(fast, text).0 == .said)
        let second = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".wav") && $0 != files[0] }
        let quick = try #require(Self.samples(ofWAV: Array(try Data(contentsOf: dir.appendingPathComponent(second[0])))))
        #expect(Double(quick.samples.count) < Double(wav.samples.count) * 0.75)
    }

    @Test func eachShippedVoiceLoadsAndAnUnknownOneIsNamed() throws {
        for voice in ["en", "de", "fr", "es"] {
            #expect(throws: Never.self, "\(voice)") { try EspeakSpeaker(voice: .init(name: voice), output: .alsa("null")) }
        }
        #expect { try EspeakSpeaker(voice: .init(name: "elvish"), output: .alsa("null")) } throws: { e in
            let e = e as? HardwareError
            return e?.operation == "espeak_SetVoiceByName" && e?.device == "espeak-ng voice elvish" && e?.hint?.contains("--voices") == true
        }
    }

    @Test func theALSAPathPlaysOnAPCMAndAMissingDeviceIsNamed() async throws {
        let speaker = try EspeakSpeaker(voice: .init(name: "en"), output: .alsa("null"))
        let (end, started) = await Self.say(speaker, "QR code scanned")
        #expect(end == .said)
        #expect(started)
        #expect { try EspeakSpeaker(voice: .init(name: "en"), output: .alsa("hw:97,0")) } throws: { e in
            let e = e as? HardwareError
            return e?.operation == "snd_pcm_open" && e?.device == "ALSA hw:97,0" && e?.kind == .notFound
        }
    }

    @Test func aCutAnnouncementStopsAndTheNextIsSaid() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let speaker = try EspeakSpeaker(voice: .init(name: "en"), output: .wavDirectory(dir.path))
        let long = Array(repeating: "This announcement is far too long to be heard to its end.", count: 8).joined(separator: " ")
        let (end, started) = await Self.say(speaker, long, cutOnStart: true)
        #expect(started)
        #expect(end == .cutShort)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "a cut announcement leaves no file")
        #expect(await Self.say(speaker, "No code found").0 == .said)
    }

    @Test func aDirectoryThatIsNotThereIsNamed() {
        #expect { try EspeakSpeaker(voice: .init(name: "en"), output: .wavDirectory("/nonexistent/scand")) } throws: { e in
            let e = e as? HardwareError
            return e?.operation == "stat" && e?.kind == .notFound && e?.hint?.contains("wav_dir") == true
        }
    }
}
