"""Checks a fleet's data in the central store (e2e/prometheus/fleet.sh): every shipped dashboard
query through VictoriaMetrics' Prometheus API, per agent and for the whole fleet.

  fleet_check.py URL AGENTS dashboards      every panel query and variable of dashboards/*.json
  fleet_check.py URL AGENTS annotations     the annotations (while every agent's peer is cut off)
  fleet_check.py URL AGENTS ranking NAME    the fleet view ranks agent NAME (the lossy one) worst
  fleet_check.py URL AGENTS health NAME     the fleet view's health row for each agent
  fleet_check.py URL AGENTS stored DIR      what the store (data in DIR) holds: series, samples, bytes
  fleet_check.py URL AGENTS wait SECONDS EXPR

AGENTS: NAME=INSTANCE=PEER,... (the instance label of each agent and its call's peer).

A query is evaluated as Grafana sends it (shipped_queries.substitute), in two ways:
  * per agent: $instance and $peer set to one agent and its peer, once for each agent; the
    agent has data when the result has series. A result made only by the expression's `or`
    fallback (`or vector(0)`, `or ... * 0`: 0 when the metric has no series) is marked `*`.
  * All: $instance and $peer at their All value (".*"), when every use of them is a regex
    match (the variable is multi-valued); the agents covered are read from the result's
    `instance` labels, or its `peer` or probe `target` labels (each agent has its own peer);
    a result aggregated over every label is "aggregate".
Every agent must have data, and All must have series covering the three agents unless it is
aggregated away. A query that is empty at first is asked again (data arrives through scrapes,
remote_write batches and the store) for up to RETRY_SECONDS.
"""
import json
import os
import re
import sys
import time
import urllib.request

import shipped_queries
from shipped_queries import check, dashboard_expressions, label_values

URL, AGENTS, COMMAND = sys.argv[1:4]
AGENT_LIST = [tuple(agent.split("=")) for agent in AGENTS.split(",")]
NAMES = [name for name, _, _ in AGENT_LIST]
BY_LABEL = {}
for _name, _instance, _peer in AGENT_LIST:
    BY_LABEL[_instance] = _name
    BY_LABEL[_peer] = _name
RETRY_SECONDS = 20


def query(expression):
    return shipped_queries.query(URL, expression)


def agents_in(result):
    """The agents a result's series belong to, by instance, peer or probe target."""
    found = set()
    for series in result:
        labels = series["metric"]
        for key in ("instance", "peer", "target"):
            value = labels.get(key, "")
            name = BY_LABEL.get(value) or BY_LABEL.get(value.rsplit(":", 1)[0])
            if name:
                found.add(name)
                break
    return found


def top_level_or(expression):
    """The left operand of an expression's last top-level `or`, or None."""
    depth, cut = 0, None
    for index, char in enumerate(expression):
        depth += char == "("
        depth -= char == ")"
        if depth == 0 and expression.startswith(" or ", index):
            cut = index
    return expression[:cut] if cut is not None else None


def outcome(text, kind):
    """'data', 'fallback' (only the `or` fallback has series), 'none' or an error's text, and
    the result's series (a variable's: one per value)."""
    try:
        if kind == "variable":
            selector, label = label_values(text)
            result = [s for s in query(selector) if label in s["metric"]]
            values = {s["metric"][label] for s in result}
            return ("data" if values else "none"), [{"metric": {label: v}} for v in sorted(values)]
        result = query(text)
        if not result:
            return "none", result
        left = top_level_or(text)
        if left is not None and not query(left):
            return "fallback", result
        return "data", result
    except (ValueError, OSError) as error:
        return f"error: {error}", []


def all_applies(expression):
    """True when every $instance and $peer in the expression is a regex match (multi-value)."""
    uses = re.findall(r'(=~|=|!=|!~)"\$(instance|peer)"', expression)
    return bool(uses) and all(operator == "=~" for operator, _ in uses)


class Row:
    def __init__(self, where, expression, kind):
        self.where, self.expression, self.kind = where, expression, kind
        self.per_agent = {}     # name -> outcome
        self.once = None        # agents covered, for a query without $instance
        self.all = None         # (outcome, agents covered, series) for All
        self.texts = {}

    def evaluate(self):
        if "$instance" not in self.expression:
            text = shipped_queries.substitute(self.expression, ".*", ".*")
            self.texts["once"] = text
            state, result = outcome(text, self.kind)
            self.once = (state, agents_in(result))
            return
        for name, instance, peer in AGENT_LIST:
            if self.per_agent.get(name) in ("data", "fallback"):
                continue
            text = shipped_queries.substitute(self.expression, instance, peer)
            self.texts[name] = text
            self.per_agent[name] = outcome(text, self.kind)[0]
        if all_applies(self.expression) and not self.all_ok():
            text = shipped_queries.substitute(self.expression, ".*", ".*")
            self.texts["all"] = text
            state, result = outcome(text, self.kind)
            covered = agents_in(result)
            self.all = (state, covered, len(result))

    def all_ok(self):
        if self.all is None:
            return not all_applies(self.expression)
        state, covered, count = self.all
        if state not in ("data", "fallback"):
            return False
        # Covering labels in the result: they must name every agent; none: an aggregate.
        return not covered or covered == set(NAMES)

    def ok(self):
        if self.once is not None:
            state, covered = self.once
            return state == "data" and covered == set(NAMES)
        return all(self.per_agent.get(n) in ("data", "fallback") for n in NAMES) and self.all_ok()

    def cells(self):
        if self.once is not None:
            state, covered = self.once
            return " ".join(n if n in covered else "-" for n in NAMES) + " (once)", ""
        per = " ".join(n + ("*" if self.per_agent.get(n) == "fallback" else "")
                       if self.per_agent.get(n) in ("data", "fallback") else "-" for n in NAMES)
        if self.all is None:
            every = "n/a (one agent)" if not all_applies(self.expression) else "?"
        else:
            state, covered, count = self.all
            if state not in ("data", "fallback"):
                every = state
            elif covered:
                every = " ".join(n if n in covered else "-" for n in NAMES)
            else:
                every = f"aggregate ({count} series)"
        return per, every


