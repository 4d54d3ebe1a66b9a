"""Samples an idle process for a while: resident memory at the end, CPU time and context switches
(wake-ups) of all its threads over the interval. Prints one line of key=value pairs."""
import os, sys, time

pid, seconds, apps = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
ticks = os.sysconf("SC_CLK_TCK")

def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks

def switches():
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            for line in open(f"/proc/{pid}/task/{task}/status"):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total

def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0

def pss():
    """Proportional set size: each shared page divided among the processes mapping it, so the C
    libraries every process maps count as the share this one holds."""
    for line in open(f"/proc/{pid}/smaps_rollup"):
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0

def descriptor_kinds(fds):
    """What the descriptors are: sockets, journal files, queue segments, the rest by name."""
    kinds = {}
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            kind = "socket"
        elif target.endswith(".journal") or target.endswith(".journal~"):
            kind = "journal"
        elif target.startswith("anon_inode:"):
            kind = target[len("anon_inode:"):].strip("[]")
        elif "/queue/" in target:
            kind = "queue"
        else:
            kind = os.path.basename(target) or target
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds

def descriptors():
    """Open descriptors, and the inotify watches they hold (each journal reader has its own set)."""
    fds = os.listdir(f"/proc/{pid}/fd")
    watches = 0
    for fd in fds:
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                watches += sum(1 for line in info if line.startswith("inotify wd:"))
        except OSError:
            pass
    return len(fds), watches

cpu0, sw0, t0 = cpu(), switches(), time.monotonic()
time.sleep(seconds)
cpu1, sw1, t1 = cpu(), switches(), time.monotonic()
elapsed = t1 - t0
fds, watches = descriptors()
kinds = descriptor_kinds(os.listdir(f"/proc/{pid}/fd"))
print("descriptors of apps=" + apps + ": " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])), file=sys.stderr)
print(f"idle apps={apps} rss_mib={status('VmRSS'):.1f} rss_anon_mib={status('RssAnon'):.1f} rss_file_mib={status('RssFile'):.1f} pss_mib={pss():.1f} "
      f"cpu_pct={100 * (cpu1 - cpu0) / elapsed:.3f} wakeups_per_s={(sw1 - sw0) / elapsed:.1f} "
      f"threads={len(os.listdir(f'/proc/{pid}/task'))} fds={fds} inotify_watches={watches}")
