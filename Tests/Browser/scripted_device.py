#!/usr/bin/python3
"""A TEST DOUBLE of a device on the live channel (spec 16.4), for the browser test and for
looking at the viewer before the daemon serves. It is not apsiod and implements none of its
rules beyond what the development backend needs to see: it says hello, and while a viewer
watches it sends made-up log lines, metrics and process frames about once a second, and answers
the three commands. Everything it sends is invented; it reads nothing from the machine.

Usage: scripted_device.py --backend http://127.0.0.1:PORT --app-key KEY --install ID --tester ID
       scripted_device.py --backend http://127.0.0.1:PORT --fleet FILE

--fleet runs many devices in this one process, one thread each (a thread more for a device's
`next` while it is in a session): FILE is a JSON array of objects with `app_key`, `install`,
`tester` and, optionally, `model`, `os`, `release`, `reason` (a hello's reason: `inactive`,
`low_power`, `capped`; such a device says hello and never starts a session), `lines_per_second`
(by default 1 to 3), `lag_ms` (its lines' times are this much in the past, as from a box whose
network or backlog is slow; negative, a box whose clock is ahead) and `lines_dropped` (the count of
lines not sent that each frame reports, as a box past its frame cap does).
"""
import argparse
import hashlib
import http.client
import json
import random
import signal
import sys
import threading
import time
import urllib.parse


class Channel:
    def __init__(self, backend, app_key):
        url = urllib.parse.urlsplit(backend)
        if url.scheme != "http" or url.hostname not in ("127.0.0.1", "::1", "localhost"):
            raise SystemExit("scripted_device: the test double speaks plain HTTP to loopback only")
        self.host = url.hostname
        self.port = url.port or 80
        self.app_key = app_key

    def request(self, method, path, body=None, token=None, timeout=10):
        headers = {"Apsio-App-Key": self.app_key}
        if token:
            headers["Apsio-Live-Token"] = token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            text = response.read()
            try:
                parsed = json.loads(text) if text else None
            except ValueError:
                parsed = None
            return response.status, parsed
        finally:
            connection.close()