def evaluate(kinds):
    rows = [Row(*e) for e in dashboard_expressions() if e[2] in kinds]
    deadline = time.time() + RETRY_SECONDS
    pending = rows
    while True:
        for row in pending:
            row.evaluate()
        pending = [row for row in rows if not row.ok()]
        if not pending or time.time() >= deadline:
            break
        time.sleep(1)
    width = max(len(row.where) for row in rows)
    print(f"{'query (dashboard: panel refId)':<{width}}  {'per agent':<{len(NAMES) * 8}}  All")
    for row in rows:
        per, every = row.cells()
        print(f"{row.where:<{width}}  {per:<{len(NAMES) * 8}}  {every}")
    for row in rows:
        if not row.ok():
            details = "; ".join(f"{key}: {text}" for key, text in row.texts.items())
            check(False, f"{row.where}: {row.per_agent or row.once} all={row.all} ({details})")
    boards = sorted({row.where.split(":")[0] for row in rows})
    check(all(row.ok() for row in rows),
          f"{sum(row.ok() for row in rows)} of {len(rows)} queries of {len(boards)} dashboards "
          f"({', '.join(boards)}) have data for {', '.join(NAMES)}")


def fleet_panel(title, ref="A"):
    board = json.load(open(f"{shipped_queries.ROOT}/dashboards/netquality-fleet.json"))
    for panel in board["panels"]:
        if panel["title"] == title:
            return next(t["expr"] for t in panel["targets"] if t["refId"] == ref)
    raise KeyError(title)


def ranking(lossy):
    """The fleet view's rankings put the lossy agent first, ahead of every other."""
    for title, what in (("Worst peers", "peer"), ("Agents by peers poor or worse", "agent"),
                        ("Agents by host level", "agent")):
        text = shipped_queries.substitute(fleet_panel(title), ".*", ".*")
        result = sorted(query(text), key=lambda s: -float(s["value"][1]))
        order = [(BY_LABEL.get(s["metric"].get("instance")), s["metric"].get("peer"),
                  float(s["value"][1])) for s in result]
        first = order[0] if order else None
        ok = (first is not None and first[0] == lossy
              and all(value < first[2] for name, _, value in order[1:]))
        shown = ", ".join(f"{name} {peer or ''} {value:g}".replace("  ", " ") for name, peer, value in order)
        check(ok, f"fleet view '{title}' ranks {lossy}'s {what} first: {shown}")


def health(lossy):
    """The fleet view's Agent health row, per agent: scraped, ticking (the tick's age at the
    scrape under the 2 s tick interval and a second of slack), capturing, history healthy, one
    peer each, and only the lossy agent's at poor or worse."""
    expected = {"A": ("up", lambda name, v: v == 1), "B": ("tick age", lambda name, v: 0 <= v < 3),
                "C": ("capture", lambda name, v: v == 1), "E": ("history", lambda name, v: v == 1),
                "G": ("peers", lambda name, v: v == 1),
                "H": ("poor or worse", lambda name, v: v == (1 if name == lossy else 0))}
    for ref, (what, good) in expected.items():
        text = shipped_queries.substitute(fleet_panel("Agent health", ref), ".*", ".*")
        values = {BY_LABEL.get(s["metric"].get("instance")): float(s["value"][1]) for s in query(text)}
        shown = ", ".join(f"{name} {values[name]:g}" if name in values else f"{name} -" for name in NAMES)
        check(all(name in values and good(name, values[name]) for name in NAMES),
              f"fleet view 'Agent health' {what}: {shown}")


def stored(directory):
    """What VictoriaMetrics holds after the run (its data flushed to DIRECTORY): series per
    agent, samples, bytes."""
    urllib.request.urlopen(URL + "/internal/force_flush", timeout=30).read()
    per_agent = query('count by (instance) ({job="netquality"})')
    counts = {BY_LABEL.get(s["metric"].get("instance"), "?"): int(float(s["value"][1])) for s in per_agent}
    samples = sum(float(s["value"][1]) for s in query('sum(count_over_time({__name__=~".+"}[1h]))'))
    size = sum(os.path.getsize(os.path.join(folder, name))
               for folder, _, names in os.walk(directory) for name in names)
    print(f"     series per agent: {', '.join(f'{n} {counts.get(n, 0)}' for n in NAMES)}; "
          f"samples stored: {samples:.0f}; data directory {size} B "
          f"({size / samples if samples else 0:.1f} B a sample: index and unmerged parts of a "
          f"short run, not a sizing figure; docs/fleets.md has those)")
    check(samples > 0 and len(counts) == len(NAMES), "VictoriaMetrics stored every agent's samples")


if COMMAND == "dashboards":
    evaluate({"panel", "variable"})
elif COMMAND == "annotations":
    evaluate({"annotation"})
elif COMMAND == "ranking":
    ranking(sys.argv[4])
elif COMMAND == "health":
    health(sys.argv[4])
elif COMMAND == "stored":
    stored(sys.argv[4])
elif COMMAND == "wait":
    seconds, expression = float(sys.argv[4]), sys.argv[5]
    ok, result = shipped_queries.wait(URL, seconds, expression)
    if not ok:
        print(f"     {expression} after {seconds:.0f} s: {result}")
    sys.exit(0 if ok else 1)
else:
    sys.exit(f"unknown command {COMMAND}")
sys.exit(1 if shipped_queries.failures else 0)
