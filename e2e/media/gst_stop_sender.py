#!/usr/bin/env python3
"""A GStreamer video sender with a stop of known length: 150 frames at 30 fps, then no frame
for 2 s (60 frame times), then 150 frames, on one RTP stream (one SSRC, sequence numbers
running on).

  gst_stop_sender.py CODEC "ENCODER..." "PAYLOADER..." HOST PORT

videotestsrc (is-live: frames paced by the clock) feeds a valve before the encoder; the valve
drops the 60 raw frames after the 150th, so the encoder sees (and the sender sends) no frame
for 2 s. The truth printed at the end: the frames the payloader received (each encoded frame
is one buffer), and the interval between the last frame before the stop and the first after
it as the payloader saw them (the stop plus one frame interval).
"""
import json
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

FRAMES_BEFORE, FRAMES_STOPPED, FRAMES_AFTER = 150, 60, 150


def main():
    codec, encoder, payloader, host, port = sys.argv[1:6]
    Gst.init(None)
    pipeline = Gst.parse_launch(
        "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 "
        f"! valve name=valve drop=false ! videoconvert ! {encoder} ! {payloader} name=pay "
        f"! udpsink host={host} port={port} sync=false async=false")
    valve = pipeline.get_by_name("valve")
    pay = pipeline.get_by_name("pay")
    state = {"in": 0, "frames": 0, "times": [], "closing": False}
    loop = GLib.MainLoop()

    def on_raw(pad, info):
        state["in"] += 1
        # Raw frames 151 ... 210 are dropped before the encoder: 2 s without a frame; and every
        # frame once the sender is closing.
        valve.set_property("drop", state["closing"]
                           or FRAMES_BEFORE < state["in"] <= FRAMES_BEFORE + FRAMES_STOPPED)
        return Gst.PadProbeReturn.OK

    def on_frame(pad, info):
        state["frames"] += 1
        state["times"].append(time.time())
        if state["frames"] >= FRAMES_BEFORE + FRAMES_AFTER:
            GLib.idle_add(loop.quit)
        return Gst.PadProbeReturn.OK

    valve.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_raw)
    pay.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_frame)
    pipeline.set_state(Gst.State.PLAYING)
    GLib.timeout_add_seconds(30, loop.quit)
    loop.run()
    # Close the valve, then give the frames past it 0.2 s to reach the wire before the pipeline
    # stops: a frame the payloader had counted could otherwise be cut off on its way to udpsink
    # (a run counted 306 sent and the capture had 305).
    state["closing"] = True
    valve.set_property("drop", True)
    time.sleep(0.2)
    pipeline.set_state(Gst.State.NULL)
    times = state["times"]
    gap = times[FRAMES_BEFORE] - times[FRAMES_BEFORE - 1] if len(times) > FRAMES_BEFORE else None
    print(json.dumps({"codec": codec, "frames_sent": state["frames"],
                      "stop_seconds": FRAMES_STOPPED / 30, "sender_gap_seconds": gap}))
    return 0 if state["frames"] >= FRAMES_BEFORE + FRAMES_AFTER else 1


if __name__ == "__main__":
    sys.exit(main())
