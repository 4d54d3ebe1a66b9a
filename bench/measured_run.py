"""One command run to its end and measured the way every benchmark here reports it: CPU seconds
(user + system, from wait4), peak anonymous memory (RssAnon, sampled from /proc/PID/status every
10 ms from outside, so that reading it is not the command's CPU), ru_maxrss (which also counts
mapped file pages), peak Pss (sampled from /proc/PID/smaps_rollup every 100 ms: a file page mapped
twice in the process, by two journal readers say, counts once there and twice in RSS), and the
`key=value` words of its standard output."""
import os, subprocess, sys, time

def run(command, stdout=None):
    """`stdout` None captures the output for its report; a file (os.devnull) discards it."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE if stdout is None else stdout)
    peak_anon = 0
    peak_pss = 0
    status_path = f"/proc/{process.pid}/status"
    rollup_path = f"/proc/{process.pid}/smaps_rollup"
    samples = 0
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
        # smaps_rollup walks the page tables under the process's mmap lock: a tenth as often.
        if samples % 10 == 0:
            try:
                with open(rollup_path) as rollup:
                    for line in rollup:
                        if line.startswith("Pss:"):
                            peak_pss = max(peak_pss, int(line.split()[1]))
            except OSError:
                pass
        samples += 1
        time.sleep(0.01)
    output = process.stdout.read().decode() if process.stdout else ""
    if status != 0:
        sys.exit(f"{command[0]} failed with status {status}")
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_anon_kib": peak_anon,
        "maxrss_kib": usage.ru_maxrss,
        "peak_pss_kib": peak_pss,
        "report": dict(part.split("=", 1) for part in output.split() if "=" in part),
    }
