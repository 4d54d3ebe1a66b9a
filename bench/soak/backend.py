"""The soak's backend, on 127.0.0.1 only: each app's policy (listing the install as a tester, so
live sessions can open), an OTLP/HTTP logs sink that records every `log.record.uid` it accepted,
and the live channel (hello, a held next, frames, results). It flaps on a fixed schedule, the way
real backends fail: 503 bursts, a listener that is gone (connection refused), connections closed
as soon as they are accepted, slow answers, 429 with Retry-After, and sockets reset half way
through a request body or a response. Healthy stretches between them let the daemon's queue
drain. SIGUSR1 ends the flapping (healthy from then on, for the final drain); SIGTERM stops it.

Accepted means a 2xx answer was written out whole: `accepted.txt` gets `APP UID` for each record
of such a request, after the answer, so a batch whose answer was cut off is never counted (the
daemon must send it again). Counts go to `stats.json`, phase changes to `phases.log`."""
import argparse, gzip, hashlib, http.server, json, os, random, signal, socket, struct, sys, threading, time

MAX_BODY = 32 << 20  # a batch is at most 512 KiB of JSON before gzip; anything larger is a bug
NEXT_HOLD_MAX_S = 20  # the daemon waits 25 s for a held next; answer before it gives up
TESTER = "soak-box"

# The flapping cycle, seconds at scale 1 (7.6 minutes). Every failure is followed by a healthy
# stretch longer than the daemon's backoff has grown to by then (1 s doubling: about 32 s after
# 30 s of failures), so each stretch sends what the failure held back.
CYCLE = [
    ("503", 30), ("healthy", 45),
    ("refused", 30), ("healthy", 45),
    ("slow", 40), ("healthy", 45),
    ("429", 20), ("healthy", 45),
    ("reset", 30), ("healthy", 60),
    ("drop", 20), ("healthy", 45),
]
WARMUP = ("healthy", 60)


class State:
    """Everything the handlers share, under one lock."""

    def __init__(self, args):
        self.lock = threading.Lock()
        self.args = args
        self.apps = {}  # app key -> app name
        self.tokens = {}
        for pair in args.app:
            name, key = pair.split("=", 1)
            self.apps[key] = name
            self.tokens[name] = hashlib.sha256(f"soak-token:{name}:{args.seed}".encode()).hexdigest()
        self.phase = WARMUP[0]
        self.draining = False
        self.started = time.monotonic()
        self.accepted_file = open(os.path.join(args.out, "accepted.txt"), "a", buffering=1 << 16)
        self.accepted = {name: set() for name in self.apps.values()}
        self.accept_events = {name: 0 for name in self.apps.values()}
        self.counts = {}  # "phase endpoint outcome" -> n
        self.hellos = {name: 0 for name in self.apps.values()}
        self.live = {}  # what the live channel saw and answered, "name what" -> n
        self.commands = 0
        self.rng = random.Random(args.seed)

    def count(self, key, table=None, n=1):
        with self.lock:
            table = self.counts if table is None else table
            table[key] = table.get(key, 0) + n

    def uniform(self, a, b):
        with self.lock:
            return self.rng.uniform(a, b)

    def choice(self, weighted):
        with self.lock:
            roll = self.rng.random() * sum(w for _, w in weighted)
            for value, weight in weighted:
                roll -= weight
                if roll < 0:
                    return value
            return weighted[-1][0]

    def installation_id(self, name):
        """Read from the daemon's state directory at each policy request: the daemon makes the id
        the first time it serves the app, and a policy asked before that lists no tester."""
        try:
            with open(os.path.join(self.args.state_dir, "apps", name, "installation-id")) as f:
                return f.read().strip()
        except OSError:
            return None

    def write_stats(self):
        with self.lock:
            stats = {
                "phase": self.phase, "draining": self.draining,
                "accepted_unique": {n: len(s) for n, s in self.accepted.items()},
                "accept_events": dict(self.accept_events),
                "requests": dict(self.counts), "hellos": dict(self.hellos), "live": dict(self.live),
            }
        path = os.path.join(self.args.out, "stats.json")
        with open(path + ".tmp", "w") as f:
            json.dump(stats, f, sort_keys=True)
        os.replace(path + ".tmp", path)


