"""Drives the soak (bench/soak/run.sh starts the bus, the mock and the backend, then this): starts
the built apsiod on the simulated host, feeds each app's journal at a steady rate through a
long-running systemd-journal-remote, restarts the units on the mock, runs `apsioctl reload` every
few seconds, rotates the journal now and then, and samples the daemon's memory, descriptors,
threads and CPU. At the end it lets the backend drain the queue, checks that every journal entry's
`log.record.uid` was accepted at least once, and prints the first and last minute side by side
with each figure's slope over the run.

Every process it starts is recorded by pid in WORK/pids (run.sh's trap stops what is left) and
stopped by pid when it ends, however it ends."""
import argparse, csv, hashlib, heapq, json, os, random, signal, subprocess, sys, threading, time, uuid

JOURNAL_REMOTE = "/lib/systemd/systemd-journal-remote"
SYSTEMD = "org.freedesktop.systemd1"
UNIT_IFACE = "org.freedesktop.systemd1.Unit"
SERVICE_IFACE = "org.freedesktop.systemd1.Service"
MOCK_IFACE = "org.freedesktop.DBus.Mock"
TICKS = os.sysconf("SC_CLK_TCK")


class Interrupted(Exception):
    pass


def on_signal(*_):
    raise Interrupted()


def log(message):
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", flush=True)


class Children:
    """Processes this script started, stopped by pid at the end."""

    def __init__(self, work):
        self.pid_file = open(os.path.join(work, "pids"), "a", buffering=1)
        self.processes = []
        self.lock = threading.Lock()

    def start(self, command, **kwargs):
        process = subprocess.Popen(command, **kwargs)
        with self.lock:
            self.processes.append(process)
            self.pid_file.write(f"{process.pid}\n")
        return process

    def stop(self, process, timeout=10):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        with self.lock:
            if process in self.processes:
                self.processes.remove(process)

    def stop_all(self):
        with self.lock:
            processes = list(reversed(self.processes))
        for process in processes:
            self.stop(process, timeout=5)


# --- the host: units on the mock, the journal


