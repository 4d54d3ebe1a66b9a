#!/usr/bin/env python3
"""Runs journalctl, the plain C loop and the follower benchmark on the same journal directory,
interleaved round by round so that a busy machine slows each alike, and prints the figures:
CPU seconds (user + system, from wait4), entries per CPU-second, the peak anonymous memory
(RssAnon sampled from /proc/PID/status while it runs) and the peak resident set (ru_maxrss, which
also counts the journal files' mapped pages), with the follower's rate over journalctl's. With
--before, another build of the benchmark (an earlier commit's) runs in the same rounds too, so that
a change is measured against what it replaces under the same load."""
import argparse, os, statistics, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from measured_run import run  # noqa: E402

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--cloop")
    parser.add_argument("--before", help="an earlier build of apsio-bench-journal, run in the same rounds")
    parser.add_argument("--units", nargs="+", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    scopes = [("all units", args.units), (f"one unit of {len(args.units)}", args.units[-1:])]
    results = {}
    for round_index in range(args.rounds):
        for scope, units in scopes:
            matches = [f"_SYSTEMD_UNIT={unit}" for unit in units]
            commands = {"journalctl -o export": (["journalctl", "-D", args.dir, "-o", "export", *matches], subprocess.DEVNULL)}
            if args.cloop:
                commands["C loop"] = ([args.cloop, args.dir, *matches], None)
            bench = [args.bench, "--dir", args.dir]
            for unit in units:
                bench += ["--unit", unit]
            if args.before:
                commands["follower before"] = ([args.before, *bench[1:]], None)
            commands["follower (apsio-bench-journal)"] = (bench, None)
            for name, (command, stdout) in commands.items():
                results.setdefault((scope, name), []).append(run(command, stdout))
        print(f"round {round_index + 1} of {args.rounds} done", file=sys.stderr)

    print("| scope | reader | entries | CPU s (median) | entries per CPU-second | peak RssAnon | peak RSS (ru_maxrss) | rate vs journalctl |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for scope, units in scopes:
        counted = [r["report"].get("records") for (s, _), runs in results.items() if s == scope for r in runs]
        entries = next((int(c) for c in counted if c), 0)
        base = None
        for (s, name), runs in results.items():
            if s != scope:
                continue
            cpu = statistics.median(r["cpu"] for r in runs)
            rate = entries / cpu if cpu else 0
            if name.startswith("journalctl"):
                base = rate
            anon = max(r["peak_anon_kib"] for r in runs)
            if "rss_anon_kib" in runs[0]["report"]:
                anon = max(anon, max(int(r["report"]["rss_anon_peak_sampled_kib"]) for r in runs))
            maxrss = max(r["maxrss_kib"] for r in runs)
            ratio = f"{rate / base:.2f}×" if base else "—"
            print(f"| {scope} | {name} | {entries:,} | {cpu:.2f} | {rate:,.0f} | {anon / 1024:.1f} MiB | {maxrss / 1024:.0f} MiB | {ratio} |")
    print()
    print("CPU seconds per round (journalctl / follower):")
    followers = ["follower before", "follower (apsio-bench-journal)"] if args.before else ["follower (apsio-bench-journal)"]
    for scope, _ in scopes:
        j = [r["cpu"] for r in results[(scope, "journalctl -o export")]]
        for name in followers:
            f = [r["cpu"] for r in results[(scope, name)]]
            label = f"{scope}, before" if name == "follower before" else scope
            print(f"- {label}: " + ", ".join(f"{a:.2f}/{b:.2f} ({a / b:.2f}×)" for a, b in zip(j, f)))

main()
