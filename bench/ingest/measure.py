#!/usr/bin/env python3
"""Runs journalctl and the ingest pipeline on the same journal directory, interleaved round by round
so that a busy machine slows each alike: CPU seconds (user + system, from wait4), entries per
CPU-second, peak anonymous memory (RssAnon sampled from /proc/PID/status while it runs), and the
pipeline's rate over journalctl's. Each pipeline run starts with an empty state directory."""
import argparse, os, shutil, statistics, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from measured_run import run  # noqa: E402

def labelled(build):
    """`LABEL=PATH` or a bare path, labelled `before`."""
    label, _, path = build.rpartition("=")
    return (label or "before", path)

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--port", required=True)
    parser.add_argument("--entries", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", required=True)
    parser.add_argument("--units", type=int, default=1,
                        help="units in the files: one app per unit in one pipeline process, all of them matched by journalctl")
    parser.add_argument("--reader", help="apsio-bench-journal: with several units, one reader of all of them that maps "
                        "every entry and sends nothing, opening the journal again as the daemon's readers do and "
                        "keeping one opening: the peak RSS the pipeline's is held to")
    parser.add_argument("--reader-before", action="append", default=[], metavar="[LABEL=]PATH",
                        help="an earlier build of apsio-bench-journal, run in the same rounds; may be repeated")
    parser.add_argument("--levels", nargs="+", default=["1"])
    parser.add_argument("--before", action="append", default=[], metavar="[LABEL=]PATH",
                        help="an earlier build of apsio-bench-ingest, run in the same rounds; may be repeated")
    parser.add_argument("--redact-rules", nargs="+", default=["standard"],
                        help="built-in redaction rules of each pipeline run: none, standard, all")
    parser.add_argument("--encodings", nargs="+", default=["json"],
                        help="OTLP/HTTP encodings of this build's pipeline runs: json, protobuf (earlier builds send JSON)")
    parser.add_argument("--compressions", nargs="+", default=["gzip"],
                        help="body compressions of this build's pipeline runs: gzip (at each of --levels), zstd "
                        "(at each of --zstd-levels); earlier builds gzip")
    parser.add_argument("--zstd-levels", nargs="+", default=["default"],
                        help="zstd levels of the zstd runs: default (the build's own) or numbers")
    args = parser.parse_args()

    # (name, binary, what it is: "journalctl", ("reader", extra arguments) or ("pipeline", level, rules))
    runners = [("journalctl -o export", None, ("journalctl",))]
    if args.reader and args.units > 1:
        # The reader as it runs in the daemon (opening the journal again every 16,384 entries),
        # and as a reader that keeps its one opening, like journalctl, holds the files.
        runners.append(("one reader of every unit", args.reader, ("reader", [])))
        runners.append(("one reader of every unit, one opening", args.reader, ("reader", ["--one-opening"])))
        for label, path in map(labelled, args.reader_before):
            runners.append((f"one reader of every unit, {label}", path, ("reader", [])))
    for rules in args.redact_rules:
        suffix = "" if args.redact_rules == ["standard"] else f", redaction {rules}"
        for encoding in args.encodings:
            named = "" if args.encodings == ["json"] else f", {encoding}"
            for compression in args.compressions:
                if compression == "gzip":
                    runners += [(f"pipeline, gzip {level}{suffix}{named}", args.bench, ("pipeline", level, rules, encoding, "gzip"))
                                for level in args.levels]
                else:
                    runners += [(f"pipeline, {compression}{'' if level == 'default' else ' ' + level}{suffix}{named}", args.bench,
                                 ("pipeline", level, rules, encoding, compression)) for level in args.zstd_levels]
        for label, path in map(labelled, args.before):
            runners += [(f"pipeline {label}, gzip {level}{suffix}", path, ("pipeline", level, rules, "json", "gzip"))
                        for level in args.levels]
    results = {name: [] for name, _, _ in runners}
    units = [f"bench{u}.service" for u in range(args.units)]
    for round_index in range(args.rounds):
        # Each round starts one place further along the list: whatever favours a place in the
        # round (caches warmed by the run before, the host's load changing within a round) falls
        # on each runner alike over the rounds.
        shift = round_index % len(runners)
        for name, bench, kind in runners[shift:] + runners[:shift]:
            if kind[0] == "journalctl":
                journalctl = ["journalctl", "-D", args.dir, "-o", "export"] + [f"_SYSTEMD_UNIT={u}" for u in units]
                with open(os.devnull, "wb") as sink:
                    process = subprocess.Popen(journalctl, stdout=sink)
                    _, status, usage = os.wait4(process.pid, 0)
                results[name].append({"cpu": usage.ru_utime + usage.ru_stime, "peak_anon_kib": 0, "maxrss_kib": usage.ru_maxrss, "peak_pss_kib": 0})
                continue
            if kind[0] == "reader":
                command = [bench, "--dir", args.dir] + [part for u in units for part in ("--unit", u)] + kind[1]
                results[name].append(run(command))
                continue
            _, level, rules, encoding, compression = kind
            state = os.path.join(args.work, "state")
            shutil.rmtree(state, ignore_errors=True)
            command = [bench, "run", "--journal-dir", args.dir, "--unit", ",".join(units),
                       "--backend", f"http://127.0.0.1:{args.port}", "--state-dir", state,
                       "--expect", str(args.entries)]
            if compression == "gzip":
                command += ["--gzip-level", level]
            else:
                command += ["--compression", compression] + ([] if level == "default" else ["--zstd-level", level])
            if rules != "standard":
                command += ["--redact-rules", rules]
            if encoding != "json":
                command += ["--encoding", encoding]
            results[name].append(run(command))

    base = statistics.median(r["cpu"] for r in results["journalctl -o export"])
    # The fastest round next to the median: on a machine whose speed swings from round to round,
    # the fastest is the one least slowed by anything else, and two builds compare best there.
    print("| reader | entries | CPU s (median) | CPU s (fastest) | entries per CPU-second | peak RssAnon | peak RSS | peak Pss | rate vs journalctl |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, runs in results.items():
        cpu = statistics.median(r["cpu"] for r in runs)
        fastest = min(r["cpu"] for r in runs)
        anon = max(r["peak_anon_kib"] for r in runs) / 1024
        anon_text = f"{anon:.1f} MiB" if anon else "—"
        rss = max(r["maxrss_kib"] for r in runs) / 1024
        pss = max(r["peak_pss_kib"] for r in runs) / 1024
        pss_text = f"{pss:.0f} MiB" if pss else "—"
        print(f"| {name} | {args.entries:,} | {cpu:.2f} | {fastest:.2f} | {args.entries / cpu:,.0f} | {anon_text} | {rss:.0f} MiB | {pss_text} | {base / cpu:.2f}× |")
    print()
    for name, runs in results.items():
        print(f"- {name}: " + ", ".join(f"{r['cpu']:.2f}" for r in runs))
    # What each pipeline sent on the wire, compressed (earlier builds do not say): the same entries,
    # so the bytes an entry are comparable across compressions, and against the first pipeline.
    sent = {name: statistics.median(int(r["report"]["bytes"]) for r in runs)
            for name, runs in results.items() if runs and all("bytes" in r.get("report", {}) for r in runs)}
    if sent:
        first_name = next(iter(sent))
        first_cpu = statistics.median(r["cpu"] for r in results[first_name])
        print()
        print(f"| pipeline | bytes sent | bytes an entry | bytes vs {first_name} | CPU vs {first_name} |")
        print("|---|---:|---:|---:|---:|")
        for name, size in sent.items():
            cpu = statistics.median(r["cpu"] for r in results[name])
            print(f"| {name} | {size:,.0f} | {size / args.entries:.1f} | {size / sent[first_name]:.2f}× | {cpu / first_cpu:.2f}× |")
    # The ratio of the medians hides how far apart the rounds were; the ratio of the sums weighs
    # every round alike.
    total = sum(r["cpu"] for r in results["journalctl -o export"])
    for name, runs in results.items():
        if name != "journalctl -o export":
            print(f"- {name}, over all rounds: {total / sum(r['cpu'] for r in runs):.2f}× journalctl")

main()
