"""One command run to its end and measured the way every benchmark here reports it: CPU seconds
(user + system, from wait4), peak anonymous memory (RssAnon, sampled from /proc/PID/status every
10 ms from outside, so that reading it is not the command's CPU), ru_maxrss (which also counts
mapped file pages), and the `key=value` words of its standard output."""
import os, subprocess, sys, time

def run(command, stdout=None):
    """`stdout` None captures the output for its report; a file (os.devnull) discards it."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE if stdout is None else stdout)
    peak_anon = 0
    status_path = f"/proc/{process.pid}/status"
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        try:
            with open(status_path) as status_file:
                for line in status_file:
                    if line.startswith("RssAnon:"):
                        peak_anon = max(peak_anon, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.01)
    output = process.stdout.read().decode() if process.stdout else ""
    if status != 0:
        sys.exit(f"{command[0]} failed with status {status}")
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_anon_kib": peak_anon,
        "maxrss_kib": usage.ru_maxrss,
        "report": dict(part.split("=", 1) for part in output.split() if "=" in part),
    }
