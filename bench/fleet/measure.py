"""Runs apsio-bench-fleet against each configuration in turn (the in-memory hub on one instance,
the hub on Redis on one instance, on three), every load of each, and measures the processes from
outside: CPU seconds (utime + stime of /proc/PID/stat, every thread) of each backend instance and
of redis-server over the generator's measured window, RssAnon before the devices and at the end.
Every (configuration, load) pair gets a fresh redis-server and fresh instances, so nothing one
leaves behind is measured in the next. Prints each pair's figures, then one table with the ratios
against the in-memory hub of the same run; with `--rounds N` all of it N times, the order backward
every other round, and the medians of the ratios each round gives."""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, threading, time

from processes import (Callgrind, cluster_masters, free_port, redis_output_bytes, redis_used_memory, start_cluster, start_redis, stop, tcp_ready,
                       wait_until)

def cpu_seconds(pid):
    return sum(cpu_split(pid))

def cpu_split(pid):
    """The process's CPU seconds in its own code and in the kernel's (utime, stime)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")

class Redis:
    """The run's Redis, one server on a socket or a cluster's nodes on loopback ports: its
    processes' CPU (a node killed mid-run counted up to its kill) and memory, summed."""
    def __init__(self, processes, addresses):
        self.processes, self.addresses = processes, addresses
        self.last_cpu = {p.pid: 0.0 for p in processes}

    def cpu(self):
        for process in self.processes:
            if process.poll() is None:
                try:
                    self.last_cpu[process.pid] = cpu_seconds(process.pid)
                except OSError:
                    pass
        return sum(self.last_cpu.values())

    def anon_kib(self):
        return sum(rss_anon_kib(p.pid) for p in self.processes if p.poll() is None)

    def used(self):
        return sum(redis_used_memory(address) for address, p in zip(self.addresses, self.processes) if p.poll() is None)

    def output(self):
        return sum(redis_output_bytes(address) for address, p in zip(self.addresses, self.processes) if p.poll() is None)

def switches(pid):
    """How often the process's threads were switched out, summed over its threads (`voluntary`:
    each went to sleep, to be woken for the next piece of work; `nonvoluntary`: preempted)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as status:
                for line in status:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total

def threads(pid):
    """Each kind of thread of the process (its name without the number: `apsio-loop`, the task
    pool's, the shared reactor's): the nanoseconds it ran (`schedstat`, exact where `stat`
    counts 10 ms ticks) and how often it was switched out, summed over the threads of the kind."""
    kinds = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as comm:
                kind = comm.read().strip().rstrip("0123456789").rstrip("-") or "?"
            with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                ran = int(schedstat.read().split()[0])
            switched = 0
            with open(f"/proc/{pid}/task/{task}/status") as status:
                for line in status:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        switched += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            continue
        ran_before, switched_before = kinds.get(kind, (0, 0))
        kinds[kind] = (ran_before + ran, switched_before + switched)
    return kinds

def threads_between(start, end):
    """What each kind of thread did between two `threads` snapshots of every instance, summed:
    a thread that ended in between is not counted, one started in between counted whole."""
    kinds = {}
    for before, after in zip(start, end):
        for kind, (ran, switched) in after.items():
            ran_before, switched_before = before.get(kind, (0, 0))
            total_ran, total_switched = kinds.get(kind, (0, 0))
            kinds[kind] = (total_ran + ran - ran_before, total_switched + switched - switched_before)
    return kinds

def rss_anon_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0

def backend_features(binary):
    usage = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    return {"redis": "--redis" in usage, "max-connections": "--max-connections" in usage}

LOADS = {
    # What a hello costs: quiet devices only.
    "hellos": lambda o: dict(live=0, viewers=0, policy=0),
    # The mix: a share live with a viewer each, and the policy fetches of a fleet.
    "mixed": lambda o: dict(live=o.live, viewers=o.viewers_per_live, policy=o.policy_per_second),
    # 1,000 live sessions with one viewer each: the fan-out aim.
    "crowd": lambda o: dict(live=o.crowd_live, viewers=1, policy=o.policy_per_second),
}

def load_shape(load, options):
    """The load's devices; `crowd:N` is a crowd of N live devices, to find what a machine carries."""
    name, _, count = load.partition(":")
    if name not in LOADS or count and (name != "crowd" or not count.isdigit()):
        sys.exit(f"{load}: a load is one of {', '.join(LOADS)}, or crowd:N")
    shape = LOADS[name](options)
    if count:
        shape["live"] = int(count)
    return shape

