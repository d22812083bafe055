import CALSA
import CEspeak
import ScanHardware
#if canImport(Glibc)
import Glibc
#endif

/// Announcements spoken by espeak-ng: to an ALSA PCM device (`default`), or written as WAV
/// files into a directory (for tests and logs; an announcement then "ends" when its file is
/// written). Synthesis and playback run on espeak's own thread, never on the caller's.
public final class EspeakSpeaker: Speaker, Sendable {
    /// The voice: an espeak-ng voice name (`en`, `de`, `en-us`), words per minute (80...450)
    /// and volume (0...200, 100 normal).
    public struct Voice: Sendable, Equatable {
        public var name: String
        public var rate: Int
        public var volume: Int
        public init(name: String = "en", rate: Int = 175, volume: Int = 100) {
            self.name = name
            self.rate = rate
            self.volume = volume
        }
    }

    public enum Output: Sendable, Equatable {
        /// An ALSA PCM name: `default`, `plughw:1,0`, `null`.
        case alsa(String)
        /// Each announcement as `<dir>/announcement-<n>.wav`.
        case wavDirectory(String)
    }

    public let name: String
    private let voice: Voice
    private let output: Output

    /// Loads espeak-ng and the voice, and (ALSA) opens the device once, so that a missing voice
    /// or device is a clear error at start-up instead of silence later.
    public init(voice: Voice, output: Output) throws(HardwareError) {
        self.voice = voice
        self.output = output
        switch output {
        case .alsa(let device): name = "espeak-ng \(voice.name) (ALSA \(device))"
        case .wavDirectory(let dir): name = "espeak-ng \(voice.name) (WAV files in \(dir))"
        }
        if let problem = EspeakEngine.shared.check(voice) {
            throw HardwareError(.notFound, operation: problem.operation, device: "espeak-ng voice \(voice.name)", hint: problem.hint)
        }
        switch output {
        case .alsa(let device):
            let sink = ALSASink(device: device)
            try sink.open(rate: 22050)
            sink.close(cut: true)
        case .wavDirectory(let dir):
            var st = stat()
            guard stat(dir, &st) == 0, st.st_mode & S_IFMT == S_IFDIR, access(dir, W_OK) == 0 else {
                let e = Glibc.errno
                throw HardwareError(HardwareError.kind(forErrno: e == 0 ? ENOTDIR : e), operation: "stat", device: dir,
                                    errno: e == 0 ? ENOTDIR : e, hint: "wav_dir must be a directory the service user can write")
            }
        }
    }

    public func say(_ text: String, started: @escaping @Sendable () -> Void, ended: @escaping @Sendable (SpeechEnd) -> Void) {
        EspeakEngine.shared.speak(EspeakEngine.Speech(text: text, voice: voice, output: output, started: started, ended: ended))
    }

    public func cutShort() { EspeakEngine.shared.cutShort() }

    /// Whether espeak-ng has the voice `name` (and its data is installed).
    public static func hasVoice(_ name: String) -> Bool { EspeakEngine.shared.check(Voice(name: name)) == nil }
}

/// espeak-ng keeps its state in globals: one engine per process, owned by one thread that runs
/// one job at a time. A newer `speak` or a `cutShort` aborts the running job between buffers
/// (the synth callback answers "abort") and drops what the device still holds.
final class EspeakEngine: Sendable {
    static let shared = EspeakEngine()

    struct Speech: Sendable {
        var text: String
        var voice: EspeakSpeaker.Voice
        var output: EspeakSpeaker.Output
        var started: @Sendable () -> Void
        var ended: @Sendable (SpeechEnd) -> Void
    }

    struct Problem: Sendable { var operation: String; var hint: String }

    private enum Job: Sendable {
        case speak(Speech, token: Int)
        case check(EspeakSpeaker.Voice, reply: @Sendable (Problem?) -> Void)
    }

