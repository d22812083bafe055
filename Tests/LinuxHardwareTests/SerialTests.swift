import Foundation
@testable import LinuxHardware
import ScanHardware
import SimulatedHardware
import Testing

/// The termios driver against a real pseudo-terminal: scand's side is the driver on the pty's
/// tty end, the host is the other end.
@Suite(.serialized) struct SerialTests {
    @Test func framingIsApplied() throws {
        let pty = try PseudoTerminal()
        var settings = SerialSettings(baud: 19200)
        settings.dataBits = 7
        settings.parity = .even
        settings.stopBits = 2
        settings.flowControl = .rtscts
        // The port is held for the whole test: once released it closes its descriptor, and a
        // pty's last close resets its termios (the check below would then read the defaults).
        let port = try TermiosSerialPort(path: pty.hostPath, settings: settings)
        defer { withExtendedLifetime(port) {} }
        let fd = open(pty.hostPath, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        defer { close(fd) }
        var t = termios()
        #expect(tcgetattr(fd, &t) == 0)
        // A pty keeps stop bits, flow control and speed; it forces CS8 and no parity, so those
        // are checked on the termios value the driver builds.
        #expect(t.c_cflag & tcflag_t(CSTOPB) != 0)
        var built = termios()
        TermiosSerialPort.configure(&built, settings)
        #expect(built.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS7))
        #expect(built.c_cflag & tcflag_t(PARENB) != 0 && built.c_cflag & tcflag_t(PARODD) == 0)
        settings.parity = .odd
        TermiosSerialPort.configure(&built, settings)
        #expect(built.c_cflag & tcflag_t(PARODD) != 0)
        #expect(built.c_lflag & tcflag_t(ICANON) == 0, "raw mode")
        #expect(t.c_cflag & tcflag_t(CRTSCTS) != 0)
        #expect(cfgetospeed(&t) == speed_t(B19200))
    }

    /// termios goes through the syscall funnel: a failing tcsetattr is named with its errno,
    /// and the descriptor it opened is closed.
    @Test func aFailingTcsetattrIsNamed() throws {
        let pty = try PseudoTerminal()
        var sys = Syscalls.system
        let closed = Locked<[Int32]>([])
        sys.tcsetattr = { _, _ in Glibc.errno = EIO; return -1 }
        sys.close = { fd in closed.withLock { $0.append(fd) }; return Glibc.close(fd) }
        #expect { try TermiosSerialPort(path: pty.hostPath, settings: SerialSettings(baud: 9600), syscalls: sys) } throws: { e in
            let e = e as? HardwareError
            return e?.operation == "tcsetattr" && e?.errno == EIO && e?.device == pty.hostPath
        }
        #expect(closed.withLock { $0 }.count == 1)
    }

    /// A port that goes away ends its reader: before, the reader thread kept the port alive,
    /// reopening its path every second for ever; a later pseudo-terminal given the same
    /// /dev/pts number then had its bytes read by the dead test's port (CI's hang).
    @Test func aPortThatGoesAwayEndsItsReader() async throws {
        let pty = try PseudoTerminal()
        var port: TermiosSerialPort? = try TermiosSerialPort(path: pty.hostPath, baud: 9600)
        var incoming = port!.received().makeAsyncIterator()
        weak let gone = port
        port = nil
        let end = await incoming.next() // the stream finishes when the reader ends
        #expect(end == nil)
        #expect(gone == nil)
    }

    @Test func bytesFromTheHostArrive() async throws {
        let pty = try PseudoTerminal()
        let port = try TermiosSerialPort(path: pty.hostPath, baud: 115_200)
        var incoming = port.received().makeAsyncIterator()
        try pty.write(Array("TRIGGER\r\n".utf8))
        var got: [UInt8] = []
        while got.count < 9, let chunk = await incoming.next() { got += chunk }
        #expect(String(decoding: got, as: UTF8.self) == "TRIGGER\r\n")
    }