class Bus:
    def __init__(self, address):
        self.address = address

    def call(self, path, interface, method, signature, *args):
        command = ["busctl", f"--address={self.address}", "call", SYSTEMD, path, interface, method, signature]
        run = subprocess.run(command + [str(a) for a in args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, timeout=30)
        if run.returncode != 0:
            raise RuntimeError(f"busctl {method} on {path}: {run.stderr.strip()}")

    def update(self, unit, interface, entries):
        flat = [piece for entry in entries for piece in entry]
        self.call(unit_path(unit), MOCK_IFACE, "UpdateProperties", "sa{sv}", interface, len(entries), *flat)


def unit_path(unit):
    """python-dbusmock's path for a unit (it escapes `.` and `-` as `_`, unlike systemd)."""
    return "/org/freedesktop/systemd1/unit/" + unit.replace(".", "_").replace("-", "_")


def invocation_bytes(hex_id):
    """An `ay` value as busctl spells it: the count, then each byte."""
    values = [int(hex_id[i:i + 2], 16) for i in range(0, len(hex_id), 2)]
    return [len(values)] + values


class App:
    def __init__(self, index, key):
        self.index = index
        self.name = f"soak{index}"
        self.unit = f"soak{index}.service"
        self.key = key  # run.sh made it, and gave it to the backend too
        self.invocation = uuid.uuid4().hex
        self.active = False
        self.sleeper = None  # the unit's "main process": a real pid, so process frames read /proc
        self.lines = 0
        self.due = 0.0
        self.restarts = 0


class Journal:
    """One long-running systemd-journal-remote with its stdin on a pipe, as journald appends to
    system.journal; `rotate` does what journald does when a file is full."""

    def __init__(self, directory, children, log_path):
        self.directory = directory
        self.children = children
        self.log_path = log_path
        self.boot_id = open("/proc/sys/kernel/random/boot_id").read().strip().replace("-", "")
        self.hostname = os.uname().nodename
        self.writer = None
        self.rotations = 0
        self.last_realtime = 0

    def open(self):
        self.writer = self.children.start(
            [JOURNAL_REMOTE, f"--output={self.directory}/system.journal", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=open(self.log_path, "a"))

    def close(self):
        """EOF on its stdin: it writes what it has, closes the file and exits."""
        self.writer.stdin.close()
        status = self.writer.wait(60)
        self.children.stop(self.writer)
        if status != 0:
            raise RuntimeError(f"systemd-journal-remote exited with {status}; see {self.log_path}")

    def rotate(self):
        """The active file becomes an archived one (journald's name for it) and the next entries
        go to a fresh system.journal: the writer is closed first, so no entry is half written."""
        self.close()
        self.rotations += 1
        archived = f"system@{uuid.uuid4().hex}-{1:016x}-{self.last_realtime:016x}.journal"
        os.rename(os.path.join(self.directory, "system.journal"), os.path.join(self.directory, archived))
        self.open()
        return archived

    def entry(self, app, message, priority):
        realtime = max(time.time_ns() // 1000, self.last_realtime + 1)
        self.last_realtime = realtime
        monotonic = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        fields = [
            ("__REALTIME_TIMESTAMP", realtime), ("__MONOTONIC_TIMESTAMP", monotonic), ("_BOOT_ID", self.boot_id),
            ("_SYSTEMD_UNIT", app.unit), ("_SYSTEMD_INVOCATION_ID", app.invocation),
            ("_PID", app.sleeper.pid if app.sleeper else 1), ("_UID", 998), ("_GID", 998),
            ("_COMM", app.name), ("_EXE", f"/usr/bin/{app.name}"), ("_CMDLINE", f"/usr/bin/{app.name} --serve"),
            ("_HOSTNAME", self.hostname), ("_TRANSPORT", "stdout"), ("SYSLOG_IDENTIFIER", app.name),
            ("PRIORITY", priority), ("MESSAGE", message),
        ]
        return "".join(f"{name}={value}\n" for name, value in fields) + "\n"

    def write(self, text):
        self.writer.stdin.write(text.encode())
        self.writer.stdin.flush()


def line_for(app, rng):
    """A service's line: mostly short INFO lines, some warnings and errors, now and then a long
    one (a stack trace's size). Never DEBUG: every line written is one the daemon must send."""
    n = app.lines
    if n % 100 == 99:
        priority, message = 3, f"{app.name} #{n} request failed: upstream timed out after 30000 ms"
    elif n % 25 == 24:
        priority, message = 4, f"{app.name} #{n} slow request: GET /api/items/{n % 997} took {rng.randint(800, 4000)} ms"
    else:
        priority = 6
        message = f"{app.name} #{n} GET /api/items/{n % 997} 200 {rng.randint(1, 120)} ms"
    if n % 50 == 7:
        message += " trace " + " ".join(f"frame{i}@0x{rng.getrandbits(48):012x}" for i in range(120))
    return message, priority


# --- the daemon


def ctl(args, *command, timeout=30):
    return subprocess.run(
        [args.apsioctl, "--config-dir", args.config, "--state-dir", args.state, "--runtime-dir", args.runtime, *command],
        capture_output=True, text=True, timeout=timeout)


class Watcher:
    """`apsioctl --json watch`, read for the whole run: what the daemon says of its sessions."""

    def __init__(self, args, children):
        self.args, self.children = args, children
        self.counts = {}
        self.lock = threading.Lock()
        self.stopped = False
        self.process = None
        self.thread = threading.Thread(target=self.run, daemon=True)

    def count(self, key):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1

    def run(self):
        while not self.stopped:
            a = self.args
            self.process = self.children.start(
                [a.apsioctl, "--config-dir", a.config, "--state-dir", a.state, "--runtime-dir", a.runtime, "--json", "watch"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            for line in self.process.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                kind = event.get("event")
                if kind == "ended":
                    self.count(f"ended {event.get('reason')}")
                elif kind == "notice":
                    self.count(f"notice {event.get('command')}")
            self.process.wait()
            self.children.stop(self.process)
            if not self.stopped:
                # The daemon closes a watcher it had to wait for; watch again.
                self.count("watch reconnected")
                time.sleep(1)

    def stop(self):
        self.stopped = True
        if self.process:
            self.children.stop(self.process)


def read_proc(pid):
    sample = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile"):
                sample[key] = int(value.split()[0])
            elif key == "Threads":
                sample["threads"] = int(value)
    # What the descriptors are, so that a count that grows says what grows: journal files (one
    # per file for each reader), sockets, or anything else.
    # VmRSS counts a file page once for every mapping of it, and each journal reader (one per
    # app, and the live one) maps the same journal files; Pss divides each page among its
    # mappings and the processes sharing it (the journal's writer too), so it says what the
    # daemon's reading really holds.
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("Pss", "Pss_File"):
                sample[key] = int(value.split()[0])
    sample["fds"] = sample["fds_journal"] = sample["fds_socket"] = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed since the list was read
        sample["fds"] += 1
        if target.endswith((".journal", ".journal~")):
            sample["fds_journal"] += 1
        elif target.startswith("socket:"):
            sample["fds_socket"] += 1
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    sample["cpu_s"] = (int(fields[11]) + int(fields[12])) / TICKS
    return sample


# --- the uid check


def expected_uids(journal_dir, apps, installation_ids):
    """Every entry of the apps' units in the journal files, and its `log.record.uid`: lowercase hex
    of the first 16 bytes of SHA-256 of the installation id, a colon and the entry's cursor
    (docs/otlp.md, OTLPLogsEncoder.recordUID)."""
    units = {app.unit: app.name for app in apps}
    expected = {app.name: {} for app in apps}
    process = subprocess.Popen(
        ["journalctl", "-D", journal_dir, "-o", "json", "--output-fields=__CURSOR,_SYSTEMD_UNIT", "--no-pager"],
        stdout=subprocess.PIPE, text=True)
    for line in process.stdout:
        entry = json.loads(line)
        name = units.get(entry.get("_SYSTEMD_UNIT"))
        if name is None:
            continue
        cursor = entry["__CURSOR"]
        uid = hashlib.sha256(f"{installation_ids[name]}:{cursor}".encode()).digest()[:16].hex()
        expected[name][uid] = cursor
    if process.wait() != 0:
        raise RuntimeError("journalctl failed")
    return expected


class Accepted:
    """Reads the backend's accepted.txt as it grows: every uid of every request answered 2xx."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.partial = ""
        self.events = {}  # (app, uid) -> times accepted

    def update(self):
        try:
            with open(self.path) as f:
                f.seek(self.offset)
                chunk = f.read()
                self.offset = f.tell()
        except FileNotFoundError:
            return
        text = self.partial + chunk
        lines = text.split("\n")
        self.partial = lines.pop()
        for line in lines:
            if line:
                name, uid = line.split(" ", 1)
                self.events[(name, uid)] = self.events.get((name, uid), 0) + 1

    def missing(self, expected):
        return {name: [uid for uid in uids if (name, uid) not in self.events] for name, uids in expected.items()}


# --- the report


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def slope_per_hour(points):
    """Least-squares slope of (seconds, value), per hour."""
    if len(points) < 3:
        return float("nan")
    xs, ys = [p[0] / 3600 for p in points], [p[1] for p in points]
    mx, my = mean(xs), mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")


def window_cpu(samples):
    if len(samples) < 2:
        return float("nan")
    first, last = samples[0], samples[-1]
    return 100 * (last["cpu_s"] - first["cpu_s"]) / (last["t"] - first["t"])


def report_table(samples, duration):
    soak = [s for s in samples if s["t"] <= duration + 0.01]
    first = [s for s in soak if s["t"] <= 60]
    last = [s for s in soak if s["t"] >= duration - 60]
    half = [s for s in soak if s["t"] >= duration / 2]
    metrics = [
        ("RSS (MiB)", lambda s: s["VmRSS"] / 1024, "{:.2f}"),
        ("RssAnon (MiB)", lambda s: s["RssAnon"] / 1024, "{:.2f}"),
        ("RssFile (MiB)", lambda s: s["RssFile"] / 1024, "{:.2f}"),
        ("Pss (MiB)", lambda s: s["Pss"] / 1024, "{:.2f}"),
        ("Pss of files (MiB)", lambda s: s["Pss_File"] / 1024, "{:.2f}"),
        ("open fds", lambda s: s["fds"], "{:.1f}"),
        ("of which journal files", lambda s: s["fds_journal"], "{:.1f}"),
        ("of which sockets", lambda s: s["fds_socket"], "{:.1f}"),
        ("threads", lambda s: s["threads"], "{:.1f}"),
        ("CPU (% of a core)", None, "{:.2f}"),
    ]
    rows = []
    for label, get, fmt in metrics:
        if get is None:
            points = [(s["t"], s["cpu_pct"]) for s in soak[1:]]
            first_v, last_v = window_cpu(first), window_cpu(last)
            peak = max((p[1] for p in points), default=float("nan"))
            half_points = [(s["t"], s["cpu_pct"]) for s in half]
        else:
            points = [(s["t"], get(s)) for s in soak]
            first_v, last_v = mean([get(s) for s in first]), mean([get(s) for s in last])
            peak = max((p[1] for p in points), default=float("nan"))
            half_points = [(s["t"], get(s)) for s in half]
        rows.append((label, fmt.format(first_v), fmt.format(last_v), fmt.format(peak),
                     "{:+.3f}".format(slope_per_hour(points)), "{:+.3f}".format(slope_per_hour(half_points))))
    header = ("", "first minute", "last minute", "peak", "slope per hour", "slope per hour, 2nd half")
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# --- the run


def main():
    parser = argparse.ArgumentParser()
    for name in ("work", "apsiod", "apsioctl", "bus", "backend-out", "app-keys"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--backend-pid", type=int, required=True)
    parser.add_argument("--apps", type=int, default=3)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--rate", type=float, default=20, help="journal lines per second per app")
    parser.add_argument("--sample-s", type=float, default=5)
    parser.add_argument("--reload-s", type=float, default=5)
    parser.add_argument("--restart-s", type=float, default=90, help="mean time between restarts of a unit")
    parser.add_argument("--rotate-min", type=float, default=0, help="0: a third of the run")
    parser.add_argument("--drain-s", type=float, default=360)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.config = os.path.join(args.work, "etc")
    args.state = os.path.join(args.work, "state")
    args.runtime = os.path.join(args.work, "run")
    journal_dir = os.path.join(args.work, "journal")
    for directory in (args.config + "/apps.d", args.state, args.runtime, journal_dir):
        os.makedirs(directory, exist_ok=True)
    duration = args.minutes * 60
    rotate_every = (args.rotate_min * 60) if args.rotate_min > 0 else duration / 3
    rng = random.Random(args.seed)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    children = Children(args.work)
    bus = Bus(args.bus)
    keys = dict(line.strip().split("=", 1) for line in open(args.app_keys) if line.strip())
    apps = [App(i, keys[f"soak{i}"]) for i in range(args.apps)]
    journal = Journal(journal_dir, children, os.path.join(args.work, "journal-remote.log"))
    lock = threading.Lock()  # an app's active flag, invocation and sleeper, shared with the chaos thread
    stopping = threading.Event()
    watcher = None
    daemon = None
    status = 1
    try:
        # The configuration: one app per unit, each with its own key, reading from the journal's
        # head (the first line is written before the daemon starts and must arrive too).
        with open(os.path.join(args.config, "apsiod.conf"), "w") as f:
            f.write(f"[Indicator]\nMotdFile={args.work}/motd\nAnnounceTerminals=no\n")
        for app in apps:
            with open(os.path.join(args.config, "apps.d", app.name + ".conf"), "w") as f:
                f.write(f"[App]\nUnit={app.unit}\nName=com.example.{app.name}\nVersion=1.0.{app.index}\n"
                        f"Backend=http://127.0.0.1:{args.port}\nAppKey={app.key}\nConsent=granted\nStartAt=head\n"
                        # The soak's sink reads the JSON mapping for the uids it accepted.
                        "Encoding=json\n")
        # The units, with the properties real systemd has and the template leaves out (as
        # Tests/ApsioTestSupport/SystemdMock.swift adds them), active with a first invocation.
        # The cgroup named is not on this machine, so process frames and the footprint fall back
        # to MainPID: a `sleep` this script starts for each run of the unit.
        for app in apps:
            path = unit_path(app.unit)
            bus.call("/org/freedesktop/systemd1", MOCK_IFACE, "AddMockUnit", "s", app.unit)
            for interface, name, signature, *value in [
                (UNIT_IFACE, "SubState", "s", "dead"), (UNIT_IFACE, "FreezerState", "s", "running"),
                (UNIT_IFACE, "InvocationID", "ay", *invocation_bytes(app.invocation)),
                (SERVICE_IFACE, "MainPID", "u", 0), (SERVICE_IFACE, "ControlGroup", "s", f"/system.slice/{app.unit}"),
                (SERVICE_IFACE, "StateDirectory", "as", 0), (SERVICE_IFACE, "CacheDirectory", "as", 0),
            ]:
                bus.call(path, MOCK_IFACE, "AddProperty", "ssv", interface, name, signature, *value)
            app.sleeper = children.start(["sleep", "1000000"])
            bus.update(app.unit, SERVICE_IFACE, [("MainPID", "u", app.sleeper.pid)])
            bus.update(app.unit, UNIT_IFACE, [("ActiveState", "s", "active"), ("SubState", "s", "running")])
            app.active = True
        journal.open()
        journal.write("".join(journal.entry(app, f"{app.name} started", 6) for app in apps))
        for app in apps:
            app.lines = 1

        daemon = children.start(
            [args.apsiod, "--config-dir", args.config, "--state-dir", args.state, "--runtime-dir", args.runtime,
             "--journal-dir", journal_dir, "--log-level", "info"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(args.work, "apsiod.err"), "w"),
            env={**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": args.bus})
        deadline = time.monotonic() + 60
        while True:
            run = ctl(args, "--json", "apps")
            served = {}
            if run.returncode == 0:
                served = {a["name"]: a for a in json.loads(run.stdout).get("apps", []) if a.get("service_version")}
            if len(served) == len(apps):
                break
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"apsiod did not serve the apps within 60 s; see {args.work}/apsiod.err")
            time.sleep(0.5)
        installation_ids = {name: served[name]["installation_id"] for name in served}
        run = ctl(args, "allow-live", "on")
        if run.returncode != 0:
            raise RuntimeError(f"apsioctl allow-live on: {run.stderr.strip()}")
        watcher = Watcher(args, children)
        watcher.thread.start()
        log(f"apsiod (pid {daemon.pid}) serves {len(apps)} apps; soak of {args.minutes:g} min, "
            f"{args.rate:g} lines/s an app, sampling every {args.sample_s:g} s")

        # The chaos: unit restarts and reloads, in time order, on a thread of their own so the
        # journal's rate stays steady while busctl and apsioctl run.
        chaos = {"reloads": 0, "reload_failures": 0, "restarts": 0}

        chaos_rng = random.Random(args.seed + 1)

        def chaos_loop():
            try:
                chaos_events()
            except Exception as error:  # the soak goes on without chaos; the report says so
                chaos["error"] = str(error)
                log(f"chaos stopped: {error}")

        def chaos_events():
            start = time.monotonic()
            events = [(start + args.reload_s, "reload", None)]
            for app in apps:
                events.append((start + chaos_rng.uniform(0.3, 1.3) * args.restart_s, "stop", app))
            heapq.heapify(events)
            while not stopping.is_set():
                at, kind, app = heapq.heappop(events)
                if stopping.wait(max(0.0, at - time.monotonic())):
                    break
                if kind == "reload":
                    run = ctl(args, "reload")
                    chaos["reloads"] += 1
                    if run.returncode != 0:
                        chaos["reload_failures"] += 1
                        log(f"apsioctl reload failed ({run.returncode}): {run.stderr.strip()}")
                    heapq.heappush(events, (time.monotonic() + args.reload_s, "reload", None))
                elif kind == "stop":
                    # The unit stops: its lines stop first, then systemd says so.
                    with lock:
                        app.active = False
                        old = app.sleeper
                    bus.update(app.unit, UNIT_IFACE, [("ActiveState", "s", "inactive"), ("SubState", "s", "dead")])
                    bus.update(app.unit, SERVICE_IFACE, [("MainPID", "u", 0)])
                    children.stop(old)
                    heapq.heappush(events, (time.monotonic() + chaos_rng.uniform(1, 4), "start", app))
                else:
                    start_unit(app)
                    heapq.heappush(events, (time.monotonic() + chaos_rng.uniform(0.5, 1.5) * args.restart_s, "stop", app))
            # A unit stopped when the soak ended runs again, so that every unit ends active.
            for app in apps:
                if not app.active:
                    start_unit(app)

        def start_unit(app):
            # A new invocation: systemd says so, then the lines carry its id.
            sleeper = children.start(["sleep", "1000000"])
            invocation = uuid.uuid4().hex
            bus.update(app.unit, SERVICE_IFACE, [("MainPID", "u", sleeper.pid)])
            bus.update(app.unit, UNIT_IFACE, [
                ("InvocationID", "ay", *invocation_bytes(invocation)),
                ("ActiveState", "s", "active"), ("SubState", "s", "running")])
            with lock:
                app.sleeper, app.invocation, app.active = sleeper, invocation, True
                app.restarts += 1
            chaos["restarts"] += 1

        chaos_thread = threading.Thread(target=chaos_loop, daemon=True)
        chaos_thread.start()

        csv_path = os.path.join(args.work, "samples.csv")
        csv_file = open(csv_path, "w", newline="")
        columns = ["t_s", "phase", "rss_kib", "rss_anon_kib", "rss_file_kib", "pss_kib", "pss_file_kib", "fds",
                   "fds_journal", "fds_socket", "threads", "cpu_s", "cpu_pct", "entries_written", "accepted_unique",
                   "journal_files"]
        writer = csv.writer(csv_file)
        writer.writerow(columns)
        samples = []
        start = time.monotonic()
        next_sample = start
        next_rotation = start + rotate_every
        last_tick = start

        def take_sample(now):
            sample = read_proc(daemon.pid)
            sample["t"] = now - start
            sample["cpu_pct"] = (100 * (sample["cpu_s"] - samples[-1]["cpu_s"]) / (sample["t"] - samples[-1]["t"])
                                 if samples else 0.0)
            try:
                stats = json.load(open(os.path.join(args.backend_out, "stats.json")))
            except (OSError, ValueError):
                stats = {}
            sample["phase"] = "drain" if stats.get("draining") else stats.get("phase", "")
            accepted = sum(stats.get("accepted_unique", {}).values())
            samples.append(sample)
            writer.writerow([f"{sample['t']:.1f}", sample["phase"], sample["VmRSS"], sample["RssAnon"], sample["RssFile"],
                             sample["Pss"], sample["Pss_File"], sample["fds"], sample["fds_journal"], sample["fds_socket"], sample["threads"], f"{sample['cpu_s']:.2f}", f"{sample['cpu_pct']:.2f}",
                             sum(a.lines for a in apps), accepted,
                             sum(1 for n in os.listdir(journal_dir) if n.endswith(".journal"))])
            csv_file.flush()

        while True:
            now = time.monotonic()
            if daemon.poll() is not None:
                raise RuntimeError(f"apsiod exited with {daemon.returncode} during the soak; see {args.work}/apsiod.err")
            if now >= next_sample:
                take_sample(now)
                next_sample += args.sample_s
                if int(samples[-1]["t"]) % 60 < args.sample_s:
                    s = samples[-1]
                    log(f"t={s['t']:.0f}s phase={s['phase']} rss={s['VmRSS'] / 1024:.1f}MiB "
                        f"anon={s['RssAnon'] / 1024:.1f}MiB fds={s['fds']} threads={s['threads']} "
                        f"entries={sum(a.lines for a in apps)}")
            if now - start >= duration:
                break
            if now >= next_rotation:
                archived = journal.rotate()
                log(f"journal rotated: system.journal is now {archived}")
                next_rotation += rotate_every
            text = []
            with lock:
                for app in apps:
                    if not app.active:
                        continue
                    app.due += args.rate * (now - last_tick)
                    while app.due >= 1:
                        message, priority = line_for(app, rng)
                        text.append(journal.entry(app, message, priority))
                        app.lines += 1
                        app.due -= 1
            last_tick = now
            if text:
                journal.write("".join(text))
            time.sleep(max(0.0, min(0.1, next_sample - time.monotonic())))

        # The end: no more restarts, reloads or lines; every unit left active; the backend stops
        # flapping and the daemon sends what it still holds.
        stopping.set()
        chaos_thread.join(60)
        journal.close()
        os.kill(args.backend_pid, signal.SIGUSR1)
        written = {app.name: app.lines for app in apps}
        log(f"soak over: {sum(written.values())} entries written, {chaos['restarts']} unit restarts, "
            f"{chaos['reloads']} reloads, {journal.rotations} rotations; draining (at most {args.drain_s:g} s)")
        run = ctl(args, "--json", "apps")
        for a in json.loads(run.stdout).get("apps", []):
            if a["name"] in installation_ids and a.get("installation_id") != installation_ids[a["name"]]:
                raise RuntimeError(f"{a['name']}'s installation id changed during the run")
        expected = expected_uids(journal_dir, apps, installation_ids)
        for app in apps:
            if len(expected[app.name]) != written[app.name]:
                log(f"note: {app.name}: {written[app.name]} entries written, {len(expected[app.name])} in the journal")
        accepted = Accepted(os.path.join(args.backend_out, "accepted.txt"))
        drain_start = time.monotonic()
        while True:
            now = time.monotonic()
            accepted.update()
            missing = accepted.missing(expected)
            left = sum(len(m) for m in missing.values())
            if left == 0 or now - drain_start >= args.drain_s:
                break
            if now >= next_sample:
                take_sample(now)
                next_sample = now + args.sample_s
            time.sleep(1)
        drained_in = time.monotonic() - drain_start
        take_sample(time.monotonic())
        csv_file.close()

        # The daemon's own view, then the checks.
        daemon_status = ctl(args, "--json", "status").stdout.strip()
        watcher.stop()
        try:
            backend_stats = json.load(open(os.path.join(args.backend_out, "stats.json")))
        except (OSError, ValueError):
            backend_stats = {}
        daemon.send_signal(signal.SIGTERM)
        try:
            exit_status = daemon.wait(60)
        except subprocess.TimeoutExpired:
            exit_status = "did not stop within 60 s (killed)"
        children.stop(daemon)

        out = []
        out.append(f"soak: {args.apps} apps, {args.minutes:g} min, {args.rate:g} lines/s an app, "
                   f"sample every {args.sample_s:g} s, reload every {args.reload_s:g} s, "
                   f"a unit restart every {args.restart_s:g} s on average")
        out.append(f"machine: {os.cpu_count()} CPUs, {os.uname().release}, load at the end "
                   f"{open('/proc/loadavg').read().split()[0:3]}")
        out.append(f"chaos: {chaos['restarts']} unit restarts, {chaos['reloads']} reloads "
                   f"({chaos['reload_failures']} failed), {journal.rotations} journal rotations"
                   + (f"; stopped early: {chaos['error']}" if "error" in chaos else ""))
        phases = open(os.path.join(args.backend_out, "phases.log")).read().split("\n")
        out.append(f"backend phases: {' '.join(p.split()[1] + '@' + p.split()[0] + 's' for p in phases if p)}")
        out.append("")
        out.append(report_table(samples, duration))
        out.append("")
        out.append("| app | entries | accepted | missing | duplicates (sent again, accepted again) | other records accepted |")
        out.append("|---|---:|---:|---:|---:|---:|")
        total_missing = 0
        for app in apps:
            uids = expected[app.name]
            got = [uid for uid in uids if (app.name, uid) in accepted.events]
            dup = sum(accepted.events[(app.name, uid)] - 1 for uid in got)
            other = sum(1 for (name, uid) in accepted.events if name == app.name and uid not in uids)
            miss = len(uids) - len(got)
            total_missing += miss
            out.append(f"| {app.name} | {len(uids)} | {len(got)} | {miss} | {dup} | {other} |")
        out.append("")
        out.append(f"drained in {drained_in:.0f} s after the soak; apsiod's exit status: {exit_status}")
        for app in apps:
            gone = [expected[app.name][uid] for uid in missing[app.name]]
            if gone:
                out.append(f"{app.name}: {len(gone)} entries never accepted, the first: {gone[:5]}")
        out.append(f"live, as the backend saw it: {json.dumps(backend_stats.get('live', {}), sort_keys=True)}")
        out.append(f"live, as apsioctl watch saw it: {json.dumps(watcher.counts, sort_keys=True)}")
        out.append(f"backend requests (phase endpoint outcome): {json.dumps(backend_stats.get('requests', {}), sort_keys=True)}")
        out.append(f"apsioctl status at the end: {daemon_status}")
        out.append(f"samples: {csv_path}")
        text = "\n".join(out)
        print(text, flush=True)
        with open(os.path.join(args.work, "report.txt"), "w") as f:
            f.write(text + "\n")
        if total_missing:
            print(f"FAIL: {total_missing} entries never accepted", flush=True)
            status = 1
        else:
            print("every entry's log.record.uid was accepted at least once", flush=True)
            status = 0
    except Interrupted:
        log("interrupted")
        status = 130
    except Exception as error:  # reported, and everything still stopped below
        log(f"error: {error}")
        status = 1
    finally:
        # A second Ctrl-C, or run.sh's SIGTERM after the terminal's SIGINT, must not cut this short.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stopping.set()
        if watcher:
            watcher.stop()
        children.stop_all()
    sys.exit(status)


if __name__ == "__main__":
    main()
