#!/usr/bin/python3
"""One WebRTC peer for the end-to-end tests: aiortc (Debian's python3-aiortc 1.4.0) sending a
synthetic Opus tone and VP8 video and receiving the other side's, through a TURN relay only.

* Relay only: aiortc 1.4.0 has no `iceTransportPolicy`, so the aioice `Connection` it builds is
  replaced by one created with aioice's `TransportPolicy.RELAY` (aioice 0.8): host candidates are
  still bound (the TURN client needs a socket) but never offered or paired. The script refuses to
  run on if its own description or the remote one carries a candidate other than `typ relay`.
* Signalling by files in `--dir`: the offerer writes `offer.json`, the answerer `answer.json`,
  each atomically (a temporary file renamed), each polled by the other with a deadline. The
  `a=extmap` lines are removed from both descriptions: aiortc 1.4.0 reads bundled audio's
  header-extension id as video's and its DTLS transport dies (`struct.error`).
* Runs for `--duration` seconds or until `--stop-file` exists, then hangs up normally:
  `pc.close()` stops the senders (RTCP BYE, in SRTCP), sends DTLS close_notify and deletes the
  TURN allocation (Refresh, lifetime 0).
* Every second, and once more before hanging up, writes `--stats` (JSON, atomically): its own
  `getStats()` report, and per SSRC what aiortc's receivers counted (getStats() gives one
  inbound entry per receiver, so the RTX stream's entry overwrites the video one's: the
  per-SSRC table is read from the receivers directly), the RTX retransmissions it sent on NACK,
  the NACKs it sent and received, the negotiated payload types and the selected candidate pair.
  getStats() in 1.4.0 has no candidate-pair entry (no currentRoundTripTime): the round trip it
  knows is remote-inbound-rtp `roundTripTime`, from the RTCP receiver reports of the far peer.

    webrtc_peer.py --role offer|answer --dir DIR --turn turn:HOST:PORT --user U --password P
                   --stats FILE [--duration S] [--stop-file FILE] [--fps N]
Exit status 0 after a normal hangup; 1 when signalling, ICE or DTLS failed or timed out.
"""
import argparse
import asyncio
import dataclasses
import datetime
import fractions
import json
import logging
import math
import os
import re
import sys
import time

import numpy
from aioice import Connection
from aioice.ice import TransportPolicy

import aiortc.rtcicetransport
from aiortc import (
    MediaStreamTrack,
    RTCConfiguration,
    RTCIceServer,
    RTCPeerConnection,
    RTCRtpReceiver,
    RTCRtpSender,
    RTCSessionDescription,
)
from aiortc.rtp import RTP_HISTORY_SIZE
from av import AudioFrame, VideoFrame


class RelayOnlyConnection(Connection):
    """aioice's ICE agent with the relay transport policy: only relayed candidates."""

    def __init__(self, *args, **kwargs):
        kwargs["transport_policy"] = TransportPolicy.RELAY
        super().__init__(*args, **kwargs)


aiortc.rtcicetransport.Connection = RelayOnlyConnection

# Counters the stats report does not have, kept by wrapping aiortc's own methods.
COUNTS = {"rtx_sent": 0, "nack_seqs_received": 0, "nack_seqs_unavailable": 0, "nacks_sent": 0,
          "nack_seqs_sent": 0}
_retransmit = RTCRtpSender._retransmit
_send_rtcp_nack = RTCRtpReceiver._send_rtcp_nack


async def counted_retransmit(self, sequence_number):
    COUNTS["nack_seqs_received"] += 1
    packet = self._RTCRtpSender__rtp_history.get(sequence_number % RTP_HISTORY_SIZE)
    if packet is not None and packet.sequence_number == sequence_number:
        COUNTS["rtx_sent"] += 1
    else:
        COUNTS["nack_seqs_unavailable"] += 1
    await _retransmit(self, sequence_number)


async def counted_nack(self, media_ssrc, lost):
    COUNTS["nacks_sent"] += 1
    COUNTS["nack_seqs_sent"] += len(lost)
    await _send_rtcp_nack(self, media_ssrc, lost)


RTCRtpSender._retransmit = counted_retransmit
RTCRtpReceiver._send_rtcp_nack = counted_nack


def log(message):
    print(f"{time.time():.3f} {ROLE}: {message}", file=sys.stderr, flush=True)


class ToneTrack(MediaStreamTrack):
    """A 440 Hz sine, 48 kHz mono, 20 ms frames paced on the wall clock."""

    kind = "audio"
    RATE = 48000
    SAMPLES = 960

    def __init__(self):
        super().__init__()
        self.start = None
        self.pts = 0

    async def recv(self):
        if self.start is None:
            self.start = time.time()
        else:
            self.pts += self.SAMPLES
            wait = self.start + self.pts / self.RATE - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
        t = (numpy.arange(self.SAMPLES) + self.pts) / self.RATE
        samples = (numpy.sin(2 * math.pi * 440 * t) * 8000).astype(numpy.int16).reshape(1, -1)
        frame = AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.pts = self.pts
        frame.sample_rate = self.RATE
        frame.time_base = fractions.Fraction(1, self.RATE)
        return frame


