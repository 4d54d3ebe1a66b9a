"""Runs a history against the built apsiod: the setup, each operation at its moment, then the
heal (faults cleared, apsiod running, the configuration read again) and a wait for what the
promises say must come. What happened is kept in a `Trace` for the checker."""

import json
import os
import random
import signal
import time
import uuid

from .backend import Backend, Fault
from .ops import APPS, NOISE, UNITS, app_file
from .world import OLD_BOOT, World, WorldError

#: How long the heal waits for every entry the promises say must come (the ingest backoff after
#: a few refusals is well under this), and for a live session after it.
HEAL_SECONDS = 120
SESSION_SLACK = 25
#: Every pause between operations is scaled by this (`--pace`).
PACE = 1.0


class Trace:
    def __init__(self, history):
        self.history = history
        self.ops = []            # {"i", "op", "t0", "t1", "result"}
        self.entries = {}        # tag -> {"unit", "prio", "op", "boot", "file", "secret", "card", "ticket"}
        self.files = {}          # journal file -> [tags]
        self.lost = set()        # tags in files vacuumed or corrupted
        self.events = []
        self.installs = {}       # app -> [installation ids seen]
        self.logs = ""
        self.state_files = {}    # path -> bytes, after the final stop
        self.heal = {}
        self.notes = []
        self.tokens = []
        self.proofs = []


