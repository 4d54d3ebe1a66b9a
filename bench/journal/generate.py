#!/usr/bin/env python3
"""Writes N journal entries of several units in journal export format to stdout, shaped like what
journald stores for a service's stdout lines: the same trusted fields, a unique message each, and
some entries with a structured field of the app's own. Entries go round-robin over the units.
With a third argument, a file of lines, the messages are those lines in turn (the redaction
benchmark's realistic mix) instead of generated access lines."""
import sys

def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    units = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    messages = None
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as lines:
            messages = [line.rstrip("\n") for line in lines if line.strip()]
    out = sys.stdout.buffer
    boot = "6c1f0b4e2a9d4c7e8b3f5a1d2e4c6b80"
    machine = "a3b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5"
    realtime = 1_700_000_000_000_000
    monotonic = 5_000_000
    static = []
    for u in range(units):
        name = f"bench{u}"
        static.append((
            f"_BOOT_ID={boot}\n_MACHINE_ID={machine}\n_HOSTNAME=bench-host\n_TRANSPORT=stdout\n"
            f"_STREAM_ID=5d1c7a2b9e3f4d6a8b0c1e2f3a4b5c{u:02d}\nSYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER={name}\n"
            f"_PID={1000 + u}\n_UID=998\n_GID=998\n_COMM={name}\n_EXE=/usr/bin/{name}\n"
            f"_CMDLINE=/usr/bin/{name} --config /etc/{name}.conf\n_CAP_EFFECTIVE=0\n"
            f"_SYSTEMD_CGROUP=/system.slice/{name}.service\n_SYSTEMD_UNIT={name}.service\n"
            f"_SYSTEMD_SLICE=system.slice\n_SYSTEMD_INVOCATION_ID=0f1e2d3c4b5a69788796a5b4c3d2e1{u:02d}\n"
        ).encode())
    chunk = []
    for i in range(count):
        u = i % units
        realtime += 37
        monotonic += 37
        priority = 3 if i % 50 == 0 else (4 if i % 10 == 0 else 6)
        extra = f"REQUEST_ID=r-{i:08x}\n" if u == 1 else ""
        message = (messages[i % len(messages)] if messages
                   else f"GET /api/items/{i * 7919 % 100000} 200 {i % 97}ms bytes={i * 31 % 65536} request {i}")
        chunk.append(
            f"__REALTIME_TIMESTAMP={realtime}\n__MONOTONIC_TIMESTAMP={monotonic}\n".encode()
            + static[u]
            + f"PRIORITY={priority}\n{extra}MESSAGE={message}\n\n".encode()
        )
        if len(chunk) == 10000:
            out.write(b"".join(chunk))
            chunk.clear()
    out.write(b"".join(chunk))

main()
