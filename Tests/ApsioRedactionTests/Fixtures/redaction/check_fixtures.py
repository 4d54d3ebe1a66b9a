#!/usr/bin/python3
"""Checks the redaction fixtures against an independent approximation of the rules.

    /usr/bin/python3 check_fixtures.py          # from anywhere; exit status 0 when all pass
    /usr/bin/python3 check_fixtures.py -v       # also lists nested matches and overlaps

It does not import the generators. It checks:

* positives.tsv: every line is `RULE<TAB>LINE` with a known RULE, exactly one U+27E6 ... U+27E7
  pair around a non-empty text; the rule's detector finds exactly the bracketed span in the
  unbracketed line; no detector of any rule (the personal ones included) finds anything
  outside the bracket; no other rule finds the bracketed span itself (which rule's name the
  placeholder carries would be ambiguous). Matches strictly inside the bracket (an AKIA inside
  an AWS4 Authorization value) are allowed and listed with -v. At least 5 cases per rule.
* negatives.txt: at least 2,000 non-empty UTF-8 lines, no brackets, and no detector of a
  non-personal rule matches -- neither the strict one nor a broader variant meant to catch
  near misses a scanner might reasonably also match (spaces around `=`, userinfo without a
  password, a three-part `eyJ` without the second `eyJ`, card-number sub-spans ...).
* mix.txt: 10,000 lines, no brackets, and between 0.5 % and 2 % of them hold a non-personal
  secret, each exactly one.

Standard library only.
"""

import ipaddress
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OPEN, CLOSE = "\u27e6", "\u27e7"

RULES = [
    "password", "secret", "token", "api-key", "authorization-header", "bearer-token",
    "url-userinfo", "private-key", "jwt",
    "aws-access-key-id", "aws-secret-access-key", "google-api-key", "azure-storage-key",
    "github-token", "gitlab-token", "slack-token", "slack-webhook", "stripe-key",
    "sendgrid-key", "twilio-key", "npm-token", "pypi-token",
    "card-number",
    "email", "ipv4", "ipv6",
]
PERSONAL = {"email", "ipv4", "ipv6"}

# ------------------------------------------------------------------ key/value credentials

KEY_SUFFIXES = [  # checked in this order: the AWS secret key names first
    ("aws-secret-access-key", ["aws_secret_access_key", "secret_access_key", "aws_secret_key"]),
    ("api-key", ["api_key", "apikey", "access_key", "private_key", "auth_key"]),
    ("secret", ["secret", "secret_key"]),
    ("token", ["token"]),
    ("password", ["password", "passwd", "pwd", "passphrase"]),
]


def key_rule(key):
    k = key.lower().replace("-", "_")
    for rule, suffixes in KEY_SUFFIXES:
        if any(k.endswith(s) for s in suffixes):
            return rule
    return None


KEYCH = r"A-Za-z0-9_.\-"
UNQUOTED_END = " \t&;,\"')]}"


def unquoted_end(line, i):
    while i < len(line) and line[i] not in UNQUOTED_END:
        i += 1
    return i


def quoted_span(line, i):
    """Span inside the quote at `i`, or None when it does not close or is empty."""
    q = line[i]
    j = line.find(q, i + 1)
    if j <= i + 1:
        return None
    return (i + 1, j)


RE_EQ = re.compile(r"(?<![%s])([%s]+)([ \t]*)=([ \t]*)" % (KEYCH, KEYCH))
RE_CLI = re.compile(r"(?<!\S)--([%s]+)[ \t]+(?=\S)" % KEYCH)
RE_LINESTART = re.compile(r"^[ \t]*(?:-[ \t]+)?([%s]+)[ \t]*:[ \t]*" % KEYCH)
RE_JSON = re.compile(r"([\"'])([A-Za-z0-9_.\- ]+)\1[ \t]*:[ \t]*(?=[\"'])")


def keyed(line, broad):
    """(rule, start, end) of credential values, by the key forms of the brief."""
    out = []
    for m in RE_EQ.finditer(line):
        rule = key_rule(m.group(1))
        if not rule:
            continue
        if not broad and (m.group(2) or m.group(3)):
            continue
        i = m.end()
        if i >= len(line):
            continue
        if line[i] in "\"'":
            span = quoted_span(line, i)
        else:
            j = unquoted_end(line, i)
            span = (i, j) if j > i else None
        if span:
            out.append((rule, span[0], span[1]))
    for m in RE_CLI.finditer(line):
        rule = key_rule(m.group(1))
        if rule:
            i = m.end()
            j = i
            while j < len(line) and not line[j].isspace():
                j += 1
            out.append((rule, i, j))
    m = RE_LINESTART.match(line)
    if m and key_rule(m.group(1)):
        i = m.end()
        if i < len(line):
            if line[i] in "\"'":
                span = quoted_span(line, i)
            else:
                j = len(line.rstrip())
                span = (i, j) if j > i else None
            if span:
                out.append((key_rule(m.group(1)), span[0], span[1]))
    for m in RE_JSON.finditer(line):
        rule = key_rule(m.group(2))
        if rule:
            span = quoted_span(line, m.end())
            if span:
                out.append((rule, span[0], span[1]))
    return out


