"""Histories: a setup and a list of operations, drawn from a seed, as plain JSON so that a failing
one can be kept and replayed. Every operation is one thing an operator, a service, the journal, the
backend or another local user does; the generator only keeps the list meaningful (a `start` only
while apsiod is stopped, an edit only of a file that exists)."""

import random

APPS = {
    "demo": {"units": ["demo.service", "alt.service"], "name": "com.example.demo", "key": "apsio_app_demo_k3y_7f1c2e9a"},
    "other": {"units": ["other.service"], "name": "com.example.other", "key": "apsio_app_other_k3y_4b8d0a61"},
}
#: A unit no app ever serves: none of its lines may leave.
NOISE = "noise.service"
UNITS = ["demo.service", "alt.service", "other.service", NOISE]
PRIORITIES = [2, 3, 4, 5, 6, 7]


def app_file(app, fields):
    """The text of `apps.d/APP.conf` for `fields` (None values left out)."""
    lines = ["[App]"]
    for key in ["Unit", "Name", "Version", "Backend", "AppKey", "Consent", "StartAt", "MinPriority", "Families"]:
        if fields.get(key) is not None:
            lines.append("%s=%s" % (key, fields[key]))
    for pattern in fields.get("Redact") or []:
        lines.append("Redact=" + pattern)
    if fields.get("broken"):
        lines.append("Bogus=yes")
    return "\n".join(lines) + "\n"


def initial_fields(app, rng):
    return {
        "Unit": APPS[app]["units"][0],
        "Name": APPS[app]["name"],
        "Version": "1.0.%d" % rng.randrange(10),
        "AppKey": APPS[app]["key"],
        "Consent": "granted",
        "StartAt": rng.choice(["head", "boot", "now"]),
        "MinPriority": None,
        "Families": None,
        "Redact": None,
    }