def sha256hex(text):
    return hashlib.sha256(text.encode()).hexdigest()


def policy_body(state, name):
    policy = {
        # The shortest refresh the daemon keeps (60 s), so fetches meet every phase; `apsioctl
        # reload` every few seconds asks again on top of it.
        "refresh_s": 60, "kill_switch": False,
        "capture": {"logs": "always", "errors": "always", "metrics": "always", "replay": "always"},
        "sampling": {"session_rate": 1.0},
    }
    installation = state.installation_id(name)
    if installation:
        proof = sha256hex(f"{TESTER}:{installation}")
        policy["live"] = {
            "origin": f"http://127.0.0.1:{state.args.port}", "interval_s": 15,
            "testers": [{"id": TESTER, "match": sha256hex(proof), "expires_at": 4_000_000_000}],
        }
    return json.dumps(policy, sort_keys=True).encode()


def uids_in(request):
    for resource in request.get("resourceLogs", []):
        for scope in resource.get("scopeLogs", []):
            for record in scope.get("logRecords", []):
                for attribute in record.get("attributes", []):
                    if attribute.get("key") == "log.record.uid":
                        yield attribute["value"]["stringValue"]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # A kept-alive connection idle this long is closed, so a client that went away costs a thread
    # for at most this long.
    timeout = 90
    state: State = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    # --- the ways of failing

    def abort(self):
        """Closes with a reset (SO_LINGER 0), as a crashed backend or a middlebox does."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()
            self.connection.close()
        except OSError:
            pass

    def answer(self, status, body=b"", headers=(), cut=False):
        """Writes an answer; `cut` writes the headers and half the body, then resets. Returns
        "sent", "cut", or "gone" when the client had closed (a held next it gave up on)."""
        try:
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            if body or cut:
                body = body or b'{"partialSuccess":{}}'
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if cut:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.abort()
                return "cut"
            self.wfile.write(body)
            self.wfile.flush()
            return "sent"
        except OSError:
            self.close_connection = True
            return "gone"

    def read_body(self, half=False):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError(f"body of {length} bytes")
        raw = self.rfile.read(length // 2 if half else length)
        if half:
            return None
        if self.headers.get("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        return raw

    def route(self):
        state = self.state
        path = self.path.split("?", 1)[0]
        endpoint = {"/v1/logs": "logs", "/v1/policy": "policy", "/v1/live/hello": "hello",
                    "/v1/live/next": "next", "/v1/live/frames": "frames", "/v1/live/results": "results"}.get(path)
        name = state.apps.get(self.headers.get("Apsio-App-Key"))
        phase = state.phase
        if endpoint is None or name is None:
            state.count(f"{phase} unknown {self.command} {path}")
            self.answer(404)
            return
        if phase == "drop":
            # A connection kept alive from before: closed with no answer.
            state.count(f"{phase} {endpoint} dropped")
            self.abort()
            return
        if phase == "reset" and self.command == "POST" and state.choice([(True, 1), (False, 1)]):
            # Half the request body read, then the socket reset under the client.
            self.read_body(half=True)
            state.count(f"{phase} {endpoint} reset-reading")
            self.abort()
            return
        try:
            body = self.read_body() if self.command == "POST" else None
        except (OSError, ValueError, EOFError) as error:
            state.count(f"{phase} {endpoint} unreadable")
            print(f"{name} {endpoint}: unreadable body: {error}", file=sys.stderr, flush=True)
            self.abort()
            return
        if phase == "503":
            state.count(f"{phase} {endpoint} 503")
            self.answer(503, b'{"error":"unavailable"}')
            return
        if phase == "429":
            wait = int(state.uniform(2, 9))
            state.count(f"{phase} {endpoint} 429")
            self.answer(429, b'{"error":"slow down"}', [("Retry-After", str(wait))])
            return
        if phase == "slow" and endpoint != "next":
            # Several seconds, well inside the daemon's deadlines (60 s for logs).
            time.sleep(state.uniform(3, 9))
        cut = phase == "reset"
        getattr(self, "serve_" + endpoint)(state, name, phase, body, cut)

    # --- the endpoints, answered as a healthy backend does (unless `cut`)

    def serve_policy(self, state, name, phase, body, cut):
        policy = policy_body(state, name)
        etag = '"' + hashlib.sha256(policy).hexdigest()[:16] + '"'
        if not cut and self.headers.get("If-None-Match") == etag:
            state.count(f"{phase} policy 304")
            self.answer(304, headers=[("ETag", etag)])
            return
        state.count(f"{phase} policy 200 {self.answer(200, policy, [('ETag', etag)], cut=cut)}")

    def serve_logs(self, state, name, phase, body, cut):
        try:
            uids = list(uids_in(json.loads(body)))
        except (ValueError, KeyError, TypeError) as error:
            # Never a 400 (the daemon would drop the batch): a 500 keeps it, and the count says
            # the body was not what OTLP/HTTP JSON should be.
            state.count(f"{phase} logs bad-body")
            print(f"{name} logs: bad body: {error}", file=sys.stderr, flush=True)
            self.answer(500)
            return
        outcome = self.answer(200, b'{"partialSuccess":{}}', cut=cut)
        if outcome != "sent":
            state.count(f"{phase} logs 200 {outcome}")
            return
        with state.lock:
            state.accepted_file.write("".join(f"{name} {uid}\n" for uid in uids))
            state.accepted_file.flush()
            state.accepted[name].update(uids)
            state.accept_events[name] += len(uids)
            key = f"{phase} logs 200 sent"
            state.counts[key] = state.counts.get(key, 0) + 1

    def serve_hello(self, state, name, phase, body, cut):
        # Hellos alternate: a viewer (a session starts if none runs), then nobody.
        with state.lock:
            state.hellos[name] += 1
            viewers = 1 if state.hellos[name] % 2 == 1 else 0
        reason = None
        try:
            reason = json.loads(body).get("reason")
        except (ValueError, AttributeError):
            pass
        state.count(f"{name} hello reason={reason} viewers={viewers}", state.live)
        answer = {"viewers": viewers, "interval_s": 15, "device_token": state.tokens[name]}
        state.count(f"{phase} hello 200 {self.answer(200, json.dumps(answer).encode(), cut=cut)}")

    def token_ok(self, state, name):
        if self.headers.get("Apsio-Live-Token") == state.tokens[name]:
            return True
        state.count(f"{name} bad-token", state.live)
        self.answer(401)
        return False

    def serve_next(self, state, name, phase, body, cut):
        if not self.token_ok(state, name):
            return
        # Held, as a backend with no command for the device holds it; slow or not.
        time.sleep(state.uniform(1, NEXT_HOLD_MAX_S))
        kind = state.choice([("idle", 50), ("204", 10), ("screenshot", 15), ("diagnostics", 10), ("stop", 15)])
        state.count(f"{name} next {kind}", state.live)
        if kind == "204":
            outcome = self.answer(204, cut=cut)
        else:
            remaining = 120_000
            commands = []
            if kind in ("screenshot", "diagnostics"):
                with state.lock:
                    state.commands += 1
                    number = state.commands
                commands = [{"id": f"soak-{number}", "name": kind, "args": {}}]
            answer = {"commands": commands, "viewers": 1, "until": int(time.time() * 1000) + remaining,
                      "remaining_ms": remaining, "stop": "viewers_left" if kind == "stop" else None}
            outcome = self.answer(200, json.dumps(answer).encode(), cut=cut)
        state.count(f"{phase} next {outcome}")

    def serve_frames(self, state, name, phase, body, cut):
        if not self.token_ok(state, name):
            return
        try:
            frames = json.loads(body)
            state.count(f"{name} frames {frames.get('state')}", state.live)
            state.count(f"{name} lines", state.live, len(frames.get("lines", [])))
        except (ValueError, AttributeError):
            state.count(f"{name} frames unreadable", state.live)
        state.count(f"{phase} frames 200 {self.answer(200, b'{}', cut=cut)}")

    def serve_results(self, state, name, phase, body, cut):
        if not self.token_ok(state, name):
            return
        try:
            result = json.loads(body)
            state.count(f"{name} result {result.get('name')} {result.get('outcome')}", state.live)
        except (ValueError, AttributeError):
            state.count(f"{name} result unreadable", state.live)
        state.count(f"{phase} results 200 {self.answer(200, b'{}', cut=cut)}")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, state, *args):
        self.state = state
        self.connections = set()
        self.connections_lock = threading.Lock()
        super().__init__(*args)

    def process_request(self, request, client_address):
        if self.state.phase == "drop":
            # Accepted and closed at once, before a byte is read.
            self.state.count("drop accept closed")
            try:
                request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
            request.close()
            return
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def cut_every_connection(self):
        with self.connections_lock:
            connections = list(self.connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Listener:
    """The listening socket, which the `refused` phase takes away: the same port, bound again
    when the phase ends (the port is below the ephemeral range, so no client socket takes it
    meanwhile)."""

    def __init__(self, state):
        self.state = state
        self.server = None
        self.thread = None

    def open(self):
        for attempt in range(50):
            try:
                self.server = Server(self.state, ("127.0.0.1", self.state.args.port), Handler)
                break
            except OSError:
                if attempt == 49:
                    raise
                time.sleep(0.2)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        self.thread.start()

    def close(self):
        """Stops listening and cuts every open connection, as a backend that went down does."""
        if self.server is None:
            return
        self.server.shutdown()
        self.server.server_close()
        self.server.cut_every_connection()
        self.server = None


def schedule(scale):
    yield WARMUP[0], WARMUP[1] * scale
    while True:
        for phase, seconds in CYCLE:
            yield phase, seconds * scale


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--app", action="append", default=[], help="NAME=APPKEY")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    Handler.state = state = State(args)
    listener = Listener(state)
    listener.open()
    state.write_stats()
    phases_log = open(os.path.join(args.out, "phases.log"), "a", buffering=1)
    wake = threading.Event()
    stopping = threading.Event()

    def on_usr1(*_):
        state.draining = True
        wake.set()

    def on_term(*_):
        stopping.set()
        wake.set()

    signal.signal(signal.SIGUSR1, on_usr1)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    print(f"port={args.port}", flush=True)

    def enter(phase):
        if phase == state.phase:
            return
        if phase == "refused":
            listener.close()
        elif state.phase == "refused":
            listener.open()
        state.phase = phase
        phases_log.write(f"{time.monotonic() - state.started:.1f} {phase}\n")

    phases_log.write(f"0.0 {state.phase}\n")
    last_stats = 0.0
    for phase, seconds in schedule(args.scale):
        if state.draining or stopping.is_set():
            break
        enter(phase)
        end = time.monotonic() + seconds
        while not (state.draining or stopping.is_set()) and time.monotonic() < end:
            wake.wait(min(1.0, max(0.0, end - time.monotonic())))
            if time.monotonic() - last_stats >= 2:
                state.write_stats()
                last_stats = time.monotonic()
    if not stopping.is_set():
        enter("healthy")
        phases_log.write(f"{time.monotonic() - state.started:.1f} drain\n")
    while not stopping.is_set():
        stopping.wait(1)
        state.write_stats()
    listener.close()
    with state.lock:
        state.accepted_file.flush()
    state.write_stats()


if __name__ == "__main__":
    main()
