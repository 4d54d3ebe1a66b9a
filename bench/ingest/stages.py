"""Where ingest's instructions go, stage by stage, from callgrind's counts of apsio-bench-ingest
runs (bench/ingest/run.sh with CALLGRIND=): each stage is the inclusive count of the functions that
are it; what is left is the rest.

Usage: stages.py CALLGRIND_ANNOTATE [--journalctl FILE] LABEL FILE [LABEL FILE ...]
With two runs it gives the second against the first; with journalctl's count, each total against it."""
import re
import subprocess
import sys


def inclusive(annotate, path):
    """The program's total and each function's inclusive count, as callgrind_annotate prints them."""
    out = subprocess.run([annotate, "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    rows, total = [], 0
    for line in out.splitlines():
        match = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if not match:
            continue
        value = int(match.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in match.group(2):
            total = value
        else:
            rows.append((value, match.group(2)))
    return total, rows


def biggest(rows, *needles):
    """The largest inclusive count of a function whose line names all of `needles`: the function's
    outermost frame, not a recursive or inlined part of it."""
    return max((value for value, name in rows if all(needle in name for needle in needles)), default=0)


def stages(annotate, path):
    count, rows = inclusive(annotate, path)
    enumerate_ = biggest(rows, "sd_journal_enumerate_available_data")
    next_ = biggest(rows, "sd_journal_next [")
    cursor = biggest(rows, "sd_journal_get_cursor")
    # The reader's batch: its steps (`sd_journal_next`) and each entry taken (fields, cursor, record).
    read = biggest(rows, "JournalReader.swift", "JournalReaderV4readAA0C5Batch")
    redact = biggest(rows, "RedactionStream", "redactyy")
    accept = biggest(rows, "AppExporterC6accept")
    digest = biggest(rows, "SHA256DigesterV6digest")
    encode = biggest(rows, "OTLPLogsEncoder.swift", "encode3app4runs")
    gzip = biggest(rows, "Gzip.swift", "compress")
    parts = [("read: sd_journal_next, enumerate, get_cursor (libsystemd)", enumerate_ + next_ + cursor),
             ("map: fields to records, cursor strings", read - enumerate_ - next_ - cursor),
             ("redact", redact), ("gate and window", accept - redact),
             ("encode: OTLP JSON", encode - digest), ("uid: SHA-256", digest), ("compress: gzip", gzip)]
    parts.append(("the rest: tasks, HTTP, cursor files, records freed, start", count - sum(value for _, value in parts)))
    parts.append(("total", count))
    return parts


def main():
    arguments = sys.argv[1:]
    annotate = arguments.pop(0)
    journalctl = None
    if arguments[:1] == ["--journalctl"]:
        journalctl = inclusive(annotate, arguments[1])[0]
        arguments = arguments[2:]
    labels, paths = arguments[0::2], arguments[1::2]
    table = {label: stages(annotate, path) for label, path in zip(labels, paths)}
    names = [name for name, _ in table[labels[0]]]
    pair = len(labels) == 2
    print("| stage | " + " | ".join(labels) + (" | after/before |" if pair else " |"))
    print("|---|" + "---:|" * (len(labels) + (1 if pair else 0)))
    for index, name in enumerate(names):
        values = [table[label][index][1] for label in labels]
        ratio = (f" | {values[1] / values[0]:.2f}" if values[0] else " | —") if pair else ""
        print(f"| {name} | " + " | ".join(f"{value / 1e6:,.0f}M" for value in values) + ratio + " |")
    if journalctl:
        print(f"\njournalctl -o export, the same entries: {journalctl / 1e6:,.0f}M")
        for label in labels:
            print(f"- {label}: {table[label][-1][1] / journalctl:.2f}× journalctl's instructions, of which "
                  f"libsystemd's reading {table[label][0][1] / journalctl:.2f}×")


main()