class PatternTrack(MediaStreamTrack):
    """320x240 frames: a moving bar over a gradient with some noise, so VP8 has enough to send
    several packets per frame (a lost packet then costs part of a frame, and NACK/RTX matter)."""

    kind = "video"

    def __init__(self, fps):
        super().__init__()
        self.fps = fps
        self.start = None
        self.count = 0
        self.random = numpy.random.default_rng(1)
        y, x = numpy.mgrid[0:240, 0:320]
        self.base = numpy.stack([(x * 255 // 320), (y * 255 // 240), ((x + y) * 255 // 560)], -1).astype(numpy.uint8)

    async def recv(self):
        if self.start is None:
            self.start = time.time()
        else:
            self.count += 1
            wait = self.start + self.count / self.fps - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
        image = self.base.copy()
        left = (self.count * 8) % 320
        image[:, left:left + 24] = 255
        image[80:160] ^= self.random.integers(0, 48, (80, 320, 3), dtype=numpy.uint8)
        frame = VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts = int(self.count * 90000 / self.fps)
        frame.time_base = fractions.Fraction(1, 90000)
        return frame


def strip_sdp(sdp):
    return "".join(line + "\r\n" for line in sdp.splitlines() if line and not line.startswith("a=extmap"))


def candidate_types(sdp):
    return sorted(set(re.findall(r"^a=candidate:.* typ (\w+)", sdp, re.M)))


def write_atomically(path, text):
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w") as file:
        file.write(text)
    os.replace(temporary, path)


async def poll_file(path, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path):
            with open(path) as file:
                return json.load(file)
        await asyncio.sleep(0.05)
    raise TimeoutError(f"no {path} within {seconds} s")


def plain(value):
    if dataclasses.is_dataclass(value):
        return {k: plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    return value


class Peer:
    def __init__(self, args):
        self.args = args
        server = RTCIceServer(urls=args.turn, username=args.user, credential=args.password)
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[server]))
        self.states = []
        self.frames = {"audio": 0, "video": 0}
        self.consumers = []
        self.failed = asyncio.Event()
        self.connected = asyncio.Event()
        self.remote_sdp = ""

        @self.pc.on("connectionstatechange")
        async def on_state():
            state = self.pc.connectionState
            self.states.append([time.time(), state])
            log(f"connection {state}")
            if state == "connected":
                self.connected.set()
            if state == "failed":
                self.failed.set()

        @self.pc.on("track")
        def on_track(track):
            self.consumers.append(asyncio.ensure_future(self.consume(track)))

    async def consume(self, track):
        try:
            while True:
                await track.recv()
                self.frames[track.kind] += 1
        except Exception:
            pass  # MediaStreamError when the track ends

    async def signal(self):
        args, pc = self.args, self.pc
        offer_path, answer_path = os.path.join(args.dir, "offer.json"), os.path.join(args.dir, "answer.json")
        if args.role == "offer":
            pc.addTrack(ToneTrack())
            pc.addTrack(PatternTrack(args.fps))
            await pc.setLocalDescription(await pc.createOffer())
            self.check_relay("local", pc.localDescription.sdp)
            write_atomically(offer_path, json.dumps({"type": "offer", "sdp": strip_sdp(pc.localDescription.sdp)}))
            answer = await poll_file(answer_path, args.signal_timeout)
            self.remote_sdp = answer["sdp"]
            self.check_relay("remote", answer["sdp"])
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))
        else:
            offer = await poll_file(offer_path, args.signal_timeout)
            self.remote_sdp = offer["sdp"]
            self.check_relay("remote", offer["sdp"])
            await pc.setRemoteDescription(RTCSessionDescription(sdp=offer["sdp"], type="offer"))
            pc.addTrack(ToneTrack())
            pc.addTrack(PatternTrack(args.fps))
            await pc.setLocalDescription(await pc.createAnswer())
            self.check_relay("local", pc.localDescription.sdp)
            write_atomically(answer_path, json.dumps({"type": "answer", "sdp": strip_sdp(pc.localDescription.sdp)}))
        write_atomically(os.path.join(args.dir, f"{args.role}.local.sdp"), pc.localDescription.sdp)

    def check_relay(self, which, sdp):
        types = candidate_types(sdp)
        if types != ["relay"]:
            raise RuntimeError(f"{which} description has candidate types {types}, not relay only")

    def payload_types(self):
        """Negotiated payload types by codec name (from the local description)."""
        found = {}
        for pt, name in re.findall(r"^a=rtpmap:(\d+) ([\w-]+)/", self.pc.localDescription.sdp, re.M):
            found.setdefault(name.lower(), []).append(int(pt))
        return found

    def selected_pair(self):
        try:
            transport = self.pc.getTransceivers()[0].sender.transport.transport
            pairs = transport._connection._nominated
        except Exception:
            return None
        return [{"local_type": p.local_candidate.type,
                 "local": [p.local_candidate.host, p.local_candidate.port],
                 "remote_type": p.remote_candidate.type,
                 "remote": list(p.remote_addr)} for p in pairs.values()]

    async def snapshot(self, final=False):
        report = await self.pc.getStats()
        ssrcs = []
        for receiver in self.pc.getReceivers():
            streams = getattr(receiver, "_RTCRtpReceiver__remote_streams", {})
            rtx = getattr(receiver, "_RTCRtpReceiver__rtx_ssrc", {})
            for ssrc, stream in list(streams.items()):
                ssrcs.append({
                    "direction": "inbound", "kind": receiver.track.kind, "ssrc": ssrc,
                    "rtx": ssrc in rtx, "clock_rate": stream._clockrate,
                    "packets_received": stream.packets_received,
                    "packets_expected": stream.packets_expected if stream.max_seq is not None else 0,
                    "packets_lost": stream.packets_lost if stream.max_seq is not None else 0,
                    "jitter_ms": 1000 * stream.jitter / stream._clockrate,
                })
        for sender in self.pc.getSenders():  # (its track is gone once the far end closed DTLS)
            ssrcs.append({"direction": "outbound", "kind": sender.kind, "ssrc": sender._ssrc,
                          "rtx_ssrc": sender._rtx_ssrc if sender.kind == "video" else None})
        document = {
            "role": self.args.role, "time": time.time(), "final": final,
            "connection_state": self.pc.connectionState, "states": self.states,
            "payload_types": self.payload_types() if self.pc.localDescription else {},
            "remote_has_rtx": bool(re.search(r"^a=rtpmap:\d+ rtx/", self.remote_sdp, re.M)),
            "selected_pair": self.selected_pair(),
            "counts": dict(COUNTS), "frames_decoded": dict(self.frames),
            "ssrcs": ssrcs,
            "stats": {key: plain(value) for key, value in report.items()},
        }
        write_atomically(self.args.stats, json.dumps(document))

    async def run(self):
        args = self.args
        await self.signal()
        done, _ = await asyncio.wait(
            [asyncio.ensure_future(self.connected.wait()), asyncio.ensure_future(self.failed.wait())],
            timeout=args.connect_timeout, return_when=asyncio.FIRST_COMPLETED)
        if not self.connected.is_set():
            raise RuntimeError(f"not connected within {args.connect_timeout} s ({self.pc.connectionState})")
        log(f"selected pair {self.selected_pair()}")
        end = time.time() + args.duration
        next_stats = time.time()
        while time.time() < end and not (args.stop_file and os.path.exists(args.stop_file)):
            if time.time() >= next_stats:
                await self.snapshot()
                next_stats += 1
            await asyncio.sleep(0.05)
        await self.snapshot(final=True)
        log("hanging up")
        hangup = time.time()
        await asyncio.wait_for(self.pc.close(), timeout=10)
        for consumer in self.consumers:
            consumer.cancel()
        with open(self.args.stats) as file:
            document = json.load(file)
        document["hangup"] = {"started": hangup, "closed": time.time(), "state": self.pc.connectionState}
        write_atomically(self.args.stats, json.dumps(document))
        log(f"closed ({self.pc.connectionState})")


def main():
    global ROLE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=["offer", "answer"], required=True)
    parser.add_argument("--dir", required=True, help="signalling directory shared by both peers")
    parser.add_argument("--turn", required=True, help="turn:HOST:PORT")
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--stats", required=True, help="JSON file rewritten every second")
    parser.add_argument("--duration", type=float, default=3600)
    parser.add_argument("--stop-file", help="hang up once this file exists")
    parser.add_argument("--fps", type=float, default=15)
    parser.add_argument("--signal-timeout", type=float, default=30)
    parser.add_argument("--connect-timeout", type=float, default=20)
    args = parser.parse_args()
    ROLE = args.role
    logging.basicConfig(level=logging.WARNING, format="%(created).3f %(name)s %(levelname)s %(message)s")
    logging.getLogger("aioice.turn").setLevel(logging.INFO)
    peer = Peer(args)
    try:
        asyncio.run(asyncio.wait_for(peer.run(), timeout=args.duration + args.signal_timeout + args.connect_timeout + 30))
    except Exception as error:
        log(f"failed: {type(error).__name__}: {error}")
        return 1
    return 0


ROLE = "?"
if __name__ == "__main__":
    sys.exit(main())