    @Test func writesArriveAtTheHost() async throws {
        let pty = try PseudoTerminal()
        let port = try TermiosSerialPort(path: pty.hostPath, baud: 9600)
        try port.write(Array("4006381333931\r\n".utf8))
        var got: [UInt8] = []
        for _ in 0..<200 where got.count < 15 {
            got += pty.readFromHost()
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(String(decoding: got, as: UTF8.self) == "4006381333931\r\n")
    }

    /// A host that stops reading mid-line: the write times out after 14 bytes. The output's
    /// retry of the same line goes on from byte 15; other bytes first finish the torn line (and
    /// the retry then has nothing left to send). The host sees whole lines, each once (before:
    /// "https://examplhttps://example.org/..." in a rehearsal's OutboxKillTests).
    @Test func aWriteCutShortGoesOnFromWhereItStopped() async throws {
        let pty = try PseudoTerminal()
        struct Gate { var budget = Int.max }
        let gate = Locked(Gate())
        var sys = Syscalls.system
        sys.write = { fd, buffer, count in
            let n = gate.withLock { g -> Int in let n = min(count, g.budget); g.budget -= n; return n }
            if n == 0 { Glibc.errno = EAGAIN; return -1 }
            return Glibc.write(fd, buffer, n)
        }
        sys.poll = { fds, count, timeout in
            // No room while the gate is shut (a host not reading); the real poll otherwise.
            gate.withLock { $0.budget } == 0 ? 0 : Glibc.poll(fds, nfds_t(count), timeout)
        }
        var settings = SerialSettings(baud: 9600)
        settings.writeTimeout = .milliseconds(20)
        let port = try TermiosSerialPort(path: pty.hostPath, settings: settings, syscalls: sys)
        let line = Array("https://example.org/kiosk?id=42\r\n".utf8)
        func host(_ count: Int) async throws -> String {
            var got: [UInt8] = []
            for _ in 0..<500 where got.count < count {
                got += pty.readFromHost()
                try await Task.sleep(for: .milliseconds(2))
            }
            return String(decoding: got, as: UTF8.self)
        }

        gate.withLock { $0.budget = 14 }
        #expect { try port.write(line) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .timedOut && e?.description.contains("14 of 33 bytes written") == true
        }
        gate.withLock { $0.budget = .max }
        try port.write(line) // the output's retry: the same bytes
        #expect(try await host(33) == "https://example.org/kiosk?id=42\r\n")

        gate.withLock { $0.budget = 20 }
        #expect(throws: HardwareError.self) { try port.write(line) }
        gate.withLock { $0.budget = .max }
        try port.write(Array("OK STATUS\r\n".utf8)) // an answer comes first: the torn line is finished before it
        #expect(try await host(44) == "https://example.org/kiosk?id=42\r\nOK STATUS\r\n")
        try port.write(line) // the output's retry: the line is already out whole
        try port.write(Array("OK BEEP\r\n".utf8))
        #expect(try await host(9) == "OK BEEP\r\n", "nothing twice")
        try port.write(line) // the same text read again later goes out
        #expect(try await host(33) == "https://example.org/kiosk?id=42\r\n")
    }

    @Test func anUnpluggedPortIsReopenedWhenItComesBack() async throws {
        // A stable name (like /dev/scand-serial) that points at whichever tty is plugged in.
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("scand-tty-\(UUID().uuidString.prefix(8))").path
        defer { unlink(link) }
        let first = try PseudoTerminal()
        symlink(first.hostPath, link)
        let port = try TermiosSerialPort(path: link, baud: 9600)
        first.hangUp()          // unplugged: the far end and the device node go away
        unlink(link)
        #expect { try port.write(Array("lost?".utf8)) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .disconnected && e?.hint?.contains("0 of 5 bytes written") == true
        }
        #expect { try port.write(Array("again".utf8)) } throws: { e in
            let e = e as? HardwareError
            return e?.operation == "open" && e?.kind == .notFound
        }
        let second = try PseudoTerminal()  // plugged back in
        symlink(second.hostPath, link)
        try port.write(Array("back\r\n".utf8))
        var got: [UInt8] = []
        for _ in 0..<200 where got.count < 6 {
            got += second.readFromHost()
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(String(decoding: got, as: UTF8.self) == "back\r\n")
    }

    @Test func badSettingsAreRejected() {
        #expect(throws: HardwareError.self) { try TermiosSerialPort(path: "/dev/null", baud: 1234) }
        var s = SerialSettings(baud: 9600)
        s.dataBits = 9
        #expect(throws: HardwareError.self) { try TermiosSerialPort(path: "/dev/null", settings: s) }
    }

    @Test func missingPortNamesTheCall() {
        #expect { try TermiosSerialPort(path: "/dev/ttyUSB-none", baud: 9600) } throws: { e in
            let e = e as? HardwareError
            return e?.kind == .notFound && e?.operation == "open" && e?.device == "/dev/ttyUSB-none"
        }
    }
}
