#!/usr/bin/env python3
"""Checks one run of netquality-impair against what its two ends saw (e2e/probes/impair_udp.py)
and against its own seed, for e2e/probes/impair-relay-check.sh.

    impair_check.py PHASE STATS.json LOG.csv CLIENT.json ECHO.json RTT_TOLERANCE_MS

The relay's stats are the truth: the checks compare counts with counts, never a count with the
configured percentage. They assume what the harness sets up: one client sending numbered
packets in order, an echo, and no reordering configured on the way back (backward jitter 0,
reorder 0), so the client sees the forward direction's order.

  * each direction adds up: received = dropped + overflow + oversize + forwarded + queued, and
    nothing overflowed, was too large or failed to send;
  * the packet log agrees with the stats line for line (fates per direction, delay sum, min,
    max);
  * the fates are the seed's: SplitMix64 and the relay's four draws per packet are re-done here
    (ImpairmentDecider.swift), and the dropped, duplicated and held packets of the log are the
    predicted ones; no packet left before its drawn delay;
  * the ends agree with the relay: the echo received forward.forwarded + forward.duplicated;
    the relay received backward what the echo sent; the client received all the relay sent
    back; without copies, missing replies = dropped forward + dropped backward; without loss
    backward, client duplicates = copies made and client late replies = forward.overtaken;
    and in any case the client's missing, duplicate and late replies are exactly those the
    relay's two logs give, packet by packet;
  * the client's mean round trip is within RTT_TOLERANCE_MS of forward + backward mean applied
    delay.
Prints one line of figures, then "ok" lines or "FAIL" lines; exits 1 on any failure.
"""
import csv
import json
import math
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    """NetQualitySynth's SplitMix64, bit for bit."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def unit(self):
        return (self.next() >> 11) / float(1 << 53)


def decisions(seed, direction_index, config, count):
    """The relay's decisions for the first `count` packets of a direction:
    (dropped, drawn delay in ns, held for reorder, duplicated) each."""
    spreader = SplitMix64(seed)
    stream = spreader.next()
    for _ in range(direction_index):
        stream = spreader.next()
    random = SplitMix64(stream)
    result = []
    for _ in range(count):
        loss, duplicate, reorder, jitter = (random.unit() for _ in range(4))
        delay = max(0.0, config["delay_ms"] + config["jitter_ms"] * (2 * jitter - 1))
        held = reorder < config["reorder"]
        if held:
            delay += config["reorder_ms"]
        result.append((loss < config["loss"], math.floor(delay * 1e6 + 0.5), held,
                       duplicate < config["duplicate"]))
    return result


def client_view(rows, sent):
    """What the client must have seen, from the relay's logs alone. The echo answers in the
    order the relay sent forward (originals and copies), so the n-th backward arrival is the
    answer to the n-th forward send; with no reordering backward the client receives the
    backward sends in arrival order."""
    forward_sends = [int(row["arrival_index"]) for row in rows
                     if row["direction"] == "forward" and row["fate"] in ("sent", "duplicated")]
    copies_back = {}
    for row in rows:
        if row["direction"] == "backward" and row["fate"] in ("sent", "duplicated"):
            index = int(row["arrival_index"])
            copies_back[index] = copies_back.get(index, 0) + 1
    answered = set()
    duplicates = late = 0
    highest = -1
    for index, sequence in enumerate(forward_sends):
        for _ in range(copies_back.get(index, 0)):
            if sequence in answered:
                duplicates += 1
                continue
            answered.add(sequence)
            if sequence < highest:
                late += 1
            else:
                highest = sequence
    return {"missing": sent - len(answered), "duplicates": duplicates, "late": late}


def main(phase, stats_path, log_path, client_path, echo_path, tolerance_ms):
    stats = json.load(open(stats_path))
    client = json.load(open(client_path))
    echo = json.load(open(echo_path))
    rows = list(csv.DictReader(open(log_path)))
    failures = []

    def check(condition, text):
        print(("ok   " if condition else "FAIL ") + f"{phase}: {text}")
        if not condition:
            failures.append(text)

    forward, backward = stats["forward"], stats["backward"]
    check(stats["final"] is True, "the stats file is the final one")
    for index, name in enumerate(("forward", "backward")):
        side = stats[name]
        total = (side["dropped"] + side["overflow"] + side["oversize"] + side["forwarded"]
                 + side["queued"])
        check(side["received"] == total and side["overflow"] == side["oversize"] == 0
              and side["send_errors"] == 0 and side["queued"] == 0,
              f"{name}: received {side['received']} = dropped {side['dropped']} + forwarded "
              f"{side['forwarded']}, no overflow, oversize, send error or packet left queued")

        mine = [row for row in rows if row["direction"] == name]
        fates = {}
        for row in mine:
            fates.setdefault(row["fate"], []).append(row)
        counts = {fate: len(fates.get(fate, [])) for fate in ("dropped", "sent", "duplicated")}
        check(counts == {"dropped": side["dropped"], "sent": side["forwarded"],
                         "duplicated": side["duplicated"]},
              f"{name}: log fates {counts} match the stats")
        delays = [int(row["applied_delay_ns"]) for row in fates.get("sent", [])]
        if delays:
            check(abs(sum(delays) / 1e6 - side["delay_sum_ms"]) < 1e-3
                  and min(delays) / 1e6 == side["delay_min_ms"]
                  and max(delays) / 1e6 == side["delay_max_ms"],
                  f"{name}: log delays (sum {sum(delays) / 1e6:.3f} ms) match the stats")

        predicted = decisions(stats["seed"], index, side["config"], side["received"])
        dropped = {int(row["arrival_index"]) for row in fates.get("dropped", [])}
        duplicated = {int(row["arrival_index"]) for row in fates.get("duplicated", [])}
        predicted_dropped = {i for i, decision in enumerate(predicted) if decision[0]}
        predicted_duplicated = {i for i, decision in enumerate(predicted)
                                if decision[3] and not decision[0]}
        predicted_held = sum(1 for decision in predicted if decision[2] and not decision[0])
        check(dropped == predicted_dropped and duplicated == predicted_duplicated
              and side["reorder_held"] == predicted_held,
              f"{name}: the seed's fates ({len(predicted_dropped)} dropped, "
              f"{len(predicted_duplicated)} duplicated, {predicted_held} held)")
        early = [row for row in fates.get("sent", [])
                 if int(row["applied_delay_ns"]) < predicted[int(row["arrival_index"])][1] - 1]
        check(not early, f"{name}: no packet left before its drawn delay ({len(early)} did)")

    check(echo["received"] == forward["forwarded"] + forward["duplicated"],
          f"echo received {echo['received']} = forward forwarded {forward['forwarded']} "
          f"+ duplicated {forward['duplicated']}")
    check(backward["received"] == echo["echoed"],
          f"relay received backward {backward['received']} = echoed {echo['echoed']}")
    check(client["replies"] + client["duplicates"]
          == backward["forwarded"] + backward["duplicated"],
          f"client received {client['replies'] + client['duplicates']} = backward forwarded "
          f"{backward['forwarded']} + duplicated {backward['duplicated']}")
    if forward["duplicated"] + backward["duplicated"] == 0:
        check(client["missing"] == forward["dropped"] + backward["dropped"],
              f"client missing {client['missing']} = dropped {forward['dropped']} forward "
              f"+ {backward['dropped']} backward")
    if backward["dropped"] == 0:
        check(client["duplicates"] == forward["duplicated"] + backward["duplicated"]
              and client["late"] == forward["overtaken"],
              f"client duplicates {client['duplicates']} = copies made, client late "
              f"{client['late']} = forward overtaken {forward['overtaken']}")
    expected = client_view(rows, client["sent"])
    seen = {key: client[key] for key in expected}
    check(seen == expected, f"the client saw {seen}, the relay's logs give {expected}")
    applied = forward["delay_mean_ms"] + backward["delay_mean_ms"]
    residual = client["rtt_mean_ms"] - applied
    check(abs(residual) <= tolerance_ms,
          f"client mean RTT {client['rtt_mean_ms']:.3f} ms - applied {applied:.3f} ms "
          f"= {residual:+.3f} ms (tolerance {tolerance_ms} ms)")

    print(f"figures {phase}: sent {client['sent']}, forward received {forward['received']} "
          f"dropped {forward['dropped']} forwarded {forward['forwarded']} duplicated "
          f"{forward['duplicated']} held {forward['reorder_held']} reordered "
          f"{forward['reordered']} overtaken {forward['overtaken']}; delay forward mean "
          f"{forward['delay_mean_ms']:.3f} min {forward['delay_min_ms']:.3f} max "
          f"{forward['delay_max_ms']:.3f} ms, backward mean {backward['delay_mean_ms']:.3f} "
          f"max {backward['delay_max_ms']:.3f} ms; overdue mean/max forward "
          f"{forward['overdue_mean_ms']:.3f}/{forward['overdue_max_ms']:.3f} backward "
          f"{backward['overdue_mean_ms']:.3f}/{backward['overdue_max_ms']:.3f} ms; client "
          f"RTT mean {client['rtt_mean_ms']:.3f} ms (residual {residual:+.3f}, echo "
          f"turnaround {echo['turnaround_mean_ms']:.3f}), missing {client['missing']}, "
          f"late {client['late']}, duplicates {client['duplicates']}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:6], float(sys.argv[6])))
