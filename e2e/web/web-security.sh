#!/usr/bin/env bash
# The web configuration and the status page for real, in a network namespace of their own
# (loopback only): the agent runs its demo call with a web configuration file in Prometheus
# exporters' format, TLS from a CA and server certificate made here with openssl and a bcrypt
# user made with htpasswd.
#   1. curl: no credentials -> 401 with WWW-Authenticate (on /-/healthy too), a wrong password
#      -> 401, plain HTTP to the TLS port -> no HTTP answer, the right credentials over https
#      (verified against the CA) -> the metrics;
#   2. a real Prometheus (Debian's) scraping through TLS and basic auth: up == 1 and a
#      netquality series; a second job with a wrong password: up == 0;
#   3. `netquality top` over https: with the user and password in its URL and the CA file it
#      shows the demo peer's row at the level the agent's /metrics shows; with --username and
#      --password-file too; a wrong password and a missing CA each show their one line;
#   4. chromium (headless) opens the status page: no console message, the DOM has the demo
#      peer's row and an SVG chart with several points; a screenshot is kept under
#      .build/artifacts/;
#   5. SIGHUP with a new password: the old one refused, the new one accepted; a reload with a
#      broken file keeps the running configuration;
#   6. client certificates (RequireAndVerifyClientCert): without one the handshake is refused,
#      with one signed by the client CA -> 200, and `top` with --cert-file and --key-file
#      shows the demo peer;
#   7. a key file that cannot be read: the agent and check-config each stop with one line;
#   8. TLS defaults (issue 39): static-RSA and CBC-SHA1 suites and TLS 1.1 refused, ECDHE-GCM
#      accepted (openssl s_client, an RSA certificate); a cross-site POST /-/reload refused
#      403 with the lifecycle API on and no authentication, curl's and a same-origin one not.
#
#   e2e/web/web-security.sh      (root, for the namespace and the capture; skips otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "web security" "a network namespace and the agent's capture on lo"
scripts/bootstrap.sh curl openssl apache2-utils prometheus chromium iproute2 python3 tmux
build_product netquality
netquality=$PWD/.build/debug/netquality
artifacts=$PWD/.build/artifacts
mkdir -p "$artifacts"

port=19481
loopback_namespace nqweb
socket=nqweb$$
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; loopback_namespace_cleanup' EXIT

# A CA, a server certificate for 127.0.0.1 and a client certificate, all made now.
cd "$work"
ec() { echo "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"; }
# shellcheck disable=SC2046  # the options are words on purpose
{
  openssl req -x509 $(ec) -keyout ca.key -out ca.pem -days 2 -subj "/CN=netquality e2e CA"
  openssl req $(ec) -keyout server.key -out server.csr -subj "/CN=127.0.0.1"
  printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
    -days 2 -extfile san.ext
  openssl req -x509 $(ec) -keyout client-ca.key -out client-ca.pem -days 2 -subj "/CN=scrapers"
  openssl req $(ec) -keyout client.key -out client.csr -subj "/CN=prometheus"
  openssl x509 -req -in client.csr -CA client-ca.pem -CAkey client-ca.key -CAcreateserial \
    -out client.pem -days 2
} 2>/dev/null
hash=$(htpasswd -nbBC 10 "" secret | tr -d ':\n')
cd - >/dev/null

cat >"$work/web.yml" <<YAML
tls_server_config:
  cert_file: server.pem
  key_file: server.key
basic_auth_users:
  prometheus: '$hash'
http_server_config:
  headers:
    X-Content-Type-Options: nosniff
YAML
# The later agents keep no history (the default path is the system's).
echo "storage: {enabled: false}" >"$work/no-history.yml"
# Charts over 4 minutes: a point per tick, so a short run draws several.
cat >"$work/agent.yml" <<YAML
storage_path: $work/history.db
web_config_file: $work/web.yml
status_page: {max_peers: 10, chart_seconds: 240}
YAML
check "check-config accepts the files" "$netquality" check-config "$work/agent.yml"

spawn ip netns exec "$namespace" "$netquality" run --demo --config "$work/agent.yml" \
  --listen 127.0.0.1:$port 2>"$work/agent.log"
