"""The live benchmark's backend and writer, in one process so that a line's write time and its
frames body's arrival time are read from the same monotonic clock.

- A loopback backend on two ports. The main one serves the policy (with a `live` object listing
  the watched app's install as a tester, by its proof's hash, only to the watched app's key), takes
  logs, and answers the live channel as tests/ScriptedLiveBackend does: a hello whose proof checks
  out gets one viewer and a device token, `next` is held and answered, `frames` bodies are recorded
  with their arrival time. The other port is the stuck app's own backend: its policy, and 503 to
  every `/v1/logs`.
- Once the live session has started (its first `frames` body), it appends lines of the watched
  unit to the journal at a steady pace, one systemd-journal-remote run per line, as
  Tests/ApsioTestSupport/JournalFixture.swift appends: WARMUP seconds that are not counted, then
  SECONDS. Each line's message carries its own id; its write time is read after journal-remote
  returned.

Prints `port=N stuck_port=M` once both listen, then one line of `key=value` figures at the end.
"""
import argparse, gzip, hashlib, http.server, json, math, os, random, re, statistics, subprocess, sys, threading, time

JOURNAL_REMOTE = "/lib/systemd/systemd-journal-remote"
TESTER = "bench-box-1"
TOKEN = "b7" * 32
WATCHED_KEY = "apsio_app_live_bench_watched"
LINE = re.compile(r"live bench ([wm])(\d+)")

parser = argparse.ArgumentParser()
parser.add_argument("--state-dir", required=True)
parser.add_argument("--journal-dir", required=True)
parser.add_argument("--watched", required=True, help="the watched app's name; its unit is NAME.service")
parser.add_argument("--invocation", required=True, help="the unit's InvocationID, 32 hex")
parser.add_argument("--seconds", type=float, default=60)
parser.add_argument("--warmup", type=float, default=10)
parser.add_argument("--rate", type=float, default=5)
parser.add_argument("--grace", type=float, default=5, help="seconds to wait for the last lines")
parser.add_argument("--hold", type=float, default=20, help="how long a `next` is held")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--dump", help="a file for every measured line: number, written, arrived (monotonic s)")
parser.add_argument("--start-timeout", type=float, default=120)
args = parser.parse_args()

lock = threading.Lock()
session_started = threading.Event()
stopping = threading.Event()
frames = []          # (arrival monotonic, state, [line ids])
counts = {"hello": 0, "hello_refused": 0, "next": 0, "frames": 0, "logs": 0, "stuck_logs": 0, "policy": 0}


def installation_id():
    """The daemon makes the id before it asks for a policy; wait a little in case it is not there."""
    path = os.path.join(args.state_dir, "apps", args.watched, "installation-id")
    for _ in range(100):
        try:
            with open(path) as file:
                text = file.read().strip()
            if text:
                return text
        except OSError:
            pass
        time.sleep(0.1)
    return None


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def policy(watched):
    body = {"refresh_s": 300, "kill_switch": False, "capture": {}, "sampling": {"session_rate": 1}}
    if watched:
        install = installation_id()
        if install is None:
            return None
        body["live"] = {
            "origin": f"http://127.0.0.1:{main_server.server_address[1]}", "interval_s": 30,
            "testers": [{"id": TESTER, "match": sha(sha(f"{TESTER}:{install}")), "expires_at": 4_000_000_000}],
        }
    return json.dumps(body).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    stuck = False

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", content_type="application/json", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        return data

    def decoded(self, data):
        if "gzip" in (self.headers.get("Content-Encoding") or "").lower():
            data = gzip.decompress(data)
        return json.loads(data) if data else None

    def do_GET(self):
        if self.path.startswith("/v1/policy"):
            with lock:
                counts["policy"] += 1
            body = policy(not self.stuck and self.headers.get("Apsio-App-Key") == WATCHED_KEY)
            if body is None:
                return self.reply(503)
            return self.reply(200, body)
        if self.path.startswith("/v1/live/next") and not self.stuck:
            with lock:
                counts["next"] += 1
            if self.headers.get("Apsio-Live-Token") != TOKEN:
                return self.reply(401)
            # Held as a backend holds it, so the device has one `next` out all the time; nothing
            # to send, the session renewed each time.
            stopping.wait(args.hold)
            now_ms = int(time.time() * 1000)
            return self.reply(200, json.dumps({
                "commands": [], "viewers": 1, "until": now_ms + 1_800_000, "remaining_ms": 1_800_000, "stop": None,
            }).encode())
        self.reply(404)

    def do_POST(self):
        data = self.body()
        arrival = time.monotonic()
        if self.path.startswith("/v1/logs"):
            with lock:
                counts["stuck_logs" if self.stuck else "logs"] += 1
            return self.reply(503) if self.stuck else self.reply(200, b"{}")
        if self.stuck or not self.path.startswith("/v1/live/"):
            return self.reply(404)
        body = self.decoded(data)
        if self.path.startswith("/v1/live/hello"):
            install = installation_id()
            counts_tester = (
                install is not None and body.get("tester") == TESTER
                and body.get("proof") == sha(f"{TESTER}:{install}"))
            with lock:
                counts["hello" if counts_tester else "hello_refused"] += 1
            answer = {"viewers": 1, "interval_s": 30, "device_token": TOKEN} if counts_tester else {"viewers": 0, "interval_s": 30}
            return self.reply(200, json.dumps(answer).encode())
        if self.headers.get("Apsio-Live-Token") != TOKEN:
            return self.reply(401)
        if self.path.startswith("/v1/live/frames"):
            ids = []
            for line in body.get("lines") or []:
                match = LINE.search(str(line.get("body", "")))
                if match:
                    ids.append((match.group(1), int(match.group(2))))
            with lock:
                counts["frames"] += 1
                frames.append((arrival, body.get("state"), ids))
            if body.get("state") == "live":
                session_started.set()
        self.reply(202)


