import ScanCore

// The `[feedback]` tables (patterns, tones, speech) and `[output.mqtt]`: the parts of the config
// whose checks are long enough to read on their own.
extension Reader {
    /// Steps a pattern may have, and how long each may last.
    static let patternSteps = 16
    static let stepMillis = 10...10_000

    /// `[feedback.<outcome>]` (beep, flash) and `[feedback.<indication>]` (led), names in
    /// snake case (`good_read`, `camera_in_use`).
    mutating func readFeedback(_ value: ConfigValue?, into f: inout ScandConfig.FeedbackConfig) {
        let outcomes = Dictionary(uniqueKeysWithValues: Feedback.allCases.map { (String($0.rawValue.map { $0 == "-" ? "_" : $0 }), $0) })
        let indications = Dictionary(uniqueKeysWithValues: StatusIndication.allCases.map { (String($0.rawValue.map { $0 == "-" ? "_" : $0 }), $0) })
        let feedback = table(value, "feedback", allowed: (Array(outcomes.keys) + Array(indications.keys) + ["speech"]).sorted())
        for (name, outcome) in outcomes {
            let key = "feedback.\(name)"
            let t = table(feedback[name], key, allowed: ["beep", "flash", "torch", "tone_hz"])
            if let steps = pattern(t, "\(key).beep", repeating: false) { f.beep[outcome] = steps }
            if t["tone_hz"] != nil { f.tone[outcome] = int(t, "\(key).tone_hz", default: 2700, range: 100...20_000) }
            if let steps = pattern(t, "\(key).flash", repeating: false) { f.flash[outcome] = steps }
            if let steps = pattern(t, "\(key).torch", repeating: false) { f.torch[outcome] = steps }
        }
        for (name, indication) in indications {
            let key = "feedback.\(name)"
            let t = table(feedback[name], key, allowed: ["led", "beep"])
            if let steps = pattern(t, "\(key).led", repeating: true) { f.led[indication] = steps }
            if let steps = pattern(t, "\(key).beep", repeating: false) { f.entryBeep[indication] = steps }
        }
        readSpeech(feedback["speech"], into: &f)
    }

