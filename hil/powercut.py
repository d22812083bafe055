#!/usr/bin/env python3
"""The power-cut run of scand's hardware lab, host side (hil/lab.sh powercut calls it).

Boots the lab's guest (Debian's kernel under qemu) again and again on one disk image holding
scand's outbox (ext4 on a virtio disk, cache=directsync: a write the guest saw complete is in
the image). The guest (hil/powercut.sh) runs `scand run` on the simulated board with a button
press every few tenths of a second, results as JSON lines on its second UART with
`output.serial.ack = true`; it makes `cuts` power cuts inside each boot (dm-flakey drops every
write from a random instant on, then the filesystem is mounted again from what reached the
disk) and the host ends each boot by killing qemu (kill -9) at a random instant. A last boot
runs without presses until what was pending went out, then stops scand cleanly.

This side plays the host on the UART: it reads every line and acknowledges each result
(`ACK n`) after a random delay of up to 0.8 s, so that at every cut some results are sent and
not yet acknowledged. The guest marks on the same UART when it (re)starts scand (`#START`) and
when it cut the power (`#CUT`): the stream falls into epochs, one per run of scand.

What the outbox promises, and what is checked here, from outside scand: a result is written
to the UART only after its line in the outbox file was fsync'd (Outbox.add, then the output
sends it), so every result the host has seen was acknowledged as stored. Then:
  - loss: a result seen and not acknowledged by the host (no ACK sent before the cut) must be
    sent again in the next epoch, before any new result; every sequence number from 1 to the
    highest seen appears (a stored result never delivered leaves a gap); a sequence number
    always carries the same bytes (a stored result forgotten would let its number be reused);
    the final outbox on the disk holds nothing pending.
  - order: within an epoch the sequence numbers rise strictly (what was pending goes first).
  - duplicates: a result appears at most once per epoch; one the host had acknowledged may come
    again once after a cut (its `D` line was not yet on the disk): counted.
Exit status 0 when there is no loss and no order or duplicate violation.
"""
import argparse, heapq, json, os, random, re, shutil, socket, subprocess, sys, threading, time


def log(msg):
    print(msg, flush=True)


class UartHost:
    """The host end of the result UART: reads lines, acknowledges results, notes epochs."""

    def __init__(self, path, rng, ack_delay, record):
        self.path, self.rng, self.ack_delay, self.record = path, rng, ack_delay, record
        self.sock = None
        self.lock = threading.Lock()
        self.acks = []              # heap of (due, seq, epoch)
        self.epoch = None           # the epoch's tag, e.g. "3.2"
        self.events = []            # ("line", tag, seq, bytes) / ("ack", tag, seq) / ("start"|"cut", tag) / ("torn", tag, bytes)
        self.started = threading.Event()
        self.last_start = None
        self.up = None
        self.closed = threading.Event()

    def connect(self, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.path)
                self.sock = s
                threading.Thread(target=self._read, daemon=True).start()
                threading.Thread(target=self._acker, daemon=True).start()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"no UART socket at {self.path}")

    def _note(self, *event):
        self.events.append(event)
        self.record.write(json.dumps([time.time()] + list(event)) + "\n")
        self.record.flush()

    def _read(self):
        buf = b""
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._line(line.rstrip(b"\r"))
        with self.lock:
            if buf.strip():
                self._note("torn", self.epoch, buf.decode("utf-8", "replace"))
            self.acks = []
        self.closed.set()

    def _line(self, line):
        text = line.decode("utf-8", "replace")
        with self.lock:
            m = re.match(r"^#(START|CUT|END|UP) ?(.*)$", text)
            if m:
                kind = m.group(1).lower()
                if kind == "up":                  # scand is running: its port is open
                    self.up = m.group(2)
                    return
                # What was scheduled for the epoch that ended is not sent: the host acknowledges
                # only what it saw from the scand it talks to.
                self.acks = []
                if kind == "start":
                    self.epoch = m.group(2)
                    self.last_start = (m.group(2), time.time())
                    self.started.set()
                self._note(kind, m.group(2))
                return
            if not text.startswith("{"):
                # Echo of our own ACK lines by the tty between runs, scand's replies: not results.
                if text.strip() and not text.startswith("ACK") and not text.startswith("OK"):
                    self._note("other", self.epoch, text)
                return
            try:
                seq = int(json.loads(text)["seq"])
            except (ValueError, KeyError, TypeError):
                self._note("torn", self.epoch, text)
                return
            self._note("line", self.epoch, seq, text)
            heapq.heappush(self.acks, (time.time() + self.rng.uniform(0, self.ack_delay), seq, self.epoch))

    def _acker(self):
        while not self.closed.is_set():
            now = time.time()
            send = []
            with self.lock:
                while self.acks and self.acks[0][0] <= now:
                    _, seq, tag = heapq.heappop(self.acks)
                    if tag == self.epoch:
                        send.append((seq, tag))
                for seq, tag in send:
                    try:
                        self.sock.sendall(f"ACK {seq}\r\n".encode())
                        self._note("ack", tag, seq)
                    except OSError:
                        pass
            time.sleep(0.01)