    private struct Queue { var jobs: [Job] = []; var token = 0; var running = false }
    private let queue = Locked(Queue())
    private let signal = Semaphore()

    /// Whether `voice` loads; waits for the engine thread.
    func check(_ voice: EspeakSpeaker.Voice) -> Problem? {
        let answer = Locked<Problem??>(nil)
        let done = Semaphore()
        submit(.check(voice, reply: { p in answer.withLock { $0 = .some(p) }; done.post() }))
        done.wait()
        return answer.withLock { $0 } ?? nil
    }

    /// Queues `speech`, cutting short whatever is said or waiting.
    func speak(_ speech: Speech) {
        let token = queue.withLock { q in q.token += 1; return q.token }
        submit(.speak(speech, token: token))
    }

    func cutShort() { queue.withLock { $0.token += 1 } }

    private func submit(_ job: Job) {
        let start = queue.withLock { q -> Bool in
            q.jobs.append(job)
            defer { q.running = true }
            return !q.running
        }
        if start { spawnThread { [self] in run() } }
        signal.post()
    }

    private func isCurrent(_ token: Int) -> Bool { queue.withLock { $0.token == token } }

    // MARK: - The engine thread

    private func run() {
        var engine = EngineState()
        while true {
            signal.wait()
            guard let job = queue.withLock({ q in q.jobs.isEmpty ? nil : q.jobs.removeFirst() }) else { continue }
            switch job {
            case .check(let voice, let reply):
                reply(engine.load(voice))
            case .speak(let speech, let token):
                guard isCurrent(token) else { speech.ended(.cutShort); continue }
                speech.ended(say(speech, token: token, engine: &engine))
            }
        }
    }

    private func say(_ speech: Speech, token: Int, engine: inout EngineState) -> SpeechEnd {
        if let problem = engine.load(speech.voice) { return .failed("\(problem.operation): \(problem.hint)") }
        let sink: AudioSink
        switch speech.output {
        case .alsa(let device): sink = ALSASink(device: device)
        case .wavDirectory(let dir): sink = WAVSink(directory: dir)
        }
        do { try sink.open(rate: engine.sampleRate) } catch { return .failed("\(error)") }
        var startedYet = false
        SynthContext.current = { samples in
            guard self.isCurrent(token) else { return false }
            guard sink.write(samples) else { return false }
            if !startedYet, samples.count > 0 {
                startedYet = true
                speech.started()
            }
            return true
        }
        defer { SynthContext.current = nil }
        var bytes = Array(speech.text.utf8CString)
        let rc = bytes.withUnsafeMutableBytes { raw in
            espeak_Synth(raw.baseAddress, raw.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
        }
        let cut = !isCurrent(token)
        if let failure = sink.failure { sink.close(cut: true); return .failed(failure) }
        guard rc == EE_OK || cut else { sink.close(cut: true); return .failed("espeak_Synth: error \(rc.rawValue)") }
        if cut { sink.close(cut: true); return .cutShort }
        do { try sink.finish(cut: { !self.isCurrent(token) }) } catch { return .failed("\(error)") }
        return isCurrent(token) ? .said : .cutShort
    }
}

/// The engine thread's view of espeak-ng: initialised once, the voice set when it changes.
private struct EngineState {
    var sampleRate: Int32 = 0
    var initialised = false
    var loaded: EspeakSpeaker.Voice?

