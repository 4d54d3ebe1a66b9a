#!/usr/bin/env python3
"""Writes fuzz/seeds/TARGET/: small valid inputs for each fuzz target (docs/fuzzing.md).

The seeds are kept in git; this script says how the binary ones (gzip streams, queue segments and
cursor files, which carry checksums) were made, and makes them again when a format changes.
Each input's layout is the one its entry point reads (the first bytes are choices)."""
import gzip
import os
import struct
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def write(target, name, data):
    directory = os.path.join(ROOT, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as file:
        file.write(data if isinstance(data, bytes) else data.encode())


TESTER = '{"id":"t1","match":"%s","expires_at":1900000000}' % ("ab" * 32)
write("json", "policy", '{"refresh_s":300,"kill_switch":false,"capture":{"logs":"always","errors":"never",'
      '"metrics":"always","replay":"never","logs_min_severity":9},"sampling":{"session_rate":0.25},'
      '"live":{"origin":"https://live.example.com:8443","interval_s":30,"testers":[' + TESTER + ']}}')
write("json", "hello", '{"viewers":2,"interval_s":45,"device_token":"%s"}' % ("0f" * 32))
write("json", "next", '{"commands":[{"id":"c1","name":"screenshot","args":{}},{"id":"c2","name":"raise_log_level"}],'
      '"viewers":1,"until":1700000000000,"remaining_ms":60000,"stop":null}')
write("json", "values", '[null,true,false,-0.5e-3,1E+2,"a\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00",{"k":[[]]}]')

# Control: the first byte is the size of each read (3 bytes), then request lines.
write("control", "requests", b"\x03" + b'{"command":"status","apps":["web","db"]}\n{"command":"version"}\n'
      b'{"command":"allow-live","on":true,"apps":["web"]}\n{"command":"consent","choice":"deny"}\n'
      b'{"command":"data-saver","on":false}\n{"command":"watch"}\n{"command":"apps"}\n{"command":"reload"}\n')

# Config: the first byte is how the key file reads (15: it holds a key), then the file.
write("config", "app", b"\x0f" + b"# web\n[App]\nUnit=web.service\nName=com.example.web\nVersion=1.2\n"
      b"Backend=https://ingest.example.com/collector\nAppKeyFile=/etc/apsio/keys/web\nConsent=granted\n"
      b"Families=logs errors\nFamilies=metrics\nMinPriority=info\nRedact=token=[a-z0-9]+\n"
      b"InstallationId=yes\nStartAt=now\n")
write("config", "inline-key", b"\x0f" + b"[App]\r\nUnit=db@main.service\r\nBackend=http://127.0.0.1:8787\r\n"
      b"AppKey=apsio_app_key\r\nRedact=secret \\\r\n  [0-9]+\r\n")
write("config", "daemon", b"\x00" + b"\xef\xbb\xbf[Daemon]\nLogLevel=debug\n; comment\n[Indicator]\n"
      b"MotdFile=/run/motd.d/50-apsio\nAnnounceTerminals=no\n[Queue]\nMaxSize=64M\nMaxAge=1w 2d\n")

# Gzip: the input is both a stream to decompress and the plaintext of a round trip.
write("gzip", "stream", gzip.compress(b"hello, hello, hello gzip\n" * 8, mtime=0))
write("gzip", "empty-stream", gzip.compress(b"", mtime=0))
write("gzip", "text", b"\x02plain text, compressed at level 2 and cut 0 bytes from its end")

# Zstd: the same; frames made by the zstd command (Python has no zstd module), one with its size in
# the header and a checksum, one from a pipe (no size), and two frames after each other.
def zstd(data, *arguments):
    return subprocess.run(["zstd", "-q", "-c", *arguments], input=data, stdout=subprocess.PIPE, check=True).stdout
write("zstd", "frame", zstd(b"hello, hello, hello zstd\n" * 8, "--content-size", "--check"))
write("zstd", "empty-frame", zstd(b"", "--check"))
write("zstd", "two-frames", zstd(b"first frame\n", "--no-check") + zstd(b"second frame\n" * 4, "-19"))
write("zstd", "text", b"\x02plain text, compressed at level 3 and cut 0 bytes from its end")


def entry(payload, unix_ms):
    fields = struct.pack("<Iq", len(payload), unix_ms)
    return b"\xa5\x51\x45\x01" + fields + struct.pack("<I", crc32c(payload, crc32c(fields))) + payload


# Queue: flags, then per segment its number (an index into the entry point's table) and, but for
# the last, its length (u16 LE), then the read position. 0x00: one segment, no read position, the
# time that expires nothing.
two = entry(b"first record", 1_700_000_000_000) + entry(b"second", 1_700_000_001_000)
write("queue", "one-segment", b"\x00\x00" + two)
write("queue", "torn-tail", b"\x00\x00" + two + entry(b"torn", 1_700_000_002_000)[:15])
# Two segments (0x01), numbers 1 and 2, a structured read position (0x04 | 0x20) into segment 1
# after its first entry (offset 32), read on a real day (0x10).
first = entry(b"first record", 1_700_000_000_000)
segment1 = first + entry(b"x" * 40, 1_699_999_000_000)
segment2 = entry(b"in the second segment", 1_700_000_003_000)
write("queue", "two-segments", bytes([0x01 | 0x04 | 0x10 | 0x20, 0, len(first) & 0xFF, len(first) >> 8, 0])
      + struct.pack("<H", len(segment1)) + segment1 + b"\x01" + segment2)
# Damage in the middle, checksums fixed up by the entry point (0x08).
write("queue", "damaged-middle", b"\x08\x00" + entry(b"a", 1) + b"\x00garbage\xa5\x51" + entry(b"b", 2))


def slot(sequence, cursor, unit=None):
    text = "%d %s" % (sequence, cursor)
    line = ("%d %08x %s\n" % (sequence, crc32c(text.encode()), cursor)).encode()
    if unit is not None:
        # The unit's line, its checksum over the slot's sequence and cursor too.
        line += ("unit %08x %s\n" % (crc32c(("%s %s" % (text, unit)).encode()), unit)).encode()
    return line + b"\n" * (512 - len(line))


CURSOR = "s=6b1a0f2e3d4c5b6a;i=2a;b=0f1e2d3c4b5a6978;m=1f;t=5f1e2d3c4b5a6;x=9a8b7c6d5e4f3a2b"
# Cursor: flags (bit 0: fix the slots' checksums; the rest: how much of a torn slot is written),
# then the file.
write("cursor", "two-slots", b"\x40" + slot(7, CURSOR) + slot(8, CURSOR.replace("i=2a", "i=2b")))
write("cursor", "one-slot", b"\x81" + slot(1, CURSOR))
write("cursor", "legacy", b"\x20" + CURSOR.encode() + b"\n")
write("cursor", "empty", b"\x00")
write("cursor", "two-slots-with-units",
      b"\x40" + slot(7, CURSOR, "foo.service") + slot(8, CURSOR.replace("i=2a", "i=2b"), "bar.service"))
# The newest slot an earlier apsiod's, without a unit line, after one of this version's.
write("cursor", "unit-then-none", b"\x61" + slot(3, CURSOR, "web@blue.service") + slot(4, CURSOR.replace("i=2a", "i=2c")))

# Redact: a byte picking the rules (0 the standard set, 1 all, 2 none, then one group each), a flag
# byte (bit 0: a private key block is open from the entry before), then a log line.
write("redact", "headers", b"\x01\x00" + b"GET /v1 Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl "
      b"password=hunter2 token: 'ghp_0123456789abcdefghijklmnopqrstuvwxyz'")
write("redact", "cloud", b"\x01\x00" + b"aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY AKIAIOSFODNN7EXAMPLE "
      b"AIzaSyA-0123456789abcdefghijklmnopqrstu https://user:pa55@db.example.com/x")
write("redact", "personal", b"\x01\x00" + b"card 4111 1111 1111 1111 from jane.doe@example.com at 192.0.2.17 and "
      b"2001:db8::8a2e:370:7334, caf\xc3\xa9 \xe2\x82\xac5")
write("redact", "key-block", b"\x00\x00" + b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY----- done")
write("redact", "key-continued", b"\x00\x01" + b"MIIEowIBAAKCAQEAzQ==\n-----END PRIVATE KEY-----\nafter the key")
write("redact", "json", b"\x00\x00" + b'{"api_key":"sk_live_0123456789abcdefghijklmn","user":"x","secret":"s3cr3t\\"q"}')

# Pattern: a byte giving the pattern's length, the pattern, then the text it is matched against.
for name, pattern, text in [
    ("prefix", "card=[0-9 ]{12,19}", "card=4111 1111 1111 1111"),
    ("class", r"(?i)session-id:\s*\w+", "Session-ID: abc123"),
    ("alternation", "x-(key|token)=[^ ]+", "x-token=abc def"),
    ("quantified", "ab?c+", "acc abc"),
    ("invalid", "[a-", "a-"),
    ("empty-match", "a*", "aaa"),
]:
    write("pattern", name, bytes([len(pattern.encode())]) + pattern.encode() + text.encode())

# OTLP/HTTP protobuf: an ExportLogsServiceRequest as apsiod writes one, and the shapes it does not
# write (arrays, lists, bytes, trace ids, flags), in the binary wire format.
def varint(value):
    out = b""
    while value >= 0x80:
        out += bytes([value & 0x7F | 0x80])
        value >>= 7
    return out + bytes([value])


def field(number, payload):
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def string_value(text):
    return field(1, text.encode())


def key_value(key, value):
    return field(1, key.encode()) + field(2, value)


RECORD = (struct.pack("<BQ", 0x09, 1764000000123456789) + struct.pack("<BQ", 0x59, 1764000000200000000) + field(2, 9)
          + field(3, b"INFO") + field(5, string_value("GET / 200")) + field(6, key_value("systemd.unit", string_value("web.service")))
          + field(6, key_value("_PID", field(3, 4242))) + field(6, key_value("ratio", struct.pack("<Bd", 0x21, 0.25)))
          + field(6, key_value("ok", field(2, 1))))
RESOURCE = field(1, key_value("service.name", string_value("com.example.web")))
SCOPE = field(1, b"apsiod") + field(2, b"0.1.0")
write("otlp", "request", field(1, field(1, RESOURCE) + field(2, field(1, SCOPE) + field(2, RECORD))))
NESTED = field(5, field(1, string_value("a") + field(2, 0)) + field(1, field(6, field(1, key_value("k", field(7, b"\x00\xff"))))))
OTHER = field(5, NESTED) + field(9, b"\x01" * 16) + field(10, b"\x02" * 8) + field(12, b"event")
write("otlp", "shapes", field(1, field(2, field(2, OTHER + struct.pack("<BI", 0x45, 1)))))

# RESP: a byte picking the piece size, then what a Redis server sends back.
for name, reply in [
    ("simple", b"+OK\r\n"),
    ("error", b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
    ("integers", b":0\r\n:-1\r\n:9223372036854775807\r\n"),
    ("bulk", b"$5\r\nhello\r\n$0\r\n\r\n$-1\r\n"),
    ("exec", b"*3\r\n+OK\r\n:7\r\n*2\r\n$1\r\na\r\n$-1\r\n*-1\r\n"),
    ("message", b"*3\r\n$7\r\nmessage\r\n$14\r\napsio:frames:1\r\n$4\r\n\x00\x01\r\n\r\n"),
    ("subscribe", b"*3\r\n$9\r\nsubscribe\r\n$3\r\none\r\n:1\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n"),
    ("torn", b"*2\r\n$3\r\nab"),
]:
    write("resp", name, b"\x03" + reply)