def qemu_command(w, k, share, disk, sock, console, append, cache):
    return ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-smp", "2", "-m", "768",
            "-kernel", f"{w}/vmlinux-{k}", "-initrd", f"{w}/initramfs.gz",
            "-append", f"console=ttyS0 quiet panic=-1 no_timer_check lab=powercut {append}",
            "-nographic", "-no-reboot", "-nodefaults",
            "-serial", f"file:{console}", "-serial", f"unix:{sock},server=on,wait=off",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            "-drive", f"file={disk},format=raw,if=virtio,cache={cache},aio=threads",
            "-virtfs", f"local,path={share},mount_tag=hostshare,security_model=none,id=hs"]


def boot(args, n, mode, cuts, rng, record, kill=True):
    """One boot of the guest; with `kill`, qemu is killed at a random instant once the guest
    started its last run of scand. Returns (host, seconds)."""
    sock = f"{args.work}/uart-{os.getpid()}.sock"
    if os.path.exists(sock):
        os.unlink(sock)
    console = f"{args.work}/console-{n}.log"
    append = f"boot={n} cuts={cuts} press={args.press} mode={mode}"
    t0 = time.time()
    # directsync: a write the guest saw complete is in the image (no volatile cache to lose);
    # for the wear, none: the guest sees a write cache and flushes it on fsync, as on an SD card
    # or eMMC, so that flushes are counted.
    cache = "none" if mode == "wear" else "directsync"
    q = subprocess.Popen(qemu_command(args.lab, args.kernel, args.share, args.disk, sock, console, append, cache),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(f"{args.work}/qemu-{n}.err", "w"))
    host = UartHost(sock, rng, args.ack_delay, record)
    try:
        host.connect()
        if kill:
            # As in the guest: one time in five at a random moment of scand's start-up, else at
            # a random moment after it is up.
            last = f"{n}.{cuts + 1}"
            early = rng.random() < 0.2
            end = time.time() + args.boot_timeout
            def reached():
                return host.last_start and host.last_start[0] == last if early else host.up == last
            while time.time() < end and not reached() and q.poll() is None:
                time.sleep(0.02)
            if not reached():
                # The guest hung (seen once in 210 cuts: a soft lockup of the emulated CPU in
                # the kernel's boot): qemu is killed all the same, the disk keeps what it had.
                q.kill()
                with host.lock:
                    host._note("hung", f"{n}")
                q.wait()
                host.closed.wait(5)
                return host, time.time() - t0
            time.sleep(rng.uniform(0, 3) if early else rng.uniform(0.2, args.max_run))
            q.kill()                       # the power cut: SIGKILL, nothing flushed
            with host.lock:
                host._note("cut", f"{n}.{cuts + 1} (qemu killed)")
        q.wait(timeout=args.boot_timeout)
    finally:
        if q.poll() is None:
            q.kill()
            q.wait()
    host.closed.wait(5)
    return host, time.time() - t0