agent=$!
pids+=("$agent")
base=https://127.0.0.1:$port
tls_curl() { in_ns curl -s --max-time 5 --cacert "$work/ca.pem" "$@"; }
status_of() { tls_curl -o /dev/null -w '%{http_code}' "$@" || true; }
ready() { [ "$(status_of -u prometheus:secret "$base/-/ready")" = 200 ]; }
demo_peer() { tls_curl -u prometheus:secret "$base/metrics" | grep -q 'peer="127.0.0.2"'; }
if ! wait_until 60 "the agent over https" ready || ! wait_until 30 "the demo peer" demo_peer; then
  cat "$work/agent.log"
  exit 1
fi

# 1. curl.
headers=$(tls_curl -o /dev/null -D - "$base/metrics" | tr -d '\r')
challenged() {
  grep -q '^HTTP/1.1 401' <<<"$headers" && grep -q '^WWW-Authenticate: Basic realm="netquality"' <<<"$headers"
}
check "no credentials: 401 with WWW-Authenticate: Basic" challenged
check "no credentials: the configured header is on the 401 too" \
  grep -qi '^X-Content-Type-Options: nosniff' <<<"$headers"
check "no credentials on /-/healthy: 401 (everything is guarded, as exporter-toolkit does)" \
  test "$(status_of "$base/-/healthy")" = 401
check "a wrong password: 401" test "$(status_of -u prometheus:wrong "$base/metrics")" = 401
plain=$(in_ns curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics" || true)
check "plain HTTP to the TLS port: no HTTP answer (code $plain)" test "$plain" = 000
tls_curl -u prometheus:secret "$base/metrics" >"$work/scrape.txt"
check "the right credentials over https: the metrics" \
  grep -q '^netquality_peer_quality_level{peer="127.0.0.2",direction="rx"}' "$work/scrape.txt"
check "promtool check metrics is clean on the scrape" promtool check metrics <"$work/scrape.txt"

# 2. Prometheus scraping through TLS and basic auth, and a job with a wrong password.
cat >"$work/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: good
    scheme: https
    tls_config: {ca_file: $work/ca.pem}
    basic_auth: {username: prometheus, password: secret}
    static_configs: [{targets: ["127.0.0.1:$port"]}]
  - job_name: bad
    scheme: https
    tls_config: {ca_file: $work/ca.pem}
    basic_auth: {username: prometheus, password: wrong}
    static_configs: [{targets: ["127.0.0.1:$port"]}]
YAML
spawn ip netns exec "$namespace" prometheus --config.file="$work/prometheus.yml" \
  --storage.tsdb.path="$work/tsdb" --web.listen-address=127.0.0.1:19091 >"$work/prometheus.log" 2>&1
pids+=($!)
query() {  # expression, wanted value: true once Prometheus answers it
  in_ns python3 - "$1" "$2" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:19091/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[1]})
with urllib.request.urlopen(url, timeout=5) as response:
    result = json.load(response)["data"]["result"]
sys.exit(0 if result and float(result[0]["value"][1]) == float(sys.argv[2]) else 1)
PY
}
check "Prometheus over TLS + basic auth: up == 1" wait_until 60 "up == 1" query 'up{job="good"}' 1
# The demo peer's 2 % random loss can score good as well as excellent (and the level damper
# holds what it first showed), so the truth is the agent's own scrape, not a fixed level.
agent_level() {
  tls_curl -u prometheus:secret "$base/metrics" |
    sed -n 's/^netquality_peer_quality_level{peer="127.0.0.2",direction="rx"} \([1-6]\)$/\1/p'
}
prometheus_has_agent_level() {
  local level
  level=$(agent_level)
  [ -n "$level" ] && query \
    'netquality_peer_quality_level{job="good",peer="127.0.0.2",direction="rx"}' "$level"
}
check "Prometheus has a netquality series (the demo peer's rx level, as the agent shows it)" \
  wait_until 30 "the demo peer's level as the agent shows it" prometheus_has_agent_level
check "Prometheus with a wrong password: up == 0" wait_until 30 "up == 0" query 'up{job="bad"}' 0
tls_curl -u prometheus:secret "$base/metrics" >"$work/scrape.txt"
check "the refusals are counted (wrong passwords, the plain HTTP handshake)" python3 - "$work/scrape.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def value(name):
    found = re.search("^" + re.escape(name) + r" (\S+)$", text, re.M)
    return float(found.group(1)) if found else -1
