#!/usr/bin/env python3
"""Two headless Chromium instances, each in its own network namespace, call each other with
audio and video from their fake devices; this script drives both over the DevTools protocol
(--remote-debugging-pipe: no port, no network), signals the call itself, cuts video on A's
egress with nftables on a schedule, and polls both browsers' getStats() on the 2 s grid.

  chromium_call.py WORKDIR NS_A NS_B IFACE_A CODEC SCHEDULE

SCHEDULE is a list of phases "name:seconds[:action]" separated by commas, action one of
  blackout            drop every video packet (media and RTX) A sends
  loss=N              drop N % of A's video packets at random (nftables numgen)
Writes WORKDIR/stats.jsonl (one line per browser per poll: the poll's wall time and the
inbound/outbound RTP stats), WORKDIR/phases.jsonl (each phase's start and end), and
WORKDIR/call.json (payload types, codecs, nftables counters). Every wait has a deadline.
"""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time


class Browser:
    """One Chromium, its DevTools protocol over a pipe (NUL-separated JSON, fd 3 and 4)."""

    def __init__(self, name, namespace, work):
        self.name = name
        log = open(os.path.join(work, f"chromium-{name}.log"), "w")
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream", f"--user-data-dir={work}/profile-{name}",
            "--remote-debugging-pipe", "--disable-features=WebRtcHideLocalIpsWithMdns",
            "--autoplay-policy=no-user-gesture-required", "--no-first-run",
            "--no-default-browser-check", "--mute-audio", "about:blank",
        ]
        command = "exec chromium " + " ".join(flags) + " 3<&0 4>&1 </dev/null >&2"
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", namespace, "sh", "-c", command],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, bufsize=0)
        self.next_id = 0
        self.replies = {}
        self.cond = threading.Condition()
        self.lock = threading.Lock()
        self.session = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            chunk = self.process.stdout.read(65536)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                reply = json.loads(message)
                if "id" in reply:
                    with self.cond:
                        self.replies[reply["id"]] = reply
                        self.cond.notify_all()

    def send(self, method, params=None, session=True, timeout=20):
        with self.lock:
            self.next_id += 1
            ident = self.next_id
            message = {"id": ident, "method": method, "params": params or {}}
            if session and self.session:
                message["sessionId"] = self.session
            self.process.stdin.write(json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        with self.cond:
            while ident not in self.replies:
                left = deadline - time.time()
                if left <= 0:
                    raise TimeoutError(f"{self.name}: {method} unanswered after {timeout} s")
                self.cond.wait(left)
            reply = self.replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{self.name}: {method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url):
        target = self.send("Target.createTarget", {"url": url}, session=False)["targetId"]
        self.session = self.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}, session=False
        )["sessionId"]
        deadline = time.time() + 20
        while self.eval("document.readyState === 'complete' && typeof start === 'function'") is not True:
            if time.time() > deadline:
                raise TimeoutError(f"{self.name}: the page did not load")
            time.sleep(0.1)

    def eval(self, expression, timeout=20):
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            timeout=timeout)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{self.name}: {expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass


def nft(namespace, *words):
    return subprocess.run(
        ["ip", "netns", "exec", namespace, "nft", *words], check=True, capture_output=True,
        text=True, timeout=10).stdout


def main():
    work, ns_a, ns_b, iface_a, codec, schedule = sys.argv[1:7]
    page = "file://" + os.path.abspath(os.path.join(os.path.dirname(__file__), "chromium_call_page.html"))
    a = Browser("a", ns_a, work)
    b = Browser("b", ns_b, work)
    info = {"codec": codec}
    try:
        for browser in (a, b):
            browser.open(page)
        info["video_codecs_a"] = a.eval("videoCodecs()")
        if codec.lower() != "vp8" and not any(c.lower() == "video/" + codec.lower() for c in info["video_codecs_a"]):
            info["skipped"] = f"this Chromium has no {codec} encoder"
            json.dump(info, open(os.path.join(work, "call.json"), "w"), indent=1)
            return 3
        for browser in (a, b):
            browser.eval(f"start('{codec}')")
        offer = a.eval("offer()")
        answer = b.eval(f"answer({json.dumps(offer)})")
        a.eval(f"accept({json.dumps(answer)})")
        # The video payload types B accepted (media and RTX): what the drop rules match.
        rtpmap = dict(re.findall(r"a=rtpmap:(\d+) ([\w-]+)/", answer))
        media = [pt for pt, name in rtpmap.items() if name.lower() == codec.lower()]
        rtx = [pt for pt, apt in re.findall(r"a=fmtp:(\d+) apt=(\d+)", answer) if apt in media]
        video_types = sorted(set(media + rtx), key=int)
        info.update(offer=offer, answer=answer, video_payload_types=video_types, media_payload_types=media,
                    rtx_payload_types=rtx)
        # Counters of every video packet A sends, then the impairment rules after them.
        nft(ns_a, "add", "table", "netdev", "nqvideo")
        nft(ns_a, "add", "chain", "netdev", "nqvideo", "egress",
            f'{{ type filter hook egress device "{iface_a}" priority 0; }}')
        # RTP (version 2) whose payload type (the low 7 bits of the second byte) is video.
        match = ["udp", "length", ">", "20", "@th,64,2", "2", "@th,73,7", "{", ", ".join(video_types), "}"]
        nft(ns_a, "add", "rule", "netdev", "nqvideo", "egress", *match, "counter", "comment", '"sent"')

        phases = []
        stop = threading.Event()
        stats_file = open(os.path.join(work, "stats.jsonl"), "w")

        def poll():
            # On the 2 s grid of wall-clock time, as the agent ticks.
            next_tick = (int(time.time()) // 2 + 1) * 2
            while not stop.is_set():
                delay = next_tick - time.time()
                if delay > 0 and stop.wait(delay):
                    break
                for browser in (a, b):
                    started = time.time()
                    try:
                        stats = json.loads(browser.eval("stats()", timeout=5))
                    except Exception as error:  # a slow poll is noted, not fatal
                        stats = {"error": str(error)}
                    stats_file.write(json.dumps({"browser": browser.name, "grid": next_tick,
                                                 "asked": started, "answered": time.time(),
                                                 "stats": stats}) + "\n")
                    stats_file.flush()
                next_tick += 2

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        for phase in schedule.split(","):
            parts = phase.split(":")
            name, seconds = parts[0], float(parts[1])
            action = parts[2] if len(parts) > 2 else ""
            handle = None
            start = time.time()
            if action == "blackout":
                out = nft(ns_a, "-e", "-a", "add", "rule", "netdev", "nqvideo", "egress", *match, "counter", "drop")
                handle = re.search(r"# handle (\d+)", out).group(1)
            elif action.startswith("loss="):
                percent = action.split("=")[1]
                out = nft(ns_a, "-e", "-a", "add", "rule", "netdev", "nqvideo", "egress", *match, "numgen", "random",
                          "mod", "100", "<", percent, "counter", "drop")
                handle = re.search(r"# handle (\d+)", out).group(1)
            time.sleep(max(0, start + seconds - time.time()))
            counters = None
            if handle:
                listing = nft(ns_a, "-a", "list", "chain", "netdev", "nqvideo", "egress")
                line = next(l for l in listing.splitlines() if f"# handle {handle}" in l)
                counters = re.search(r"packets (\d+) bytes (\d+)", line).groups()
                nft(ns_a, "delete", "rule", "netdev", "nqvideo", "egress", "handle", handle)
            phases.append({"name": name, "action": action, "start": start, "end": time.time(),
                           "dropped_packets": int(counters[0]) if counters else 0})
            print(f"--- phase {name} {action} {time.time() - start:.2f} s", flush=True)
        # One more poll after the last phase, then stop.
        time.sleep(max(0, (int(time.time()) // 2 + 1) * 2 + 0.5 - time.time()))
        stop.set()
        poller.join(timeout=10)
        listing = nft(ns_a, "-a", "list", "chain", "netdev", "nqvideo", "egress")
        sent = re.search(r'packets (\d+) bytes \d+ comment "sent"', listing)
        info["video_packets_sent"] = int(sent.group(1)) if sent else None
        info["phases"] = phases
        for browser in (a, b):
            browser.eval("hangup()")
        json.dump(info, open(os.path.join(work, "call.json"), "w"), indent=1)
        return 0
    finally:
        for browser in (a, b):
            browser.close()
        for browser in (a, b):
            stop_browser(browser.process)


def stop_browser(process):
    """Waits for a browser asked to close; then SIGINT, SIGTERM and SIGKILL, each with a
    deadline, so a browser that hangs never holds the stage."""
    for signal_number, seconds in ((None, 5), (signal.SIGINT, 2), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if signal_number is not None:
            try:
                process.send_signal(signal_number)
            except ProcessLookupError:
                return
        try:
            process.wait(timeout=seconds)
            return
        except subprocess.TimeoutExpired:
            continue


if __name__ == "__main__":
    sys.exit(main())
