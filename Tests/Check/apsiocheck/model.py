"""What the operations of a history did to the things the promises depend on, one snapshot after
each operation: the app files on disk and the ones apsiod serves, where each app's reading began
(its coverage), consent, allow-live, Data Saver, the policy served and the one apsiod fetched, and
each unit's state. The daemon is not consulted: this is what an operator who ran those commands
would expect it to hold."""

import copy

from .ops import APPS

SEVERITY = {0: 24, 1: 23, 2: 21, 3: 17, 4: 13, 5: 10, 6: 9, 7: 5}
LEVELS = {"emerg": 0, "alert": 1, "crit": 2, "err": 3, "warning": 4, "notice": 5, "info": 6, "debug": 7}
#: Operations after which apsiod reads its configuration and fetches every policy.
LOADS = {"start", "reload", "heal"}


def family(priority):
    return "errors" if priority <= 3 else "logs"


class AppState:
    def __init__(self, fields):
        self.file = dict(fields)
        self.present = True
        self.broken = False
        self.loaded = None          # the fields apsiod serves, None while it serves none
        self.last_loaded = None     # the last ones it served
        self.loaded_history = []    # every configuration served
        self.position_unit = None   # which unit the saved position belongs to
        self.coverage = None        # {"id", "unit", "startat", "op"}
        self.override = None        # "granted" / "denied" / None
        self.allow = False

    def consent(self):
        if self.override:
            return self.override == "granted"
        source = self.last_loaded or self.file
        return source.get("Consent") == "granted"


class Snapshot:
    def __init__(self, setup):
        self.apps = {app: AppState(fields) for app, fields in setup["apps"].items()}
        self.running = False
        self.data_saver = False
        self.policy = {"kill_switch": False, "listed": True, "capture": {}}
        self.fetched = copy.deepcopy(self.policy)
        self.units = {u: {"active": u in setup["unit_active"], "frozen": False} for u in
                      ["demo.service", "alt.service", "other.service"]}

    def foreground(self, unit):
        state = self.units.get(unit)
        return bool(state and state["active"] and not state["frozen"])