invalid = value('netquality_http_auth_failures_total{reason="invalid"}')
handshakes = value("netquality_http_tls_handshake_failures_total")
bcrypt = value("netquality_http_auth_bcrypt_checks_total")
print(f"     invalid {invalid:.0f}, TLS handshake failures {handshakes:.0f}, bcrypt checks {bcrypt:.0f}")
# curl's and Prometheus' wrong password, yet bcrypt ran once for it and once for the right
# one: every later scrape was answered from the cache.
sys.exit(0 if invalid >= 2 and handshakes >= 1 and bcrypt == 2 else 1)
PY

# 3. `netquality top` over TLS and basic auth, in tmux (a terminal of its own) in the namespace.
top_in_tmux() {  # SESSION, then top's options
  local session=$1
  shift
  in_ns tmux -L "$socket" new-session -d -s "$session" -x 140 -y 30 \
    "NO_COLOR=1 $netquality top --refresh 1 $*; sleep 120"
}
screen() { tmux -L "$socket" capture-pane -p -t "$1" 2>/dev/null; }
shows() { screen "$1" | grep -qE "$2"; }
level_names=(unknown excellent good poor bad very_bad down)
# The demo peer's row, connected, at the rx level the agent's own /metrics shows (both read
# again until they agree: the level may move between two reads).
top_shows_agent_level() {  # SESSION
  local level
  level=$(agent_level)
  [ -n "$level" ] && shows "$1" "^127\.0\.0\.2 +connected +${level_names[$level]} "
}
top_check() {  # DESCRIPTION SESSION
  if wait_until 30 "top's row of the demo peer" top_shows_agent_level "$2"; then
    echo "ok   $1: $(screen "$2" | grep '^127\.0\.0\.2' | tr -s ' ')"
  else
    echo "FAIL $1; the screen:"
    screen "$2"
    failures=$((failures + 1))
  fi
}
top_in_tmux url --url "https://prometheus:secret@127.0.0.1:$port" --ca-file "$work/ca.pem"
top_check "top --url https://USER:PASSWORD@… --ca-file: the demo peer at the agent's level" url
printf 'secret\n' >"$work/password"
top_in_tmux flags --url "https://127.0.0.1:$port" --username prometheus \
  --password-file "$work/password" --ca-file "$work/ca.pem"
top_check "top --username --password-file: the same" flags
top_in_tmux wrong --url "https://prometheus:wrong@127.0.0.1:$port" --ca-file "$work/ca.pem"
check "top with a wrong password: one line saying so" wait_until 15 "the 401 line" shows wrong \
  "^! https://127\.0\.0\.1:$port: HTTP/1\.1 401 Unauthorized: the agent refused user prometheus's password"
top_in_tmux noca --url "https://prometheus:secret@127.0.0.1:$port"
check "top without the CA file: the certificate refused (TLS), no data" \
  wait_until 15 "the TLS line" shows noca "^! https://127\.0\.0\.1:$port: .*TLS"
check "and no peer row from it" bash -c "! tmux -L $socket capture-pane -p -t noca | grep -q '^127\.0\.0\.2'"
tmux -L "$socket" kill-server 2>/dev/null || true

# 4. The status page in a real browser (the page has no script: any console line is wrong).
chromium_run() {  # output file, then chromium's options
  local out=$1
  shift
  run_for 60 ip netns exec "$namespace" chromium --headless --no-sandbox --disable-gpu \
    --ignore-certificate-errors --enable-logging=stderr --v=0 --user-data-dir="$work/chromium" \
    "$@" >"$out" 2>"$work/chromium.err"
}
points() {  # the fewest data points of the page's charts
  python3 -c 'import re,sys; p=[int(x) for x in re.findall(r"data-points=\"(\d+)\"", open(sys.argv[1]).read())]; print(min(p) if p else 0)' "$1"
}
enough_points() {
  chromium_run "$work/dom.html" --dump-dom "https://prometheus:secret@127.0.0.1:$port/" \
    && [ "$(points "$work/dom.html")" -ge 5 ]
}
check "the page shows a chart of at least 5 points" wait_until 60 "5 chart points" enough_points
check "the DOM has the demo peer's row" grep -q '>127.0.0.2</a>' "$work/dom.html"
check "the DOM has an SVG chart with a drawn line" grep -qE '<svg class="chart".*<path d="M' "$work/dom.html"
# Chromium's own pages (chrome://) may log too under load ("Slow network is detected"): only
# the lines from anything else are the page's.
no_console() {
  ! grep -E ':CONSOLE' "$work/chromium.err" | grep -v 'source: chrome://' \
    || { echo "     (above: the page's console lines)"; false; }
}
check "no console message while the page loads" no_console
chromium_run /dev/null --dump-dom 'data:text/html,<script>console.error("nq-probe")</script>'
check "the console check sees a page's console.error" grep -q 'nq-probe' "$work/chromium.err"
chromium_run "$work/shot.out" --window-size=1400,700 --screenshot="$artifacts/status-page.png" \
  "https://prometheus:secret@127.0.0.1:$port/"
