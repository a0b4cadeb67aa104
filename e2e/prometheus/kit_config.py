"""Configuration files of the stages that run the operators' kit for real (prometheus-kit.sh,
fleet.sh).

  kit_config.py agent OUT INTERFACE ADDRESS LISTEN PEER DIR [KEY=YAML...]
      An agent that exposes every family the dashboards read: capture on INTERFACE (ADDRESS
      local), /metrics on LISTEN, STAMP probes to the reflector at PEER:862, its own reflector on
      ADDRESS:862, the history and a dashboard file in DIR; KEY=YAML adds or replaces a key
      (timers={interrupted: 2, disconnected: 4, timeout: 60}).
  kit_config.py prometheus OUT TARGET... [--fleet VICTORIA_METRICS_URL]
      config/prometheus.yml as shipped (its netquality job and labels, both rule files), made to
      scrape TARGETS and evaluate the rules every second, alerts sent nowhere. --fleet: with
      docs/fleets.md's YAML as written, the scrape job's relabelling and the remote_write block,
      its URL pointed at VICTORIA_METRICS_URL (batches sent within 1 s).
"""
import os
import re
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def agent(out, interface, address, listen, peer, directory, *extra):
    configuration = {
        "interfaces": [interface],
        "local_networks": [f"{address}/32"],
        "listen": listen,
        "dashboard_file": os.path.join(directory, "dashboard.txt"),
        "storage_path": os.path.join(directory, "history.db"),
        "probes": [{"target": f"{peer}:862"}],
        "reflector": {"enabled": True, "listen": f"{address}:862"},
    }
    for item in extra:
        key, _, value = item.partition("=")
        configuration[key] = yaml.safe_load(value)
    yaml.safe_dump(configuration, open(out, "w"), sort_keys=False)


def documented_fleet_blocks():
    text = open(os.path.join(ROOT, "docs", "fleets.md")).read()
    blocks = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]
    return [block for block in blocks if isinstance(block, dict)]


def prometheus(out, *arguments):
    arguments = list(arguments)
    victoria = None
    if "--fleet" in arguments:
        at = arguments.index("--fleet")
        victoria = arguments[at + 1]
        del arguments[at:at + 2]
    config = os.path.join(ROOT, "config")
    shipped = yaml.safe_load(open(os.path.join(config, "prometheus.yml")))
    shipped["global"].update({"scrape_interval": "1s", "evaluation_interval": "1s"})
    shipped["rule_files"] = [os.path.join(config, path) for path in shipped["rule_files"]]
    shipped.pop("alerting")
    job = next(job for job in shipped["scrape_configs"] if job["job_name"] == "netquality")
    job["scrape_timeout"] = "1s"
    job["static_configs"][0]["targets"] = arguments
    if victoria:
        blocks = documented_fleet_blocks()
        documented = next(block["scrape_configs"][0] for block in blocks
                          if "scrape_configs" in block
                          and block["scrape_configs"][0]["job_name"] == "netquality")
        job["relabel_configs"] = documented["relabel_configs"]
        remote = next(block["remote_write"][0] for block in blocks if "remote_write" in block)
        remote["url"] = f"{victoria}/api/v1/write"
        remote["queue_config"] = {"batch_send_deadline": "1s"}
        shipped["remote_write"] = [remote]
    yaml.safe_dump(shipped, open(out, "w"))


if sys.argv[1] == "agent":
    agent(*sys.argv[2:])
elif sys.argv[1] == "prometheus":
    prometheus(*sys.argv[2:])
else:
    sys.exit(f"unknown file {sys.argv[1]}")
