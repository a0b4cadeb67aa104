"""The SIP calls of a capture as tshark's SIP dissector sees them, against `netquality analyze
--calls --format json` on the same capture.

    python3 e2e/calls/calls_tshark.py CAPTURE AGENT.json   # prints the table, exit 1 on a mismatch

tshark 4.0 has no voip,calls tap, so the truth is built from its SIP fields (sip.Call-ID,
sip.Method, sip.Status-Code, sip.CSeq.method) and SDP fields, per Call-ID that has an INVITE
(or, for a capture begun mid-call, a response to one):
- the final status: the first 2xx to an INVITE, else the last final response (300-699) to one;
- who sent the first BYE: the caller (the address the first INVITE came from) or the callee;
- the media endpoints its SDP offers and answers name (connection address, media port).
The agent must have the same SIP calls (one per Call-ID, every Call-ID), the same final status,
an end reason that agrees (bye_caller/bye_callee with the BYE's sender, rejected or cancelled
for a failure, capture_end/timeout/no_answer without either), and only streams whose source or
destination one of the call's SDP bodies named; its start (the first message) and its end (the
BYE, or the failure's final response) the same to the microsecond.
"""
import json
import subprocess
import sys

FIELDS = [
    "frame.time_epoch", "ip.src", "ip.dst", "sip.Method", "sip.Status-Code", "sip.CSeq.method",
    "sip.Call-ID", "sdp.connection_info.address", "sdp.media.port",
]


def tshark_calls(capture):
    command = ["tshark", "-r", capture, "-Y", "sip", "-T", "fields", "-E", "separator=\t",
               "-E", "occurrence=a"] + [f"-e{field}" for field in FIELDS]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    calls = {}
    for line in text.splitlines():
        values = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
        epoch, src, dst, method, status, cseq_method, call_id, addresses, ports = values
        time = float(epoch)
        if not call_id:
            continue
        call = calls.setdefault(call_id, {"invite": False, "caller": None, "status": None,
                                          "answered": None, "bye": None, "media": set(),
                                          "start": time, "end": None})
        if method == "INVITE" and not call["invite"]:
            call["invite"], call["caller"] = True, src
        elif cseq_method == "INVITE" and status and not call["invite"]:
            # A capture begun after the INVITE: its response goes to the caller.
            call["invite"], call["caller"] = True, dst
        if status and cseq_method == "INVITE":
            code = int(status.split(",")[0])
            if 200 <= code < 300 and call["answered"] is None:
                call["answered"], call["status"] = True, code
            elif code >= 300 and not call["answered"]:
                call["status"], call["end"] = code, time
        if method == "BYE" and call["bye"] is None:
            call["bye"] = "caller" if src == call["caller"] else "callee"
            call["end"] = time
        address_list = [a for a in addresses.split(",") if a]
        for index, port in enumerate(p for p in ports.split(",") if p):
            if address_list and port != "0":
                address = address_list[min(index, len(address_list) - 1)]
                call["media"].add((address, int(port)))
    return {key: call for key, call in calls.items() if call["invite"]}


def expected_reasons(call):
    if call["answered"]:
        if call["bye"]:
            return {f"bye_{call['bye']}"}
        return {"capture_end", "timeout"}
    if call["status"] is not None:
        return {"rejected", "cancelled"}
    return {"capture_end", "no_answer", "cancelled"}


def compare(capture, agent_document):
    truth = tshark_calls(capture)
    agent = [c for c in agent_document["calls"] if c["kind"] == "sip"]
    problems = []
    by_id = {}
    for call in agent:
        by_id.setdefault(call["call_id"], []).append(call)
    rows = []
    for call_id in sorted(set(truth) | set(by_id)):
        want, got = truth.get(call_id), by_id.get(call_id, [])
        if want is None:
            problems.append(f"{call_id}: the agent has a call tshark does not")
            continue
        if len(got) != 1:
            problems.append(f"{call_id}: the agent has {len(got)} calls, tshark 1")
            rows.append((call_id, want["status"], "-", want["bye"] or "-", "-", "-"))
            continue
        call = got[0]
        reasons = expected_reasons(want)
        streams = call["streams"]
        unbound = [s for s in streams
                   if (s["src"], s["src_port"]) not in want["media"]
                   and (s["dst"], s["dst_port"]) not in want["media"]]
        rows.append((call_id, want["status"], call["final_status"], want["bye"] or "-",
                     call["end_reason"], f"{len(streams) - len(unbound)}/{len(streams)}"))
        if call["final_status"] != want["status"]:
            problems.append(f"{call_id}: final status {call['final_status']}, tshark {want['status']}")
        if call["end_reason"] not in reasons:
            problems.append(f"{call_id}: end {call['end_reason']}, tshark says {sorted(reasons)}")
        if unbound:
            problems.append(f"{call_id}: streams no SDP of the call names: {unbound}")
        # The start (the first message seen) and the end (the BYE, or the final failure) to the
        # microsecond of the capture's timestamps.
        if abs(call["start"] - want["start"]) > 1e-6:
            problems.append(f"{call_id}: start {call['start']}, tshark {want['start']}")
        if want["end"] is not None and call["end_reason"] in ("bye_caller", "bye_callee", "rejected"):
            if abs(call["end"] - want["end"]) > 1e-6:
                problems.append(f"{call_id}: end {call['end']}, tshark {want['end']}")
    print(f"{'CALL-ID':44} {'TSHARK':>6} {'AGENT':>6} {'BYE BY':7} {'AGENT END':12} SDP-BOUND")
    for call_id, status, agent_status, bye, end, bound in rows:
        print(f"{call_id[:44]:44} {str(status):>6} {str(agent_status):>6} {bye:7} {end:12} {bound}")
    return problems


if __name__ == "__main__":
    with open(sys.argv[2]) as handle:
        document = json.load(handle)
    found = compare(sys.argv[1], document)
    for problem in found:
        print("MISMATCH", problem)
    sys.exit(1 if found else 0)
