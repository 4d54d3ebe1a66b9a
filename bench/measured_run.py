"""One command run to its end and measured the way every benchmark here reports it: CPU seconds
(user + system, from wait4), peak anonymous memory (RssAnon, sampled from /proc/PID/status every
10 ms from outside, so that reading it is not the command's CPU), ru_maxrss (which also counts
mapped file pages), peak Pss (sampled from /proc/PID/smaps_rollup every 100 ms: a file page mapped
twice in the process, by two journal readers say, counts once there and twice in RSS), and the
`key=value` words of its standard output."""
import os, subprocess, sys, time

def kib(path, field):
    """`field`'s value in KiB in a /proc file of `Name: N kB` lines; 0 once the process is gone."""
    try:
        with open(path) as lines:
            for line in lines:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

def run(command, stdout=None):
    """`stdout` None captures the output for its report; a file (os.devnull) discards it."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE if stdout is None else stdout)
    peak_anon = 0
    peak_pss = 0
    samples = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak_anon = max(peak_anon, kib(f"/proc/{process.pid}/status", "RssAnon"))
        # smaps_rollup walks the page tables under the process's mmap lock: a tenth as often.
        if samples % 10 == 0:
            peak_pss = max(peak_pss, kib(f"/proc/{process.pid}/smaps_rollup", "Pss"))
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
