"""Helpers of e2e/alerts/agent-alertmanager.sh, run inside the receiver's namespace.

  webhook PORT FILE             an Alertmanager webhook receiver on 127.0.0.1:PORT: every
                                POST body appended to FILE as one JSON line
  ready URL SECONDS             waits until URL answers 200
  metric NAME{LABELS} [AGENT]   the value of one series on the agent's /metrics (AGENT: its
                                base URL, http://127.0.0.1:19472 unless given)
  alert PEER SECONDS SILENT     waits until Alertmanager lists peer_disconnected for PEER as
                                active; checks its labels, annotations and times (it starts
                                5 to 10 s after SILENT, the Unix time the peer went silent)
  gone PEER SECONDS             waits until Alertmanager no longer lists it
  notified STATUS PEER FILE SECONDS [BACK]
                                waits until the webhook got peer_disconnected for PEER with
                                STATUS (firing or resolved); a resolved one must end after
                                BACK (the Unix time traffic came back) and in the past
  paged ALERTNAME PEER RECEIVER FILE SECONDS
                                waits until the webhook got ALERTNAME for PEER firing through
                                RECEIVER (the route that chose it: Alertmanager names it)
Every wait has its deadline; a failed check prints why and exits 1.
"""

import json
import sys
import time
import urllib.parse

from alerting_http import get, parse_time, wait, webhook

ALERTMANAGER = "http://127.0.0.1:19093"
AGENT = "http://127.0.0.1:19472"


def disconnected_alerts(peer):
    query = urllib.parse.urlencode(
        {"filter": ['alertname="peer_disconnected"', f'peer="{peer}"']}, doseq=True)
    return json.loads(get(f"{ALERTMANAGER}/api/v2/alerts?{query}")[1])


def check_alert(peer, seconds, silent):
    def active():
        alerts = disconnected_alerts(peer)
        return alerts[0] if alerts and alerts[0]["status"]["state"] == "active" else None

    alert = wait(seconds, active)
    if not isinstance(alert, dict):
        print(f"FAIL Alertmanager never listed peer_disconnected for {peer} as active ({alert})")
        return 1
    labels, annotations = alert["labels"], alert["annotations"]
    problems = []
    expected = {"alertname": "peer_disconnected", "peer": peer, "severity": "critical",
                "job": "netquality", "site": "e2e"}
    for name, value in expected.items():
        if labels.get(name) != value:
            problems.append(f"label {name}={labels.get(name)!r}, expected {value!r}")
    if not labels.get("instance", "").endswith(":19472"):
        problems.append(f"label instance={labels.get('instance')!r}, expected HOST:19472")
    if not annotations.get("summary", "").startswith(f"peer {peer} disconnected since "):
        problems.append(f"summary {annotations.get('summary')!r}")
    if not annotations.get("description", "").startswith(
            "Rule peer_disconnected: state == 3 (disconnected) for 1 tick"):
        problems.append(f"description {annotations.get('description')!r}")
    if alert.get("generatorURL") != f"{AGENT}/api/v1/alerts":
        problems.append(f"generatorURL {alert.get('generatorURL')!r}")
    # The default runbook: the agent's own page, which opens, with the alert's section.
    runbook = annotations.get("runbook_url", "")
    if runbook != f"{AGENT}/runbook#peer_disconnected":
        problems.append(f"runbook_url {runbook!r}, expected {AGENT}/runbook#peer_disconnected")
    else:
        status, page = get(runbook.split("#")[0])
        section = 'id="peer_disconnected"' in page
        if status != 200 or not section:
            problems.append(f"runbook_url {runbook}: {status}, its section found: {section}")
    # Disconnected after 6 s of silence, at the next 2 s tick, plus capture and scheduling.
    after = parse_time(alert["startsAt"]) - silent
    if not 5 <= after <= 10:
        problems.append(f"startsAt {alert['startsAt']} is {after:.1f} s after the silence began, "
                        "expected 6 s and a tick")
    # A firing alert holds 4 resend intervals (4 x 5 s) past its last send.
    ahead = parse_time(alert["endsAt"]) - time.time()
    if not 5 <= ahead <= 21:
        problems.append(f"endsAt {alert['endsAt']} is {ahead:.1f} s ahead, expected 5..21 s")
    for problem in problems:
        print(f"FAIL {problem}")
    if not problems:
        print(f"     active in Alertmanager: labels {json.dumps(labels, sort_keys=True)}, "
              f"startsAt {alert['startsAt']}, endsAt {ahead:.1f} s ahead")
    return 1 if problems else 0


def check_gone(peer, seconds):
    gone = wait(seconds, lambda: True if not disconnected_alerts(peer) else None)
    if gone is not True:
        print(f"FAIL Alertmanager still lists peer_disconnected for {peer}: "
              f"{disconnected_alerts(peer)}")
        return 1
    return 0


def notification(path, status, alertname, peer):
    """The first notification at the webhook (FILE) of ALERTNAME for PEER with STATUS: the
    receiver that got it and the alert, or None."""
    with open(path) as lines:
        for line in lines:
            message = json.loads(line)
            for alert in message["alerts"]:
                if (alert["status"] == status
                        and alert["labels"].get("alertname") == alertname
                        and alert["labels"].get("peer") == peer):
                    return message["receiver"], alert
    return None


def check_notified(status, peer, path, seconds, back=None):
    found = wait(seconds, lambda: notification(path, status, "peer_disconnected", peer))
    alert = found[1] if isinstance(found, tuple) else None
    if not isinstance(alert, dict):
        print(f"FAIL no {status} notification of peer_disconnected for {peer} at the webhook")
        return 1
    print(f"     webhook: {status}, startsAt {alert['startsAt']}, endsAt {alert['endsAt']}")
    if status == "resolved":
        ended = parse_time(alert["endsAt"])
        if ended > time.time():
            print(f"FAIL a resolved notification that ends in the future: {alert['endsAt']}")
            return 1
        if back is not None and not back <= ended <= back + 5:
            print(f"FAIL resolved at {alert['endsAt']}, {ended - back:.1f} s after traffic came "
                  "back (expected within the next tick or two)")
            return 1
    return 0


def check_paged(alertname, peer, receiver, path, seconds):
    found = wait(seconds, lambda: notification(path, "firing", alertname, peer))
    if not isinstance(found, tuple):
        print(f"FAIL no firing notification of {alertname} for {peer} at the webhook")
        return 1
    print(f"     webhook: {alertname} firing through {found[0]}, startsAt {found[1]['startsAt']}")
    if found[0] != receiver:
        print(f"FAIL {alertname} went to {found[0]}, not {receiver}")
        return 1
    return 0


def main():
    command = sys.argv[1]
    if command == "webhook":
        webhook(int(sys.argv[2]), sys.argv[3])
    elif command == "ready":
        ok = wait(float(sys.argv[3]), lambda: True if get(sys.argv[2])[0] == 200 else None)
        sys.exit(0 if ok is True else 1)
    elif command == "metric":
        agent = sys.argv[3] if len(sys.argv) > 3 else AGENT
        for line in get(f"{agent}/metrics")[1].splitlines():
            if line.startswith(sys.argv[2] + " "):
                print(line.split()[-1])
    elif command == "alert":
        sys.exit(check_alert(sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
    elif command == "gone":
        sys.exit(check_gone(sys.argv[2], float(sys.argv[3])))
    elif command == "paged":
        sys.exit(check_paged(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6])))
    elif command == "notified":
        back = float(sys.argv[6]) if len(sys.argv) > 6 else None
        sys.exit(check_notified(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), back))


main()
