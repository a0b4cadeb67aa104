"""Runs the operators' kit's PromQL against a live Prometheus (e2e/prometheus/prometheus-kit.sh).

Every expression of dashboards/*.json (panel targets, annotations, variable queries) and of
config/rules/*.yml goes through Prometheus's HTTP API, with Grafana's variables substituted as
Grafana would: $__rate_interval -> 5s (four 1 s scrapes and one more), $__interval -> 2s,
$instance and $peer -> the agent and its peer.

  prometheus_kit.py URL INSTANCE PEER healthy    everything that must hold on a healthy agent
  prometheus_kit.py URL INSTANCE PEER outage     the peer cut off long enough for its alert
  prometheus_kit.py URL INSTANCE PEER wait SECONDS EXPR   until EXPR returns series (exit 1 if not)
  prometheus_kit.py URL INSTANCE PEER wait-empty SECONDS EXPR

What "must return series" means for expressions that are empty on a healthy agent (an alert's
own condition) is decided per rule below, in ALERT_CHECKS.
"""
import json
import sys
import time
import urllib.request

import shipped_queries
from shipped_queries import check, dashboard_expressions, label_values, rules

URL, INSTANCE, PEER, COMMAND = sys.argv[1:5]


def query(expression):
    """The instant vector of EXPRESSION now (a scalar as one sample); raises on a bad query."""
    return shipped_queries.query(URL, expression)


def substitute(expression):
    """An expression as Grafana sends it: variables replaced."""
    return shipped_queries.substitute(expression, INSTANCE, PEER)


# How each alert's expression is checked. On a healthy agent every alert's expression must be
# empty (no false alarm on real traffic). Then, to show that it can fire on this agent's series:
#   "made": the test makes the fault happen and waits for the expression to return series
#           (peer_disconnected and the annotations: the peer cut off by nftables;
#           NetQualityProbeLoss: the probes lost meanwhile; NetQualityConfigReloadFailed: a bad
#           file and SIGHUP; NetQualityAgentDown: the agent stopped);
#   an expression: faults the test does not make (a full disk, a kernel dropping packets, ticks
#           stopping, every target gone, more alerting peers than max_peer_series) are checked
#           by the series the condition is computed from, which must exist (for the agent's
#           own alerts, the count of its rule's alerts, from 0); for
#           NetQualityAlertsBeyondPeerSeries that is only during the outage, when an agent alert
#           fires (and then the alert itself must stay empty: its peer has series).
ALERT_CHECKS = {
    "peer_rx_quality_bad": 'netquality_alerts_fired_total{alertname="peer_rx_quality_bad"}',
    "peer_tx_quality_bad": 'netquality_alerts_fired_total{alertname="peer_tx_quality_bad"}',
    "peer_disconnected": "made",
    "peer_timeout": 'netquality_alerts_fired_total{alertname="peer_timeout"}',
    "video_freezes": 'netquality_alerts_fired_total{alertname="video_freezes"}',
    "storage_failing": "netquality_storage_healthy == 1",
    "NetQualityAlertsBeyondPeerSeries": "outage",
    "NetQualityAgentDown": "made",
    "NetQualityAgentAbsent": 'up{job="netquality"}',
    "NetQualityTicksStalled": "changes(netquality_last_tick_timestamp_seconds[1m]) > 0",
    "NetQualityCaptureDown": "netquality_capture_up == 1",
    "NetQualityCaptureDropping": "instance_interface:netquality_capture_dropped_packets:rate5m",
    "NetQualityStorageErrors": "increase(netquality_storage_errors_total[15m])",
    "NetQualityStorageDroppingTicks": "increase(netquality_storage_queue_dropped_ticks_total[15m])",
    "NetQualityConfigReloadFailed": "made",
    "NetQualityProbeLoss": "made",
}
# Dashboard expressions that only have series while something is wrong: the peer detail's
# annotations (the agent's alerts about the peer; the peer not connected). Checked in the outage.
FAULT_ONLY = {"annotation"}

def series(expression):
    try:
        return query(expression)
    except ValueError as error:
        check(False, f"{expression}: {error}")
        return None


