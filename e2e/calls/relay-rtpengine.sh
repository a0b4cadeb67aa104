#!/usr/bin/env bash
# End to end through a real media relay (issue 38, "which hop lost what"): a SIP call from A to
# B whose media goes through Debian's rtpengine in userspace (--table=-1, no kernel module),
# driven by its ng protocol from a one-call SIP proxy beside it (e2e/calls/relay_call.py), in
# namespace R; A and B in namespaces of their own on R's bridge. The agent runs live in R on the
# bridge (R's address local), as on an SBC or media relay host; tcpdump records the bridge for
# `netquality analyze --calls` afterwards.
#
# A's stream to B loses packets on each hop, each drop counted by nftables, the truth:
#   upstream   A's egress (netdev egress on A's veth), before the relay;
#   relay      R's output (inet output) toward B: gone inside the relay host, never on the wire;
#   downstream B's ingress (netdev ingress on B's veth), after the capture point.
# B counts what it receives (RFC 3550 A.3) and reports it to the relay every second (the last
# report after A's media stopped); rtpengine forwards it. The call's hop for A's SSRC must say
# upstream, relay and downstream lost exactly as nftables counted, live and offline; B's stream
# to A (nothing dropped) 0, 0 and 0. rtpengine's own `query` statistics are printed beside.
# Round trips per hop: each end delays its own packets (10 ms each way at A, 15 ms at B) and
# sends sender reports whose blocks echo the other end's (LSR, DLSR); each hop's upstream and
# downstream round trip must equal the capture's own for the last report (relay_call.py
# round-trips, matched on the same hop), none below its link's delay, live and offline.
#
#   e2e/calls/relay-rtpengine.sh   (root; skips with a reason otherwise; KEEP=1 keeps the files)
#   NETQUALITY=path uses that binary instead of building; SECONDS_OF_MEDIA (default 20).
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e media relay (rtpengine)" "network namespaces, nftables and live capture"
scripts/bootstrap.sh rtpengine-daemon tcpdump nftables iproute2 python3
if [ -n "${NETQUALITY:-}" ]; then
  netquality=$NETQUALITY
else
  build_product netquality
  netquality=$PWD/.build/debug/netquality
fi

tag=nqr$$
relay=10.207.0.1 addr_a=10.207.0.2 addr_b=10.207.0.3
ns_r=${tag}r ns_a=${tag}a ns_b=${tag}b
bridge=${tag}br
port=19488
media_seconds=${SECONDS_OF_MEDIA:-20}
# Each end's own link delay, each way (relay_call.py holds its packets: no netem here): the
# relay's round trip to A is about 20 ms, to B about 30 ms.
delay_a_ms=10 delay_b_ms=15
work=$(mktemp -d)
pids=()
failures=0

