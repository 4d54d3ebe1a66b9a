"""The backend apsiod talks to during a history: policy, ingest sink and live channel on one
loopback port, answering as a real backend would (16.4, 16.7) unless a fault is scripted, and
recording every request with the moment it came and the operation that was running then.

It is a peer the checker controls, not a model of the daemon: what it records is what arrived over
the wire, and the checker judges the history from it."""

import gzip
import hashlib
import json
import re
import secrets
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .otlp_protobuf import request_to_json

TAG = re.compile(r"\bE(\d{6})\b")
#: What a request body may be, uncompressed: far above what apsiod sends in a batch.
MAX_BODY = 64 << 20


def sha256_hex(text):
    return hashlib.sha256(text.encode()).hexdigest()


class Fault:
    """What the next requests to a route get instead of the usual answer."""

    def __init__(self, route, kind, status=503, retry_after=None, count=1, seconds=0.0):
        self.route = route          # "logs", "policy", "hello", "next", "frames", "results"
        self.kind = kind            # "status", "slow", "reset"
        self.status = status
        self.retry_after = retry_after
        self.count = count
        self.seconds = seconds


class Backend:
    """State shared by the handler threads; every member is read and written under `lock`."""

    def __init__(self, clock):
        self.clock = clock
        self.lock = threading.Condition()
        self.events = []              # dicts, in arrival order
        self.faults = []              # [Fault]
        self.policies = {}            # app key -> policy dict (None: 503)
        self.installs = {}            # app key -> installation id the tester entry proves
        self.tester = "chk-box"
        self.viewers = 1
        self.interval = 15
        self.kill_switch = False
        self.capture = {}
        self.live_listed = True
        self.tokens = {}              # install -> current device token
        self.commands = {}            # install -> [command]
        self.issued_tokens = []       # every token ever made: none may leave the wire
        self.op = -1                  # the operation running now, set by the driver
        self.next_hold = 1.5
        self.closed = False
        self.server = None
        self.port = 0

    # -- the driver's side ---------------------------------------------------------------------

    def start(self):
        backend = self

        class Handler(_Handler):
            pass

        Handler.backend = backend
        self.server = _Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, name="backend", daemon=True).start()

    def stop(self):
        with self.lock:
            self.closed = True
            self.lock.notify_all()
        if self.server:
            self.server.shutdown()
            self.server.server_close()

    @property
    def origin(self):
        return "http://127.0.0.1:%d" % self.port

    def add_fault(self, fault):
        with self.lock:
            self.faults.append(fault)

    def clear_faults(self):
        with self.lock:
            self.faults = []

    def set_op(self, index):
        with self.lock:
            self.op = index

    def policy_for(self, app_key):
        """The policy as served now to the app with `app_key`: what the history sets, with the
        tester entry proving the install the driver last read."""
        policy = {
            "refresh_s": 3600,
            "kill_switch": self.kill_switch,
            "capture": dict(self.capture),
            "sampling": {"session_rate": 1},
        }
        install = self.installs.get(app_key)
        if self.live_listed and install:
            proof = sha256_hex("%s:%s" % (self.tester, install))
            policy["live"] = {
                "origin": self.origin,
                "interval_s": self.interval,
                "testers": [{"id": self.tester, "match": sha256_hex(proof), "expires_at": 4000000000}],
            }
        return policy

    def proofs(self):
        with self.lock:
            return [sha256_hex("%s:%s" % (self.tester, i)) for i in self.installs.values() if i]

    def snapshot(self):
        with self.lock:
            return list(self.events)

    def wait_for(self, predicate, timeout):
        """Until `predicate(events)` holds or `timeout` seconds pass; returns whether it held."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not predicate(self.events):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.lock.wait(min(left, 0.5))
            return True

    # -- the handlers' side ----------------------------------------------------------------------

    def take_fault(self, route):
        with self.lock:
            for fault in self.faults:
                if fault.route == route and fault.count > 0:
                    fault.count -= 1
                    if fault.count == 0:
                        self.faults.remove(fault)
                    return fault
        return None

    def record(self, event):
        with self.lock:
            event["t"] = self.clock()
            event["op"] = self.op
            self.events.append(event)
            self.lock.notify_all()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def handle_error(self, request, client_address):
        # A connection apsiod dropped, or one a fault reset: nothing to report.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    backend = None
    timeout = 30

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    # -- framing -------------------------------------------------------------------------------

    def read_body(self, half=False):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("body too large")
        if half:
            return self.rfile.read(length // 2)
        data = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding") == "gzip" and data:
            with gzip.GzipFile(fileobj=__import__("io").BytesIO(data)) as stream:
                data = stream.read(MAX_BODY + 1)
        return data

    def answer(self, status, body=None, headers=None):
        payload = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if payload:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    def reset(self):
        """Closes the connection without an answer, with an RST: a connection reset mid-body."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
        except OSError:
            pass

    # -- routes --------------------------------------------------------------------------------

    def dispatch(self, method):
        backend = self.backend
        path, _, query = self.path.partition("?")
        routes = {
            ("GET", "/v1/policy"): ("policy", self.policy),
            ("POST", "/v1/logs"): ("logs", self.logs),
            ("POST", "/v1/live/hello"): ("hello", self.hello),
            ("GET", "/v1/live/next"): ("next", self.next),
            ("POST", "/v1/live/frames"): ("frames", self.frames),
            ("POST", "/v1/live/results"): ("results", self.results),
        }
        route = routes.get((method, path))
        if route is None:
            self.read_body()
            backend.record({"route": "unknown", "path": path, "method": method, "status": 404})
            self.answer(404)
            return
        name, handler = route
        app_key = self.headers.get("Apsio-App-Key")
        token = self.headers.get("Apsio-Live-Token")
        fault = backend.take_fault(name)
        base = {"route": name, "app_key": app_key, "token": token, "query": query}
        if fault and fault.kind == "reset":
            self.read_body(half=True)
            backend.record(dict(base, status="reset"))
            self.reset()
            return
        try:
            body = self.read_body()
        except (ValueError, OSError, EOFError) as error:
            backend.record(dict(base, status=400, error=str(error)))
            self.answer(400)
            return
        if fault and fault.kind == "slow":
            time.sleep(fault.seconds)
        if fault and fault.kind == "status":
            headers = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
            backend.record(dict(base, status=fault.status, retry_after=fault.retry_after, raw=body,
                                **self.parse(name, body)))
            self.answer(fault.status, None, headers)
            return
        handler(base, body, query)

    def is_protobuf(self):
        """OTLP/HTTP's binary encoding, by its media type (apsiod's default; `Encoding=json` is the other)."""
        return (self.headers.get("Content-Type") or "").lower().startswith("application/x-protobuf")

    def parse(self, name, body):
        """What the checker needs of a body that was refused: the records of a batch."""
        if name != "logs":
            return {}
        return {"records": records_of(body, protobuf=self.is_protobuf())}

    def policy(self, base, body, query):
        backend = self.backend
        with backend.lock:
            policy = backend.policy_for(base["app_key"])
        backend.record(dict(base, status=200, policy=policy))
        self.answer(200, policy)

    def logs(self, base, body, query):
        records = records_of(body, protobuf=self.is_protobuf())
        self.backend.record(dict(base, status=200, records=records, raw=body))
        self.answer(200, {})

    def hello(self, base, body, query):
        backend = self.backend
        try:
            hello = json.loads(body)
        except ValueError:
            backend.record(dict(base, status=400))
            self.answer(400)
            return
        install = hello.get("install")
        with backend.lock:
            policy = backend.policy_for(base["app_key"])
            listed = policy.get("live", {}).get("testers", [])
            proof = hello.get("proof") or ""
            counts = any(
                entry["id"] == hello.get("tester") and sha256_hex(proof) == entry["match"] for entry in listed)
            answer = {"viewers": 0, "interval_s": backend.interval}
            replaced = False
            if counts:
                current = backend.tokens.get(install)
                if current is None or base["token"] != current:
                    current = secrets.token_hex(32)
                    replaced = install in backend.tokens
                    backend.tokens[install] = current
                    backend.issued_tokens.append(current)
                answer = {"viewers": backend.viewers, "interval_s": backend.interval, "device_token": current}
        backend.record(dict(base, status=200, body=hello, counts=counts, replaced=replaced,
                            viewers=answer["viewers"], raw=body))
        self.answer(200, answer)

    def token_ok(self, base, install):
        with self.backend.lock:
            return install is not None and self.backend.tokens.get(install) == base["token"]

    def next(self, base, body, query):
        backend = self.backend
        install = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("install")
        if not self.token_ok(base, install):
            backend.record(dict(base, status=401, install=install))
            self.answer(401)
            return
        backend.record(dict(base, status="held", install=install))
        deadline = time.monotonic() + backend.next_hold
        with backend.lock:
            while not backend.commands.get(install) and not backend.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                backend.lock.wait(left)
            commands = backend.commands.pop(install, [])
        if not commands:
            self.answer(204)
            return
        now_ms = int(time.time() * 1000)
        self.answer(200, {"commands": commands, "viewers": backend.viewers, "until": now_ms + 1800000,
                          "remaining_ms": 1800000, "stop": None})

    def frames(self, base, body, query):
        self.with_token(base, body, 200)

    def results(self, base, body, query):
        self.with_token(base, body, 202)

    def with_token(self, base, body, accepted):
        """A `frames` or `results` body: taken with the install's current token, else 401."""
        try:
            value = json.loads(body)
        except ValueError:
            self.backend.record(dict(base, status=400))
            self.answer(400)
            return
        status = accepted if self.token_ok(base, value.get("install")) else 401
        self.backend.record(dict(base, status=status, body=value, raw=body))
        self.answer(status)


def records_of(body, protobuf=False):
    """Each OTLP log record of a batch (the JSON mapping, or protobuf's binary form) as (tag, service
    name, body, uid); a record not made from an entry of the history has tag None."""
    try:
        request = request_to_json(body) if protobuf else json.loads(body)
    except ValueError:
        return []
    out = []
    for group in request.get("resourceLogs", []):
        resource = {a.get("key"): a.get("value", {}).get("stringValue")
                    for a in group.get("resource", {}).get("attributes", [])}
        for scope in group.get("scopeLogs", []):
            for record in scope.get("logRecords", []):
                text = record.get("body", {}).get("stringValue", "")
                attributes = {a.get("key"): a.get("value") for a in record.get("attributes", [])}
                uid = (attributes.get("log.record.uid") or {}).get("stringValue")
                match = TAG.search(text)
                out.append({
                    "tag": int(match.group(1)) if match else None,
                    "service": resource.get("service.name"),
                    "version": resource.get("service.version"),
                    "build": resource.get("app.build_id"),
                    "body": text,
                    "uid": uid,
                    "severity": record.get("severityNumber"),
                })
    return out
