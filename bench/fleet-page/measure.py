"""The fleet page's event stream with a thousand boxes: the built apsio-backend (in memory, or on
Redis behind several instances), apsio-bench-fleet's devices saying hello at interval_s, and one
page's `GET /api/fleet/events` read from outside as a browser's EventSource reads it. Reports how
long the first snapshot took and its size, and what the changes weigh afterwards: the page is
sent what moved, not the list each time. Measured and reported, never asserted."""
import argparse, json, os, socket, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
from processes import free_port, start_redis, stop, tcp_ready, wait_until

def request(port, method, path, body=None, token=None):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        data = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        connection.sendall(head.encode() + b"\r\n" + data)
        reply = b""
        while chunk := connection.recv(65536):
            reply += chunk
    return json.loads(reply.split(b"\r\n\r\n", 1)[1] or b"null")

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--apps", type=int, default=10)
    parser.add_argument("--devices-per-app", type=int, default=100)
    parser.add_argument("--interval", type=int, default=15)
    parser.add_argument("--seconds", type=int, default=45)
    parser.add_argument("--redis-instances", type=int, default=0, help="0: the in-memory hub, one instance")
    options = parser.parse_args()
    devices = options.apps * options.devices_per_app
    processes = []
    try:
        instances = max(options.redis_instances, 1)
        ports = [free_port() for _ in range(instances)]
        extra = []
        if options.redis_instances:
            redis, sock = start_redis(options.work)
            processes.append(redis)
            extra = ["--redis", sock]
        for port in ports:
            command = [f"{options.bin}/apsio-backend", "--dev", "--listen", f"127.0.0.1:{port}",
                       "--live-origin", f"http://127.0.0.1:{ports[0]}", "--interval", str(options.interval),
                       "--accounts", f"{options.work}/accounts", "--max-connections", "4096"] + extra
            for app in range(options.apps):
                command += ["--app", f"bench-{app}:bench-key-{app}"]
                for index in range(options.devices_per_app):
                    command += ["--tester", f"t-{index}:fleet-{app}-{index}"]
            backend = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            processes.append(backend)
            wait_until(lambda: tcp_ready(port), "apsio-backend", backend, seconds=30)
        generator = subprocess.Popen(
            [f"{options.bin}/apsio-bench-fleet", "--backend", ",".join(f"http://127.0.0.1:{p}" for p in ports),
             "--apps", str(options.apps), "--devices-per-app", str(options.devices_per_app), "--live", "0",
             "--viewers-per-live", "0", "--user", "bench:bench-password", "--interval", str(options.interval),
             "--seconds", str(options.seconds + options.interval * 2), "--policy-per-second", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(generator)
        token = request(ports[-1], "POST", "/api/login", {"user": "bench", "password": "bench-password"})["token"]
        # Wait until every device said hello once, so the snapshot is of the whole fleet.
        deadline = time.monotonic() + options.interval * 3
        while time.monotonic() < deadline:
            present = len(request(ports[0], "GET", "/api/devices", token=token).get("devices", []))
            if present >= devices:
                break
            time.sleep(0.5)
        stream = socket.create_connection(("127.0.0.1", ports[-1]), timeout=60)
        connected = time.monotonic()
        stream.sendall(f"GET /api/fleet/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        buffer, events, snapshot = b"", [], None
        while time.monotonic() < connected + options.seconds:
            stream.settimeout(max(0.1, connected + options.seconds - time.monotonic()))
            try:
                chunk = stream.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                lines = block.split(b"\n")
                name = next((l[7:] for l in lines if l.startswith(b"event: ")), None)
                data = b"".join(l[6:] for l in lines if l.startswith(b"data: "))
                if name == b"snapshot" and snapshot is None:
                    snapshot = (time.monotonic() - connected, len(data), len(json.loads(data)["devices"]))
                elif name == b"change":
                    change = json.loads(data)
                    events.append((time.monotonic(), len(data), len(change["upsert"]), len(change["remove"])))
        stream.close()
        if snapshot is None:
            sys.exit("no snapshot came")
        window = (events[-1][0] - events[0][0]) if len(events) > 1 else 0
        total = sum(e[1] for e in events)
        print(f"fleet page: {devices} devices, {'Redis x' + str(options.redis_instances) if options.redis_instances else 'in memory'}, "
              f"interval_s {options.interval}")
        print(f"  first load: snapshot after {snapshot[0] * 1000:.0f} ms, {snapshot[1] / 1024:.0f} KiB, {snapshot[2]} devices "
              f"({snapshot[1] / max(snapshot[2], 1):.0f} bytes per device)")
        if events:
            upserts = sum(e[2] for e in events)
            print(f"  updates: {len(events)} change events over {window:.0f} s, {total / 1024:.0f} KiB, "
                  f"{upserts} devices changed ({total / max(window, 1) / 1024:.1f} KiB/s; the whole list each second "
                  f"would be {snapshot[1] / 1024:.0f} KiB/s)")
            print(f"  largest change event: {max(e[1] for e in events) / 1024:.1f} KiB")
    finally:
        for process in reversed(processes):
            stop(process)

main()
