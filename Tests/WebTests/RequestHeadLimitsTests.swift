import SetupPage
import Testing

/// The byte-level limits before the HTTP parser, and who may ask (Host, Origin, token).
@Suite struct RequestHeadLimitsTests {
    /// Feeds `text`; the steps taken, summarised: bytes released, requests completed, refusal.
    static func feed(_ bytes: [UInt8], into limits: inout RequestHeadLimits) -> (released: Int, completed: Int, refusal: RequestHeadLimits.Refusal?) {
        var held = 0, released = 0, completed = 0
        for b in bytes {
            switch limits.consume(b) {
            case .hold: held += 1
            case .release(let done):
                released += held + 1
                held = 0
                if done { completed += 1 }
            case .refuse(let r): return (released, completed, r)
            }
        }
        return (released, completed, nil)
    }

    static func feed(_ text: String) -> (released: Int, completed: Int, refusal: RequestHeadLimits.Refusal?) {
        var limits = RequestHeadLimits()
        return feed(Array(text.utf8), into: &limits)
    }

    @Test func aHeadIsHeldUntilWholeThenReleasedWithItsBody() {
        var limits = RequestHeadLimits()
        let head = Array("POST /api/command HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 7\r\n".utf8)
        #expect(Self.feed(head, into: &limits) == (0, 0, nil), "not whole: nothing released")
        #expect(limits.isMidRequest)
        // The blank line releases the whole head (the bytes held before it with it).
        #expect(limits.consume(13) == .hold)
        #expect(limits.consume(10) == .release(completed: false))
        #expect(Self.feed(Array("TRIGGER".utf8), into: &limits) == (7, 1, nil))
        #expect(!limits.isMidRequest)
        // Pipelined GETs, bare LF line ends, and empty lines before a request line.
        let two = "GET / HTTP/1.1\nHost: a:1\n\n\r\nGET /x HTTP/1.1\r\nHost: a:1\r\n\r\n"
        let result = Self.feed(two)
        #expect(result.released == two.utf8.count && result.completed == 2 && result.refusal == nil)
    }

    @Test func linesHeadersHeadsAndBodiesOverTheLimitsAreRefused() {
        let longLine = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: RequestHeadLimits.maxLine)
        #expect(Self.feed(longLine).refusal == .lineTooLong)
        // Refused at the byte that crosses the limit: a 512 KiB line costs 8 KiB of work.
        var limits = RequestHeadLimits()
        var fed = 0
        for b in Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 512 * 1024)).utf8) {
            fed += 1
            if case .refuse = limits.consume(b) { break }
        }
        #expect(fed < RequestHeadLimits.maxLine + 40)
        #expect(limits.consume(10) == .refuse(.lineTooLong), "after a refusal, everything is refused")

        let many = "GET / HTTP/1.1\r\n" + String(repeating: "a: b\r\n", count: 101)
        #expect(Self.feed(many).refusal == .tooManyHeaders)
        #expect(Self.feed("GET / HTTP/1.1\r\n" + String(repeating: "a: b\r\n", count: 100) + "\r\n").refusal == nil)
        let big = "GET / HTTP/1.1\r\n" + String(repeating: "x: " + String(repeating: "b", count: 8000) + "\r\n", count: 5)
        #expect(Self.feed(big).refusal == .headTooLarge)
        #expect(Self.feed("POST / HTTP/1.1\r\nContent-Length: 4097\r\n\r\n").refusal == .bodyTooLarge(4097))
        #expect(Self.feed("POST / HTTP/1.1\r\ncontent-length:  4096 \r\n\r\n").refusal == nil)
        #expect(Self.feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").refusal == .chunkedBody)
        // A POST or PUT without Content-Length (a tryout: its body was read as a second request,
        // after an "empty command"); other methods need none, and requests after one keep theirs.
        #expect(Self.feed("POST /api/command HTTP/1.1\r\nHost: x\r\n\r\nTRIGGER").refusal == .lengthRequired)
        #expect(Self.feed("\r\nPUT /x HTTP/1.1\r\n\r\n").refusal == .lengthRequired)
        #expect(Self.feed("GET / HTTP/1.1\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET /api/status HTTP/1.1\r\n\r\n").refusal == nil)
        #expect(Self.feed("GET /POST HTTP/1.1\r\n\r\n").refusal == nil)
        #expect(RequestHeadLimits.Refusal.lengthRequired.status == 411)
        #expect(Self.feed("POST / HTTP/1.1\r\nContent-Length : 4\r\n\r\nBEEP").refusal == .badLength, "a space before the colon")
        for bad in ["-1", "1e3", "", "99999999999", "5, 6", "0x10"] {
            #expect(Self.feed("POST / HTTP/1.1\r\nContent-Length: \(bad)\r\n\r\n").refusal == .badLength, "\(bad)")
        }
        #expect(Self.feed("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n").refusal == .badLength)
        // A refused body never reaches the parser: the head before it is not released either.
        let smuggled = "POST /api/command HTTP/1.1\r\nContent-Length: 5000\r\n\r\nGET /api/results HTTP/1.1\r\n\r\n"
        #expect(Self.feed(smuggled) == (0, 0, .bodyTooLarge(5000)))
        #expect(RequestHeadLimits.Refusal.lineTooLong.status == 431 && RequestHeadLimits.Refusal.bodyTooLarge(1).status == 413)
    }
}