class Device:
    MESSAGES = [
        (9, "GET /orders/{n} 200 {ms}ms"),
        (9, "POST /cart/{n}/items 201 {ms}ms"),
        (9, "GET /health 200 {ms}ms"),
        (5, "cache hit for product {n}"),
        (9, "order {n} shipped"),
    ]
    WARNINGS = [(13, "slow query on orders took {ms}ms"), (13, "retrying payment call for order {n}")]
    ERRORS = [(17, "upstream inventory timed out after {ms}ms"), (17, "order {n} failed: card declined")]

    def __init__(self, channel, install, tester, hello_every, model="Scripted test device",
                 os_name="Debian GNU/Linux 12", release="0.0-test", reason=None, lines_per_second=None, lag_ms=0,
                 lines_dropped=0):
        self.channel = channel
        self.install = install
        self.tester = tester
        self.model = model
        self.os_name = os_name
        self.release = release
        self.reason = reason
        self.proof = hashlib.sha256(f"{tester}:{install}".encode()).hexdigest()
        self.hello_every = hello_every
        self.token = None
        self.session = threading.Event()
        self.stop_reason = None
        self.ran = {}
        self.lock = threading.Lock()
        self.memory = 48 * 1024 * 1024
        self.counter = 1000
        self.running = True
        self.lines_per_second = lines_per_second
        self.lag_ms = lag_ms
        self.lines_dropped = lines_dropped

    def now_ms(self):
        return int(time.time() * 1000)

    def hello(self):
        body = {"install": self.install, "session": "5d9c2f1e-0b7a-4c3d-8e6f-1a2b3c4d5e6f",
                "model": self.model, "os": self.os_name, "release": self.release,
                "tester": self.tester, "proof": self.proof}
        if self.reason:
            body["reason"] = self.reason
        status, answer = self.channel.request("POST", "/v1/live/hello", body, token=self.token)
        if status != 200 or not isinstance(answer, dict):
            return False
        self.token = answer.get("device_token")
        # A device that said why it cannot go live starts no session, whoever watches.
        return bool(self.token) and answer.get("viewers", 0) > 0 and not self.reason

    def lines(self):
        out = []
        # A body holds at most 200 lines (16.5).
        count = min(200, self.lines_per_second) if self.lines_per_second else random.randint(1, 3)
        for _ in range(count):
            roll = random.random()
            pool = self.ERRORS if roll < 0.06 else self.WARNINGS if roll < 0.2 else self.MESSAGES
            severity, text = random.choice(pool)
            self.counter += 1
            out.append({"t": self.now_ms() - self.lag_ms, "severity": severity,
                        "body": text.format(n=self.counter, ms=random.randint(3, 900)),
                        "attributes": {"code.function": "handle", "thread.id": random.randint(1, 4)}})
        return out

    def metrics(self):
        self.memory = max(16 << 20, self.memory + random.randint(-2 << 20, 2 << 20))
        return {"t": self.now_ms(), "apsio.memory.footprint": self.memory, "apsio.device.thermal_state": "nominal",
                "apsio.device.low_power": False, "apsio.battery.level": 0.82, "apsio.battery.charging": False,
                "apsio.battery.state": "not_charging", "network.connection.type": "wired"}

    def frame(self):
        return {"active_state": "active", "sub_state": "running", "tasks": 3, "memory_bytes": self.memory + (12 << 20),
                "processes": [
                    {"pid": 4242, "ppid": 1, "comm": "demo-service", "argv0": "demo-service", "state": "S",
                     "threads": 2, "rss_bytes": self.memory, "cpu_percent": round(random.uniform(0.5, 6.0), 1)},
                    {"pid": 4250, "ppid": 4242, "comm": "worker", "argv0": "demo-service", "state": "R",
                     "threads": 1, "rss_bytes": 9 << 20, "cpu_percent": round(random.uniform(0.0, 2.0), 1)}],
                "omitted_processes": 0, "sockets": [{"transport": "tcp", "address": "127.0.0.1", "port": 8080}]}

    def frames(self, state, reason=None, first=False):
        body = {"install": self.install, "state": state, "lines": [] if state == "ended" else self.lines()}
        if reason:
            body["reason"] = reason
        if self.lines_dropped and state == "live":
            body["lines_dropped"] = self.lines_dropped
        if state == "live":
            body["metrics"] = self.metrics()
            body["wireframe"] = self.frame()
        status, _ = self.channel.request("POST", "/v1/live/frames", body, token=self.token)
        return status

    def result(self, command):
        name = command.get("name")
        if name == "screenshot":
            return "done", {"wireframe": self.frame()}
        if name == "diagnostics":
            return "done", {"apsio.live.command.id": command.get("id"), "apsio.memory.footprint": self.memory,
                            "apsio.device.thermal_state": "nominal", "network.connection.type": "wired",
                            "apsio.queue.records": 0, "apsio.queue.bytes": 0}
        if name == "raise_log_level":
            return "done", {"until": self.now_ms() + 30 * 60 * 1000}
        return "refused", None

    def run_command(self, command):
        with self.lock:
            if command.get("id") not in self.ran:
                self.ran[command.get("id")] = self.result(command)
            outcome, result = self.ran[command.get("id")]
        body = {"install": self.install, "id": command.get("id"), "name": command.get("name"), "outcome": outcome,
                "at": self.now_ms(), "result": result}
        self.channel.request("POST", "/v1/live/results", body, token=self.token)

    def follow_next(self):
        path = "/v1/live/next?" + urllib.parse.urlencode({"install": self.install})
        while self.running and self.session.is_set():
            try:
                status, answer = self.channel.request("GET", path, token=self.token, timeout=40)
            except OSError:
                time.sleep(1)
                continue
            if status == 204:
                continue
            if status != 200 or not isinstance(answer, dict):
                self.stop_reason = "lost"
                return
            for command in answer.get("commands") or []:
                self.run_command(command)
            if answer.get("stop"):
                self.stop_reason = "stop"
                return

    def run(self):
        while self.running:
            try:
                if not self.hello():
                    time.sleep(self.hello_every)
                    continue
                self.session.set()
                self.stop_reason = None
                if self.frames("live") == 401:
                    self.session.clear()
                    continue
                follower = threading.Thread(target=self.follow_next, daemon=True)
                follower.start()
                while self.running and self.stop_reason is None:
                    time.sleep(1)
                    if self.frames("live") == 401:
                        self.stop_reason = "lost"
                if self.stop_reason == "stop":
                    self.frames("ended", reason="stop")
                self.session.clear()
                if self.stop_reason == "lost":
                    self.token = None
            except OSError as error:
                print(f"scripted_device: {error}; trying again", file=sys.stderr)
                self.session.clear()
                time.sleep(self.hello_every)


def fleet_devices(backend, path, hello_every, lines_per_second=None):
    with open(path, encoding="utf-8") as file:
        entries = json.load(file)
    devices = []
    for entry in entries:
        devices.append(Device(Channel(backend, entry["app_key"]), entry["install"], entry["tester"], hello_every,
                              model=entry.get("model", "Scripted test device"),
                              os_name=entry.get("os", "Debian GNU/Linux 12"),
                              release=entry.get("release", "0.0-test"), reason=entry.get("reason"),
                              lines_per_second=entry.get("lines_per_second", lines_per_second),
                              lag_ms=entry.get("lag_ms", 0), lines_dropped=entry.get("lines_dropped", 0)))
    return devices


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--app-key")
    parser.add_argument("--install")
    parser.add_argument("--tester")
    parser.add_argument("--fleet", help="a JSON file of devices to run together")
    parser.add_argument("--hello-every", type=float, default=2.0,
                        help="seconds between hellos (a test double may say hello more often than interval_s)")
    parser.add_argument("--lines-per-second", type=int, help="lines each device sends a second (by default 1 to 3)")
    args = parser.parse_args()
    if args.fleet:
        devices = fleet_devices(args.backend, args.fleet, args.hello_every, args.lines_per_second)
    elif args.app_key and args.install and args.tester:
        devices = [Device(Channel(args.backend, args.app_key), args.install, args.tester, args.hello_every,
                          lines_per_second=args.lines_per_second)]
    else:
        parser.error("give --app-key, --install and --tester, or --fleet")

    def stop(*_):
        for device in devices:
            device.running = False
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if len(devices) == 1:
        devices[0].run()
        return
    def run_after(device, delay):
        time.sleep(delay)
        device.run()

    for index, device in enumerate(devices):
        # Spread the hellos over the interval rather than all at one instant. Daemon threads: the
        # process ends at SIGTERM without waiting for a held request.
        threading.Thread(target=run_after, args=(device, index * args.hello_every / len(devices)), daemon=True).start()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