    mutating func load(_ voice: EspeakSpeaker.Voice) -> EspeakEngine.Problem? {
        if !initialised {
            let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 100, nil, Int32(espeakINITIALIZE_DONT_EXIT))
            guard rate > 0 else {
                return .init(operation: "espeak_Initialize", hint: "espeak-ng's data was not found: install espeak-ng-data")
            }
            sampleRate = rate
            espeak_SetSynthCallback(synthCallback)
            initialised = true
        }
        guard loaded != voice else { return nil }
        // espeak-ng falls back to its default voice for a name it does not know: checked here.
        guard voice.name.utf8.count < 64, Self.knows(voice.name), espeak_SetVoiceByName(voice.name) == EE_OK else {
            loaded = nil
            return .init(operation: "espeak_SetVoiceByName", hint: "no voice \"\(voice.name)\": `espeak-ng --voices` lists them (e.g. en, de, fr)")
        }
        _ = espeak_SetParameter(espeakRATE, Int32(voice.rate), 0)
        _ = espeak_SetParameter(espeakVOLUME, Int32(voice.volume), 0)
        loaded = voice
        return nil
    }

    /// Whether espeak-ng lists `name` (a voice name, file or language, e.g. `English`, `gmw/en`,
    /// `en-us`), with an optional variant after `+`.
    static func knows(_ name: String) -> Bool {
        let wanted = String(name.split(separator: "+", maxSplits: 1).first ?? "").lowercased()
        guard !wanted.isEmpty, var voice = espeak_ListVoices(nil) else { return false }
        while let v = voice.pointee {
            var names = [v.pointee.name, v.pointee.identifier].compactMap { $0.map { String(cString: $0).lowercased() } }
            if let id = names.last, let file = id.split(separator: "/").last { names.append(String(file)) }
            // languages: (priority byte, NUL-terminated name) pairs, ended by a zero priority.
            if var p = v.pointee.languages.map({ UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }) {
                while p.pointee != 0 {
                    p += 1
                    let language = String(cString: p)
                    names.append(language.lowercased())
                    p += language.utf8.count + 1
                }
            }
            if names.contains(wanted) { return true }
            voice += 1
        }
        return false
    }
}

/// What the synth callback hands samples to; set only on the engine thread, while it synthesises.
private enum SynthContext {
    nonisolated(unsafe) static var current: ((UnsafeBufferPointer<Int16>) -> Bool)?
}

/// espeak's callback: 0 goes on, 1 aborts synthesis.
private let synthCallback: @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) -> Int32 = { wav, count, _ in
    guard let sink = SynthContext.current else { return 0 }
    guard let wav, count > 0 else { return 0 }
    return sink(UnsafeBufferPointer(start: wav, count: Int(count))) ? 0 : 1
}

/// A POSIX semaphore on the heap (its address must not move).
final class Semaphore: @unchecked Sendable {
    private let sem = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    init() { sem_init(sem, 0, 0) }
    deinit { sem_destroy(sem); sem.deallocate() }
    func post() { sem_post(sem) }
    func wait() { while sem_wait(sem) != 0 && Glibc.errno == EINTR {} }
}

// MARK: - Where the samples go

/// 16-bit mono samples on their way out; used on the engine thread only.
protocol AudioSink: AnyObject {
    func open(rate: Int32) throws(HardwareError)
    /// Takes samples; false stops synthesis (the device failed: see `failure`).
    func write(_ samples: UnsafeBufferPointer<Int16>) -> Bool
    /// Why a write failed.
    var failure: String? { get }
    /// Lets what was written play out (or be written), unless `cut` turns true meanwhile.
    func finish(cut: () -> Bool) throws(HardwareError)
    /// Ends at once; `cut`: what is buffered is dropped.
    func close(cut: Bool)
}

/// An ALSA PCM device, opened per announcement (a USB speaker plugged in later is found).
final class ALSASink: AudioSink {
    let device: String
    private var pcm: OpaquePointer?
    private(set) var failure: String?

    init(device: String) { self.device = device }
    deinit { close(cut: true) }