cleanup() {
  stop_process "${pids[@]}"
  for ns in "$ns_a" "$ns_b" "$ns_r"; do ip netns del "$ns" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# --- the network: A and B on R's bridge --------------------------------------------------------
for ns in "$ns_r" "$ns_a" "$ns_b"; do
  ip netns add "$ns"
  in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
done
ip link add "${tag}a0" type veth peer name "${tag}ra"
ip link add "${tag}b0" type veth peer name "${tag}rb"
ip link set "${tag}a0" netns "$ns_a"
ip link set "${tag}b0" netns "$ns_b"
ip link set "${tag}ra" netns "$ns_r"
ip link set "${tag}rb" netns "$ns_r"
ip -n "$ns_r" link add "$bridge" type bridge
ip -n "$ns_r" link set "${tag}ra" master "$bridge"
ip -n "$ns_r" link set "${tag}rb" master "$bridge"
ip -n "$ns_r" addr add "$relay/24" dev "$bridge"
ip -n "$ns_a" addr add "$addr_a/24" dev "${tag}a0"
ip -n "$ns_b" addr add "$addr_b/24" dev "${tag}b0"
for pair in "$ns_a ${tag}a0" "$ns_b ${tag}b0" "$ns_r ${tag}ra" "$ns_r ${tag}rb" "$ns_r $bridge"; do
  set -- $pair
  ip -n "$1" link set "$2" up
done
wait_until 15 "A to reach the relay" in_ns "$ns_a" ping -c1 -W1 "$relay"
wait_until 15 "B to reach the relay" in_ns "$ns_b" ping -c1 -W1 "$relay"

# --- the drops: counted everywhere, dropping only while the phase is on --------------------------
# Only A's RTP to B (media port 20000 at both ends, rtpengine's ports 30000-30100); RTCP and SIP
# pass. Each rule counts what it sees ("*_seen") and drops a random share ("*_dropped").
counting_table() {  # counting_table NS FAMILY TABLE HOOK [DEVICE]: counters seen, dropped, one chain
  local device=""
  [ -n "${5:-}" ] && device="device \"$5\""
  printf '%s\n' "add table $2 $3" "add counter $2 $3 seen" "add counter $2 $3 dropped" \
    "add chain $2 $3 $4 { type filter hook $4 $device priority 0; }" | in_ns "$1" nft -f -
}
counting_table "$ns_a" netdev nqup egress "${tag}a0"
counting_table "$ns_r" inet nqrelay output
counting_table "$ns_b" netdev nqdown ingress "${tag}b0"
set_drops() {  # on | off
  local up="ip daddr $relay udp sport 20000 udp dport 30000-30100"
  local out="ip daddr $addr_b udp sport 30000-30100 udp dport 20000"
  local down="ip saddr $relay udp sport 30000-30100 udp dport 20000"
  local a="" r="" b=""
  if [ "$1" = on ]; then
    a="add rule netdev nqup egress $up numgen random mod 100 < 5 counter name dropped drop"
    r="add rule inet nqrelay output $out numgen random mod 100 < 3 counter name dropped drop"
    b="add rule netdev nqdown ingress $down numgen random mod 100 < 4 counter name dropped drop"
  fi
  printf '%s\n' "flush chain netdev nqup egress" "add rule netdev nqup egress $up counter name seen" "$a" \
    | in_ns "$ns_a" nft -f -
  printf '%s\n' "flush chain inet nqrelay output" "add rule inet nqrelay output $out counter name seen" "$r" \
    | in_ns "$ns_r" nft -f -
  printf '%s\n' "flush chain netdev nqdown ingress" "add rule netdev nqdown ingress $down counter name seen" "$b" \
    | in_ns "$ns_b" nft -f -
}
set_drops off
counted() {  # counted NS FAMILY TABLE NAME
  in_ns "$1" nft -j list counter "$2" "$3" "$4" | python3 -c \
    "import json, sys; print([o['counter'] for o in json.load(sys.stdin)['nftables'] if 'counter' in o][0]['packets'])"
}

# --- the relay host: rtpengine, the proxy, the agent, the capture -------------------------------
spawn ip netns exec "$ns_r" rtpengine --foreground --log-stderr --table=-1 --interface="$relay" \
  --listen-ng=127.0.0.1:2223 --port-min=30000 --port-max=30100 --log-level=5 \
  >"$work/rtpengine.log" 2>&1
pids+=($!)
wait_until 15 "rtpengine to listen for ng" in_ns "$ns_r" sh -c "ss -lun | grep -q '127.0.0.1:2223'"
# A 32 MiB ring (-B, KiB): the capture's own drops (a CI run lost 4 packets of 4,000 on a busy
# machine) are counted by tcpdump and checked below, but better not had.
spawn ip netns exec "$ns_r" tcpdump -i "$bridge" -B 32768 --immediate-mode -U -w "$work/relay.pcap" udp \
  2>"$work/tcpdump.log"
pids+=($!)
spawn ip netns exec "$ns_r" "$netquality" run --interface "$bridge" --local "$relay/32" \
  --listen "127.0.0.1:$port" 2>"$work/agent.log"
pids+=($!)
wait_until 30 "the agent to answer /-/ready" in_ns "$ns_r" python3 -c \
  "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/-/ready', timeout=1)" \
  || { cat "$work/agent.log"; exit 1; }
wait_until 10 "tcpdump to listen" grep -q "listening on" "$work/tcpdump.log"
spawn ip netns exec "$ns_r" python3 e2e/calls/relay_call.py proxy "$relay" 2223 "$addr_a" \
  "$addr_b" "$work/rtpengine.json" >"$work/proxy.log" 2>&1
proxy_pid=$!
pids+=("$proxy_pid")
wait_until 10 "the proxy to listen" in_ns "$ns_r" sh -c "ss -lun | grep -q '$relay:5060'"

# --- the call ----------------------------------------------------------------------------------
spawn ip netns exec "$ns_b" python3 e2e/calls/relay_call.py callee "$addr_b" "$relay" \
  "$media_seconds" "$work/b.json" "$delay_b_ms" >"$work/b.log" 2>&1
callee_pid=$!
pids+=("$callee_pid")
wait_until 10 "B to listen for SIP" in_ns "$ns_b" sh -c "ss -lun | grep -q '$addr_b:5060'"
spawn ip netns exec "$ns_a" python3 e2e/calls/relay_call.py caller "$addr_a" "$relay" \
  "$media_seconds" "$work/a.json" "$delay_a_ms" >"$work/a.log" 2>&1
caller_pid=$!
pids+=("$caller_pid")
# The drops from the moment A's media reaches B through the relay until 3 s before it stops (a
# lost first or last packet is invisible to sequence numbers on every hop alike).
egress_seen() { [ "$(counted "$ns_b" netdev nqdown seen)" -gt 0 ]; }
wait_until 15 "A's media to reach B through the relay" egress_seen
set_drops on
started=$(date +%s.%N)
sleep "$(python3 -c "print(max(0, $media_seconds - 4 - ($(date +%s.%N) - $started)))")"  # the phase's length
set_drops off
wait_exit $((media_seconds + 30)) "$caller_pid" || { echo "FAIL the caller did not finish"; failures=$((failures + 1)); }
wait_exit 15 "$callee_pid" || { echo "FAIL the callee did not finish"; failures=$((failures + 1)); }
wait_exit 15 "$proxy_pid" || { echo "FAIL the proxy did not finish"; failures=$((failures + 1)); }
for log in a b proxy; do
  [ -s "$work/$log.log" ] && sed "s/^/  $log: /" "$work/$log.log"
done
call_recorded() {
  in_ns "$ns_r" python3 -c "
import json, sys, urllib.request
d = json.load(urllib.request.urlopen('http://127.0.0.1:$port/api/v1/calls', timeout=2))
sys.exit(0 if d['calls'] else 1)"
}
wait_until 20 "the agent to record the call" call_recorded || true
in_ns "$ns_r" python3 -c "
import urllib.request
print(urllib.request.urlopen('http://127.0.0.1:$port/api/v1/calls', timeout=5).read().decode())" \
  >"$work/live-calls.json"
in_ns "$ns_r" python3 -c "
import urllib.request
print(urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=5).read().decode())" \
  >"$work/metrics.txt"
