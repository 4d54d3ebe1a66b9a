"""What the fleet benchmarks share: free loopback ports, waiting for a process to be ready, a
private redis-server's RESP over its socket, stopping what a run started by its pid, and running
processes under callgrind."""
import os, signal, socket, subprocess, sys, time

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]

def wait_until(ready, what, process, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"{what} exited with {process.returncode} before it was ready")
        if ready():
            return
        time.sleep(0.02)
    sys.exit(f"{what} was not ready after {seconds} s")

def tcp_ready(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False

def redis_call(address, *words):
    """One RESP command over the unix socket (a path) or to a loopback port (a number); the reply's
    raw bytes (enough for PING and INFO)."""
    family = socket.AF_INET if isinstance(address, int) else socket.AF_UNIX
    with socket.socket(family) as connection:
        connection.settimeout(2)
        connection.connect(("127.0.0.1", address) if isinstance(address, int) else address)
        request = f"*{len(words)}\r\n" + "".join(f"${len(word)}\r\n{word}\r\n" for word in words)
        connection.sendall(request.encode())
        reply = b""
        while True:
            chunk = connection.recv(65536)
            reply += chunk
            if not chunk or reply.startswith(b"+") and reply.endswith(b"\r\n"):
                return reply
            if reply.startswith(b"$"):
                header, _, rest = reply.partition(b"\r\n")
                if len(rest) >= int(header[1:]) + 2:
                    return reply

def redis_ready(path):
    try:
        return redis_call(path, "PING").startswith(b"+PONG")
    except OSError:
        return False

def redis_used_memory(address):
    for line in redis_call(address, "INFO", "memory").decode().splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    return 0

def redis_output_bytes(address):
    """What Redis has written to its clients since it started (replies and published messages)."""
    for line in redis_call(address, "INFO", "stats").decode().splitlines():
        if line.startswith("total_net_output_bytes:"):
            return int(line.split(":")[1])
    return 0

def stop(process):
    """By its pid, and waited for: nothing this run started outlives it."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

class Callgrind:
    """Processes run under callgrind (CALLGRIND=DIR, bench/callgrind/README.md) that count nothing
    until `on` and are dumped by `dump`: the instructions each spent over a measured window,
    which, unlike CPU time, do not drift with what else the machine is doing."""
    def __init__(self, work):
        self.valgrind = os.environ["CALLGRIND_VALGRIND"]
        self.control = os.environ["CALLGRIND_CONTROL"]
        self.env = dict(os.environ, LD_PRELOAD=os.environ["CALLGRIND_PRELOAD"])
        self.work = work

    def wrap(self, name, command):
        return [self.valgrind, "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={self.work}/callgrind-{name}.out"] + command

    def on(self, pid):
        subprocess.run([self.control, "-i", "on", str(pid)], stdout=subprocess.DEVNULL, check=True, timeout=60)

    def dump(self, pid):
        """Writes what `pid` counted since `on` (callgrind-NAME.out.1, .2… in turn) and stops counting."""
        subprocess.run([self.control, "-d", str(pid)], stdout=subprocess.DEVNULL, check=True, timeout=60)
        subprocess.run([self.control, "-i", "off", str(pid)], stdout=subprocess.DEVNULL, check=True, timeout=60)

    def instructions(self, name, window):
        """What the `window`th `dump` of NAME counted (the dump at exit counts nothing)."""
        path = f"{self.work}/callgrind-{name}.out.{window}"
        if not os.path.exists(path):
            return 0
        with open(path) as dump:
            for line in dump:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
        return 0

def start_redis(work, callgrind=None):
    """Debian's redis-server on a socket in `work`, no TCP and no persistence; returns (process, socket).
    With `callgrind`, under it (`Callgrind`)."""
    sock = f"{work}/redis.sock"
    command = ["redis-server", "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
               "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", work]
    redis = subprocess.Popen(
        callgrind.wrap("redis", command) if callgrind else command, env=callgrind.env if callgrind else None,
        stdout=open(f"{work}/redis.log", "w"), stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: redis_ready(sock), "redis-server", redis, seconds=120 if callgrind else 20)
    except BaseException:
        stop(redis)
        raise
    return redis, sock

def cli(port, *words):
    return subprocess.run(["redis-cli", "-p", str(port), *words], capture_output=True, text=True, timeout=10).stdout

def free_cluster_port():
    """A free port whose cluster bus port (+10000) is free too."""
    while True:
        port = free_port()
        if port + 10000 < 65536:
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port + 10000))
                    return port
                except OSError:
                    pass

def start_cluster(work, masters=3, replicas=1):
    """A Redis Cluster of Debian's redis-server on loopback ports, no persistence, `masters` masters
    with `replicas` replicas each, made with `redis-cli --cluster create`; returns (processes by
    port, ports) once every node says the cluster is ok and every replica is linked."""
    ports = [free_cluster_port() for _ in range(masters * (1 + replicas))]
    processes = {}
    try:
        for port in ports:
            node = f"{work}/node-{port}"
            os.mkdir(node)
            processes[port] = subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", f"{node}/nodes.conf", "--cluster-node-timeout", "2000",
                 "--cluster-require-full-coverage", "no", "--save", "", "--appendonly", "no",
                 "--daemonize", "no", "--dir", node, "--logfile", f"{node}/redis.log"],
                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        for port, process in processes.items():
            wait_until(lambda: redis_ready(port), "redis-server", process)
        created = subprocess.run(
            ["redis-cli", "--cluster", "create", *[f"127.0.0.1:{port}" for port in ports],
             "--cluster-replicas", str(replicas), "--cluster-yes"], capture_output=True, text=True, timeout=60)
        if created.returncode != 0:
            sys.exit(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
        def ready():
            for port in ports:
                if "cluster_state:ok" not in cli(port, "CLUSTER", "INFO"):
                    return False
                info = cli(port, "INFO", "replication")
                if "role:slave" in info and "master_link_status:up" not in info:
                    return False
            return True
        wait_until(ready, "the cluster", processes[ports[0]], seconds=60)
    except BaseException:
        for process in processes.values():
            stop(process)
        raise
    return processes, ports

def cluster_masters(port):
    """{port: [slot ranges]} of the masters that serve, as the node at `port` sees the cluster."""
    masters = {}
    for line in cli(port, "CLUSTER", "NODES").splitlines():
        fields = line.split()
        if len(fields) < 8 or "master" not in fields[2] or "fail" in fields[2] or fields[7] != "connected":
            continue
        node_port = int(fields[1].split("@")[0].rsplit(":", 1)[1])
        masters[node_port] = [field for field in fields[8:] if not field.startswith("[")]
        if not masters[node_port]:
            del masters[node_port]
    return masters