class Generator:
    """Draws a history of `count` operations from `seed`."""

    def __init__(self, seed, count, without=()):
        self.without = set(without)
        self.rng = random.Random(seed)
        self.seed = seed
        self.count = count
        self.running = True
        self.files = {}
        self.present = {}
        self.broken = {}
        self.held = False

    def history(self):
        rng = self.rng
        setup = {
            "apps": {app: initial_fields(app, rng) for app in APPS},
            "before": [{"unit": u, "count": rng.randrange(0, 40), "old_boot": rng.randrange(0, 5)} for u in UNITS],
            "allow_live": [app for app in APPS if rng.random() < 0.8],
            "unit_active": [u for u in UNITS[:3] if rng.random() < 0.85],
        }
        self.files = {app: dict(fields) for app, fields in setup["apps"].items()}
        self.present = {app: True for app in APPS}
        self.broken = {app: False for app in APPS}
        ops, running = [], []
        for _ in range(self.count):
            running.append(self.running)
            ops.append(self.operation())
        if self.count >= 30:
            ops = self.with_each_kind(ops, running)
        return {"seed": self.seed, "setup": setup, "ops": ops}

    #: What every history of 30 operations or more has at least once: a kill (and the start after
    #: it), a reload, a rotation and a backend fault, each where apsiod runs.
    EACH = ("kill", "reload", "rotate", "fault")

    def with_each_kind(self, ops, running):
        """Inserts, at a random moment where apsiod runs, each kind of `EACH` the draw left out
        (the drawn operations stay as drawn, so a seed's history only grows)."""
        rng = self.rng
        for kind in self.EACH:
            drawn = {"fault": ("logs_fault", "live_fault")}.get(kind, (kind,))
            if any(op["op"] in drawn for op in ops) or set(drawn) <= self.without:
                continue
            at = rng.choice([i for i, r in enumerate(running) if r] or [len(ops)])
            if kind == "kill":
                added = [{"op": "kill", "pause_ms": rng.choice([0, 100, 800])}, {"op": "start"}]
            elif kind == "fault":
                added = [getattr(self, "make_" + rng.choice([d for d in drawn if d not in self.without]))()]
            else:
                added = [getattr(self, "make_" + kind)()]
            for op in added:
                op.setdefault("pause_ms", rng.choice([0, 20, 100, 300, 800, 1500]))
            ops[at:at] = added
            running[at:at] = [True] * len(added)
        return ops

    def operation(self):
        rng = self.rng
        if not self.running:
            # Stopped: mostly start again, sometimes the journal and the files change meanwhile.
            if rng.random() < 0.7:
                self.running = True
                return {"op": "start"}
        kinds = [
            ("write", 30), ("rotate", 4), ("vacuum", 1), ("corrupt", 0.7), ("edit", 8), ("remove", 0.7),
            ("break", 1.5), ("reload", 7), ("term", 2.5), ("kill", 2.5), ("unit", 6), ("logs_fault", 5),
            ("live_fault", 4), ("policy", 3), ("ctl", 10), ("hold", 2), ("viewers", 1.5), ("command", 2),
            ("status", 2), ("pause", 4),
        ]
        kinds = [(k, w) for k, w in kinds if k not in self.without]
        kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        op = getattr(self, "make_" + kind)()
        op.setdefault("pause_ms", rng.choice([0, 20, 100, 300, 800, 1500, 3000]))
        return op

    def make_write(self):
        rng = self.rng
        unit = rng.choices(UNITS, [5, 2, 3, 1])[0]
        return {"op": "write", "unit": unit, "count": rng.choice([1, 1, 3, 10, 40, 200, 600]),
                "prio": rng.choice(PRIORITIES + ["mix", "mix"]),
                "kind": rng.choices(["plain", "long", "binary", "secret"], [6, 1, 1, 2])[0]}

    def make_rotate(self):
        return {"op": "rotate"}

    def make_vacuum(self):
        return {"op": "vacuum", "keep": self.rng.choice([1, 2, 3])}

    def make_corrupt(self):
        return {"op": "corrupt"}

    def make_edit(self):
        rng = self.rng
        app = rng.choice([a for a in APPS if self.present[a]] or list(APPS))
        if not self.present[app]:
            self.present[app] = True
            return {"op": "add", "app": app}
        key = rng.choice(["Unit", "StartAt", "Redact", "Families", "Consent", "MinPriority", "Version"])
        values = {
            "Unit": APPS[app]["units"],
            "StartAt": ["now", "head", "boot"],
            "Redact": [None, ["card=[0-9]{4}"], ["card=[0-9]{4}", "ticket=[a-z]+"]],
            "Families": [None, "logs errors metrics replay", "errors", "logs errors", "logs metrics"],
            "Consent": ["granted", "granted", "granted", "granted", "denied", None],
            "MinPriority": [None, "debug", "info", "warning"],
            "Version": ["1.0.1", "2.0.0", None],
        }[key]
        value = rng.choice(values)
        self.files[app][key] = value
        return {"op": "edit", "app": app, "key": key, "value": value}

    def make_remove(self):
        app = self.rng.choice(list(APPS))
        if not self.present[app]:
            self.present[app] = True
            return {"op": "add", "app": app}
        self.present[app] = False
        return {"op": "remove", "app": app}

    def make_break(self):
        app = self.rng.choice(list(APPS))
        self.broken[app] = not self.broken[app]
        return {"op": "break" if self.broken[app] else "fix", "app": app}

    def make_reload(self):
        return {"op": "reload", "how": self.rng.choice(["ctl", "ctl", "hup"])}

    def make_term(self):
        self.running = False
        return {"op": "term"}

    def make_kill(self):
        self.running = False
        return {"op": "kill"}

    def make_unit(self):
        rng = self.rng
        return {"op": "unit", "unit": rng.choice(UNITS[:3]),
                "state": rng.choices(["active", "reloading", "inactive", "frozen", "thawed", "restarted"],
                                     [5, 1, 1, 1, 1, 2])[0]}

    def make_logs_fault(self):
        rng = self.rng
        kind = rng.choices(["status", "slow", "reset"], [5, 2, 2])[0]
        if kind == "status":
            status = rng.choice([503, 503, 429, 500, 502])
            return {"op": "logs_fault", "kind": "status", "status": status,
                    "retry_after": rng.choice([None, 1, 2]), "count": rng.choice([1, 2, 3])}
        if kind == "slow":
            return {"op": "logs_fault", "kind": "slow", "seconds": rng.choice([0.5, 2, 4]), "count": 1}
        return {"op": "logs_fault", "kind": "reset", "count": rng.choice([1, 2])}

    def make_live_fault(self):
        rng = self.rng
        route = rng.choice(["hello", "next", "frames", "results"])
        status = rng.choice([401, 503, 429] if route != "hello" else [503, 429, 502])
        return {"op": "live_fault", "route": route, "status": status, "retry_after": rng.choice([None, 1, 2, 20]),
                "count": rng.choice([1, 2])}

    def make_policy(self):
        rng = self.rng
        key = rng.choice(["kill_switch", "listed", "capture_logs", "capture_errors", "min_severity"])
        value = {
            "kill_switch": [False, False, True],
            "listed": [True, True, False],
            "capture_logs": ["always", "always", "never"],
            "capture_errors": ["always", "always", "never"],
            "min_severity": [None, 9, 13, 5],
        }[key]
        return {"op": "policy", "key": key, "value": rng.choice(value), "reload": rng.random() < 0.7}

    def make_ctl(self):
        rng = self.rng
        app = rng.choice(list(APPS))
        args = rng.choices([
            ["allow-live", "on", app], ["allow-live", "off", app], ["consent", "grant", app],
            ["consent", "deny", app], ["data-saver", "on"], ["data-saver", "off"],
        ], [3, 1.5, 2, 1, 1, 2])[0]
        return {"op": "ctl", "args": args, "user": rng.choices([None, "nobody"], [4, 1])[0]}

    def make_hold(self):
        if self.held:
            self.held = False
            return {"op": "release"}
        self.held = True
        return {"op": "hold", "watches": self.rng.choice([10, 70, 100]), "garbage": self.rng.choice([0, 10, 30])}

    def make_viewers(self):
        return {"op": "viewers", "n": self.rng.choice([0, 1, 1, 2])}

    def make_command(self):
        return {"op": "command", "name": self.rng.choice(["screenshot", "diagnostics", "raise_log_level"])}

    def make_status(self):
        return {"op": "status"}

    def make_pause(self):
        return {"op": "pause", "pause_ms": self.rng.choice([1500, 4000, 8000])}
