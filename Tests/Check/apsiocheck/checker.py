"""The promises, held as invariants over a trace: what the backend received, what the operator's
commands answered, and what apsiod left on disk and in its log, judged against the `Model` of what
the operations did. Each broken promise is a `Violation` with a kind, so that a shrunk history can
be asked to break the same one."""

import json
import re

from .model import LEVELS, Model, family
from .ops import APPS

#: A live request that left before an `allow-live off` returned may still arrive just after.
GRACE = 1.0
#: Hellos are timed by apsiod's clock, the arrivals by the checker's: this much either way.
TOLERANCE = 1.0
#: A batch: at most this many records go again after a kill, a stop or a refused answer.
BATCH = 1000
#: What a root command says when it could not get through to a running apsiod.
UNREACHED = re.compile(r"busy|as many control connections|Broken pipe|Connection reset|not running|"
                       r"cannot be reached|did not answer|timed out|Resource temporarily", re.I)
#: Routes of the live channel.
LIVE = {"hello", "next", "frames", "results"}


class Violation:
    def __init__(self, kind, text):
        self.kind = kind
        self.text = text

    def __repr__(self):
        return "%s: %s" % (self.kind, self.text)


def app_of_key(key):
    for app, spec in APPS.items():
        if spec["key"] == key:
            return app
    return None


def app_of_service(service):
    for app, spec in APPS.items():
        if spec["name"] == service:
            return app
    return None


