"""The storage side of scripts/bench-series.sh: scrapes of /metrics saved one a file (NNNNN.txt,
in order), counted, and written into VictoriaMetrics and Prometheus TSDB blocks as if they had
been scraped STEP seconds apart.

  series_storage.py count DIR                      series and bytes per scrape (min, median, max)
  series_storage.py victoria DIR URL START STEP    each scrape to URL's /api/v1/import/prometheus
  series_storage.py openmetrics DIR START STEP OUT one OpenMetrics file for promtool tsdb
                                                   create-blocks-from openmetrics
  series_storage.py victoria-size URL DIR          after a flush and a merge: rows, bytes on disk

START: Unix time of the first scrape, seconds; STEP: seconds between scrapes.
"""
import glob
import gzip
import json
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request


def scrapes(directory):
    return sorted(glob.glob(os.path.join(directory, "*.txt")))


def samples(path):
    """(series, value) of each sample line of a text-format scrape."""
    for line in open(path):
        line = line.rstrip("\n")
        if line and not line.startswith("#"):
            series, _, value = line.rpartition(" ")
            yield series, value


def count(directory):
    sizes, gzipped, series = [], [], []
    for path in scrapes(directory):
        data = open(path, "rb").read()
        sizes.append(len(data))
        gzipped.append(len(gzip.compress(data, 6)))
        series.append(sum(1 for _ in samples(path)))

    def spread(values):
        return f"{min(values)} / {statistics.median(values):.0f} / {max(values)}"

    print(f"scrapes: {len(series)}")
    print(f"series per scrape (min / median / max): {spread(series)}")
    print(f"bytes per scrape, plain: {spread(sizes)}; gzip: {spread(gzipped)}")
    churn(directory)
    families = {}
    for name, _ in samples(scrapes(directory)[-1]):
        family = name.split("{")[0]
        for suffix in ("_bucket", "_sum", "_count"):
            if family.endswith(suffix):
                family = family[: -len(suffix)]
        families[family] = families.get(family, 0) + 1
    print("series by family in the last scrape (the largest 15):")
    for family, number in sorted(families.items(), key=lambda item: -item[1])[:15]:
        print(f"  {number:6d} {family}")


def churn(directory):
    """How much the set of series changes: the peers with series of their own (the worst,
    up to metrics.max_peer_series) are chosen again at every tick."""
    distinct, previous, entering, runs, current = set(), None, [], [], {}
    for index, path in enumerate(scrapes(directory)):
        names = {name for name, _ in samples(path)}
        distinct |= names
        peers = {name.split('peer="', 1)[1].split('"', 1)[0] for name in names
                 if name.startswith("netquality_peer_quality_level{")}
        if previous is not None:
            entering.append(len(peers - previous))
        for peer in list(current):
            if peer not in peers:
                runs.append(current.pop(peer))
        for peer in peers:
            current[peer] = current.get(peer, 0) + 1
        previous = peers
    runs += current.values()
    print(f"distinct series over every scrape: {len(distinct)}")
    if entering:
        print(f"peers with series of their own: {len(previous)} a scrape; entering that set "
              f"between two scrapes: {statistics.mean(entering):.1f} on average; "
              f"a peer's stay in it: median {statistics.median(runs):.0f} scrapes")


def victoria(directory, url, start, step):
    total = 0
    for index, path in enumerate(scrapes(directory)):
        stamp = int((start + index * step) * 1000)
        query = urllib.parse.urlencode([("timestamp", stamp), ("extra_label", "job=netquality"),
                                        ("extra_label", "instance=agent-1")])
        body = open(path, "rb").read()
        request = urllib.request.Request(f"{url}/api/v1/import/prometheus?{query}", data=body,
                                         method="POST")
        urllib.request.urlopen(request, timeout=60).read()
        total += sum(1 for _ in samples(path))
    print(f"imported {total} samples")


def openmetrics(directory, start, step, out):
    """Every series' samples together (OpenMetrics wants each family's lines in one run and
    every series' timestamps in order); no metadata, so every family is `unknown`."""
    by_series = {}
    for index, path in enumerate(scrapes(directory)):
        stamp = start + index * step
        for series, value in samples(path):
            by_series.setdefault(series, []).append((stamp, value))
    labelled = {}
    for series in by_series:
        labelled.setdefault(series.split("{")[0], []).append(series)
    total = 0
    with open(out, "w") as file:
        for family in sorted(labelled):
            for series in labelled[family]:
                for stamp, value in by_series[series]:
                    file.write(f"{series} {value} {stamp:.3f}\n")
                    total += 1
        file.write("# EOF\n")
    print(f"wrote {total} samples of {len(by_series)} series")


def metrics(url):
    with urllib.request.urlopen(url + "/metrics", timeout=30) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                values[name] = float(value)
            except ValueError:
                pass
    return values


def victoria_size(url, directory):
    urllib.request.urlopen(url + "/internal/force_flush", timeout=60).read()
    partitions = sorted({os.path.basename(p) for p in
                         glob.glob(os.path.join(directory, "data", "small", "*"))})
    for partition in partitions:
        urllib.request.urlopen(f"{url}/internal/force_merge?partition_prefix={partition}",
                               timeout=60).read()
    deadline = time.time() + 300
    while time.time() < deadline:
        values = metrics(url)
        merging = sum(v for k, v in values.items() if k.startswith("vm_active_merges"))
        if merging == 0:
            break
        time.sleep(1)
    time.sleep(2)
    values = metrics(url)
    rows = sum(v for k, v in values.items() if k.startswith('vm_rows{type="storage/'))
    data = sum(v for k, v in values.items() if k.startswith('vm_data_size_bytes{type="storage/'))
    index = sum(v for k, v in values.items() if k.startswith('vm_data_size_bytes{type="indexdb'))
    print(json.dumps({"rows": rows, "data_bytes": data, "index_bytes": index,
                      "data_bytes_per_sample": data / rows if rows else None,
                      "with_index_bytes_per_sample": (data + index) / rows if rows else None}))


command = sys.argv[1]
if command == "count":
    count(sys.argv[2])
elif command == "victoria":
    victoria(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
elif command == "openmetrics":
    openmetrics(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
elif command == "victoria-size":
    victoria_size(sys.argv[2], sys.argv[3])
else:
    sys.exit(f"unknown command {command}")