@Suite struct OriginRulesTests {
    static let loopback = WebRules.Listener(host: "127.0.0.1", port: 8080, token: nil)

    static func head(_ method: String = "GET", _ path: String = "/api/status", host: String? = "127.0.0.1:8080", origin: String? = nil,
                     referer: String? = nil, authorization: String? = nil, token: String? = nil, loopbackPeer: Bool = true) -> WebRules.Head {
        WebRules.Head(method: method, path: path, host: host, origin: origin, referer: referer, authorization: authorization,
                      queryToken: token, peerIsLoopback: loopbackPeer)
    }

    @Test func theHostMustNameTheListener() {
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"] {
            #expect(WebRules.hostAccepted(host, at: Self.loopback), "\(host)")
        }
        for host in ["evil.example:8080", "127.0.0.1:8081", "127.0.0.1", "evil.example", "", "[::1", "127.0.0.1:", "127.0.0.1:99999",
                     "a b:8080", "localhost.:8080", "127.0.0.1:8080:1", "[evil]:8080"] {
            #expect(!WebRules.hostAccepted(host, at: Self.loopback), "\(host)")
        }
        let v6 = WebRules.Listener(host: "::1", port: 80, token: nil)
        #expect(WebRules.hostAccepted("[::1]", at: v6) && WebRules.hostAccepted("localhost", at: v6) && !WebRules.hostAccepted("[::2]", at: v6))
        let lan = WebRules.Listener(host: "192.168.1.5", port: 8080, token: "0123456789abcdef")
        #expect(WebRules.hostAccepted("192.168.1.5:8080", at: lan) && !WebRules.hostAccepted("localhost:8080", at: lan))
        let any = WebRules.Listener(host: "0.0.0.0", port: 8080, token: "0123456789abcdef")
        #expect(WebRules.hostAccepted("kiosk-3.local:8080", at: any) && !WebRules.hostAccepted("kiosk-3.local:80", at: any))
    }

    @Test func requestsAreAdmittedOnTheirHead() {
        let l = Self.loopback
        #expect(WebRules.admit(Self.head(), at: l) == nil)
        #expect(WebRules.admit(Self.head(host: "evil.example:8080"), at: l)?.status == 421, "DNS rebinding")
        #expect(WebRules.admit(Self.head("GET", "/snapshot.png", host: "evil.example:8080"), at: l)?.status == 421)
        #expect(WebRules.admit(Self.head(host: nil), at: l)?.status == 400)
        #expect(WebRules.admit(Self.head(host: ""), at: l)?.reason == "one Host header is required, naming this kiosk", "two Host headers")
        #expect(WebRules.admit(Self.head(host: "evil.example:8080"), at: l)?.reason
                == "Host evil.example:8080 is not this kiosk's address; open http://127.0.0.1:8080/")
        // Each refusal names the header it judged.
        #expect(WebRules.admit(Self.head("POST", "/api/command", referer: "http://evil.example/x"), at: l)?.reason
                == "a request from a page of another site is refused (Referer http://evil.example/x)")
        #expect(WebRules.admit(Self.head("POST", "/api/command", origin: "http://evil.example"), at: l)?.reason
                == "a request from a page of another site is refused (Origin http://evil.example)")
        #expect(WebRules.admit(Self.head(loopbackPeer: false), at: l)?.status == 403)
        // A foreign page's POST (a form's text/plain one too): refused; the page's own: admitted.
        #expect(WebRules.admit(Self.head("POST", "/api/command", origin: "http://evil.example"), at: l)?.status == 403)
        #expect(WebRules.admit(Self.head("POST", "/api/command", origin: "null"), at: l)?.status == 403)
        #expect(WebRules.admit(Self.head("POST", "/api/command", referer: "http://evil.example/x"), at: l)?.status == 403)
        #expect(WebRules.admit(Self.head("POST", "/api/command", origin: "https://127.0.0.1:8080"), at: l)?.status == 403)
        #expect(WebRules.admit(Self.head("POST", "/api/command", origin: "http://127.0.0.1:8080"), at: l) == nil)
        #expect(WebRules.admit(Self.head("POST", "/api/command", origin: "http://localhost:8080"), at: l) == nil)
        #expect(WebRules.admit(Self.head("POST", "/api/command", referer: "http://127.0.0.1:8080/"), at: l) == nil)
        #expect(WebRules.admit(Self.head("POST", "/api/command"), at: l) == nil, "curl: no Origin, no Referer")
        // Data endpoints: a foreign page's fetch is refused; a link from elsewhere to the page is not.
        #expect(WebRules.admit(Self.head("GET", "/api/results", origin: "http://evil.example"), at: l)?.status == 403)
        #expect(WebRules.admit(Self.head("GET", "/preview.mjpeg", referer: "http://evil.example/"), at: l)?.status == 403)
        #expect(WebRules.admit(Self.head("GET", "/", referer: "http://evil.example/"), at: l) == nil)
        // With a token: needed by every request, the Host and Origin rules still hold.
        let t = WebRules.Listener(host: "0.0.0.0", port: 8080, token: "0123456789abcdef")
        // A wildcard listener's advice names no 0.0.0.0 (a browser cannot open it).
        #expect(WebRules.admit(Self.head(host: "a b:8080", token: "0123456789abcdef", loopbackPeer: false), at: t)?.reason
                == "Host a b:8080 is not this kiosk's address; open http://<the kiosk's address>:8080/")
        #expect(WebRules.admit(Self.head(host: "kiosk:8080", loopbackPeer: false), at: t)?.status == 401)
        #expect(WebRules.admit(Self.head(host: "kiosk:8080", token: "0123456789abcdef", loopbackPeer: false), at: t) == nil)
        #expect(WebRules.admit(Self.head("POST", "/api/command", host: "kiosk:8080", origin: "http://evil:8080",
                                         authorization: "Bearer 0123456789abcdef", loopbackPeer: false), at: t)?.status == 403)
        #expect(WebRules.admit(Self.head("POST", "/api/command", host: "kiosk:8080", origin: "http://kiosk:8080",
                                         authorization: "Bearer 0123456789abcdef", loopbackPeer: false), at: t) == nil)
    }

    @Test func errorTextsStartWithERR() {
        #expect(WebRules.errorText(WebError(421, "Host x is not this kiosk's address")) == "ERR 421: Host x is not this kiosk's address")
        #expect(WebRules.errorText(WebError(400, "ERR empty command")) == "ERR empty command")
        #expect(WebRules.query("raw=1&token=a%2Fb+c", "token") == "a/b c")
        #expect(WebRules.query("token=%zz", "token") == nil)
        #expect(WebRules.isLoopbackIP("127.3.4.5") && WebRules.isLoopbackIP("::ffff:127.0.0.1") && !WebRules.isLoopbackIP("128.0.0.1"))
    }
}