stop_process "${pids[@]}"
pids=()
run_for 120 "$netquality" analyze "$work/relay.pcap" --calls --format json --local "$relay/32" \
  >"$work/calls.json"
# The history's columns and the filter by segment (`analyze --db`, then `netquality calls`).
run_for 120 "$netquality" analyze "$work/relay.pcap" --local "$relay/32" --db "$work/history.db" \
  >/dev/null
run_for 60 "$netquality" calls --db "$work/history.db" --from 0 --lost-in relay --format json \
  >"$work/lost-in-relay.json"
# The round trips' truth, from the capture: each report matched with the sender report it
# echoes on the same hop (relay_call.py round-trips: RFC 3550 section 6.4.1).
python3 e2e/calls/relay_call.py round-trips "$work/relay.pcap" >"$work/round-trips.json"
# What the capture itself holds of each stream: the truth for `analyze`, which reads only it.
python3 e2e/calls/relay_call.py gaps "$work/relay.pcap" >"$work/gaps.json"
grep -E "captured|dropped" "$work/tcpdump.log" | sed 's/^/  tcpdump: /'
capture_dropped=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel$/\1/p' "$work/tcpdump.log")

# --- the checks ---------------------------------------------------------------------------------
up=$(counted "$ns_a" netdev nqup dropped)
inside=$(counted "$ns_r" inet nqrelay dropped)
down=$(counted "$ns_b" netdev nqdown dropped)
echo "  nftables drops of A's stream: upstream $up, relay $inside, downstream $down"
python3 - "$work" "$up" "$inside" "$down" "$delay_a_ms" "$delay_b_ms" "${capture_dropped:-0}" <<'PY' \
  || failures=$((failures + 1))
import json, statistics, sys
work, up, inside, down, delay_a, delay_b, capture_dropped = sys.argv[1], *map(int, sys.argv[2:8])
a, b = json.load(open(f"{work}/a.json")), json.load(open(f"{work}/b.json"))
failed = []
def check(ok, text):
    print(("ok   " if ok else "FAIL ") + text)
    if not ok:
        failed.append(text)
check(b["lost"] == up + inside + down,
      f"B lost {b['lost']} of A's {a['sent']} = the drops of all three hops {up + inside + down}")