class pinned:
    """With `--pin`, what is started inside inherits these CPUs: the instances on every CPU but
    the first, Redis and the generator on the first, so that the instances' caches and cores are
    not shared with the load that measures them. Without, nothing changes."""
    def __init__(self, options, instances):
        cpus = sorted(os.sched_getaffinity(0))
        self.cpus = None
        if options.pin and len(cpus) >= 2:
            self.cpus = set(cpus[1:]) if instances else {cpus[0]}

    def __enter__(self):
        if self.cpus:
            self.saved = os.sched_getaffinity(0)
            os.sched_setaffinity(0, self.cpus)

    def __exit__(self, *_):
        if self.cpus:
            os.sched_setaffinity(0, self.saved)

def run_one(options, features, kind, instances, load):
    shape = load_shape(load, options)
    devices = options.apps * options.devices_per_app
    work = tempfile.mkdtemp(prefix="fleet-", dir=options.work)
    os.mkdir(f"{work}/config")
    processes = []
    redis = None
    failover = {}
    # The instances and Redis under callgrind, counting only over the measured window.
    callgrind = Callgrind(work) if options.callgrind else None
    counted = []
    try:
        if kind == "redis":
            with pinned(options, instances=False):
                server, sock = start_redis(work, callgrind)
            if callgrind:
                counted.append(("redis", server))
            processes.append(server)
            redis = Redis([server], [sock])
            seed = sock
        elif kind == "cluster":
            with pinned(options, instances=False):
                nodes, node_ports = start_cluster(work)
            processes += nodes.values()
            redis = Redis([nodes[port] for port in node_ports], node_ports)
            seed = f"redis://127.0.0.1:{node_ports[0]}"
        ports = [free_port() for _ in range(instances)]
        origins = [f"http://127.0.0.1:{port}" for port in ports]
        backends = []
        for number, port in enumerate(ports):
            # Every instance publishes the first one's origin: the fleet's one address.
            command = [f"{options.bin}/apsio-backend", "--config", f"{work}/config", "--dev",
                       "--listen", f"127.0.0.1:{port}", "--live-origin", origins[0],
                       "--interval", str(options.interval), "--accounts", f"{options.work}/accounts"]
            if redis:
                command += ["--redis", seed]
            if features["max-connections"]:
                command += ["--max-connections", str(options.max_connections)]
            for app in range(options.apps):
                command += ["--app", f"bench-{app}:bench-key-{app}"]
                for index in range(options.devices_per_app):
                    command += ["--tester", f"t-{index}:fleet-{app}-{index}"]
            if callgrind:
                command = callgrind.wrap(f"backend-{number}", command)
            with pinned(options, instances=True):
                backend = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(f"{work}/backend-{number}.log", "w"),
                                           env=callgrind.env if callgrind else None)
            processes.append(backend)
            backends.append(backend)
            if callgrind:
                counted.append((f"backend-{number}", backend))
        for backend, port in zip(backends, ports):
            wait_until(lambda: tcp_ready(port), "apsio-backend", backend, seconds=120 if callgrind else 20)
        idle_anon = [rss_anon_kib(backend.pid) for backend in backends]
        redis_idle_anon = redis.anon_kib() if redis else 0
        redis_idle_used = redis.used() if redis else 0
        # What the processes spend with nobody there (timers, Redis's cron), so that a hello's
        # cost can be told from the floor under it.
        idle_start = sum(cpu_seconds(p.pid) for p in backends) + (redis.cpu() if redis else 0)
        for _, process in counted:
            callgrind.on(process.pid)
        idle_at = time.monotonic()
        time.sleep(options.idle_seconds)
        for _, process in counted:
            callgrind.dump(process.pid)
        idle_measured = time.monotonic() - idle_at
        idle_cpu = sum(cpu_seconds(p.pid) for p in backends) + (redis.cpu() if redis else 0) - idle_start
        load_before = open("/proc/loadavg").read().split()[0]
        with pinned(options, instances=False):
            generator = subprocess.Popen(
                [f"{options.bin}/apsio-bench-fleet", "--backend", ",".join(origins), "--apps", str(options.apps),
                 "--devices-per-app", str(options.devices_per_app), "--live", str(shape["live"]),
                 "--viewers-per-live", str(shape["viewers"]), "--user", "bench:bench-password",
                 "--interval", str(options.interval), "--seconds", str(options.seconds),
                 "--policy-per-second", str(shape["policy"]), "--lines", str(options.lines)]
                + (["--sticky-viewers"] if options.viewers == "sticky" else [])
                + (["--sticky-devices"] if options.devices == "sticky" else []),
                stdout=subprocess.PIPE, text=True)
        processes.append(generator)
        report = {}
        start = end = None
        def snapshot():
            return {"backends": [cpu_seconds(backend.pid) for backend in backends],
                    "backend_system": sum(cpu_split(backend.pid)[1] for backend in backends),
                    "switches": sum(switches(backend.pid) for backend in backends),
                    "threads": [threads(backend.pid) for backend in backends],
                    "redis": redis.cpu() if redis else 0.0, "redis_output": redis.output() if redis else 0,
                    "generator": cpu_seconds(generator.pid), "at": time.monotonic()}
        killer = None
        profiler = None
        for line in generator.stdout:
            key, _, value = line.strip().partition("=")
            if key == "measuring":
                if options.profile:
                    # Call graphs of every instance over the window, for `perf report -i`.
                    os.makedirs(options.profile, exist_ok=True)
                    profiler = subprocess.Popen(
                        ["perf", "record", "-q", "-F", "997", "-g", "-o",
                         f"{options.profile}/{kind}-{instances}-{load.replace(':', '-')}.data",
                         "-p", ",".join(str(backend.pid) for backend in backends)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for _, process in counted:
                    callgrind.on(process.pid)
                start = snapshot()
                if kind == "cluster" and options.kill_master_at > 0:
                    killer = threading.Thread(target=kill_a_master, args=(nodes, node_ports, options.kill_master_at, failover))
                    killer.start()
            elif key == "ended":
                end = snapshot()
                for _, process in counted:
                    callgrind.dump(process.pid)
                if profiler:
                    profiler.send_signal(2)
                    profiler.wait()
                end_anon = [rss_anon_kib(backend.pid) for backend in backends]
                redis_end_anon = redis.anon_kib() if redis else 0
                redis_end_used = redis.used() if redis else 0
            elif key:
                report[key] = value
        generator.wait()
        if killer:
            killer.join()
        if generator.returncode != 0 or start is None or end is None:
            sys.exit(f"apsio-bench-fleet failed ({kind} x{instances}, {load}); logs in {work}")
        for backend in backends:
            if backend.poll() is not None:
                sys.exit(f"an apsio-backend instance exited during the run ({kind} x{instances}, {load}); logs in {work}")
    finally:
        for process in reversed(processes):
            stop(process)
    # The first dump is the idle window's, the second the load's.
    idle_instructions = {name: callgrind.instructions(name, 1) for name, _ in counted} if callgrind else {}
    instructions = {name: callgrind.instructions(name, 2) for name, _ in counted} if callgrind else {}
    if callgrind and options.keep:
        # The dumps, for callgrind_annotate: what a hello's instructions went to.
        kept = f"{options.keep}/{kind}-{instances}-{load.replace(':', '-')}"
        os.makedirs(kept, exist_ok=True)
        for name in os.listdir(work):
            if name.startswith("callgrind-"):
                shutil.copy(f"{work}/{name}", kept)
    subprocess.run(["rm", "-rf", work])
    backend_cpu = sum(end["backends"]) - sum(start["backends"])
    redis_cpu = end["redis"] - start["redis"]
    hellos = int(report.get("hellos", 0))
    return dict(
        kind=kind, instances=instances, load=load, shape=shape, devices=devices, load_before=load_before,
        seconds=end["at"] - start["at"], report=report, idle_cpu_per_second=idle_cpu / options.idle_seconds, hellos=hellos,
        backend_cpu=backend_cpu, backend_system_cpu=end["backend_system"] - start["backend_system"], backend_switches=end["switches"] - start["switches"],
        backend_threads=threads_between(start["threads"], end["threads"]), per_instance_cpu=[b - a for a, b in zip(start["backends"], end["backends"])],
        redis_cpu=redis_cpu, generator_cpu=end["generator"] - start["generator"],
        backend_anon_kib=(sum(idle_anon), sum(end_anon)), redis_anon_kib=(redis_idle_anon, redis_end_anon),
        redis_used=(redis_idle_used, redis_end_used), failover=failover,
        redis_output=end["redis_output"] - start["redis_output"],
        backend_instructions=sum(v for k, v in instructions.items() if k.startswith("backend-")),
        redis_instructions=instructions.get("redis", 0),
        idle_instructions_per_second=sum(idle_instructions.values()) / idle_measured if callgrind else 0)

def kill_a_master(nodes, ports, after, failover):
    """`after` seconds into the window, SIGKILL the first master (a crash), and time how long until
    a replica serves its slots, as a surviving node sees it."""
    time.sleep(after)
    masters = next((found for found in map(cluster_masters, ports) if found), None)
    if not masters:
        sys.exit("no node of the cluster named its masters")
    victim = min(masters)
    nodes[victim].kill()
    failover["killed_at_s"] = after
    killed = time.monotonic()
    survivor = next(port for port in ports if port != victim)
    while time.monotonic() - killed < 60:
        now = cluster_masters(survivor)
        if victim not in now and any(set(masters[victim]) <= set(slots) for slots in now.values()):
            failover["promoted_after_s"] = time.monotonic() - killed
            return
        time.sleep(0.05)

def requests(report):
    """Every request answered in the window: what the mixed loads cost, since hellos are few of them."""
    return sum(int(report.get(key, 0)) for key in ["hellos", "frames", "nexts", "polls", "policies"])

def mib_per_1000(delta_kib, devices):
    return delta_kib * 1000 / devices / 1024

def describe(result):
    r, report = result, result["report"]
    name = f"{r['kind']} x{r['instances']}, {r['load']}"
    cpu = r["backend_cpu"] + r["redis_cpu"]
    print(f"== {name}: {r['devices']} devices ({r['shape']['live']} live, {r['shape']['viewers']} viewer each), "
          f"policy fetches {r['shape']['policy']}/s; load average {r['load_before']} at the start")
    print(f"measured: {r['seconds']:.1f} s; backend CPU {r['backend_cpu']:.2f} s, {r['backend_system_cpu']:.2f} s of it in the kernel "
          f"(per instance {', '.join(f'{c:.2f}' for c in r['per_instance_cpu'])}), Redis CPU {r['redis_cpu']:.2f} s, "
          f"generator CPU {r['generator_cpu']:.2f} s; backend threads switched out {r['backend_switches']:,} times "
          f"({r['backend_switches'] / max(requests(r['report']), 1):.1f} a request); with nobody there, backend and Redis spent "
          f"{r['idle_cpu_per_second'] * 1000:.1f} ms of CPU a second")
    answered = max(requests(report), 1)
    if r.get("backend_instructions"):
        print(f"instructions (callgrind, the window): backend {r['backend_instructions']:,} "
              f"({r['backend_instructions'] / answered:,.0f} a request), Redis {r['redis_instructions']:,} "
              f"({r['redis_instructions'] / answered:,.0f} a request); with nobody there, backend and Redis "
              f"{r['idle_instructions_per_second']:,.0f} a second")
    print("backend threads, by kind: " + "; ".join(
        f"{kind} {ran / 1e9:.2f} s ({ran / 1e3 / answered:.0f} µs and {switched / answered:.2f} switches a request)"
        for kind, (ran, switched) in sorted(r["backend_threads"].items(), key=lambda item: -item[1][0])))
    print(f"hellos: {r['hellos']} ({report.get('hello_failures')} failed), "
          f"{r['hellos'] / cpu if cpu else 0:.0f} per CPU-second of backend and Redis together")
    print(f"requests: {requests(report)}, {requests(report) / cpu if cpu else 0:.0f} per CPU-second; "
          f"frames: {report.get('frames')} ({report.get('frame_failures')} failed); "
          f"next answered: {report.get('nexts')} ({report.get('next_failures')} failed); "
          f"viewer polls: {report.get('polls')} ({report.get('poll_failures')} failed); "
          f"policy: {report.get('policies')} ({report.get('policy_304')} were 304, {report.get('policy_failures')} failed); "
          f"sessions {report.get('sessions')}, viewers failed {report.get('viewer_failures')} "
          f"(last status each: {report.get('viewer_failure_statuses') or '-'}), gaps {report.get('gaps')}")
    print(f"fan-out, frames POST to viewer event: p50 {report.get('fanout_p50_ms')} ms, p99 {report.get('fanout_p99_ms')} ms "
          f"over {report.get('fanout_events')} events")
    idle, loaded = r["backend_anon_kib"]
    line = (f"memory: backend RssAnon {idle} KiB idle, {loaded} KiB loaded (all instances): "
            f"{mib_per_1000(loaded - idle, r['devices']):.1f} MiB per 1,000 devices")
    if r["kind"] != "memory":
        used_idle, used_end = r["redis_used"]
        line += (f"; Redis RssAnon {r['redis_anon_kib'][1]} KiB, used_memory {used_idle // 1024} -> {used_end // 1024} KiB: "
                 f"{(used_end - used_idle) * 1000 / r['devices'] / 1048576:.2f} MiB per 1,000 devices; "
                 f"Redis wrote {r['redis_output'] / 1048576:.1f} MiB to its clients in the window")
    print(line, flush=True)
    if r["failover"]:
        f = r["failover"]
        print(f"failover: a master killed {f['killed_at_s']} s into the window, its slots served by a replica "
              f"{f.get('promoted_after_s', float('nan')):.1f} s later; failed requests from {report.get('first_failure_s')} s "
              f"to {report.get('last_failure_s')} s into the window", flush=True)

def per_cpu_second(result):
    """Hellos per CPU-second where hellos are the load; every request per CPU-second where live
    sessions are, since there the hellos are a small part of what the backend does."""
    cpu = result["backend_cpu"] + result["redis_cpu"]
    count = result["hellos"] if result["shape"]["live"] == 0 else requests(result["report"])
    return count / cpu if cpu else 0

def table(results, options):
    baseline = {r["load"]: r for r in results if r["kind"] == "memory"}
    print()
    print("| Configuration | Load | Hellos | Requests | Backend CPU | Redis CPU | Per CPU-second | vs in-memory "
          "| Fan-out p50 / p99 | Backend per 1,000 devices | Redis output | Failures (gaps) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        report = r["report"]
        rate = per_cpu_second(r)
        base = baseline.get(r["load"])
        ratio = f"{rate / per_cpu_second(base):.2f}×" if base and per_cpu_second(base) else "—"
        fanout = "—" if r["shape"]["live"] == 0 else f"{report.get('fanout_p50_ms')} / {report.get('fanout_p99_ms')} ms"
        failures = sum(int(report.get(key, 0)) for key in
                       ["hello_failures", "frame_failures", "next_failures", "poll_failures", "policy_failures", "viewer_failures"])
        idle, loaded = r["backend_anon_kib"]
        print(f"| {r['kind']} ×{r['instances']} | {r['load']} | {r['hellos']:,} | {requests(report):,} | {r['backend_cpu']:.2f} s "
              f"| {r['redis_cpu']:.2f} s | {rate:,.0f} | {ratio} | {fanout} "
              f"| {mib_per_1000(loaded - idle, r['devices']):.1f} MiB "
              f"| {'—' if r['kind'] == 'memory' else format(r['redis_output'] / 1048576, '.1f') + ' MiB'} | {failures} ({report.get('gaps')}) |")
    three_against_one(results, options)

def hello_cost(result):
    """CPU a hello costs, of the instances and of Redis, under the `hellos` load."""
    return result["backend_cpu"] / result["hellos"], result["redis_cpu"] / result["hellos"]

# The hellos load with run.sh's defaults: 50 apps × 100 testers, a hello each every 15 s.
DEFAULT_HELLO_RATE = 50 * 100 / 15


def three_against_one(results, options, quiet=False):
    """What a hello costs three instances against one: the ratio, and the load each carries on
    machines of its own (each instance a core carrying a third of the hellos, Redis one core shared
    by all), from the CPU per hello measured here. Nil without both under `hellos`."""
    single = next((r for r in results if r["kind"] == "redis" and r["instances"] == 1 and r["load"] == "hellos"), None)
    triple = next((r for r in results if r["kind"] == "redis" and r["instances"] == 3 and r["load"] == "hellos"), None)
    if not (single and triple and single["hellos"] and triple["hellos"]):
        return None
    (b1, r1), (b3, r3) = hello_cost(single), hello_cost(triple)
    one = min(1 / b1, 1 / r1 if r1 else float("inf"))
    three = min(3 / b3, 1 / r3 if r3 else float("inf"))
    ratio = (b3 + r3) / (b1 + r1)
    if quiet:
        return ratio
    if single.get("backend_instructions") and triple.get("backend_instructions"):
        def per_hello(r, rate=None):
            """Instructions a hello over the window; at `rate` hellos a second, what the floor with
            nobody there adds at that rate instead of the window's (a hello takes some fifty times as
            long under callgrind, so the window's rate is lower than the load's and the floor weighs more)."""
            spent = r["backend_instructions"] + r["redis_instructions"]
            if rate is None:
                return spent / r["hellos"]
            floor = r["idle_instructions_per_second"] * r["seconds"]
            return (spent - floor) / r["hellos"] + r["idle_instructions_per_second"] / rate
        rate = options.apps * options.devices_per_app / options.interval
        load_rate = DEFAULT_HELLO_RATE
        print(f"\nthree instances against one, instructions a hello (callgrind), backend and Redis: one instance "
              f"{per_hello(single):,.0f}, three {per_hello(triple):,.0f} ({per_hello(triple) / per_hello(single):.2f}×) at "
              f"{rate:.0f} hellos a second; with the floor with nobody there taken at the hellos load's {load_rate:.0f} a second, "
              f"{per_hello(single, load_rate):,.0f} and {per_hello(triple, load_rate):,.0f} "
              f"({per_hello(triple, load_rate) / per_hello(single, load_rate):.2f}×)")
    print(f"\nthree instances against one, from CPU per hello (hellos load): one instance {b1 * 1e6:.0f} µs of backend "
          f"and {r1 * 1e6:.0f} µs of Redis per hello, three {b3 * 1e6:.0f} µs and {r3 * 1e6:.0f} µs ({ratio:.2f}× a hello): "
          f"with a core per instance and one for Redis, one carries {one:,.0f} hellos/s, three {three:,.0f} ({three / one:.2f}×)")
    return ratio

def summary(rounds, options):
    """Rounds of the same runs, the configurations in turn forward and backward: each ratio is
    taken within its round, against the in-memory hub of that round, and the median over the
    rounds given with its range (the machine's own drift from round to round cancels out)."""
    print(f"\nover {len(rounds)} rounds, medians of the ratios taken within each round (lowest–highest):")
    print("| Configuration | Load | Per CPU-second | vs in-memory | Fan-out p99 | Switched out a request |")
    print("|---|---|---:|---:|---:|---:|")
    keys = [(r["kind"], r["instances"], r["load"]) for r in rounds[0]]
    for kind, instances, load in keys:
        rates, ratios, p99s, switched = [], [], [], []
        for results in rounds:
            r = next((r for r in results if (r["kind"], r["instances"], r["load"]) == (kind, instances, load)), None)
            base = next((b for b in results if b["kind"] == "memory" and b["load"] == load), None)
            if not r:
                continue
            rates.append(per_cpu_second(r))
            if base and per_cpu_second(base):
                ratios.append(per_cpu_second(r) / per_cpu_second(base))
            if r["shape"]["live"]:
                p99s.append(float(r["report"].get("fanout_p99_ms") or 0))
            switched.append(r["backend_switches"] / max(requests(r["report"]), 1))
        spread = lambda values, form: (f"{form(statistics.median(values))} ({form(min(values))}–{form(max(values))})"
                                      if values else "—")
        print(f"| {kind} ×{instances} | {load} | {spread(rates, lambda v: f'{v:,.0f}')} | {spread(ratios, lambda v: f'{v:.2f}×')} "
              f"| {spread(p99s, lambda v: f'{v:.1f} ms')} | {spread(switched, lambda v: f'{v:.1f}')} |")
    ratios = [ratio for ratio in (three_against_one(results, options, quiet=True) for results in rounds) if ratio]
    if ratios:
        print(f"\nthree instances against one, CPU a hello, over {len(ratios)} rounds: median {statistics.median(ratios):.2f}× "
              f"({min(ratios):.2f}–{max(ratios):.2f})")

def main():
    parser = argparse.ArgumentParser()
    for name in ["bin", "work", "configurations", "loads"]:
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--idle-seconds", type=float, default=5)
    parser.add_argument("--kill-master-at", type=float, default=0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--profile", default="")
    parser.add_argument("--callgrind", action="store_true",
                        help="the instances and Redis under callgrind (bench/callgrind/env.sh set up the environment): "
                             "instructions a hello, besides CPU")
    parser.add_argument("--keep", default="", help="with --callgrind, a folder the dumps are copied to")
    parser.add_argument("--pin", action="store_true")
    parser.add_argument("--viewers", choices=["sticky", "spread"], default="sticky")
    parser.add_argument("--devices", choices=["sticky", "spread"], default="spread")
    for name in ["apps", "devices-per-app", "live", "viewers-per-live", "crowd-live", "seconds", "interval",
                 "policy-per-second", "lines", "max-connections"]:
        parser.add_argument(f"--{name}", type=int, required=True)
    options = parser.parse_args()
    features = backend_features(f"{options.bin}/apsio-backend")
    runs, missing = [], []
    for configuration in options.configurations.split():
        kind, _, count = configuration.partition(":")
        instances = int(count or 1)
        if kind not in ("memory", "redis", "cluster"):
            sys.exit(f"{configuration}: a configuration is memory:1, redis:N or cluster:N")
        if kind == "memory" and instances != 1:
            sys.exit("the in-memory hub is one instance: its state is not shared")
        if kind != "memory" and not features["redis"]:
            missing.append(f"{configuration}: this apsio-backend has no --redis")
            continue
        for load in options.loads.split():
            shape = load_shape(load, options)
            connections = 64 + shape["live"] * (2 + shape["viewers"])
            if connections > 256 and not features["max-connections"]:
                missing.append(f"{configuration} {load}: needs about {connections} connections; this apsio-backend allows 256")
                continue
            runs.append((kind, instances, load))
    rounds = []
    for number in range(options.rounds):
        if options.rounds > 1:
            print(f"\n### round {number + 1} of {options.rounds}")
        # Every other round backward, so that no configuration always meets the machine first.
        order = runs if number % 2 == 0 else list(reversed(runs))
        results = []
        for kind, instances, load in order:
            result = run_one(options, features, kind, instances, load)
            describe(result)
            results.append(result)
        results.sort(key=lambda r: runs.index((r["kind"], r["instances"], r["load"])))
        table(results, options)
        rounds.append(results)
    if len(rounds) > 1:
        summary(rounds, options)
    for line in missing:
        print(f"not run: {line}")

main()