# ------------------------------------------------------------------ other shapes

RE_AUTH = re.compile(r"(?i)authorization([\"']?)[ \t]*:[ \t]*")


def authorization(line, broad):
    out = []
    for m in RE_AUTH.finditer(line):
        if not broad and m.start() > 0 and line[m.start() - 1].isalnum():
            continue
        i = m.end()
        if i >= len(line):
            continue
        if line[i] in "\"'":
            span = quoted_span(line, i)
        else:
            j = len(line.rstrip())
            span = (i, j) if j > i else None
        if span:
            out.append(("authorization-header", span[0], span[1]))
    return out


RE_BEARER = re.compile(r"(?i)(?<![A-Za-z0-9])bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)")


def bearer(line, broad):
    return [("bearer-token", m.start(1), m.end(1)) for m in RE_BEARER.finditer(line) if len(m.group(1)) >= 8]


RE_SCHEME = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://")


def userinfo(line, broad):
    out = []
    for m in RE_SCHEME.finditer(line):
        i = j = m.end()
        last_at = None
        while j < len(line) and line[j] not in "/?# \t\"'<>":
            if line[j] == "@":
                last_at = j
            j += 1
        if last_at is not None and last_at > i:
            if broad or ":" in line[i:last_at]:
                out.append(("url-userinfo", i, last_at))
    return out


RE_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]*?)PRIVATE KEY-----.*?-----END \1PRIVATE KEY-----")
RE_PEM_BROAD = re.compile(r"(?i)-----BEGIN [A-Z0-9 ]*PRIVATE KEY")


def private_key(line, broad):
    rx = RE_PEM_BROAD if broad else RE_PEM
    return [("private-key", m.start(), m.end()) for m in rx.finditer(line)]


SIMPLE = {
    "jwt": (r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+(?![A-Za-z0-9_\-])",
            r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.(?:[A-Za-z0-9_\-]|(?![A-Za-z0-9_\-]))"),
    "aws-access-key-id": (r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
                          r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    "google-api-key": (r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])", r"AIza[0-9A-Za-z_\-]{30,}"),
    "github-token": (r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})(?![A-Za-z0-9])",
                     r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"),
    "gitlab-token": (r"(?<![A-Za-z0-9])(?:glpat|glrt|gldt)-[A-Za-z0-9_\-]{20}(?![A-Za-z0-9])",
                     r"(?:glpat|glrt|gldt)-[A-Za-z0-9_\-]{15,}"),
    "slack-token": (r"(?<![A-Za-z0-9])(?:xox[bpars]|xapp)-[0-9A-Za-z\-]{10,}", r"(?:xox[a-z]|xapp)-[0-9A-Za-z\-]{8,}"),
    "slack-webhook": (r"(?<=https://hooks\.slack\.com/services/)T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
                      r"hooks\.slack\.com/services/\S+"),
    "stripe-key": (r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,}(?![A-Za-z0-9])",
                   r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"),
    "sendgrid-key": (r"(?<![A-Za-z0-9])SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?![A-Za-z0-9_\-])",
                     r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{30,}"),
    "twilio-key": (r"(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])", r"SK[0-9a-fA-F]{32}"),
    "npm-token": (r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", r"npm_[A-Za-z0-9]{30,}"),
    "pypi-token": (r"(?<![A-Za-z0-9])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", r"pypi-AgEIcHlwaS5vcmc"),
}
SIMPLE = {k: (re.compile(a), re.compile(b)) for k, (a, b) in SIMPLE.items()}


def simple(line, broad):
    out = []
    for rule, (strict, wide) in SIMPLE.items():
        for m in (wide if broad else strict).finditer(line):
            out.append((rule, m.start(), m.end()))
    return out


RE_AZURE = re.compile(r"(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{86}==|[A-Za-z0-9+/]{43}=)(?=;|$|[\"'\s])")
RE_AZURE_BROAD = re.compile(r"(?i)(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*([^;\s\"']+)")


def azure(line, broad):
    rx = RE_AZURE_BROAD if broad else RE_AZURE
    return [("azure-storage-key", m.start(1), m.end(1)) for m in rx.finditer(line)]


def aws_secret_shape(line, found):
    """The AWS secret access key is 40 characters of base64 (strict only)."""
    return [f for f in found if f[0] != "aws-secret-access-key" or re.fullmatch(r"[A-Za-z0-9/+]{40}", line[f[1]:f[2]])]


# ------------------------------------------------------------------ card numbers

def luhn(d):
    total = 0
    for i, ch in enumerate(reversed(d)):
        n = int(ch)
        if i % 2 == 1:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def issuer(d):
    if d[0] == "4":
        return "visa"
    p2, p3, p4 = int(d[:2]), int(d[:3]), int(d[:4])
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:
        return "mastercard"
    if p2 in (34, 37):
        return "amex"
    if d.startswith("6011") or p2 == 65 or 644 <= p3 <= 649:
        return "discover"
    if 3528 <= p4 <= 3589:
        return "jcb"
    if p2 in (36, 38) or 300 <= p3 <= 305:
        return "diners"
    if p2 == 62:
        return "unionpay"
    return None


def card_like(d):
    return 13 <= len(d) <= 19 and luhn(d) and issuer(d) is not None


RE_GROUPS = re.compile(r"(?<![A-Za-z0-9])\d+(?:[ \-]\d+)*(?![A-Za-z0-9])")


def cards(line, broad):
    """Strict: a whole run of digit groups. Broad: any run of whole groups inside it."""
    out = []
    for m in RE_GROUPS.finditer(line):
        text = m.group(0)
        groups = [(g.start() + m.start(), g.end() + m.start()) for g in re.finditer(r"\d+", text)]
        if broad:
            for a in range(len(groups)):
                digits = ""
                for b in range(a, len(groups)):
                    digits += line[groups[b][0]:groups[b][1]]
                    if len(digits) > 19:
                        break
                    if card_like(digits):
                        out.append(("card-number", groups[a][0], groups[b][1]))
        else:
            digits = re.sub(r"\D", "", text)
            if card_like(digits):
                out.append(("card-number", m.start(), m.end()))
    return out


# ------------------------------------------------------------------ personal

RE_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9\-])")
OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
RE_IPV4 = re.compile(r"(?<![0-9A-Za-z.])(?:%s\.){3}%s(?![0-9A-Za-z]|\.\d)" % (OCTET, OCTET))
RE_IPV6_CAND = re.compile(r"(?<![0-9A-Za-z:])[0-9A-Fa-f:]*:[0-9A-Fa-f:]*(?![0-9A-Za-z:])")