check(a["lost"] == 0, f"A lost {a['lost']} of B's {b['sent']} (nothing dropped that way)")
# Each stream's gaps in the capture: A's in (from A) and out (to B), B's in and out; on the wire
# they are the nftables drops before the capture point.
gaps = json.load(open(f"{work}/gaps.json"))
def captured(ssrc, end, outward):
    found = [g["lost"] for key, g in gaps.items() if g["ssrc"] == ssrc
             and key.split(">")[1 if outward else 0].split(":")[0] == end]
    return found[0] if len(found) == 1 else None
in_a, out_a = captured(a["ssrc"], "10.207.0.2", False), captured(a["ssrc"], "10.207.0.3", True)
in_b, out_b = captured(b["ssrc"], "10.207.0.3", False), captured(b["ssrc"], "10.207.0.2", True)
check(None not in (in_a, out_a, in_b, out_b), f"capture: the call's four RTP streams ({len(gaps)} found)")
in_a, out_a, in_b, out_b = (v or 0 for v in (in_a, out_a, in_b, out_b))
missing = (in_a - up) + (out_a - up - inside) + in_b + out_b
check(missing == 0 or 0 < missing <= capture_dropped,
      f"capture: gaps A in {in_a}, A out {out_a}, B in {in_b}, B out {out_b}; {missing} packets of the "
      f"wire missing from it, tcpdump counted {capture_dropped} dropped by kernel")
# An analysis of the file is checked against what the file holds (the same as nftables when the
# capture missed nothing); the live agent always against nftables.
expected = {
    "live /api/v1/calls": ((up, inside, down), (0, 0, 0), up + inside),
    "analyze --calls": ((in_a, max(0, out_a - in_a), b["lost"] - out_a),
                        (in_b, max(0, out_b - in_b), max(0, a["lost"] - out_b)), out_a),
}
expected_from = {"live /api/v1/calls": "nftables", "analyze --calls": "the capture"}
# The capture's round trips by (reporter, reported SSRC), in capture order.
round_trips = {(who, int(ssrc)): values
               for who, by_ssrc in json.load(open(f"{work}/round-trips.json")).items()
               for ssrc, values in by_ssrc.items()}
# The delay is on the wire: no round trip to an end below twice its delay.
for reporter, delay in (("10.207.0.2", delay_a), ("10.207.0.3", delay_b)):
    values = [v for (who, _), vs in round_trips.items() if who == reporter for v in vs]
    check(len(values) >= 5 and min(values) >= 2 * delay,
          f"capture: {len(values)} round trips to {reporter}, min {values and min(values)} ms, median "
          f"{values and statistics.median(values)} ms, none below its link's 2 x {delay} ms")
rows, rtt_rows = [], []
for source, path in (("live /api/v1/calls", "live-calls.json"), ("analyze --calls", "calls.json")):
    calls = json.load(open(f"{work}/{path}")).get("calls", [])
    sip = [c for c in calls if c["kind"] == "sip"]
    check(len(sip) == 1 and len(calls) == 1, f"{source}: one SIP call ({[c['kind'] for c in calls]})")
    if not sip:
        continue
    call = sip[0]
    check(call["stream_count"] == 4, f"{source}: the call holds both legs' streams ({call['stream_count']} of 4)")
    hops = {h["ssrc"]: h for h in call.get("hops", [])}
    forward, backward = hops.get(a["ssrc"]), hops.get(b["ssrc"])
    figures = lambda h: (h["upstream_lost"], h["relay_lost"], h["downstream_lost"]) if h else None
    want_forward, want_backward, want_gaps = expected[source]
    check(forward is not None and forward["from"] == "10.207.0.2" and forward["to"] == "10.207.0.3"
          and figures(forward) == want_forward,
          f"{source}: A's stream through the relay lost upstream, inside, downstream {figures(forward)} "
          f"= {expected_from[source]} {want_forward}")
    check(figures(backward) == want_backward,
          f"{source}: B's stream lost {figures(backward)} = {expected_from[source]} {want_backward}")
    egress = [s for s in call["streams"] if s["ssrc"] == a["ssrc"] and s["direction"] == "tx"]
    check(bool(egress) and egress[0]["far_end_lost"] == b["lost"] and egress[0]["lost"] == want_gaps,
          f"{source}: the egress stream's gaps {egress and egress[0]['lost']} = {expected_from[source]}'s "
          f"{want_gaps}, B's reported loss {egress and egress[0]['far_end_lost']} = B's own count {b['lost']}")
    rows.append((source, figures(forward), figures(backward)))
    # Round trips per hop: the last report's, as the capture gives it.
    for name, hop, up_key, down_key in (("A's", forward, ("10.207.0.2", b["ssrc"]), ("10.207.0.3", a["ssrc"])),
                                        ("B's", backward, ("10.207.0.3", a["ssrc"]), ("10.207.0.2", b["ssrc"]))):
        for field, key in (("upstream_rtt_ms", up_key), ("downstream_rtt_ms", down_key)):
            truth = round_trips.get(key, [None])[-1]
            value = hop and hop.get(field)
            check(truth is not None and value is not None and abs(value - truth) <= 0.05,
                  f"{source}: {name} hop {field} {value and round(value, 3)} = the capture's last {truth} ms +- 0.05")
        total = hop and hop.get("end_to_end_rtt_ms")
        check(total is not None and abs(total - hop["upstream_rtt_ms"] - hop["downstream_rtt_ms"]) < 0.01,
              f"{source}: {name} hop end_to_end_rtt_ms {total and round(total, 2)} = upstream + downstream")
        rtt_rows.append((f"{source}, {name} hop", hop and hop.get("upstream_rtt_ms"),
                         hop and hop.get("downstream_rtt_ms"), total))