class Driver:
    def __init__(self, history, binaries, keep=False, verbose=False):
        self.history = history
        self.binaries = binaries
        self.keep = keep
        self.verbose = verbose
        self.trace = Trace(history)
        self.next_tag = 1
        self.rotations = 0
        self.files = {app: dict(f) for app, f in history["setup"]["apps"].items()}
        self.present = {app: True for app in APPS}
        self.broken = {app: False for app in APPS}
        self.start = time.monotonic()

    def clock(self):
        return time.monotonic() - self.start

    def say(self, text):
        if self.verbose:
            print("  [%7.2f] %s" % (self.clock(), text), flush=True)

    # -- the run -----------------------------------------------------------------------------------

    def run(self, checker_model):
        self.backend = Backend(self.clock)
        self.backend.start()
        self.world = World(self.binaries, keep=self.keep)
        try:
            self.world.start_bus(UNITS[:3])
            self.setup()
            for index, op in enumerate(self.history["ops"]):
                self.backend.set_op(index)
                t0 = self.clock()
                self.say("%d %s" % (index, json.dumps(op)))
                try:
                    result = getattr(self, "do_" + op["op"])(op, index) or {}
                except WorldError as error:
                    result = {"error": str(error)}
                self.trace.ops.append({"i": index, "op": op, "t0": t0, "t1": self.clock(), "result": result})
                if op.get("pause_ms"):
                    time.sleep(op["pause_ms"] / 1000 * PACE)
            self.heal(checker_model)
        finally:
            self.backend.stop()
            self.trace.events = self.backend.snapshot()
            self.trace.tokens = list(self.backend.issued_tokens)
            self.trace.proofs = self.backend.proofs()
            self.trace.logs = self.world.all_logs()
            self.trace.root = self.world.root
            self.world.close()
        return self.trace

    # -- setup -------------------------------------------------------------------------------------

    def setup(self):
        setup = self.history["setup"]
        world = self.world
        self.backend.interval = 15
        for app in APPS:
            # The installation ids are made here, as the daemon would make them, so that the
            # backend's policy lists the box as a tester from the first request on.
            directory = world.path("state", "apps", app)
            os.makedirs(directory, mode=0o750, exist_ok=True)
            install = str(uuid.UUID(bytes=random.Random(self.history["seed"] * 7 + len(app)).randbytes(16), version=4))
            with open(os.path.join(directory, "installation-id"), "w") as f:
                f.write(install + "\n")
            os.chmod(os.path.join(directory, "installation-id"), 0o640)
            self.note_install(app, install)
            self.write_app(app)
        # Entries of an earlier boot, then of this one, before apsiod ever ran.
        entries = []
        for spec in setup["before"]:
            for _ in range(spec["old_boot"]):
                entries.append(self.entry(spec["unit"], -2, 6, "plain", boot=OLD_BOOT))
        for spec in setup["before"]:
            for n in range(spec["count"]):
                entries.append(self.entry(spec["unit"], -2, [6, 4, 3, 7][n % 4], "plain"))
        if entries:
            world.write_journal(entries)
        for unit in setup["unit_active"]:
            world.set_unit(unit, "active")
        world.start_daemon()
        self.wait_answering()
        for app in setup["allow_live"]:
            rc, out, err = world.ctl(["allow-live", "on", app])
            if rc != 0:
                self.trace.notes.append("setup: allow-live on %s exited %d: %s" % (app, rc, err.strip()))
        self.refresh_installs()

    def note_install(self, app, install):
        seen = self.trace.installs.setdefault(app, [])
        if install and install not in seen:
            seen.append(install)
        with self.backend.lock:
            self.backend.installs[APPS[app]["key"]] = install

    def refresh_installs(self):
        rc, out, _ = self.world.ctl(["--json", "apps"])
        if rc != 0:
            return
        try:
            for app in json.loads(out).get("apps", []):
                if app.get("name") in APPS and app.get("installation_id"):
                    self.note_install(app["name"], app["installation_id"])
        except ValueError:
            pass

    def write_app(self, app):
        fields = dict(self.files[app], Backend=self.backend.origin, broken=self.broken[app])
        path = self.world.path("etc", "apps.d", app + ".conf")
        if self.present[app]:
            with open(path, "w") as f:
                f.write(app_file(app, fields))
        elif os.path.exists(path):
            os.remove(path)

    def wait_answering(self, timeout=60):
        """Until apsiod answers `status` and serves every app whose file is good; false if it
        exited or did not within `timeout`."""
        deadline = time.monotonic() + timeout
        wanted = {a for a in APPS if self.present[a] and not self.broken[a]}
        while time.monotonic() < deadline:
            if not self.world.daemon_running():
                return False
            rc, out, _ = self.world.ctl(["--json", "apps"], timeout=10)
            if rc == 0:
                try:
                    served = {a["name"] for a in json.loads(out).get("apps", []) if a.get("service_version")}
                except ValueError:
                    served = set()
                if wanted <= served:
                    return True
            time.sleep(0.1)
        return False

    # -- entries -----------------------------------------------------------------------------------

    def entry(self, unit, op, prio, kind, boot=None):
        tag = self.next_tag
        self.next_tag += 1
        secret = card = ticket = None
        binary = None
        text = "E%06d %s line %d" % (tag, unit.split(".")[0], tag)
        if kind == "long":
            text += " " + ("x" * 9000)
        elif kind == "binary":
            text += "\nsecond line\tafter a tab"
            binary = bytes([0, 1, 2, 255, 254]) + os.urandom(8)
        elif kind == "secret":
            secret = "hunter%dq" % tag
            card = "card=%04d" % (tag % 10000)
            ticket = "ticket=%s" % "".join(chr(97 + (tag >> s) % 26) for s in (0, 3, 6, 9))
            text += " login password=%s %s %s" % (secret, card, ticket)
        fields = self.world.entry(unit, text, priority=prio, boot=boot, binary=binary)
        self.trace.entries[tag] = {"unit": unit, "prio": prio, "op": op, "boot": boot is None, "secret": secret,
                                   "card": card, "ticket": ticket, "file": "system.journal"}
        self.trace.files.setdefault("system.journal", []).append(tag)
        return fields

    # -- operations --------------------------------------------------------------------------------

    def do_write(self, op, index):
        rng = random.Random(self.history["seed"] * 100003 + index)
        entries = []
        for _ in range(op["count"]):
            prio = rng.choice([2, 3, 4, 5, 6, 7]) if op["prio"] == "mix" else op["prio"]
            entries.append(self.entry(op["unit"], index, prio, op["kind"]))
        self.world.write_journal(entries)
        return {"tags": [entries and self.next_tag - len(entries), self.next_tag - 1]}

    def do_rotate(self, op, index):
        self.rotations += 1
        archived = self.world.rotate(self.rotations)
        if archived:
            self.trace.files[archived] = self.trace.files.pop("system.journal", [])
            for tag in self.trace.files[archived]:
                self.trace.entries[tag]["file"] = archived
        return {"archived": archived}

    def do_vacuum(self, op, index):
        removed = self.world.vacuum(op["keep"])
        for name in removed:
            self.trace.lost.update(self.trace.files.get(name, []))
        return {"removed": removed}

    def do_corrupt(self, op, index):
        archived = sorted(f for f in self.world.journal_files() if "@" in f)
        if not archived:
            self.do_rotate(op, index)
            archived = sorted(f for f in self.world.journal_files() if "@" in f)
        if not archived:
            return {"corrupted": None}
        name = archived[-1]
        self.world.corrupt_tail(name)
        self.trace.lost.update(self.trace.files.get(name, []))
        return {"corrupted": name}

    def do_edit(self, op, index):
        self.files[op["app"]][op["key"]] = op["value"]
        self.write_app(op["app"])

    def do_add(self, op, index):
        self.present[op["app"]] = True
        self.write_app(op["app"])

    def do_remove(self, op, index):
        self.present[op["app"]] = False
        self.write_app(op["app"])

    def do_break(self, op, index):
        self.broken[op["app"]] = True
        self.write_app(op["app"])

    def do_fix(self, op, index):
        self.broken[op["app"]] = False
        self.write_app(op["app"])

    def do_reload(self, op, index):
        if not self.world.daemon_running():
            return {"skipped": "apsiod is stopped"}
        if op["how"] == "ctl":
            rc, out, err = self.world.ctl(["reload"])
            result = {"rc": rc, "err": err.strip()[-300:]}
        else:
            before = self.world.log_text().count("configuration read again")
            self.world.signal_daemon(signal.SIGHUP)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self.world.log_text().count("configuration read again") <= before:
                time.sleep(0.05)
            result = {"hup_applied": self.world.log_text().count("configuration read again") > before}
        self.refresh_installs()
        return result

    def do_term(self, op, index):
        if not self.world.daemon_running():
            return {"skipped": "apsiod is stopped"}
        self.world.signal_daemon(signal.SIGTERM)
        return {"exit": self.world.wait_daemon_exit()}

    def do_kill(self, op, index):
        if not self.world.daemon_running():
            return {"skipped": "apsiod is stopped"}
        self.world.signal_daemon(signal.SIGKILL)
        self.world.wait_daemon_exit()
        return {"exit": "killed"}

    def do_start(self, op, index):
        if self.world.daemon_running():
            return {"skipped": "apsiod runs"}
        self.world.release()
        self.world.start_daemon()
        answering = self.wait_answering()
        self.refresh_installs()
        return {"answering": answering}

    def do_unit(self, op, index):
        self.world.set_unit(op["unit"], op["state"])

    def do_logs_fault(self, op, index):
        self.backend.add_fault(Fault("logs", op["kind"], status=op.get("status", 503), retry_after=op.get("retry_after"),
                                     count=op["count"], seconds=op.get("seconds", 0)))

    def do_live_fault(self, op, index):
        self.backend.add_fault(Fault(op["route"], "status", status=op["status"], retry_after=op.get("retry_after"),
                                     count=op["count"]))

    def do_policy(self, op, index):
        with self.backend.lock:
            if op["key"] == "kill_switch":
                self.backend.kill_switch = op["value"]
            elif op["key"] == "listed":
                self.backend.live_listed = op["value"]
            elif op["key"] == "capture_logs":
                self.backend.capture["logs"] = op["value"]
            elif op["key"] == "capture_errors":
                self.backend.capture["errors"] = op["value"]
            elif op["key"] == "min_severity":
                if op["value"] is None:
                    self.backend.capture.pop("logs_min_severity", None)
                else:
                    self.backend.capture["logs_min_severity"] = op["value"]
        if op.get("reload") and self.world.daemon_running():
            rc, _, err = self.world.ctl(["reload"])
            return {"rc": rc, "err": err.strip()[-300:]}
        return {}

    def do_ctl(self, op, index):
        running = self.world.daemon_running()
        rc, out, err = self.world.ctl(op["args"], user=op.get("user"))
        return {"rc": rc, "out": out.strip()[-300:], "err": err.strip()[-300:], "running": running}

    def do_hold(self, op, index):
        if not self.world.daemon_running():
            return {"skipped": "apsiod is stopped"}
        return {"opened": self.world.hold(op["watches"], op["garbage"])}

    def do_release(self, op, index):
        self.world.release()

    def do_viewers(self, op, index):
        with self.backend.lock:
            self.backend.viewers = op["n"]

    def do_command(self, op, index):
        install = self.trace.installs.get("demo", [None])[-1]
        with self.backend.lock:
            self.backend.commands.setdefault(install, []).append({"id": "c-%d" % index, "name": op["name"], "args": {}})
            self.backend.lock.notify_all()

    def do_status(self, op, index):
        running = self.world.daemon_running()
        rc, out, err = self.world.ctl(["--json", "status"], timeout=30)
        return {"rc": rc, "err": err.strip()[-300:], "running": running}

    def do_pause(self, op, index):
        pass

    # -- the heal ----------------------------------------------------------------------------------

    def heal(self, model):
        """Faults cleared, the other user's connections closed, apsiod running and its
        configuration read again with a policy listing the box; then a wait for every entry that
        must come and, where the keys hold, for a live session."""
        index = len(self.history["ops"])
        self.backend.set_op(index)
        t0 = self.clock()
        self.world.release()
        self.backend.clear_faults()
        with self.backend.lock:
            self.backend.viewers = 1
            self.backend.live_listed = True
        result = {}
        if not self.world.daemon_running():
            self.world.start_daemon()
            result["started"] = True
        result["answering"] = self.wait_answering()
        # The reload first: Data Saver turned off before it would open, for a moment, the channel
        # of an app whose file is gone but not yet read as gone, which the model (the heal as one
        # step) forbids. With Data Saver still on, nothing opens until the state is the final one.
        rc, _, err = self.world.ctl(["reload"])
        result["reload"] = rc
        self.refresh_installs()
        rc, _, err = self.world.ctl(["data-saver", "off"])
        result["data_saver_off"] = rc
        self.refresh_installs()
        t1 = self.clock()
        self.trace.ops.append({"i": index, "op": {"op": "heal"}, "t0": t0, "t1": t1, "result": result})
        expected = model(self.trace)
        required = expected.required_tags()

        def delivered(events):
            accepted = set()
            for e in events:
                if e["route"] == "logs" and e["status"] == 200:
                    accepted.update(r["tag"] for r in e["records"] if r["tag"] is not None)
            return required <= accepted

        result["delivered"] = self.backend.wait_for(delivered, HEAL_SECONDS)
        live = expected.live_expected_at_heal()
        if live:
            def in_session(e):
                # A `live` body, or a `next` taken with the current token: a session that went on
                # through the heal with nothing new to stream sends only `next`.
                return (e["route"] == "frames" and e["status"] == 200 and e["body"].get("state") == "live"
                        or e["route"] == "next" and e["status"] == "held")

            def session(events):
                return all(any(e["t"] >= t1 and e["app_key"] == APPS[a]["key"] and in_session(e) for e in events)
                           for a in live)
            # A hello refused shortly before backs off, up to 120 s while it keeps failing (16.4).
            refused = any(e["route"] == "hello" and e["status"] != 200 for e in self.backend.snapshot())
            wait = self.backend.interval + SESSION_SLACK + (120 if refused else 0)
            result["sessions"] = self.backend.wait_for(session, wait)
        rc, out, err = self.world.ctl(["--json", "status"], timeout=30)
        result["status"] = {"rc": rc, "out": out, "err": err.strip()[-300:]}
        self.world.signal_daemon(signal.SIGTERM)
        try:
            result["exit"] = self.world.wait_daemon_exit()
        except WorldError as error:
            result["exit"] = str(error)
        self.trace.heal = result
        self.trace.state_files = self.read_state()

    def read_state(self):
        files = {}
        for top in ("state", "run"):
            for directory, _, names in os.walk(self.world.path(top)):
                for name in names:
                    path = os.path.join(directory, name)
                    try:
                        with open(path, "rb") as f:
                            files[os.path.relpath(path, self.world.root)] = f.read(1 << 22)
                    except OSError:
                        pass
        return files