def healthy():
    queried = 0
    for where, expression, kind in dashboard_expressions():
        text = substitute(expression)
        if kind == "variable":
            # label_values(SELECTOR, LABEL): the selector must give series with the label.
            parsed = label_values(text)
            if not parsed:
                check(False, f"{where}: {text} is not label_values(selector, label)")
                continue
            selector, label = parsed
            result = series(selector) or []
            values = sorted({r["metric"].get(label) for r in result} - {None})
            check(bool(values), f"{where}: {label} = {values[:3]}")
            continue
        if kind in FAULT_ONLY:
            continue
        result = series(text)
        queried += 1
        if result is not None and not result:
            check(False, f"{where}: no series for {text}")
    check(queried > 70, f"{queried} panel queries of the dashboards returned series")
    recorded = 0
    for rule in rules():
        if "record" in rule:
            result = series(rule["expr"])
            check(bool(result), f"recording rule {rule['record']}{rule.get('labels', '')}: expression has series")
            stored = series(rule["record"])
            check(bool(stored), f"recording rule {rule['record']}: evaluated and stored")
            recorded += 1
            continue
        name = rule["alert"]
        result = series(rule["expr"])
        check(result == [], f"{name}: quiet on a healthy agent" + (f" (got {result})" if result else ""))
        how = ALERT_CHECKS.get(name)
        if how is None:
            check(False, f"{name}: the test does not say how to check it")
        elif how not in ("made", "outage"):
            check(bool(series(how)), f"{name}: its condition's series exist ({how})")
    check(recorded > 10, f"{recorded} recording rules")


def alert_firing(name, **labels):
    """Prometheus' firing alerts NAME whose labels are exactly LABELS and alertname."""
    url = URL + "/api/v1/alerts"
    with urllib.request.urlopen(url, timeout=10) as response:
        alerts = json.load(response)["data"]["alerts"]
    return [a for a in alerts if a["state"] == "firing"
            and a["labels"] == dict(labels, alertname=name)]


def outage():
    """The peer has been cut off long enough for the agent's peer_disconnected alert."""
    by_name = {rule.get("alert"): rule for rule in rules()}
    for where, expression, kind in dashboard_expressions():
        if kind in FAULT_ONLY:
            result = series(substitute(expression))
            check(bool(result), f"{where}: series during the outage ({len(result or [])})")
    agent = series(by_name["peer_disconnected"]["expr"]) or []
    peers = sorted(r["metric"].get("peer", "?") for r in agent)
    check(PEER in peers, f"peer_disconnected: condition holds for {peers}")
    beyond = by_name["NetQualityAlertsBeyondPeerSeries"]["expr"]
    check(bool(series("netquality_alerts_by_rule")), "NetQualityAlertsBeyondPeerSeries: its condition's series exist (netquality_alerts_by_rule)")
    check(series(beyond) == [], "NetQualityAlertsBeyondPeerSeries: quiet while every alerting peer has series")


def wait(seconds, expression, want_series=True):
    return shipped_queries.wait(URL, seconds, expression, want_series)


if COMMAND == "healthy":
    healthy()
elif COMMAND == "outage":
    outage()
elif COMMAND in ("wait", "wait-empty"):
    seconds, expression = float(sys.argv[5]), sys.argv[6]
    ok, result = wait(seconds, expression, COMMAND == "wait")
    if not ok:
        print(f"     {expression} after {seconds:.0f} s: {result}")
    sys.exit(0 if ok else 1)
elif COMMAND == "alert-firing":
    deadline = time.time() + float(sys.argv[5])
    labels = dict(pair.split("=", 1) for pair in sys.argv[7:])
    while time.time() < deadline:
        if alert_firing(sys.argv[6], **labels):
            sys.exit(0)
        time.sleep(0.25)
    with urllib.request.urlopen(URL + "/api/v1/alerts", timeout=10) as response:
        print(f"     Prometheus' alerts: {json.load(response)['data']['alerts']}")
    sys.exit(1)
elif COMMAND == "alert-expression":
    # The expression of one alerting rule, for the shell to wait on.
    print(next(rule["expr"] for rule in rules() if rule.get("alert") == sys.argv[5]))
    sys.exit(0)
else:
    sys.exit(f"unknown command {COMMAND}")
sys.exit(1 if shipped_queries.failures else 0)