class Checker:
    def __init__(self, trace):
        self.trace = trace
        self.model = Model(trace)
        self.violations = []

    def fail(self, kind, text):
        self.violations.append(Violation(kind, text))

    def check(self):
        for name in sorted(n for n in dir(self) if n.startswith("check_")):
            getattr(self, name)()
        return self.violations

    # -- helpers -----------------------------------------------------------------------------------

    def accepted(self):
        """(event, record) for every record in a batch answered 200."""
        for e in self.trace.events:
            if e["route"] == "logs" and e["status"] == 200:
                for r in e["records"]:
                    yield e, r

    def op_at(self, t):
        """The index of the operation running at time `t`: the last one started before it."""
        index = -1
        for record in self.trace.ops:
            if record["t0"] <= t:
                index = record["i"]
        return index

    # -- ingest ------------------------------------------------------------------------------------

    def check_loss(self):
        required = self.model.required_tags()
        got = {r["tag"] for _, r in self.accepted()}
        missing = sorted(required - got)
        if missing:
            by_unit = {}
            for tag in missing:
                by_unit.setdefault(self.trace.entries[tag]["unit"], []).append(tag)
            for unit, tags in sorted(by_unit.items()):
                first = self.trace.entries[tags[0]]
                self.fail("loss", "%d entries of %s that must reach the backend never did (first E%06d, written at op %d)"
                          % (len(tags), unit, tags[0], first["op"]))

    def check_foreign(self):
        served = {app: {cfg["Unit"] for cfg in self.model.final.apps[app].loaded_history} for app in APPS}
        for snapshot in self.model.snapshots:
            for app, a in snapshot.apps.items():
                served[app].update(cfg["Unit"] for cfg in a.loaded_history)
        seen = set()
        for e, r in self.accepted():
            app = app_of_service(r["service"])
            if r["tag"] is None or app is None or (app, r["tag"]) in seen:
                continue
            entry = self.trace.entries.get(r["tag"])
            if entry and entry["unit"] not in served[app]:
                seen.add((app, r["tag"]))
                self.fail("foreign", "%s sent E%06d, a line of %s, which it never served" % (app, r["tag"], entry["unit"]))

    def check_consent(self):
        """A line written while consent was denied never leaves (docs/ingest.md)."""
        for e, r in self.accepted():
            app = app_of_service(r["service"])
            entry = self.trace.entries.get(r["tag"]) if r["tag"] else None
            if not entry or not app or entry["op"] < 0:
                continue
            before, at = self.model.at(entry["op"] - 1).apps[app], self.model.at(entry["op"]).apps[app]
            after = self.model.at(e["op"]).apps[app]
            if before.consent() or at.consent() or not at.coverage or not after.coverage:
                continue
            if at.coverage["id"] == after.coverage["id"]:
                self.fail("consent", "%s sent E%06d, written at op %d while its consent was denied"
                          % (app, r["tag"], entry["op"]))
                return

    def check_duplicates(self):
        copies = {}
        for e, r in self.accepted():
            app = app_of_service(r["service"])
            if r["tag"] is None or app is None:
                continue
            coverage = self.model.at(e["op"]).apps[app].coverage
            key = (app, coverage and coverage["id"], r["tag"])
            copies[key] = copies.get(key, 0) + 1
        extra = sum(n - 1 for n in copies.values())
        chances = 1
        for record in self.trace.ops:
            if record["op"]["op"] in ("kill", "term", "reload", "start", "heal", "policy", "ctl"):
                chances += 1
        chances += sum(1 for e in self.trace.events if e["route"] == "logs" and e["status"] != 200)
        if extra > BATCH * chances:
            self.fail("duplicates", "%d records accepted more than once, more than a batch for each of the %d kills, "
                      "stops, reloads and refused answers" % (extra, chances))

    def check_lost_count(self):
        """A loss is counted only where something was lost: a file vacuumed or corrupted, or a
        batch the backend refused for good."""
        status = self.trace.heal.get("status", {})
        if status.get("rc") != 0:
            return
        damaged = any(r["op"]["op"] in ("vacuum", "corrupt") for r in self.trace.ops)
        refused = any(e["route"] == "logs" and e["status"] in (400, 413) for e in self.trace.events)
        if damaged or refused:
            return
        try:
            apps = json.loads(status["out"]).get("apps", [])
        except ValueError:
            return
        for app in apps:
            ingest = app.get("ingest") or {}
            dropped = ingest.get("dropped_records") or 0
            gaps = ingest.get("journal_gaps") or 0
            if dropped or gaps:
                self.fail("lost_count", "apsioctl status counts %d record(s) of %s lost and %d gap(s) in its journal, "
                          "though no journal file was vacuumed or damaged and the backend refused nothing"
                          % (dropped, app["name"], gaps))

    def check_status_counts(self):
        """`apsioctl status` never counts more records sent than the backend accepted since apsiod
        last started."""
        status = self.trace.heal.get("status", {})
        if status.get("rc") != 0 or not self.trace.heal.get("delivered"):
            return
        try:
            apps = json.loads(status["out"]).get("apps", [])
        except ValueError:
            return
        started = 0.0
        for record in self.trace.ops:
            result = record.get("result") or {}
            if record["op"]["op"] == "start" and "skipped" not in result:
                started = record["t0"]
        heal = self.trace.ops[-1] if self.trace.ops and self.trace.ops[-1]["op"]["op"] == "heal" else None
        if heal and heal["result"].get("started"):
            started = heal["t0"]
        for app in apps:
            ingest = app.get("ingest") or {}
            name = app.get("name")
            if name not in APPS:
                continue
            accepted = sum(1 for e, r in self.accepted() if e["t"] >= started and app_of_service(r["service"]) == name)
            if (ingest.get("sent_records") or 0) > accepted:
                self.fail("status_counts", "apsioctl status says %s sent %d records since apsiod started; the backend "
                          "accepted %d" % (name, ingest["sent_records"], accepted))

    # -- the operator ------------------------------------------------------------------------------

    def check_operator(self):
        for record in self.trace.ops:
            op, result = record["op"], record.get("result") or {}
            if op["op"] in ("ctl", "status") and op.get("user") is None and result.get("running"):
                if result.get("rc") != 0 and UNREACHED.search(result.get("err", "") + result.get("out", "")):
                    self.fail("operator", "root's `apsioctl %s` at op %d exited %s: %s"
                              % (" ".join(op.get("args", ["--json", "status"])), record["i"], result.get("rc"),
                                 result.get("err", "")[:200]))
            if op["op"] == "reload" and result.get("rc") not in (None, 0) and UNREACHED.search(result.get("err", "")):
                self.fail("operator", "root's `apsioctl reload` at op %d exited %s: %s"
                          % (record["i"], result["rc"], result.get("err", "")[:200]))
            if op["op"] == "reload" and op["how"] == "hup" and result.get("hup_applied") is False:
                self.fail("operator", "SIGHUP at op %d was not followed by a reload" % record["i"])
            if op["op"] == "ctl" and op.get("user") and result.get("rc") == 0 and op["args"][0] != "status":
                self.fail("other_user", "`apsioctl %s` as %s was accepted at op %d"
                          % (" ".join(op["args"]), op["user"], record["i"]))
            if op["op"] == "term" and result.get("exit") not in (0, None):
                self.fail("exit", "apsiod exited %s on SIGTERM at op %d" % (result.get("exit"), record["i"]))
            if op["op"] == "start" and result.get("answering") is False:
                self.fail("start", "apsiod did not serve its apps after the start at op %d" % record["i"])
        heal = self.trace.heal
        if heal.get("status", {}).get("rc") not in (0, None):
            self.fail("operator", "`apsioctl status` after the heal exited %s: %s"
                      % (heal["status"]["rc"], heal["status"].get("err", "")[:200]))
        if heal.get("exit") not in (0, None):
            self.fail("exit", "apsiod exited %s on SIGTERM after the heal" % heal.get("exit"))

    # -- the live channel --------------------------------------------------------------------------

    def gates(self):
        """For each app, the times its channel could be open: [(from, to)] while allow-live was on,
        consent granted and Data Saver off, as the operator set them."""
        windows = {app: [] for app in APPS}
        trace = self.trace
        opened = {}
        for k, snapshot in enumerate(self.model.snapshots[1:], start=-1):
            record = next((r for r in trace.ops if r["i"] == k), None)
            t0 = record["t0"] if record else 0.0
            t1 = record["t1"] if record else 0.0
            for app, a in snapshot.apps.items():
                open_now = a.allow and a.consent() and not snapshot.data_saver
                if open_now and app not in opened:
                    opened[app] = t0
                elif not open_now and app in opened:
                    windows[app].append((opened.pop(app), t1 + GRACE))
        for app, since in opened.items():
            windows[app].append((since, float("inf")))
        return windows

    def check_keys(self):
        windows = self.gates()
        for e in self.trace.events:
            if e["route"] not in LIVE:
                continue
            app = app_of_key(e.get("app_key"))
            if app is None:
                self.fail("keys", "a live request (%s) came without a known app key" % e["route"])
                return
            if not any(a <= e["t"] <= b for a, b in windows[app]):
                self.fail("keys", "%s sent %s at %.2fs (op %d) while allow-live was off, consent withheld or Data "
                          "Saver on" % (app, e["route"], e["t"], e["op"]))
                return

    @staticmethod
    def starts_afresh(record, app):
        """What lets an app's next hello go without regard to the last: apsiod started again (a new
        launch), or the app added (a new install once its file had gone). Reloads, edits, a file
        broken and fixed, the operator's switches, unit states and policy changes keep the cadence
        and the backoff (16.4; the daemon's LiveChannelMemory)."""
        op = record["op"]
        if op["op"] == "start":
            return "skipped" not in (record.get("result") or {})
        if op["op"] == "heal":
            return bool((record.get("result") or {}).get("started"))
        return op["op"] == "add" and op.get("app") == app

    def check_hello_cadence(self):
        interval = 15
        hellos = {}
        for e in self.trace.events:
            if e["route"] == "hello":
                hellos.setdefault(app_of_key(e.get("app_key")), []).append(e)
        for app, seen in hellos.items():
            for h1, h2 in zip(seen, seen[1:]):
                between = [r for r in self.trace.ops if r["t1"] >= h1["t"] and r["t0"] <= h2["t"]]
                if any(self.starts_afresh(r, app) for r in between):
                    continue
                # A 401 on next, frames or results, or a session that ended, sends a hello at once.
                if any(e["route"] in LIVE and e["t"] > h1["t"] and e["t"] < h2["t"] and app_of_key(e.get("app_key")) == app
                       and (e["status"] == 401 or (e["route"] == "frames" and e.get("body", {}).get("state") == "ended"))
                       for e in self.trace.events):
                    continue
                gap = h2["t"] - h1["t"]
                wanted = interval
                if isinstance(h1["status"], int) and h1["status"] >= 300 and h1.get("retry_after"):
                    wanted = max(interval, h1["retry_after"])
                if gap < wanted - TOLERANCE:
                    self.fail("hello_cadence", "%s said hello %.1fs after the one before (answered %s), less than "
                              "the %ds it must wait" % (app, gap, h1["status"], wanted))
                    return

    def check_backend_hold(self):
        """16.4: a 429, 5xx or 3xx with `Retry-After` on any live request holds every live request
        of that app until the moment it names, past the session's end and across reloads."""
        for told in self.trace.events:
            status, wait = told["status"], told.get("retry_after")
            if told["route"] not in LIVE or not isinstance(status, int) or not wait:
                continue
            if not (status == 429 or status >= 500 or 300 <= status < 400):
                continue
            app = app_of_key(told.get("app_key"))
            start, end = told["t"] + GRACE, told["t"] + wait - TOLERANCE
            for e in self.trace.events:
                if e["route"] not in LIVE or not (start < e["t"] < end) or app_of_key(e.get("app_key")) != app:
                    continue
                between = [r for r in self.trace.ops if r["t1"] >= told["t"] and r["t0"] <= e["t"]]
                if any(self.starts_afresh(r, app) for r in between):
                    continue
                self.fail("backend_hold", "%s sent %s %.1fs after a %s answered %d with Retry-After: %d"
                          % (app, e["route"], e["t"] - told["t"], told["route"], status, wait))
                return

    def check_session_after_heal(self):
        heal = self.trace.heal
        if heal.get("sessions") is False:
            apps = self.model.live_expected_at_heal()
            self.fail("session", "after the heal (configuration read again, faults cleared), %s with both keys turned "
                      "and its unit active had no live session within interval_s + 25 s" % ", ".join(apps))

    def check_live_floors(self):
        """No streamed line of a family the app file turns off, or under its MinPriority."""
        for e in self.trace.events:
            if e["route"] != "frames" or not isinstance(e.get("body"), dict):
                continue
            app = app_of_key(e.get("app_key"))
            configs = [self.model.at(k).apps[app].last_loaded for k in (e["op"] - 1, e["op"])]
            configs = [c for c in configs if c]
            for line in e["body"].get("lines") or []:
                match = re.search(r"\bE(\d{6})\b", line.get("body", ""))
                entry = self.trace.entries.get(int(match.group(1))) if match else None
                if not entry or not configs:
                    continue
                fam = family(entry["prio"])
                if all(fam not in (c.get("Families") or "logs errors").split() for c in configs):
                    self.fail("live_floors", "%s streamed E%06d, a %s line, with %s off" % (app, int(match.group(1)), fam, fam))
                    return
                if all(c.get("MinPriority") and entry["prio"] > LEVELS[c["MinPriority"]] for c in configs):
                    self.fail("live_floors", "%s streamed E%06d (priority %d) under MinPriority=%s"
                              % (app, int(match.group(1)), entry["prio"], configs[-1]["MinPriority"]))
                    return

    # -- secrets -----------------------------------------------------------------------------------

    def check_secrets(self):
        keys = [spec["key"] for spec in APPS.values()]
        tokens = self.trace.tokens
        proofs = self.trace.proofs
        passwords = [e["secret"] for e in self.trace.entries.values() if e.get("secret")]
        for e in self.trace.events:
            raw = e.get("raw") or b""
            if not raw:
                continue
            text = raw.decode("utf-8", "replace")
            for key in keys:
                if key in text:
                    self.fail("secrets", "an app key was in the body of a %s request" % e["route"])
                    return
            for token in tokens:
                if token in text:
                    self.fail("secrets", "a device token was in the body of a %s request" % e["route"])
                    return
            if e["route"] != "hello":
                for proof in proofs:
                    if proof in text:
                        self.fail("secrets", "a tester proof was in the body of a %s request" % e["route"])
                        return
            for word in passwords:
                if word in text:
                    self.fail("secrets", "a password written in a journal line left the box in a %s body" % e["route"])
                    return
        places = dict(self.trace.state_files)
        places["apsiod's log"] = self.trace.logs.encode()
        for where, content in places.items():
            text = content.decode("utf-8", "replace")
            for name, values in (("an app key", keys), ("a device token", tokens),
                                 ("a tester proof", proofs)):
                if any(v in text for v in values):
                    self.fail("secrets", "%s is in %s" % (name, where))
                    return

    def check_redaction(self):
        """A `Redact=` pattern in force from a line's writing to its sending keeps it out."""
        for e, r in self.accepted():
            app = app_of_service(r["service"])
            entry = self.trace.entries.get(r["tag"]) if r["tag"] else None
            if not entry or not app or not entry.get("card"):
                continue
            configs = [self.model.at(k).apps[app].last_loaded for k in range(max(entry["op"], -1), e["op"] + 1)]
            if configs and all(c and "card=[0-9]{4}" in (c.get("Redact") or []) for c in configs):
                if entry["card"] in r["body"]:
                    self.fail("redaction", "%s sent E%06d with %s although Redact=card=[0-9]{4} was in force"
                              % (app, r["tag"], entry["card"]))
                    return


def check(trace):
    return Checker(trace).check()
