#!/usr/bin/env bash
# Renders a run's HTML report in a real browser (headless Chromium, Debian package `chromium`)
# and fails on anything a reader's browser would complain about:
#
#   * a console message of level error or warning, an uncaught exception, a browser log entry
#     of level error (a resource that failed to load, a blocked request);
#   * a page that is not a whole report: every section (`verdict` ... `coverage`) present, no
#     <script> element, nothing loaded from the network.
#
# It keeps a full-page PNG screenshot. Chromium is driven over its DevTools pipe
# (`--remote-debugging-pipe`) by the Python 3 standard library; nothing else is needed.
#
#   ci/render-report.sh [REPORT.html [SCREENSHOT.png]]
#
# Defaults: target/orin-exec/runs/latest/report.html (the demo's last run) and
# target/orin-exec/report.png. Exit status: 0 clean, 1 the page has errors, 2 cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-target/orin-exec/runs/latest/report.html}
png=${2:-target/orin-exec/report.png}
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$chrome" ]; then
    echo "render-report: no Chromium found (apt-get install chromium, or set CHROMIUM)" >&2
    exit 2
fi
if [ ! -f "$report" ]; then
    echo "render-report: $report: no such report (run the demo first: cargo run --release)" >&2
    exit 2
fi
mkdir -p "$(dirname "$png")"

exec python3 - "$chrome" "$report" "$png" <<'PY'
import base64, json, os, select, shutil, subprocess, sys, tempfile, time

chrome, report, png = sys.argv[1:4]
url = "file://" + os.path.abspath(report)
SECTIONS = ["verdict", "tasks", "release-jitter", "timeline", "faults", "mode-switches",
            "artifacts", "environment", "audits", "coverage"]
DEADLINE = time.monotonic() + 120

# Chromium reads DevTools commands from fd 3 and writes replies and events to fd 4.
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()

def child_fds():
    hi_r, hi_w = os.dup(to_chrome_r), os.dup(from_chrome_w)
    os.dup2(hi_r, 3)
    os.dup2(hi_w, 4)

profile = tempfile.mkdtemp(prefix="render-report-")
stderr_log = open(os.path.join(profile, "chromium.stderr"), "w+b")
proc = subprocess.Popen(
    [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
     "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
     "--hide-scrollbars", "--window-size=1200,900", "about:blank"],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr_log,
    preexec_fn=child_fds, close_fds=False)
os.close(to_chrome_r)
os.close(from_chrome_w)

buf = b""
events = []
next_id = 0

def fail(msg, code=2):
    print("render-report: " + msg, file=sys.stderr)
    try:
        proc.kill()
    except Exception:
        pass
    shutil.rmtree(profile, ignore_errors=True)
    sys.exit(code)

def read_message():
    global buf
    while b"\0" not in buf:
        left = DEADLINE - time.monotonic()
        if left <= 0:
            fail("Chromium did not answer in time")
        ready, _, _ = select.select([from_chrome_r], [], [], left)
        if not ready:
            continue
        chunk = os.read(from_chrome_r, 1 << 20)
        if not chunk:
            stderr_log.seek(0)
            err = stderr_log.read().decode(errors="replace")[-2000:]
            fail("Chromium closed its DevTools pipe\n" + err)
        buf += chunk
    msg, buf = buf.split(b"\0", 1)
    return json.loads(msg)

def send(method, params=None, session=None):
    global next_id
    next_id += 1
    m = {"id": next_id, "method": method, "params": params or {}}
    if session:
        m["sessionId"] = session
    os.write(to_chrome_w, json.dumps(m).encode() + b"\0")
    while True:
        r = read_message()
        if r.get("id") == next_id:
            if "error" in r:
                fail(f"{method}: {r['error']}")
            return r.get("result", {})
        events.append(r)

def wait_for(method):
    for i, e in enumerate(events):
        if e.get("method") == method:
            return events.pop(i)
    while True:
        e = read_message()
        if e.get("method") == method:
            return e
        events.append(e)

target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
for domain in ("Page", "Runtime", "Log", "Network"):
    send(domain + ".enable", session=session)
send("Page.navigate", {"url": url}, session=session)
wait_for("Page.loadEventFired")
time.sleep(0.3)  # late console messages and log entries

def js(expr):
    r = send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=session)
    return r.get("result", {}).get("value")

problems = []
sections = js("Array.from(document.querySelectorAll('section[id]')).map(s => s.id)") or []
missing = [s for s in SECTIONS if s not in sections]
if missing:
    problems.append("sections missing: " + ", ".join(missing))
if js("document.scripts.length") != 0:
    problems.append("the page has <script> elements")
title = js("document.title") or ""

metrics = send("Page.getLayoutMetrics", session=session)
size = metrics.get("cssContentSize") or metrics.get("contentSize")
width, height = int(size["width"]), int(size["height"])
shot = send("Page.captureScreenshot", {
    "format": "png", "captureBeyondViewport": True,
    "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}}, session=session)
with open(png, "wb") as f:
    f.write(base64.b64decode(shot["data"]))

time.sleep(0.1)
# Drain what is left, then judge every event.
os.set_blocking(from_chrome_r, False)
try:
    while True:
        chunk = os.read(from_chrome_r, 1 << 20)
        if not chunk:
            break
        buf += chunk
except BlockingIOError:
    pass
while b"\0" in buf:
    msg, buf = buf.split(b"\0", 1)
    events.append(json.loads(msg))

for e in events:
    m, p = e.get("method"), e.get("params", {})
    if m == "Runtime.consoleAPICalled":
        text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        line = f"console.{p.get('type')}: {text}"
        if p.get("type") in ("error", "assert", "warning"):
            problems.append(line)
        else:
            print("render-report: " + line)
    elif m == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        problems.append("uncaught exception: " + d.get("text", "") + " " +
                        str(d.get("exception", {}).get("description", "")))
    elif m == "Log.entryAdded":
        entry = p.get("entry", {})
        line = f"log {entry.get('level')} ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}"
        if entry.get("level") == "error":
            problems.append(line)
        else:
            print("render-report: " + line)
    elif m == "Network.requestWillBeSent":
        u = p.get("request", {}).get("url", "")
        if not (u.startswith("file://") or u.startswith("data:") or u == "about:blank"):
            problems.append("network request: " + u)
    elif m == "Network.loadingFailed":
        problems.append(f"load failed: {p.get('errorText')}")

try:
    send("Browser.close")
except SystemExit:
    raise
except Exception:
    pass
try:
    proc.wait(timeout=20)
except subprocess.TimeoutExpired:
    proc.kill()
shutil.rmtree(profile, ignore_errors=True)

print(f"render-report: {report}: \"{title}\", {len(sections)} sections, {width}x{height} px")
print(f"render-report: screenshot {png}")
if problems:
    for p in problems:
        print("render-report: ERROR " + p, file=sys.stderr)
    sys.exit(1)
print("render-report: no console error")
PY