def analyse(events, final_outbox, logs):
    """The verdict over the whole run: (figures, problems)."""
    epochs = []                                   # [(tag, [(seq, text)], acked set, torn)]
    hung = []                                     # boots whose guest hung (killed all the same)
    current = None
    for e in events:
        kind = e[0]
        if kind == "start":
            current = {"tag": e[1], "lines": [], "acked": set(), "torn": 0, "cut": False}
            epochs.append(current)
        elif kind == "cut" and current is not None:
            current["cut"] = True
        elif kind == "line" and current is not None:
            current["lines"].append((e[2], e[3]))
        elif kind == "ack" and current is not None and e[1] == current["tag"]:
            current["acked"].add(e[2])
        elif kind == "hung":
            hung.append(e[1])
        elif kind == "torn" and current is not None:
            current["torn"] += 1
    problems = []
    text_of = {}                                  # seq -> its line, as first seen
    owed = []                                     # seen, never acknowledged by the host, in order
    acked = set()                                 # the host sent ACK for these
    duplicates = 0
    owed_at_cuts = 0
    for ep in epochs:
        seqs = [s for s, _ in ep["lines"]]
        if len(set(seqs)) != len(seqs):
            problems.append(f"epoch {ep['tag']}: a result twice in one run: {seqs}")
        if any(b <= a for a, b in zip(seqs, seqs[1:])):
            problems.append(f"epoch {ep['tag']}: out of order: {seqs}")
        # What was owed goes first: every result owed must come again before the first new one.
        first_new = next((i for i, s in enumerate(seqs) if s not in text_of), None)
        if first_new is not None:
            missing = [s for s in owed if s not in seqs[:first_new]]
            if missing:
                problems.append(f"epoch {ep['tag']}: LOST {missing}: shown on the UART before a cut, not acknowledged, "
                                f"not sent again before the new result {seqs[first_new]}")
        duplicates += sum(1 for s, t in ep["lines"] if s in acked and text_of.get(s) == t)
        for s, t in ep["lines"]:
            if s in text_of and text_of[s] != t:
                problems.append(f"epoch {ep['tag']}: LOST result {s}: its number came back with other bytes "
                                f"(a stored result was forgotten and its number reused)")
            text_of.setdefault(s, t)
        acked |= ep["acked"]
        owed = [s for s in dict.fromkeys(owed + seqs) if s not in acked]
        if ep["cut"]:
            owed_at_cuts += len(owed)
    allseq = sorted(text_of)
    if allseq:
        gaps = sorted(set(range(1, allseq[-1] + 1)) - set(allseq))
        if gaps:
            problems.append(f"LOST: sequence numbers never delivered: {gaps[:50]}")
    if owed:
        problems.append(f"LOST: never sent again after a cut and acknowledged: {owed}")
    if final_outbox is not None:
        pending = {}
        for line in final_outbox.splitlines():
            p = line.split(" ")
            if len(p) >= 2 and p[0] == "P":
                pending[p[1]] = True
            elif len(p) == 2 and p[0] in "DXK":
                pending.pop(p[1], None)
        if pending:
            problems.append(f"the final outbox still holds pending results {sorted(pending, key=int)}")
    not_stored = sum(l.count("not stored in the outbox") for l in logs)
    skipped = sum(len(re.findall(r"outbox .*: line \d+: .*skipped", l)) for l in logs)
    if not_stored:
        problems.append(f"{not_stored} result(s) logged as not stored in the outbox")
    if skipped:
        problems.append(f"{skipped} damaged outbox line(s) skipped at a start")
    figures = {
        "epochs": len(epochs),
        "cuts": sum(1 for ep in epochs if ep["cut"]),
        "results": len(allseq),
        "deliveries": sum(len(ep["lines"]) for ep in epochs),
        "sent, not acknowledged at a cut (owed again)": owed_at_cuts,
        "duplicates (acknowledged, sent once more after a cut)": duplicates,
        "torn lines at a cut": sum(ep["torn"] for ep in epochs),
        "losses": sum(1 for p in problems if "LOST" in p),
        "boots hung (killed all the same)": len(hung),
    }
    return figures, problems


