#!/usr/bin/env python3
"""Drives the setup page in a real headless Chromium over the DevTools protocol (standard
library only): waits for the live preview, takes a screenshot, reads the overlay's viewport
pixels, clicks Trigger and waits for the read in the results list. Prints one JSON object.

usage: browser.py URL SCREENSHOT.png [--expect TEXT] [--timeout SECONDS] [--after AFTER.png] [--no-trigger]
(--after: a second screenshot once the read is listed, the located code outlined; --no-trigger:
report the page as loaded, with the status shown, and click nothing)
"""
import base64, json, os, queue, socket, struct, subprocess, sys, tempfile, threading, time, urllib.request


class DevTools:
    """A minimal WebSocket client (RFC 6455: masked text frames out, any frames in)."""

    def __init__(self, url):
        assert url.startswith("ws://")
        host_port, path = url[5:].split("/", 1)
        host, port = host_port.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.decode(errors="replace"))
        self.next_id = 0

    def _recv_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            data += chunk
        return data

    def _recv_message(self):
        message = b""
        while True:
            b0, b1 = self._recv_exact(2)
            length = b1 & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._recv_exact(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._recv_exact(8))[0]
            payload = self._recv_exact(length)
            opcode = b0 & 0x0F
            if opcode == 8:
                raise RuntimeError("DevTools closed the WebSocket")
            if opcode in (0, 1, 2):
                message += payload
                if b0 & 0x80:
                    return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        data = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        header = bytes([0x81])
        if len(data) < 126:
            header += bytes([0x80 | len(data)])
        elif len(data) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        while True:
            reply = self._recv_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.2)
        raise RuntimeError(f"timed out after {timeout} s waiting for: {expression}")


def main():
    args = sys.argv[1:]
    url, shot = args[0], args[1]
    expect = args[args.index("--expect") + 1] if "--expect" in args else None
    timeout = float(args[args.index("--timeout") + 1]) if "--timeout" in args else 30
    after = args[args.index("--after") + 1] if "--after" in args else None
    trigger = "--no-trigger" not in args
    layouts = args[args.index("--layouts") + 1] if "--layouts" in args else None
    profile = tempfile.mkdtemp(prefix="scand-chromium-")
    browser = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--window-size=1280,860", "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        deadline = time.time() + timeout
        # chromium's stderr, read by a thread (all of it: a full pipe would stop chromium
        # mid-write); the wait for its DevTools line is bounded.
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in browser.stderr] + [lines.put(None)], daemon=True).start()
        while port is None:
            try:
                line = lines.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                raise RuntimeError(f"chromium did not listen for DevTools within {timeout} s")
            if line is None:
                raise RuntimeError("chromium ended before it listened for DevTools")
            if "DevTools listening on ws://" in line:
                port = int(line.split("ws://")[1].split("/")[0].split(":")[1])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        page = next(t for t in targets if t["type"] == "page")
        tools = DevTools(page["webSocketDebuggerUrl"])
        tools.call("Page.enable")
        tools.call("Page.navigate", url=url)
        out = {}
        out["previewSize"] = tools.wait_for(
            "(() => { const i = document.getElementById('preview'); return i && i.naturalWidth > 0 ? [i.naturalWidth, i.naturalHeight] : null; })()", timeout)
        tools.wait_for("document.getElementById('viewport-toml').textContent.includes('[0.')", timeout)
        tools.wait_for("document.querySelectorAll('#controls input').length > 0", timeout)
        time.sleep(0.6)  # the overlay redraws every 500 ms
        out["overlay"] = tools.evaluate("""(() => {
            const c = document.getElementById('overlay'), i = document.getElementById('preview');
            const r = c.getBoundingClientRect(), ir = i.getBoundingClientRect();
            return {canvas: [r.left, r.top, r.width, r.height], preview: [ir.left, ir.top, ir.width, ir.height],
                    viewportToml: document.getElementById('viewport-toml').textContent}; })()""")
        shot_data = tools.call("Page.captureScreenshot", format="png")["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(shot_data))
        tools.wait_for("document.querySelectorAll('#status tr').length > 0", timeout)
        out["torchButtonsDisabled"] = tools.evaluate(
            "['torch-on', 'torch-off', 'torch-default'].map(id => document.getElementById(id).disabled)")
        out["status"] = tools.evaluate("[...document.querySelectorAll('#status tr')].map(r => r.textContent)")
        out["decoding"] = tools.evaluate("[...document.querySelectorAll('#decoding tr')].map(r => [...r.cells].map(c => c.textContent))")
        if layouts:
            # A 300-character payload in the results (the demo's Wi-Fi string is about 60), then
            # the page at three widths: a screenshot each, and where the panels are.
            tools.evaluate("addResult({seq: 999, symbology: 'QR-Code', text: 'WIFI:S:kiosk;T:WPA;P:' + 'x'.repeat(279)})")
            out["layouts"] = {}
            for width in (1280, 800, 390):
                tools.call("Emulation.setDeviceMetricsOverride", width=width, height=860, deviceScaleFactor=1, mobile=width < 500)
                time.sleep(0.8)
                out["layouts"][str(width)] = tools.evaluate("""(() => {
                    const p = document.getElementById('preview').getBoundingClientRect();
                    const panels = [...document.querySelectorAll('main > div:nth-child(2) section')].map(s => [s.getBoundingClientRect().left, s.getBoundingClientRect().top]);
                    return {previewBottom: p.bottom, previewRight: p.right, panelTops: panels,
                            scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth}; })()""")
                with open(f"{layouts}/setup-page-{width}.png", "wb") as f:
                    f.write(base64.b64decode(tools.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]))
            tools.call("Emulation.clearDeviceMetricsOverride")
        if not trigger:
            print(json.dumps(out))
            return
        out["resultsBefore"] = tools.evaluate("document.querySelectorAll('#results li').length")
        tools.evaluate("document.getElementById('trigger').click()")
        out["answer"] = tools.wait_for("document.getElementById('answer').textContent", timeout)
        condition = "document.querySelectorAll('#results li').length > %d" % out["resultsBefore"]
        if expect:
            condition += " && document.querySelector('#results li').textContent.includes(%s)" % json.dumps(expect)
        tools.wait_for(condition, timeout)
        out["results"] = tools.evaluate("[...document.querySelectorAll('#results li')].map(li => li.textContent)")
        out["status"] = tools.evaluate("[...document.querySelectorAll('#status tr')].map(r => r.textContent)")
        # The decoding table: a header, a row per symbology read, the no-reads (the read's
        # row comes with the status refresh after the result).
        tools.wait_for("document.querySelectorAll('#decoding tr').length > 2", timeout)
        out["decoding"] = tools.evaluate("[...document.querySelectorAll('#decoding tr')].map(r => [...r.cells].map(c => c.textContent))")
        if after:
            tools.evaluate("draw()")
            with open(after, "wb") as f:
                f.write(base64.b64decode(tools.call("Page.captureScreenshot", format="png")["data"]))
        print(json.dumps(out))
    finally:
        browser.kill()
        browser.wait()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # one line for the test's failure message
        print(json.dumps({"error": str(error)}))
        sys.exit(1)