import sqlite3
stored = sqlite3.connect(f"{work}/history.db").execute(
    "SELECT id, upstream_lost, relay_lost, downstream_lost FROM calls").fetchall()
analysed = json.load(open(f"{work}/calls.json")).get("calls", [])
# The call's columns sum its hops (A's and B's).
offline = tuple(x + y for x, y in zip(*expected["analyze --calls"][:2]))
check(len(stored) == 1 and stored[0][1:] == offline,
      f"history: the call's columns upstream_lost, relay_lost, downstream_lost "
      f"{stored and stored[0][1:]} = the capture's {offline}")
found = [c["id"] for c in json.load(open(f"{work}/lost-in-relay.json"))]
check(found == [c["id"] for c in analysed] and len(found) == 1,
      f"netquality calls --lost-in relay: {found} = the call")
# The bounded series: every ended call's hops summed per segment, A's stream's being the only
# loss (B's lost nothing).
segments = {}
for line in open(f"{work}/metrics.txt"):
    if line.startswith("netquality_call_hop_lost_packets_total{"):
        segments[line.split('segment="')[1].split('"')[0]] = float(line.split()[-1])
check((segments.get("upstream"), segments.get("relay"), segments.get("downstream")) == (up, inside, down),
      f"/metrics: netquality_call_hop_lost_packets_total by segment {segments} = nftables "
      f"({up}, {inside}, {down})")
query = json.load(open(f"{work}/rtpengine.json")).get("query", {})
print("\n== A's stream, lost per hop")
print(f"  {'source':28} {'upstream':>9} {'relay':>9} {'downstream':>11}")
print(f"  {'nftables (truth)':28} {up:>9} {inside:>9} {down:>11}")
if missing:
    print(f"  {'the capture (analyze truth)':28} {in_a:>9} {out_a - in_a:>9} {b['lost'] - out_a:>11}")
for source, forward, _ in rows:
    if forward:
        print(f"  {source:28} {forward[0]:>9} {forward[1]:>9} {str(forward[2]):>11}")
print("\n== round trips from the relay, ms: to the sender / to the receiver / end to end")
for source, upstream, downstream, total in rtt_rows:
    show = lambda v: "-" if v is None else f"{v:.1f}"
    print(f"  {source:40} {show(upstream):>7} {show(downstream):>7} {show(total):>7}")
print("\n== rtpengine's own statistics (ng query; it does not split loss by hop)")
for tag, leg in (query.get("tags") or {}).items():
    for media in leg.get("medias", []):
        for stream in media.get("streams", []):
            stats = stream.get("stats", {})
            print(f"  leg {tag}: endpoint {stream.get('endpoint', {}).get('address')}:"
                  f"{stream.get('endpoint', {}).get('port')} packets {stats.get('packets')} "
                  f"errors {stats.get('errors')}")
sys.exit(1 if failed else 0)
PY
if [ "$failures" -gt 0 ]; then
  echo "media relay (rtpengine): checks failed"
  exit 1
fi
echo "all media-relay checks passed"