def self_test():
    """The judge against made-up runs: a clean one passes, each way of losing a result fails."""
    def line(seq, text="x"):
        return ("line", None, seq, f'{{"seq":{seq},"text":"{text}"}}')

    def run(*epochs):
        events = []
        for tag, items in epochs:
            events.append(("start", tag))
            for item in items:
                if item == "cut":
                    events.append(("cut", tag))
                elif isinstance(item, tuple) and item[0] == "ack":
                    events.append(("ack", tag, item[1]))
                else:
                    events.append(item[:1] + (tag,) + item[2:])
        return analyse(events, "D 9\n", [])

    clean = run(("1.1", [line(1), ("ack", 1), line(2), "cut"]),            # 2 owed at the cut
                ("1.2", [line(2), line(3), ("ack", 2), ("ack", 3), "cut"]),
                ("2.1", [line(3), ("ack", 3), line(4), ("ack", 4)]))          # 3 again: a duplicate
    cases = {
        "owed result not sent again": run(("1.1", [line(1), ("ack", 1), line(2), "cut"]), ("1.2", [line(3), ("ack", 3)])),
        "owed result sent after a new one": run(("1.1", [line(1), "cut"]), ("1.2", [line(2), line(1), ("ack", 1), ("ack", 2)])),
        "a sequence number never seen": run(("1.1", [line(1), ("ack", 1), line(3), ("ack", 3)])),
        "a number reused for another result": run(("1.1", [line(1), ("ack", 1), "cut"]), ("1.2", [line(1, "y"), ("ack", 1)])),
        "twice in one run": run(("1.1", [line(1), line(1), ("ack", 1)])),
        "owed at the end": run(("1.1", [line(1), "cut"]), ("1.2", [])),
    }
    ok = not clean[1] and clean[0]["duplicates (acknowledged, sent once more after a cut)"] == 1 and clean[0]["cuts"] == 2
    if not ok:
        log(f"self-test: a clean run was judged {clean}")
    for name, (figures, problems) in cases.items():
        if not problems:
            log(f"self-test: not caught: {name}")
            ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lab", required=True, help="the lab's work folder (LAB_DIR)")
    ap.add_argument("--kernel", required=True, help="the kernel's ABI name, e.g. 6.1.0-56-amd64")
    ap.add_argument("--boots", type=int, default=1, help="boots ended by killing qemu")
    ap.add_argument("--cuts", type=int, default=4, help="dm-flakey cuts inside each boot")
    ap.add_argument("--press", default="0.4", help="seconds between button presses")
    ap.add_argument("--max-run", type=float, default=6.0, help="longest run after scand is up before a qemu kill (s)")
    ap.add_argument("--ack-delay", type=float, default=0.8, help="longest delay before the host's ACK (s)")
    ap.add_argument("--boot-timeout", type=float, default=240)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--wear", action="store_true", help="also measure the disk's writes while idle and scanning")
    ap.add_argument("--wear-only", action="store_true", help="only measure the wear (one boot, no cuts)")
    ap.add_argument("--judge", metavar="EVENTS", help="only judge a recorded run (its events.jsonl); without the final boot")
    ap.add_argument("--self-test", action="store_true", help="only check the judge against made-up runs")
    args = ap.parse_args()
    if args.self_test:
        ok = self_test()
        log("power cut judge: self-test " + ("passed" if ok else "FAILED"))
        sys.exit(0 if ok else 1)
    if not self_test():
        log("FAIL the power cut's judge fails its self-test")
        sys.exit(1)
    if args.judge:
        events = [tuple(json.loads(l)[1:]) for l in open(args.judge)]
        figures, problems = analyse(events, None, [])
        # Without the final boot, what the last epoch owed was never given its chance.
        problems = [p for p in problems if not p.startswith("LOST: never sent again after a cut")]
        figures["losses"] = sum(1 for p in problems if "LOST" in p)
        for p in problems:
            log("FAIL " + p)
        log("power cut (judged from the record): " + json.dumps(figures, indent=1))
        sys.exit(1 if problems else 0)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    args.share = f"{args.lab}/share"
    args.work = f"{args.lab}/powercut"
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    shutil.rmtree(f"{args.share}/pc", ignore_errors=True)
    args.disk = f"{args.work}/disk.img"
    with open(args.disk, "wb") as f:
        f.truncate(64 << 20)
    # 4 KiB blocks, as on a board's SD card (mkfs picks 1 KiB for so small a disk).
    subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-L", "scand-state", args.disk], check=True)
    record = open(f"{args.work}/events.jsonl", "w")
    if args.wear_only:
        host, secs = boot(args, 1, "wear", 0, rng, record, kill=False)
        figures = wear(open(f"{args.share}/pc/wear.txt").read(), host.events)
        log("wear: " + json.dumps(figures, indent=1))
        sys.exit(0)
    log(f"power cut: {args.boots} boot(s) killed at random, {args.cuts} dm-flakey cut(s) in each, seed {seed}")
    events = []
    t0 = time.time()
    for n in range(1, args.boots + 1):
        host, secs = boot(args, n, "cut", args.cuts, rng, record)
        events += host.events
        hung = " (the guest hung: killed)" if any(e[0] == "hung" for e in host.events) else ""
        log(f"  boot {n}: {sum(1 for e in host.events if e[0] == 'cut')} cut(s){hung}, {sum(1 for e in host.events if e[0] == 'line')} result line(s), {secs:.1f} s")
    cut_time = time.time() - t0
    host, secs = boot(args, args.boots + 1, "final", 0, rng, record, kill=False)
    events += host.events
    log(f"  final boot: {sum(1 for e in host.events if e[0] == 'line')} result line(s), {secs:.1f} s")
    final = None
    try:
        final = open(f"{args.share}/pc/final.outbox").read()
    except OSError:
        pass
    logs = []
    for name in sorted(os.listdir(f"{args.share}/pc")) if os.path.isdir(f"{args.share}/pc") else []:
        if name.startswith("scand-"):
            logs.append(open(f"{args.share}/pc/{name}", errors="replace").read())
    figures, problems = analyse(events, final, logs)
    if final is None:
        problems.append("the final boot did not leave the outbox (see console logs)")
    fsck = subprocess.run(["e2fsck", "-fn", args.disk], capture_output=True, text=True)
    if fsck.returncode != 0:
        problems.append("e2fsck: the filesystem is not clean after the final unmount:\n" + fsck.stdout[-2000:])
    cuts = figures["cuts"]
    hung = figures["boots hung (killed all the same)"]
    if hung > max(1, args.boots // 5):
        problems.append(f"{hung} of {args.boots} boot(s) hung")
    if cuts < args.boots * (args.cuts + 1) * 4 // 5:
        problems.append(f"{cuts} cut(s) made, {args.boots * (args.cuts + 1)} planned")
    if figures["results"] == 0:
        problems.append("no result came out on the UART: the run proves nothing")
    figures["seconds"] = round(time.time() - t0, 1)
    figures["seconds per cut"] = round(cut_time / max(1, cuts), 1)
    if args.wear:
        host, secs = boot(args, args.boots + 2, "wear", 0, rng, record, kill=False)
        try:
            figures["wear"] = wear(open(f"{args.share}/pc/wear.txt").read(), host.events)
        except OSError:
            problems.append("the wear boot left no figures")
    for p in problems:
        log("FAIL " + p)
    log("power cut: " + json.dumps(figures, indent=1))
    with open(f"{args.work}/figures.json", "w") as f:
        json.dump({"seed": seed, "figures": figures, "problems": problems}, f, indent=1)
    sys.exit(1 if problems else 0)


def wear(text, events):
    """Writes, sectors and flushes of /dev/vda over the idle and the scanning minute."""
    out = {}
    for label in ("idle 60 s", "scanning 60 s"):
        before = [int(x) for x in re.search(label + r": before (.*)", text).group(1).split()]
        after = [int(x) for x in re.search(label + r": after  (.*)", text).group(1).split()]
        d = [b - a for a, b in zip(before, after)]
        out[label] = {"write requests": d[4], "bytes written": d[6] * 512, "flushes": d[14] if len(d) > 14 else None}
    m = re.search(r"scanning 60 s: results (\d+)", text)
    if m:
        n = int(m.group(1))
        out["results while scanning"] = n
        if n:
            s = out["scanning 60 s"]
            out["per result"] = {"bytes written": round(s["bytes written"] / n), "write requests": round(s["write requests"] / n, 2),
                                 "flushes": round(s["flushes"] / n, 2) if s["flushes"] is not None else None}
    return out


if __name__ == "__main__":
    main()
