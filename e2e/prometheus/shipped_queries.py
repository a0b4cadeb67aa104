"""The operators' kit's PromQL as shipped, a client for a Prometheus-compatible query API, and
the ok/FAIL lines of the checks made with them.

Shared by prometheus_kit.py (one agent, Prometheus) and fleet_check.py (three agents,
VictoriaMetrics fed by Prometheus' remote_write): every expression of dashboards/*.json (panel
targets, annotations, variable queries) and of config/rules/*.yml, and Grafana's variables
substituted as Grafana would.
"""
import glob
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
failures = 0


def check(ok, message):
    """Prints "ok" or "FAIL" and MESSAGE; `failures` counts the FAILs (for the exit status)."""
    global failures
    print(("ok   " if ok else "FAIL ") + message)
    failures += not ok


def query(url, expression, timeout=10):
    """The instant vector of EXPRESSION now at URL's /api/v1/query (a scalar as one sample);
    raises ValueError on a query the server refuses."""
    address = url + "/api/v1/query?" + urllib.parse.urlencode({"query": expression})
    try:
        with urllib.request.urlopen(address, timeout=timeout) as response:
            body = json.load(response)
    except urllib.error.HTTPError as error:
        try:
            message = json.load(error).get("error", str(error))
        except ValueError:
            message = str(error)
        raise ValueError(message) from None
    data = body["data"]
    if data["resultType"] == "scalar":
        return [{"metric": {}, "value": data["result"]}]
    return data["result"]


def wait(url, seconds, expression, want_series=True):
    """Polls EXPRESSION until it returns series (or none, want_series False) or SECONDS pass:
    (whether it did, the last result or error)."""
    deadline = time.time() + seconds
    result = None
    while time.time() < deadline:
        try:
            result = query(url, expression)
            if bool(result) == want_series:
                return True, result
        except (ValueError, OSError) as error:
            result = str(error)
        time.sleep(0.25)
    return False, result


def substitute(expression, instance, peer, rate_interval="5s", interval="2s"):
    """An expression as Grafana sends it: $__rate_interval, $__interval, $instance and $peer
    replaced (an All value is the variable's allValue, ".*")."""
    text = expression.replace("$__rate_interval", rate_interval).replace("$__interval", interval)
    text = text.replace("$instance", instance).replace("$peer", peer)
    if "$" in text.replace("$1", ""):
        raise ValueError(f"a variable left in {text}")
    return text


def label_values(text):
    """(selector, label) of Grafana's label_values(SELECTOR, LABEL), or None."""
    match = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", text)
    return (match.group(1), match.group(2)) if match else None


def dashboard_expressions():
    """(where, expression, kind) of every query of the dashboards; kind is panel, annotation
    or variable."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "dashboards", "*.json"))):
        board = json.load(open(path))
        name = os.path.basename(path)
        panels = []
        for panel in board["panels"]:
            panels += [panel] + panel.get("panels", [])
        for panel in panels:
            for target in panel.get("targets", []):
                found.append((f"{name}: {panel['title']} {target['refId']}", target["expr"], "panel"))
        for annotation in board["annotations"]["list"]:
            if "expr" in annotation:
                found.append((f"{name}: annotation {annotation['name']}", annotation["expr"], "annotation"))
        for variable in board["templating"]["list"]:
            if variable["type"] == "query":
                found.append((f"{name}: variable {variable['name']}", variable["definition"], "variable"))
    return found


def rules():
    """Every rule of config/rules/*.yml (recording and alerting), in file order."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "config", "rules", "*.yml"))):
        for group in yaml.safe_load(open(path))["groups"]:
            found += group["rules"]
    return found
