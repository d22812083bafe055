import ScanCore
import ScanConfig
import SetupPage
import Testing

@Suite struct WebRulesTests {
    @Test func listenAddresses() {
        #expect(ListenAddress("127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(ListenAddress("[::1]:80") == ListenAddress(host: "::1", port: 80))
        #expect(ListenAddress("[::1]:80")?.isLoopback == true)
        #expect(ListenAddress("localhost:8080")?.isLoopback == true)
        #expect(ListenAddress("0.0.0.0:8080")?.isLoopback == false)
        #expect(ListenAddress("192.168.1.5:8080")?.isLoopback == false)
        for bad in ["8080", "host:", ":80", "host:0", "host:65536", "host:http", "a b:80", "h\u{0}:80", "x:8080\n"] {
            #expect(ListenAddress(bad) == nil, "\(bad)")
        }
    }

    @Test func tokens() {
        #expect(WebRules.tokenAccepted(nil, required: nil))
        #expect(WebRules.tokenAccepted("x", required: nil))
        #expect(!WebRules.tokenAccepted(nil, required: "secret-secret-12"))
        #expect(!WebRules.tokenAccepted("secret-secret-1", required: "secret-secret-12"))
        #expect(!WebRules.tokenAccepted("secret-secret-123", required: "secret-secret-12"))
        #expect(WebRules.tokenAccepted("secret-secret-12", required: "secret-secret-12"))
        #expect(WebRules.bearer("Bearer abc") == "abc")
        #expect(WebRules.bearer("bearer  abc ") == "abc")
        #expect(WebRules.bearer("Basic abc") == nil)
        #expect(WebRules.bearer(String(repeating: "B", count: 600)) == nil)
    }

    @Test func commandsFromTheWeb() throws {
        #expect(try WebRules.command(from: Array("TRIGGER\r\n".utf8)).get() == "TRIGGER")
        #expect(try WebRules.command(from: Array("SET scan.viewport=[0.1, 0.1, 0.8, 0.8]".utf8)).get() == "SET scan.viewport=[0.1, 0.1, 0.8, 0.8]")
        for (body, status) in [("", 400), ("TRIG\u{7}GER", 400), (String(repeating: "A", count: 257), 400),
                               ("SET output.serial.device=/dev/ttyS0", 403), ("SET camera.images=[\"/\"]", 403),
                               ("SET web.token=abc", 403), ("SET metrics.file=/etc/passwd", 403)] {
            guard case .failure(let error) = WebRules.command(from: Array(body.utf8)) else { Issue.record("accepted: \(body)"); continue }
            #expect(error.status == status, "\(body): \(error)")
        }
    }

    @Test func controlChanges() throws {
        #expect(try WebRules.control(from: Array("brightness=-40\n".utf8)).get() == ("brightness", -40))
        for body in ["brightness", "=3", "Bright=3", "brightness=3.5", "brightness=99999999999", "a=1=2", String(repeating: "a", count: 200) + "=1"] {
            guard case .failure = WebRules.control(from: Array(body.utf8)) else { Issue.record("accepted: \(body)"); continue }
        }
    }

    @Test func responseHeads() throws {
        let data = Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX-Scand-Snapshot: {\"a\":1}\r\n\r\nabc".utf8)
        let head = try #require(try HTTPResponseHead.parse(data))
        #expect(head.status == 200 && head.headers["content-length"] == "3" && head.headers["x-scand-snapshot"] == "{\"a\":1}")
        #expect(Array(data[head.bodyOffset...]) == Array("abc".utf8))
        #expect(try HTTPResponseHead.parse(Array("HTTP/1.1 200 OK\r\nX: y".utf8)) == nil, "incomplete")
        #expect(throws: WebError.self) { try HTTPResponseHead.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) }
        #expect(throws: WebError.self) { try HTTPResponseHead.parse(Array(repeating: 65, count: 70_000)) }
    }
}