    /// `[feedback.speech]`: announcements through espeak-ng.
    mutating func readSpeech(_ value: ConfigValue?, into f: inout ScandConfig.FeedbackConfig) {
        let t = table(value, "feedback.speech", allowed: ["enabled", "voice", "rate", "volume", "say", "no_read", "camera_error", "outputs_full",
                                                         "deliver", "replaces_flash", "device", "wav_dir"])
        var s = ScandConfig.SpeechConfig()
        s.enabled = bool(t, "feedback.speech.enabled", default: s.enabled)
        s.voice = string(t, "feedback.speech.voice", default: s.voice)
        if s.voice.isEmpty || s.voice.count > 40 || !s.voice.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_+/".contains($0)) }) {
            fail("feedback.speech.voice", "\"\(s.voice)\" is not a voice name; `espeak-ng --voices` lists them (en, de, en-us, ...)")
        } else if s.enabled, let knownVoice, !knownVoice(s.voice) {
            fail("feedback.speech.voice", "espeak-ng has no voice \"\(s.voice)\"; `espeak-ng --voices` lists them (en, de, en-us, ...)")
        }
        s.rate = int(t, "feedback.speech.rate", default: s.rate, range: 80...450)
        s.volume = int(t, "feedback.speech.volume", default: s.volume, range: 0...200)
        s.say = choice(t, "feedback.speech.say", default: s.say)
        s.noRead = phrase(t, "feedback.speech.no_read", default: s.noRead)
        s.cameraError = phrase(t, "feedback.speech.camera_error", default: s.cameraError)
        s.outputsFull = phrase(t, "feedback.speech.outputs_full", default: s.outputsFull)
        s.deliver = choice(t, "feedback.speech.deliver", default: s.deliver)
        s.replacesFlash = bool(t, "feedback.speech.replaces_flash", default: s.replacesFlash)
        s.device = string(t, "feedback.speech.device", default: s.device)
        if s.device.isEmpty || s.device.utf8.count > 100 || s.device.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 32 } == true }) {
            fail("feedback.speech.device", "must be an ALSA PCM name (`aplay -L` lists them), e.g. default or plughw:1,0")
        }
        let wav = string(t, "feedback.speech.wav_dir", default: "")
        s.wavDirectory = wav.isEmpty ? nil : wav
        f.speech = s
    }

    /// `[output.mqtt]`.
    mutating func readMQTT(_ value: ConfigValue?, into m: inout ScandConfig.MQTT) {
        let t = table(value, "output.mqtt", allowed: ["url", "client_id", "topic_prefix", "qos", "username", "password_file",
                                                      "tls_ca", "tls_cert", "tls_key", "keepalive", "events", "commands"])
        let url = string(t, "output.mqtt.url", default: "")
        if !url.isEmpty {
            switch MQTTURL.parse(url) {
            case .success(let u): m.url = u
            case .failure(let e): fail("output.mqtt.url", e.reason)
            }
        }
        m.clientID = string(t, "output.mqtt.client_id", default: "")
        if m.clientID.utf8.count > 64 || m.clientID.contains(where: { !$0.isASCII || $0.isWhitespace || "+#/".contains($0) || $0.asciiValue! < 32 }) {
            fail("output.mqtt.client_id", "at most 64 printable ASCII characters, no spaces, +, # or /")
        }
        m.topicPrefix = string(t, "output.mqtt.topic_prefix", default: "")
        if m.topicPrefix.utf8.count > 200 || m.topicPrefix.contains(where: { "+#".contains($0) || $0.unicodeScalars.contains { $0.value < 32 } })
            || m.topicPrefix.hasPrefix("/") || m.topicPrefix.hasSuffix("/") {
            fail("output.mqtt.topic_prefix", "a topic without wildcards (+, #), control characters or a leading or trailing /, at most 200 bytes")
        }
        m.qos = int(t, "output.mqtt.qos", default: 1, range: 0...1)
        m.username = string(t, "output.mqtt.username", default: "")
        // MQTT's strings hold no control characters (libmosquitto refuses them at start as
        // "Malformed UTF-8": a tryout's username passed check-config and stopped the daemon).
        if m.username.utf8.count > 65535 || m.username.unicodeScalars.contains(where: PayloadText.isControl) {
            fail("output.mqtt.username", "text without control characters, at most 65535 bytes")
        }
        func path(_ key: String) -> String? {
            let p = string(t, "output.mqtt.\(key)", default: "")
            return p.isEmpty ? nil : p
        }
        m.passwordFile = path("password_file")
        m.tlsCA = path("tls_ca")
        m.tlsCert = path("tls_cert")
        m.tlsKey = path("tls_key")
        if (m.tlsCert == nil) != (m.tlsKey == nil) { fail("output.mqtt.tls_cert", "tls_cert and tls_key go together (a client certificate and its key)") }
        if m.url?.tls == false, m.tlsCA != nil || m.tlsCert != nil { fail("output.mqtt.url", "TLS files are set: use mqtts://") }
        if m.passwordFile != nil, m.username.isEmpty { fail("output.mqtt.password_file", "a password needs output.mqtt.username") }
        m.keepalive = int(t, "output.mqtt.keepalive", default: 30, range: 5...3600)
        m.events = bool(t, "output.mqtt.events", default: false)
        m.commands = bool(t, "output.mqtt.commands", default: true)
        if m.url == nil, t.keys.contains(where: { $0 != "url" }) { fail("output.mqtt.url", "set the broker (mqtt://host:1883) or remove [output.mqtt]") }
    }

    /// A sentence to be said: 1 to 200 characters, no control characters.
    mutating func phrase(_ t: [String: ConfigValue], _ key: String, default d: String) -> String {
        let text = string(t, key, default: d)
        guard !text.isEmpty, text.count <= 200, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            fail(key, "must be 1 to 200 characters without control characters")
            return d
        }
        return text
    }

    /// On/off milliseconds: 1 to 16 steps of 10 to 10,000 ms; a repeating pattern is on/off
    /// pairs, or `[1]` (steady on) or `[0]` (steady off). `[]` is silence (one shot only).
    mutating func pattern(_ t: [String: ConfigValue], _ key: String, repeating: Bool) -> [Int]? {
        guard let v = t[leaf(key)] else { return nil }
        let shape = repeating ? "on/off milliseconds in pairs ([150, 150]), or [1] (steady on) or [0] (off)"
                              : "on/off milliseconds ([80] or [60, 60, 60]), or [] (none)"
        guard case .array(let items) = v else { fail(key, "must be an array of \(shape), not \(v.typeName)"); return nil }
        var steps: [Int] = []
        for item in items {
            guard case .int(let ms) = item else { fail(key, "must be whole milliseconds, not \(item.typeName)"); return nil }
            steps.append(ms)
        }
        if repeating && (steps == [0] || steps == [1]) { return steps }
        guard steps.count <= Self.patternSteps else { fail(key, "has \(steps.count) steps; at most \(Self.patternSteps)"); return nil }
        if let bad = steps.first(where: { !Self.stepMillis.contains($0) }) {
            fail(key, "step \(bad) ms is out of range; each step is \(Self.stepMillis.lowerBound) to \(Self.stepMillis.upperBound) ms")
            return nil
        }
        if repeating && (steps.isEmpty || steps.count % 2 != 0) { fail(key, "must be \(shape)"); return nil }
        return steps
    }
}