    func open(rate: Int32) throws(HardwareError) {
        var handle: OpaquePointer?
        let rc = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard rc == 0, let handle else {
            // A name that resolves to nothing is EINVAL or ENOENT here, whatever the cause.
            guard [EINVAL, ENOENT, ENODEV, ENXIO].contains(-rc) else { throw error("snd_pcm_open", rc) }
            throw HardwareError(.notFound, operation: "snd_pcm_open", device: "ALSA \(device)", errno: -rc,
                                hint: "no such PCM device (\(String(cString: snd_strerror(rc)))): `aplay -L` lists them; plug the speaker in")
        }
        pcm = handle
        // Mono, 16 bit, resampled by ALSA if the card wants another rate; 100 ms of latency.
        let set = snd_pcm_set_params(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(rate), 1, 100_000)
        guard set == 0 else { close(cut: true); throw error("snd_pcm_set_params", set) }
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        guard let pcm, let base = samples.baseAddress else { return false }
        var done = 0
        while done < samples.count {
            let n = snd_pcm_writei(pcm, base + done, snd_pcm_uframes_t(samples.count - done))
            if n >= 0 { done += Int(n); continue }
            // An underrun (the engine was slower than the card) is recovered; anything else ends it.
            if snd_pcm_recover(pcm, Int32(n), 1) < 0 {
                failure = "\(error("snd_pcm_writei", Int32(n)))"
                return false
            }
        }
        return true
    }

    func finish(cut: () -> Bool) throws(HardwareError) {
        guard let pcm else { return }
        // Played out in small waits, so that a press cuts the tail short too.
        var delay = snd_pcm_sframes_t(0)
        while !cut(), snd_pcm_delay(pcm, &delay) == 0, delay > 0, snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING {
            usleep(10_000)
        }
        close(cut: cut())
    }

    func close(cut: Bool) {
        guard let pcm else { return }
        if cut { snd_pcm_drop(pcm) } else { snd_pcm_drain(pcm) }
        snd_pcm_close(pcm)
        self.pcm = nil
    }

    private func error(_ operation: String, _ rc: Int32) -> HardwareError {
        let code = -rc
        let text = String(cString: snd_strerror(rc))
        return HardwareError(HardwareError.kind(forErrno: code), operation: operation, device: "ALSA \(device)", errno: code,
                             hint: text + (code == EACCES ? "; add the service user to group audio" : ""))
    }
}

/// Each announcement as a WAV file, written whole when it ends (`announcement-<n>.wav`).
final class WAVSink: AudioSink {
    let directory: String
    private var samples: [Int16] = []
    private var rate: Int32 = 22050
    private(set) var failure: String?
    /// Files written by this process, for unique names.
    nonisolated(unsafe) private static var written = 0

    init(directory: String) { self.directory = directory }

    func open(rate: Int32) throws(HardwareError) { self.rate = rate }

    func write(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        // At most 60 s of speech: a runaway phrase never fills the disk.
        guard self.samples.count + samples.count <= Int(rate) * 60 else { failure = "announcement longer than 60 s"; return false }
        self.samples += samples
        return true
    }

    func finish(cut: () -> Bool) throws(HardwareError) {
        Self.written += 1
        let path = directory + "/announcement-\(getpid())-\(Self.written).wav"
        do { try FileBytes.writeAtomically(WAV.encode(samples, rate: Int(rate)), to: path) } catch {
            let code = error.errno ?? 0
            throw HardwareError(HardwareError.kind(forErrno: code), operation: "write", device: path, errno: code, hint: error.reason)
        }
    }

    func close(cut: Bool) { samples = [] }
}

/// RIFF/WAVE, 16-bit PCM mono.
public enum WAV {
    public static func encode(_ samples: [Int16], rate: Int) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let data = samples.count * 2
        var out = Array("RIFF".utf8) + le32(36 + data) + Array("WAVEfmt ".utf8) + le32(16)
        out += le16(1) + le16(1) + le32(rate) + le32(rate * 2) + le16(2) + le16(16)
        out += Array("data".utf8) + le32(data)
        out.reserveCapacity(out.count + data)
        samples.map(\.littleEndian).withUnsafeBytes { out.append(contentsOf: $0) }
        return out
    }
}
