"""Helpers of e2e/alerts/alerts.sh, run inside the receiver's namespace, where the agent,
Alertmanager, its webhook receiver and both Prometheus servers listen on loopback.

  webhook PORT FILE          an Alertmanager webhook receiver on 127.0.0.1:PORT: every POST
                             body appended to FILE as one JSON line, with the time it came
  ready URL SECONDS          waits until URL answers 200
  metric SERIES [URL]        the value of one series on the agent's /metrics (or URL's), ""
                             if absent
  prom URL EXPR              the values of EXPR in the Prometheus at URL, one line per series
                             ("labels value"), nothing for none
  watch SECONDS PEER RULE... polls the agent's /api/v1/alerts and Alertmanager's
                             /api/v2/alerts every 0.25 s for SECONDS; prints per RULE one JSON
                             line: the agent's alert ids and Alertmanager's startsAt seen, and
                             how often each went away and came back (a flap)
  wait-agent firing|gone RULE PEER SECONDS
  wait-am firing|gone RULE PEER SECONDS
                             waits until the agent (Alertmanager) lists the alert, or no longer
                             does; prints the seconds waited; exit 1 after SECONDS
  notifications RULE STATUS SINCE FILE
                             how many webhook notifications (in FILE) of RULE's group came with
                             STATUS (firing, resolved) after SINCE (Unix time)
  identity RULE PEER INSTANCE LABELS_JSON
                             Alertmanager's alerts and groups: exactly one alert RULE for PEER,
                             with exactly LABELS, in exactly one group; prints what it saw
  first-below URL EXPR SINCE UNTIL THRESHOLD
                             Unix time of the first sample of EXPR in Prometheus at URL after
                             SINCE whose value is below THRESHOLD ('never' if none)
  last-scrape URL            Unix time of the last scrape of the only target of the
                             Prometheus at URL
Every wait has its deadline; a failed check prints why and exits 1.
"""

import datetime
import json
import sys
import time
import urllib.error
import urllib.parse

from alerting_http import get, get_json, parse_time, wait, webhook

ALERTMANAGER = "http://127.0.0.1:19293"
AGENT = "http://127.0.0.1:19482"
PROMETHEUS = "http://127.0.0.1:19290"


def agent_alerts(rule, peer):
    alerts = get_json(f"{AGENT}/api/v1/alerts")["alerts"]
    return [a for a in alerts if a["rule"] == rule and a["labels"].get("peer") == peer
            and a["state"] == "firing"]


def am_alerts(rule, peer):
    query = urllib.parse.urlencode(
        {"filter": [f'alertname="{rule}"', f'peer="{peer}"']}, doseq=True)
    alerts = get_json(f"{ALERTMANAGER}/api/v2/alerts?{query}")
    return [a for a in alerts if a["status"]["state"] == "active"]


def watch(seconds, peer, rules):
    """What the agent and Alertmanager listed of each rule for PEER over SECONDS: the alerts
    (agent ids, Alertmanager startsAt), when each was first listed, and how often one came
    back after it had gone (a flap)."""
    seen = {rule: {"agent_ids": [], "am_starts": [], "agent_first": None, "am_first": None,
                   "agent_rises": 0, "am_rises": 0} for rule in rules}
    listed = {(rule, source): False for rule in rules for source in ("agent", "am")}
    started = time.time()
    while time.time() - started < seconds:
        for rule in rules:
            entry = seen[rule]
            try:
                agent = agent_alerts(rule, peer)
                am = am_alerts(rule, peer)
            except (OSError, ValueError):  # a busy server: the next poll
                continue
            entry["agent_ids"] += [a["id"] for a in agent if a["id"] not in entry["agent_ids"]]
            entry["am_starts"] += [a["startsAt"] for a in am
                                   if a["startsAt"] not in entry["am_starts"]]
            for source, present in (("agent", bool(agent)), ("am", bool(am))):
                if present and not listed[(rule, source)]:
                    entry[f"{source}_rises"] += 1
                    if entry[f"{source}_first"] is None:
                        entry[f"{source}_first"] = round(time.time() - started, 1)
                listed[(rule, source)] = present
        time.sleep(0.25)
    for rule in rules:
        entry = seen[rule]
        flaps = {f"{source}_flaps": max(entry.pop(f"{source}_rises") - 1, 0)
                 for source in ("agent", "am")}
        print(json.dumps({"rule": rule, **entry, **flaps}))


def wait_listed(source, state, rule, peer, seconds):
    lister = agent_alerts if source == "agent" else am_alerts
    started = time.time()
    found = wait(seconds, lambda: True if bool(lister(rule, peer)) == (state == "firing") else None)
    if found is not True:
        print(f"FAIL {source}: {rule} for {peer} not {state} after {seconds:.0f} s")
        return 1
    print(f"{time.time() - started:.1f}")
    return 0


def notifications(rule, status, since, path):
    count = 0
    with open(path) as lines:
        for line in lines:
            message = json.loads(line)
            if (message["received"] > since and message["status"] == status
                    and message["groupLabels"].get("alertname") == rule):
                count += 1
    return count