class Model:
    """Snapshots of a trace: `snapshots[k + 2]` is the state after operation k; index 0 is before
    apsiod first started (setup entries), index 1 after its first start."""

    def __init__(self, trace):
        self.trace = trace
        setup = trace.history["setup"]
        state = Snapshot(setup)
        self.coverage_ids = 0
        self.snapshots = [copy.deepcopy(state)]
        state.running = True
        self.load(state, -1)
        for app in setup["allow_live"]:
            state.apps[app].allow = True
        self.snapshots.append(copy.deepcopy(state))
        for record in trace.ops:
            self.apply(state, record)
            self.snapshots.append(copy.deepcopy(state))

    def at(self, op_index):
        """The snapshot after operation `op_index` (-2: before apsiod, -1: after the setup)."""
        return self.snapshots[min(op_index + 2, len(self.snapshots) - 1)]

    @property
    def final(self):
        return self.snapshots[-1]

    # -- transitions -------------------------------------------------------------------------------

    def load(self, state, index):
        state.fetched = copy.deepcopy(state.policy)
        for app, a in state.apps.items():
            if not a.present:
                # Its file is gone: its state goes with it; added again it is a new install.
                a.loaded = None
                a.position_unit = None
                a.coverage = None
                a.override = None
                a.allow = False
                continue
            if a.broken:
                a.loaded = None
                continue
            cfg = dict(a.file)
            if a.position_unit is None or a.position_unit != cfg["Unit"]:
                self.coverage_ids += 1
                a.coverage = {"id": self.coverage_ids, "unit": cfg["Unit"], "startat": cfg.get("StartAt") or "now",
                              "op": index}
                a.position_unit = cfg["Unit"]
            a.loaded = cfg
            a.last_loaded = cfg
            a.loaded_history.append(cfg)

    def apply(self, state, record):
        op = record["op"]
        kind = op["op"]
        result = record.get("result") or {}
        index = record["i"]
        if kind == "edit":
            state.apps[op["app"]].file[op["key"]] = op["value"]
        elif kind == "add":
            state.apps[op["app"]].present = True
        elif kind == "remove":
            state.apps[op["app"]].present = False
        elif kind == "break":
            state.apps[op["app"]].broken = True
        elif kind == "fix":
            state.apps[op["app"]].broken = False
        elif kind in ("term", "kill"):
            if "skipped" not in result:
                state.running = False
        elif kind == "start":
            if "skipped" not in result:
                state.running = True
                self.load(state, index)
        elif kind == "reload":
            if "skipped" not in result and (result.get("rc") == 0 or result.get("hup_applied")):
                self.load(state, index)
        elif kind == "heal":
            state.running = True
            state.policy["listed"] = True
            if result.get("data_saver_off") == 0:
                state.data_saver = False
            self.load(state, index)
        elif kind == "unit":
            u = state.units[op["unit"]]
            s = op["state"]
            if s in ("active", "restarted"):
                u["active"] = True
            elif s in ("reloading", "inactive"):
                u["active"] = False
            elif s == "frozen":
                u["frozen"] = True
            elif s == "thawed":
                u["frozen"] = False
        elif kind == "policy":
            key, value = op["key"], op["value"]
            if key == "kill_switch":
                state.policy["kill_switch"] = value
            elif key == "listed":
                state.policy["listed"] = value
            elif key == "capture_logs":
                state.policy["capture"]["logs"] = value
            elif key == "capture_errors":
                state.policy["capture"]["errors"] = value
            elif key == "min_severity":
                if value is None:
                    state.policy["capture"].pop("logs_min_severity", None)
                else:
                    state.policy["capture"]["logs_min_severity"] = value
            if op.get("reload") and result.get("rc") == 0:
                self.load(state, index)
        elif kind == "ctl":
            if op.get("user") is None and result.get("rc") == 0:
                args = op["args"]
                if args[0] == "allow-live":
                    state.apps[args[2]].allow = args[1] == "on"
                elif args[0] == "consent":
                    state.apps[args[2]].override = "granted" if args[1] == "grant" else "denied"
                elif args[0] == "data-saver":
                    state.data_saver = args[1] == "on"

    # -- questions -----------------------------------------------------------------------------

    def last_load_at_or_before(self, op_index):
        """The index of the last operation at or before `op_index` after which apsiod fetched its
        policies (-1: its first start)."""
        best = -1
        for record in self.trace.ops:
            if record["i"] > op_index:
                break
            kind = record["op"]["op"]
            result = record.get("result") or {}
            if kind in LOADS and "skipped" not in result or (kind == "policy" and record["op"].get("reload")):
                best = record["i"]
        return best

    def passes(self, entry, cfg, policy):
        """Whether an entry gets past an app file's floors and families and a policy's capture."""
        prio = entry["prio"]
        fam = family(prio)
        families = (cfg.get("Families") or "logs errors metrics replay").split()
        if fam not in families:
            return False
        floor = cfg.get("MinPriority")
        if floor and prio > LEVELS[floor]:
            return False
        capture = policy["capture"]
        if capture.get(fam) == "never":
            return False
        if fam == "logs" and SEVERITY[prio] < capture.get("logs_min_severity", 9):
            return False
        return True

    def required_tags(self):
        """Every entry that must be accepted by the backend at least once: of the unit an app
        serves at the end, from where its reading began, in no file vacuumed or corrupted, and
        from its writing to the end never held back by consent, the kill switch, the app file or
        the policy."""
        required = set()
        end = self.final
        for tag, entry in self.trace.entries.items():
            if tag in self.trace.lost:
                continue
            for app, a in end.apps.items():
                if self.required_for(tag, entry, app):
                    required.add(tag)
        return required

    def required_for(self, tag, entry, app):
        end = self.final
        a = end.apps[app]
        c = a.coverage
        if a.loaded is None or c is None or entry["unit"] != c["unit"]:
            return False
        if c["startat"] == "now" and entry["op"] <= c["op"]:
            return False
        if c["startat"] == "boot" and not entry["boot"]:
            return False
        first = entry["op"] + 2
        snapshots = self.snapshots[max(first, 0):]
        fetch_from = self.last_load_at_or_before(entry["op"]) + 2
        policies = [s.fetched for s in self.snapshots[max(fetch_from, 0):]] + [s.policy for s in snapshots]
        for s in snapshots:
            sa = s.apps[app]
            if not sa.consent():
                return False
        for policy in policies:
            if policy["kill_switch"]:
                return False
        configs = [s.apps[app].last_loaded for s in snapshots if s.apps[app].last_loaded]
        for cfg in configs:
            for policy in policies:
                if not self.passes(entry, cfg, policy):
                    return False
        return True

    def live_expected_at_heal(self):
        """The apps that must be in a live session after the heal: both keys turned, consent
        granted, the unit in the foreground, no kill switch and no Data Saver."""
        end = self.final
        apps = []
        for app, a in end.apps.items():
            if a.loaded is None or not a.allow or not a.consent():
                continue
            if end.policy["kill_switch"] or end.data_saver:
                continue
            if not end.foreground(a.loaded["Unit"]):
                continue
            apps.append(app)
        return apps
