"""What the Alertmanager end-to-end helpers share (alertmanager_check.py, alerts_check.py):
HTTP GETs, Alertmanager's and Prometheus' times, waits with a deadline, and a webhook
receiver for Alertmanager's notifications."""

import datetime
import http.server
import json
import time
import urllib.request


def get(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


def get_json(url):
    return json.loads(get(url)[1])


def parse_time(text):
    """Unix time of an RFC 3339 time as Alertmanager and Prometheus write it (nanoseconds;
    Python takes microseconds)."""
    text = text.replace("Z", "+00:00")
    if "." in text:
        head, rest = text.split(".", 1)
        digits = "".join(c for c in rest if c.isdigit())
        zone = rest[len(digits):]
        text = f"{head}.{digits[:6].ljust(6, '0')}{zone}"
    return datetime.datetime.fromisoformat(text).timestamp()


def wait(seconds, probe):
    """PROBE's first answer other than None within SECONDS; else the last error it raised (a
    server restarting, a partial file), or None."""
    deadline = time.time() + seconds
    last = None
    while time.time() < deadline:
        try:
            found = probe()
            if found is not None:
                return found
        except Exception as error:  # noqa: BLE001 - the next try decides
            last = error
        time.sleep(0.1)
    return last


def webhook(port, path):
    """An Alertmanager webhook receiver on 127.0.0.1:PORT: every POST body appended to PATH
    as one JSON line, with the Unix time it came as `received`."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            body["received"] = time.time()
            with open(path, "a") as out:
                out.write(json.dumps(body) + "\n")
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    try:
        http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    except KeyboardInterrupt:  # stop_process's SIGINT
        pass