def identity(rule, peer, instance, labels):
    problems = []
    alerts = [a for a in get_json(f"{ALERTMANAGER}/api/v2/alerts")
              if a["labels"].get("alertname") == rule]
    if len(alerts) != 1:
        problems.append(f"{len(alerts)} alerts {rule} in Alertmanager, expected 1: {alerts}")
    elif alerts[0]["labels"] != labels:
        problems.append(f"labels {alerts[0]['labels']}, expected {labels}")
    groups = [g for g in get_json(f"{ALERTMANAGER}/api/v2/alerts/groups")
              if g["labels"].get("alertname") == rule]
    if len(groups) != 1:
        problems.append(f"{len(groups)} groups of {rule}, expected 1: {groups}")
    else:
        group = groups[0]
        expected = {"alertname": rule, "job": "netquality", "instance": instance}
        if group["labels"] != expected:
            problems.append(f"group labels {group['labels']}, expected {expected}")
        if len(group["alerts"]) != 1:
            problems.append(f"{len(group['alerts'])} alerts in the group, expected 1")
    if alerts:
        alert = alerts[0]
        print(f"     Alertmanager: 1 alert {rule}, labels {json.dumps(alert['labels'], sort_keys=True)}, "
              f"{len(groups)} group(s) with {sum(len(g['alerts']) for g in groups)} alert(s)")
        # Both paths reported it: the agent at the tick it fired, Prometheus a scrape and an
        # evaluation later; Alertmanager keeps the earliest start, the push's.
        agent = agent_alerts(rule, peer)
        forwarded = [a for a in get_json(f"{PROMETHEUS}/api/v1/alerts")["data"]["alerts"]
                     if a["labels"].get("alertname") == rule and a["state"] == "firing"
                     and a["labels"].get("peer") == peer]
        starts = parse_time(alert["startsAt"])
        print(f"     startsAt: Alertmanager {alert['startsAt']}, agent "
              + (f"{datetime.datetime.fromtimestamp(agent[0]['start'], datetime.timezone.utc).isoformat()}"
                 if agent else "none")
              + ", Prometheus activeAt " + (forwarded[0]["activeAt"] if forwarded else "none"))
        if not agent or abs(agent[0]["start"] - starts) > 0.01:
            problems.append("Alertmanager's startsAt is not the agent's start")
        if len(forwarded) != 1:
            problems.append(f"Prometheus has {len(forwarded)} firing {rule} for {peer}, expected 1")
        elif parse_time(forwarded[0]["activeAt"]) < starts:
            problems.append("Prometheus' alert began before the agent's")
    for problem in problems:
        print(f"FAIL {problem}")
    return 1 if problems else 0


def series_key(text):
    """A series as NAME{LABELS}, its labels in any order: (name, sorted label pairs). Good for
    the agent's own label values (no quote, comma or brace in them)."""
    name, _, rest = text.partition("{")
    pairs = [pair.split("=", 1) for pair in rest.rstrip("}").split(",") if "=" in pair]
    return name, sorted((key.strip(), value.strip().strip('"')) for key, value in pairs)


def prom(url, expression):
    query = urllib.parse.urlencode({"query": expression})
    try:
        data = get_json(f"{url}/api/v1/query?{query}")["data"]
    except urllib.error.HTTPError as error:
        sys.exit(f"{expression}: {json.load(error).get('error', error)}")
    if data["resultType"] == "scalar":
        print(f"{{}} {data['result'][1]}")
        return
    for sample in data["result"]:
        labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample["metric"].items()))
        print(f"{{{labels}}} {sample['value'][1]}")


def first_below(url, expression, since, until, threshold):
    """The Unix time of the first sample of EXPRESSION (one series) after SINCE and up to UNTIL
    whose value is below THRESHOLD, from Prometheus' range query at 0.5 s steps; 'never' when
    none is."""
    query = urllib.parse.urlencode({"query": expression, "start": f"{since:.3f}",
                                    "end": f"{until:.3f}", "step": "0.5"})
    result = get_json(f"{url}/api/v1/query_range?{query}")["data"]["result"]
    for time_value, value in (result[0]["values"] if result else []):
        if float(value) < threshold:
            return f"{float(time_value):.3f}"
    return "never"


def main():
    command = sys.argv[1]
    if command == "webhook":
        webhook(int(sys.argv[2]), sys.argv[3])
    elif command == "ready":
        ok = wait(float(sys.argv[3]), lambda: True if get(sys.argv[2])[0] == 200 else None)
        sys.exit(0 if ok is True else 1)
    elif command == "metric":
        url = sys.argv[3] if len(sys.argv) > 3 else AGENT
        wanted = series_key(sys.argv[2])
        for line in get(f"{url}/metrics")[1].splitlines():
            if line and not line.startswith("#") and series_key(line.rsplit(" ", 1)[0]) == wanted:
                print(line.rsplit(" ", 1)[1])
    elif command == "prom":
        prom(sys.argv[2], sys.argv[3])
    elif command == "first-below":
        print(first_below(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]),
                          float(sys.argv[6])))
    elif command == "watch":
        watch(float(sys.argv[2]), sys.argv[3], sys.argv[4:])
    elif command in ("wait-agent", "wait-am"):
        source = command.split("-")[1]
        sys.exit(wait_listed(source, sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])))
    elif command == "notifications":
        print(notifications(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]))
    elif command == "identity":
        sys.exit(identity(sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])))
    elif command == "last-scrape":
        targets = get_json(f"{sys.argv[2]}/api/v1/targets")["data"]["activeTargets"]
        print(f"{parse_time(targets[0]['lastScrape']):.3f}")
    else:
        sys.exit(f"unknown command {command}")


main()
