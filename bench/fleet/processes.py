"""What the fleet benchmarks share: free loopback ports, waiting for a process to be ready, a
private redis-server's RESP over its socket, and stopping what a run started by its pid."""
import signal, socket, subprocess, sys, time

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

def redis_call(path, *words):
    """One RESP command over the unix socket; the reply's raw bytes (enough for PING and INFO)."""
    with socket.socket(socket.AF_UNIX) as connection:
        connection.settimeout(2)
        connection.connect(path)
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

def redis_used_memory(path):
    for line in redis_call(path, "INFO", "memory").decode().splitlines():
        if line.startswith("used_memory:"):
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

def start_redis(work):
    """Debian's redis-server on a socket in `work`, no TCP and no persistence; returns (process, socket)."""
    sock = f"{work}/redis.sock"
    redis = subprocess.Popen(
        ["redis-server", "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
         "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", work],
        stdout=open(f"{work}/redis.log", "w"), stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: redis_ready(sock), "redis-server", redis)
    except BaseException:
        stop(redis)
        raise
    return redis, sock