check "a screenshot of the page: $artifacts/status-page.png" \
  test "$(stat -c %s "$artifacts/status-page.png" 2>/dev/null || echo 0)" -gt 20000

# 5. SIGHUP: a new password applies at once; a broken file is refused and the old one kept.
sed -i "s|prometheus: .*|prometheus: '$(htpasswd -nbBC 10 "" secret2 | tr -d ':\n')'|" "$work/web.yml"
agent_pid=$(for p in $(descendants "$agent"); do
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = netquality ] && echo "$p"; done | head -1)
kill -HUP "$agent_pid"
new_password() { [ "$(status_of -u prometheus:secret2 "$base/-/healthy")" = 200 ]; }
check "after SIGHUP the new password is accepted" wait_until 10 "the new password" new_password
check "after SIGHUP the old password is refused" \
  test "$(status_of -u prometheus:secret "$base/-/healthy")" = 401
sed -i "s|prometheus: .*|prometheus: 'not-a-hash'|" "$work/web.yml"
kill -HUP "$agent_pid"
refused() { grep -q "reload kept the old configuration: $work/web.yml: line 5: basic_auth_users.prometheus: not a bcrypt hash" "$work/agent.log"; }
check "a broken web file on SIGHUP: one line, the old configuration kept" \
  wait_until 10 "the reload's refusal" refused
check "and the password in effect still works" \
  test "$(status_of -u prometheus:secret2 "$base/-/healthy")" = 200
stop_process "$agent"

# 6. Client certificates.
cat >"$work/web-mtls.yml" <<YAML
tls_server_config:
  cert_file: server.pem
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: client-ca.pem
YAML
spawn ip netns exec "$namespace" "$netquality" run --demo --listen 127.0.0.1:$port \
  --config "$work/no-history.yml" --web.config.file "$work/web-mtls.yml" 2>"$work/agent-mtls.log"
agent=$!
pids+=("$agent")
with_cert() { status_of --cert "$work/client.pem" --key "$work/client.key" "$base/-/ready"; }
mtls_ready() { [ "$(with_cert)" = 200 ]; }
check "with a client certificate signed by the client CA: 200" wait_until 60 "mTLS" mtls_ready
set +e
in_ns curl -s --max-time 5 --cacert "$work/ca.pem" -o /dev/null "$base/-/ready"
without=$?
in_ns curl -s --max-time 5 --cacert "$work/ca.pem" --cert "$work/server.pem" --key "$work/server.key" \
  -o /dev/null "$base/-/ready"
other=$?
set -e
# curl: 56 (receive failure: the server's alert after the handshake, TLS 1.3) or 35 (handshake).
check "without a client certificate: the handshake is refused (curl exit $without)" \
  test "$without" = 56 -o "$without" = 35
check "with a certificate of another CA: refused (curl exit $other)" test "$other" = 56 -o "$other" = 35
top_in_tmux mtls --url "https://127.0.0.1:$port" --ca-file "$work/ca.pem" \
  --cert-file "$work/client.pem" --key-file "$work/client.key"
# This agent has no basic auth: its level read with the client certificate.
agent_level() {
  tls_curl --cert "$work/client.pem" --key "$work/client.key" "$base/metrics" |
    sed -n 's/^netquality_peer_quality_level{peer="127.0.0.2",direction="rx"} \([1-6]\)$/\1/p'
}
top_check "top --cert-file --key-file (client certificate): the demo peer" mtls
tmux -L "$socket" kill-server 2>/dev/null || true
stop_process "$agent"

# 7. A key file that cannot be read stops the start with one line, and check-config too.
sed 's|key_file: server.key|key_file: missing.key|' "$work/web-mtls.yml" >"$work/web-bad.yml"
set +e
run_for 60 ip netns exec "$namespace" "$netquality" run --demo --listen 127.0.0.1:$port \
  --config "$work/no-history.yml" --web.config.file "$work/web-bad.yml" 2>"$work/bad.log"