class StuckHandler(Handler):
    stuck = True


def serve(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


main_server = serve(Handler)
stuck_server = serve(StuckHandler)
print(f"port={main_server.server_address[1]} stuck_port={stuck_server.server_address[1]}", flush=True)

with open("/proc/sys/kernel/random/boot_id") as file:
    BOOT_ID = file.read().strip().replace("-", "")
journal_file = os.path.join(args.journal_dir, "system.journal")
unit = f"{args.watched}.service"


def write_line(kind, number):
    """One entry shaped like journald's for a service's stdout, appended by its own
    journal-remote run; returns the monotonic time it returned at."""
    now = time.time()
    entry = (
        f"__REALTIME_TIMESTAMP={int(now * 1e6)}\n__MONOTONIC_TIMESTAMP={int(time.monotonic() * 1e6)}\n"
        f"_BOOT_ID={BOOT_ID}\n_SYSTEMD_UNIT={unit}\n_SYSTEMD_INVOCATION_ID={args.invocation}\n"
        f"_PID=4242\n_UID=998\n_COMM={args.watched}\n_EXE=/usr/bin/{args.watched}\n_HOSTNAME=bench-box\n"
        f"_TRANSPORT=stdout\nSYSLOG_IDENTIFIER={args.watched}\nPRIORITY=6\n"
        f"MESSAGE=live bench {kind}{number} request handled in 12 ms\n\n").encode()
    run = subprocess.run([JOURNAL_REMOTE, f"--output={journal_file}", "-"], input=entry,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if run.returncode != 0:
        sys.exit(f"systemd-journal-remote exited with {run.returncode}: {run.stderr.decode()}")
    return time.monotonic()


def write_for(kind, seconds, written):
    """Lines at a steady pace, RATE a second, each at a random point of its own 1/RATE slot (or at
    once when the writes fell behind: a write that took longer than its slot). Not on the slot's
    edge: 5 a second against frames once a second would put every line at one of five fixed
    phases of the frames clock, and the percentiles would say more about that phase than about
    the daemon. Seeded, so two builds get the same offsets."""
    rng = random.Random(args.seed)
    start = time.monotonic()
    number = 0
    while True:
        if number >= seconds * args.rate:
            return
        due = start + (number + rng.random()) / args.rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        before = time.monotonic()
        written[number] = (before, write_line(kind, number))
        number += 1


if not session_started.wait(args.start_timeout):
    with lock:
        print(f"error=no_live_session counts={json.dumps(counts, separators=(',', ':'))}", flush=True)
    sys.exit(1)

warm = {}
write_for("w", args.warmup, warm)
measured = {}
started = time.monotonic()
write_for("m", args.seconds, measured)
ended = time.monotonic()
time.sleep(args.grace)
stopping.set()

with lock:
    arrived = {}
    bodies = []
    for arrival, state, ids in frames:
        if any(kind == "m" for kind, _ in ids):
            bodies.append(arrival)
        for kind, number in ids:
            if kind == "m":
                arrived.setdefault(number, arrival)
    snapshot = dict(counts)

if args.dump:
    with open(args.dump, "w") as file:
        for n, (before, after) in sorted(measured.items()):
            file.write(f"{n} {before:.6f} {after:.6f} {arrived.get(n, float('nan')):.6f}\n")
latencies = sorted((arrived[n] - measured[n][1]) * 1000 for n in measured if n in arrived)
write_ms = sorted((after - before) * 1000 for before, after in measured.values())
gaps = [(b - a) * 1000 for a, b in zip(bodies, bodies[1:])]


def pct(values, p):
    """Nearest rank: the value below which p % of them are."""
    if not values:
        return float("nan")
    return values[max(0, math.ceil(p / 100 * len(values)) - 1)]


duplicates = sum(1 for _, _, ids in frames for kind, _ in ids if kind == "m") - len(arrived)
print(" ".join(f"{key}={value}" for key, value in [
    ("lines", len(measured)), ("missing", len(measured) - len(arrived)), ("duplicates", duplicates),
    ("p50_ms", f"{pct(latencies, 50):.0f}"), ("p90_ms", f"{pct(latencies, 90):.0f}"),
    ("p99_ms", f"{pct(latencies, 99):.0f}"), ("max_ms", f"{latencies[-1]:.0f}" if latencies else "nan"),
    ("min_ms", f"{latencies[0]:.0f}" if latencies else "nan"),
    ("bodies", len(bodies)),
    ("interval_p50_ms", f"{statistics.median(gaps):.0f}" if gaps else "nan"),
    ("interval_min_ms", f"{min(gaps):.0f}" if gaps else "nan"),
    ("interval_max_ms", f"{max(gaps):.0f}" if gaps else "nan"),
    ("lines_per_body", f"{len(arrived) / len(bodies):.1f}" if bodies else "nan"),
    ("write_p50_ms", f"{pct(write_ms, 50):.1f}"), ("write_max_ms", f"{write_ms[-1]:.1f}" if write_ms else "nan"),
    ("rate_per_s", f"{len(measured) / (ended - started):.2f}"),
    ("hellos", snapshot["hello"]), ("hellos_refused", snapshot["hello_refused"]),
    ("stuck_logs_503", snapshot["stuck_logs"]), ("logs", snapshot["logs"]),
]), flush=True)