def personal(line, broad):
    out = [("email", m.start(), m.end()) for m in RE_EMAIL.finditer(line)]
    out += [("ipv4", m.start(), m.end()) for m in RE_IPV4.finditer(line)]
    for m in RE_IPV6_CAND.finditer(line):
        text = m.group(0)
        end = m.end()
        if text.endswith(":") and not text.endswith("::"):
            text, end = text[:-1], end - 1  # `from 2001:db8::1: icmp_seq=1`
        if text.count(":") < 2:
            continue
        try:
            ipaddress.IPv6Address(text)
        except ValueError:
            continue
        out.append(("ipv6", m.start(), end))
    return out


# ------------------------------------------------------------------ all together

DETECTORS = [keyed, authorization, bearer, userinfo, private_key, simple, azure, cards]


def detect(line, broad=False, with_personal=False):
    found = []
    for d in DETECTORS:
        found += d(line, broad)
    if not broad:
        found = aws_secret_shape(line, found)
    if with_personal:
        found += personal(line, broad)
    return sorted(set(found), key=lambda f: (f[1], f[2], f[0]))


# ------------------------------------------------------------------ checks

class Report:
    def __init__(self, verbose):
        self.errors = []
        self.notes = []
        self.verbose = verbose

    def error(self, where, msg):
        self.errors.append("%s: %s" % (where, msg))

    def note(self, where, msg):
        self.notes.append("%s: %s" % (where, msg))


def show(line, a, b, width=60):
    return repr(line[max(0, a - 20):min(len(line), b + 20)][:width + 40])


