"""Starts one backend instance with the benchmark's apps and testers, runs apsio-bench-fleet
against it, and measures the backend from outside: CPU seconds (utime + stime of /proc/PID/stat)
over the generator's measured window and RssAnon before the devices and at the end."""
import argparse, os, socket, subprocess, sys, time

def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def rss_anon_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]

def main():
    parser = argparse.ArgumentParser()
    for name in ["bin", "work"]:
        parser.add_argument(f"--{name}", required=True)
    for name in ["apps", "devices-per-app", "live", "viewers-per-live", "seconds", "interval", "policy-per-second", "lines"]:
        parser.add_argument(f"--{name}", type=int, required=True)
    options = parser.parse_args()
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    command = [f"{options.bin}/apsio-devbackend", "--dev", "--listen", f"127.0.0.1:{port}", "--live-origin", origin,
               "--interval", str(options.interval), "--accounts", f"{options.work}/accounts"]
    for app in range(options.apps):
        command += ["--app", f"bench-{app}:bench-key-{app}"]
        for index in range(options.devices_per_app):
            command += ["--tester", f"t-{index}:fleet-{app}-{index}"]
    backend = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(f"{options.work}/backend.log", "w"))
    try:
        for _ in range(500):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.02)
        idle_anon = rss_anon_kib(backend.pid)
        generator = subprocess.Popen(
            [f"{options.bin}/apsio-bench-fleet", "--backend", origin, "--apps", str(options.apps),
             "--devices-per-app", str(options.devices_per_app), "--live", str(options.live),
             "--viewers-per-live", str(options.viewers_per_live), "--user", "bench:bench-password",
             "--interval", str(options.interval), "--seconds", str(options.seconds),
             "--policy-per-second", str(options.policy_per_second), "--lines", str(options.lines)],
            stdout=subprocess.PIPE, text=True)
        report = {}
        cpu_start = None
        for line in generator.stdout:
            key, _, value = line.strip().partition("=")
            if key == "measuring":
                cpu_start = cpu_seconds(backend.pid)
            elif key:
                report[key] = value
        generator.wait()
        cpu = cpu_seconds(backend.pid) - (cpu_start or 0)
        end_anon = rss_anon_kib(backend.pid)
    finally:
        backend.kill()
        backend.wait()
    if generator.returncode != 0:
        sys.exit("apsio-bench-fleet failed")
    devices = options.apps * options.devices_per_app
    hellos = int(report.get("hellos", 0))
    print(f"devices: {devices} ({options.live} live, {options.viewers_per_live} viewer each), interval_s {options.interval}, "
          f"policy fetches {options.policy_per_second}/s, {options.lines} lines per frames")
    print(f"measured: {report.get('measured_seconds')} s; backend CPU {cpu:.2f} s ({cpu / float(report.get('measured_seconds', 1)):.2f} cores)")
    print(f"hellos: {hellos} ({report.get('hello_failures')} failed), {hellos / cpu if cpu else 0:.0f} per CPU-second of backend")
    print(f"frames: {report.get('frames')} ({report.get('frame_failures')} failed); policy: {report.get('policies')} "
          f"({report.get('policy_304')} were 304, {report.get('policy_failures')} failed)")
    print(f"fan-out, frames POST to viewer event: p50 {report.get('fanout_p50_ms')} ms, p99 {report.get('fanout_p99_ms')} ms "
          f"over {report.get('fanout_events')} events")
    print(f"memory: RssAnon {idle_anon} KiB idle, {end_anon} KiB loaded: "
          f"{(end_anon - idle_anon) * 1000 / devices / 1024:.1f} MiB per 1,000 devices")

main()