start_status=$?
run_for 30 "$netquality" check-config --web.config.file "$work/web-bad.yml" 2>"$work/check.log"
check_status=$?
set -e
expected="netquality: error: $work/web-bad.yml: line 3: tls_server_config.key_file: cannot read $work/missing.key: no such file"
check "the agent refuses to start (exit $start_status) with one line" \
  test "$start_status" = 1 -a "$(grep -c . "$work/bad.log")" = 1 -a "$(cat "$work/bad.log")" = "$expected"
check "check-config says the same (exit $check_status)" \
  test "$check_status" = 1 -a "$(cat "$work/check.log")" = "$expected"

# 8. Issue 39: TLS without cipher_suites takes exporter-toolkit's stance (TLS 1.2 or later,
# forward-secret AEAD suites only: no static-RSA key exchange, no CBC-SHA1), on an RSA
# certificate (static RSA needs one); and with --web.enable-lifecycle and no authentication a
# browser's cross-site POST /-/reload is refused 403 while curl's is not.
(
  cd "$work"
  openssl req -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.csr -subj "/CN=127.0.0.1"
  openssl x509 -req -in rsa.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out rsa.pem \
    -days 2 -extfile san.ext
) 2>/dev/null
printf 'tls_server_config:\n  cert_file: rsa.pem\n  key_file: rsa.key\n' >"$work/web-rsa.yml"
spawn ip netns exec "$namespace" "$netquality" run --demo --listen 127.0.0.1:$port \
  --config "$work/no-history.yml" --web.config.file "$work/web-rsa.yml" --web.enable-lifecycle \
  2>"$work/agent-rsa.log"
agent=$!
pids+=("$agent")
rsa_ready() { [ "$(status_of "$base/-/ready")" = 200 ]; }
check "the RSA-certificate agent with the lifecycle API: up" wait_until 60 "the RSA agent" rsa_ready
# The suite the handshake settled on ("Cipher is X"; "(NONE)" or nothing when refused).
suite() {
  in_ns timeout 10 openssl s_client -connect "127.0.0.1:$port" -CAfile "$work/ca.pem" "$@" \
    </dev/null 2>/dev/null | sed -n 's/^.*Cipher is \([^ ]*\)$/\1/p' | head -1
}
refused_suite() { local got; got=$(suite "$@"); [ -z "$got" ] || [ "$got" = "(NONE)" ]; }
check "TLS 1.2 with AES128-SHA (static RSA, CBC-SHA1): refused" refused_suite -tls1_2 -cipher AES128-SHA
check "TLS 1.2 with any static-RSA key exchange (kRSA): refused" refused_suite -tls1_2 -cipher kRSA
check "TLS 1.2 with ECDHE-RSA-AES128-SHA (CBC-SHA1): refused" \
  refused_suite -tls1_2 -cipher ECDHE-RSA-AES128-SHA
check "TLS 1.1: refused" refused_suite -tls1_1 -cipher 'ALL:@SECLEVEL=0'
check "TLS 1.2 with ECDHE-RSA-AES128-GCM-SHA256: accepted" \
  test "$(suite -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256)" = ECDHE-RSA-AES128-GCM-SHA256
reload_status() { status_of -X POST "$@" "$base/-/reload"; }
check "POST /-/reload with Origin: http://evil.example: 403" \
  test "$(reload_status -H 'Origin: http://evil.example')" = 403
check "POST /-/reload with Sec-Fetch-Site: cross-site: 403" \
  test "$(reload_status -H 'Sec-Fetch-Site: cross-site' -H 'Origin: null')" = 403
check "POST /-/reload from the agent's own page (Origin $base): 200" \
  test "$(reload_status -H "Origin: $base")" = 200
check "POST /-/reload from curl (no Origin): 200" test "$(reload_status)" = 200
reloads=$(grep -c "reloaded" "$work/agent-rsa.log" || true)
check "only the two allowed POSTs reloaded ($reloads)" test "$reloads" = 2
stop_process "$agent"

if [ "$failures" -ne 0 ]; then
  echo "agent log:"; tail -20 "$work/agent.log"
  exit 1
fi
echo "all web security and status page checks passed"