def check_positives(rep):
    path = os.path.join(HERE, "positives.tsv")
    counts = {r: 0 for r in RULES}
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    if not raw.endswith("\n"):
        rep.error("positives.tsv", "does not end with a newline")
    for n, row in enumerate(raw.split("\n")[:-1], 1):
        where = "positives.tsv:%d" % n
        if "\t" not in row:
            rep.error(where, "no TAB")
            continue
        rule, line = row.split("\t", 1)
        if rule not in counts:
            rep.error(where, "unknown rule %r" % rule)
            continue
        if "\t" in line or "\r" in line:
            rep.error(where, "TAB or CR inside the line")
        if line.count(OPEN) != 1 or line.count(CLOSE) != 1 or line.index(OPEN) > line.index(CLOSE):
            rep.error(where, "needs exactly one %s...%s pair" % (OPEN, CLOSE))
            continue
        a = line.index(OPEN)
        b = line.index(CLOSE) - 1
        plain = line.replace(OPEN, "").replace(CLOSE, "")
        if b <= a:
            rep.error(where, "empty bracket")
            continue
        counts[rule] += 1
        with_personal = True
        strict = detect(plain, broad=False, with_personal=with_personal)
        wide = detect(plain, broad=True, with_personal=with_personal)
        mine = [f for f in strict if f[0] == rule and (f[1], f[2]) == (a, b)]
        if not mine:
            got = [(f[0], plain[f[1]:f[2]][:50]) for f in strict if f[0] == rule]
            rep.error(where, "%s detector does not find exactly %r; it finds %r" % (rule, plain[a:b][:60], got))
        for f in set(strict) | set(wide):
            r, s, e = f
            if (r, s, e) == (rule, a, b):
                continue
            if e <= a or s >= b:
                rep.error(where, "second match outside the bracket: %s %s" % (r, show(plain, s, e)))
            elif (s, e) == (a, b):
                if r != rule:
                    rep.error(where, "%s also matches the bracketed text exactly (ambiguous rule name)" % r)
            elif a <= s and e <= b:
                if r != rule and rep.verbose:
                    rep.note(where, "nested inside the %s bracket: %s %r" % (rule, r, plain[s:e][:40]))
            else:
                if r in PERSONAL and rule not in PERSONAL:
                    rep.note(where, "personal %s overlaps the %s bracket: %r" % (r, rule, plain[s:e][:50]))
                elif r == rule and f not in strict:
                    pass
                else:
                    rep.error(where, "%s overlaps the bracket: %s" % (r, show(plain, s, e)))
    for rule, c in counts.items():
        if c < 5:
            rep.error("positives.tsv", "rule %s has %d cases (< 5)" % (rule, c))
    return counts


def check_plain(rep, name, min_lines, exact=None):
    path = os.path.join(HERE, name)
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        rep.error(name, "not UTF-8: %s" % e)
        return [], 0
    if not text.endswith("\n"):
        rep.error(name, "does not end with a newline")
    lines = text.split("\n")[:-1]
    if len(lines) < min_lines:
        rep.error(name, "%d lines (< %d)" % (len(lines), min_lines))
    if exact is not None and len(lines) != exact:
        rep.error(name, "%d lines (expected %d)" % (len(lines), exact))
    hits = []
    for n, line in enumerate(lines, 1):
        where = "%s:%d" % (name, n)
        if not line.strip():
            rep.error(where, "empty line")
        if OPEN in line or CLOSE in line or "\r" in line:
            rep.error(where, "bracket or CR in a plain line")
        found = detect(line, broad=False) + detect(line, broad=True)
        if found:
            hits.append((where, line, sorted(set(found))))
    return lines, hits


def main():
    rep = Report("-v" in sys.argv[1:])
    counts = check_positives(rep)

    neg_lines, neg_hits = check_plain(rep, "negatives.txt", 2000)
    for where, line, found in neg_hits:
        for r, s, e in found:
            rep.error(where, "negative matches %s: %s" % (r, show(line, s, e)))

    mix_lines, mix_hits = check_plain(rep, "mix.txt", 10000, exact=10000)
    share = len(mix_hits) / max(1, len(mix_lines))
    if not 0.005 <= share <= 0.02:
        rep.error("mix.txt", "%d lines hold a secret (%.2f %%), expected 0.5-2 %%" % (len(mix_hits), 100 * share))
    for where, line, found in mix_hits:
        strict = [f for f in found if f in detect(line, broad=False)]
        spans = {(s, e) for _, s, e in strict}
        outer = [sp for sp in spans if not any(o != sp and o[0] <= sp[0] and sp[1] <= o[1] for o in spans)]
        if len(outer) != 1:
            rep.error(where, "mix line should hold exactly one secret, found %r" % [(r, line[s:e][:30]) for r, s, e in found])

    print("positives.tsv: %d cases" % sum(counts.values()))
    for rule in RULES:
        print("  %-22s %3d" % (rule, counts[rule]))
    print("negatives.txt: %d lines" % len(neg_lines))
    print("mix.txt: %d lines, %d with a secret (%.2f %%)" % (len(mix_lines), len(mix_hits), 100 * share))
    for n in rep.notes:
        print("note: " + n)
    for e in rep.errors[:200]:
        print("ERROR: " + e)
    if len(rep.errors) > 200:
        print("... and %d more errors" % (len(rep.errors) - 200))
    print("FAILED (%d errors)" % len(rep.errors) if rep.errors else "OK")
    return 1 if rep.errors else 0


if __name__ == "__main__":
    sys.exit(main())
