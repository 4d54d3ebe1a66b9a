"""The machine a history runs on, as TESTING.md makes it: real journal files written by
systemd-journal-remote, a private system bus with python-dbusmock's systemd, the built apsiod and
apsioctl, and a local user who is not the operator. Every process started here is stopped by its
pid when the world closes."""

import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time

JOURNAL_REMOTE = "/lib/systemd/systemd-journal-remote"
BUS = "org.freedesktop.systemd1"
MANAGER = "/org/freedesktop/systemd1"
UNIT_IFACE = "org.freedesktop.systemd1.Unit"
SERVICE_IFACE = "org.freedesktop.systemd1.Service"
#: An earlier boot, for entries StartAt=boot must leave out.
OLD_BOOT = "00000000000000000000000000000b07"


class WorldError(Exception):
    pass


def current_boot():
    with open("/proc/sys/kernel/random/boot_id") as f:
        return f.read().strip().replace("-", "")


def unit_path(unit):
    return MANAGER + "/unit/" + unit.replace(".", "_").replace("-", "_")


class World:
    def __init__(self, binaries, keep=False):
        self.binaries = binaries
        self.keep = keep
        self.root = tempfile.mkdtemp(prefix="apsio-check-")
        os.chmod(self.root, 0o755)
        for d in ("etc/apps.d", "state", "run", "journal", "bus", "keys"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        os.chmod(os.path.join(self.root, "run"), 0o755)
        self.children = {}
        self.daemon = None
        self.runs = 0
        self.boot = current_boot()
        self.realtime = 1_700_000_000_000_000
        self.monotonic = 1_000_000
        self.invocations = {}
        self.held = []           # sockets held open by the other user, through `holder`
        self.holder = None

    # -- paths -----------------------------------------------------------------------------------

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    @property
    def bus_address(self):
        return "unix:path=" + self.path("bus", "bus.sock")

    @property
    def directories(self):
        return ["--config-dir", self.path("etc"), "--state-dir", self.path("state"),
                "--runtime-dir", self.path("run")]

    # -- the bus -----------------------------------------------------------------------------------

    def start_bus(self, units):
        conf = self.path("bus", "bus.conf")
        with open(conf, "w") as f:
            f.write("""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=%s</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/></policy></busconfig>
""" % self.path("bus", "bus.sock"))
        bus = self.spawn("bus", ["/usr/bin/dbus-daemon", "--config-file=" + conf, "--nofork", "--print-address=1"],
                         stdout=subprocess.PIPE)
        if not bus.stdout.readline():
            raise WorldError("dbus-daemon did not start")
        self.spawn("systemd", ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "systemd"],
                   env={"DBUS_SYSTEM_BUS_ADDRESS": self.bus_address})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            out = self.busctl(["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", "s", BUS], check=False)
            if out.startswith("b true"):
                break
            time.sleep(0.05)
        else:
            raise WorldError("the mocked systemd did not appear on the bus")
        for unit in units:
            self.add_unit(unit)

    def busctl(self, args, check=True):
        run = subprocess.run(["/usr/bin/busctl", "--address=" + self.bus_address] + args,
                             capture_output=True, text=True, timeout=60)
        if check and run.returncode != 0:
            raise WorldError("busctl %s: %s" % (" ".join(args), run.stdout + run.stderr))
        return run.stdout

    def mock(self, path, member, *args):
        return self.busctl(["call", BUS, path, "org.freedesktop.DBus.Mock", member] + list(args))

    @staticmethod
    def ay(hexstring):
        values = [str(int(hexstring[i:i + 2], 16)) for i in range(0, len(hexstring), 2)]
        return ["ay", str(len(values))] + values

    def add_unit(self, unit):
        self.mock(MANAGER, "AddMockUnit", "s", unit)
        path = unit_path(unit)
        self.mock(path, "AddProperty", "ssv", UNIT_IFACE, "SubState", "s", "dead")
        self.mock(path, "AddProperty", "ssv", UNIT_IFACE, "FreezerState", "s", "running")
        self.invocations[unit] = 1
        self.mock(path, "AddProperty", "ssv", UNIT_IFACE, "InvocationID", *self.ay(self.invocation(unit)))
        self.mock(path, "AddProperty", "ssv", SERVICE_IFACE, "MainPID", "u", "0")
        self.mock(path, "AddProperty", "ssv", SERVICE_IFACE, "ControlGroup", "s", "")

    def invocation(self, unit):
        return "%032x" % (0x1000 * self.invocations.get(unit, 1) + sum(map(ord, unit)))

    def set_unit(self, unit, state):
        """A unit state as systemd would change it: `active`, `reloading`, `inactive`, `frozen`,
        `thawed`, or `restarted` (a new invocation, active)."""
        props = {
            "active": [("ActiveState", "s", "active"), ("SubState", "s", "running")],
            "reloading": [("ActiveState", "s", "reloading"), ("SubState", "s", "reload")],
            "inactive": [("ActiveState", "s", "inactive"), ("SubState", "s", "dead")],
            "frozen": [("FreezerState", "s", "frozen")],
            "thawed": [("FreezerState", "s", "running")],
        }
        if state == "restarted":
            self.invocations[unit] = self.invocations.get(unit, 1) + 1
            entries = [["InvocationID"] + self.ay(self.invocation(unit)),
                       ["ActiveState", "s", "active"], ["SubState", "s", "running"]]
        else:
            entries = [list(p) for p in props[state]]
        args = ["call", BUS, unit_path(unit), "org.freedesktop.DBus.Mock", "UpdateProperties", "sa{sv}",
                UNIT_IFACE, str(len(entries))]
        for entry in entries:
            args += entry
        self.busctl(args)

    # -- the journal -----------------------------------------------------------------------------

    def entry(self, unit, message, priority=6, boot=None, binary=None):
        self.realtime += 1000
        self.monotonic += 1000
        fields = [
            ("__REALTIME_TIMESTAMP", str(self.realtime)),
            ("__MONOTONIC_TIMESTAMP", str(self.monotonic)),
            ("_BOOT_ID", boot or self.boot),
            ("_SYSTEMD_UNIT", unit),
            ("_SYSTEMD_INVOCATION_ID", self.invocation(unit)),
            ("_PID", "4242"), ("_UID", "998"), ("_COMM", unit.split(".")[0]),
            ("_HOSTNAME", "check-box"), ("_TRANSPORT", "journal"),
            ("SYSLOG_IDENTIFIER", unit.split(".")[0]),
            ("MESSAGE", message),
            ("PRIORITY", str(priority)),
        ]
        if binary is not None:
            fields.append(("BLOB", binary))
        return fields

    @staticmethod
    def export(entries):
        out = bytearray()
        for fields in entries:
            for name, value in fields:
                data = value if isinstance(value, bytes) else value.encode()
                if isinstance(value, bytes) or b"\n" in data:
                    out += name.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
                else:
                    out += name.encode() + b"=" + data + b"\n"
            out += b"\n"
        return bytes(out)

    def write_journal(self, entries, file="system.journal"):
        run = subprocess.run([JOURNAL_REMOTE, "--output=" + self.path("journal", file), "-"],
                             input=self.export(entries), capture_output=True, timeout=60)
        if run.returncode != 0:
            raise WorldError("systemd-journal-remote: %s" % run.stderr.decode(errors="replace"))

    def journal_files(self):
        return sorted(os.listdir(self.path("journal")))

    def rotate(self, number):
        """What journald does at SIGUSR2: the active file gets an archived name."""
        active = self.path("journal", "system.journal")
        if not os.path.exists(active):
            return None
        archived = "system@%032x-%016x-%016x.journal" % (number, 1, self.realtime)
        os.rename(active, self.path("journal", archived))
        return archived

    def vacuum(self, keep):
        """`journalctl --vacuum-files=N`, as an operator runs it. Returns the files it removed."""
        before = set(self.journal_files())
        subprocess.run(["/usr/bin/journalctl", "-D", self.path("journal"), "--vacuum-files=%d" % keep],
                       capture_output=True, timeout=60)
        return sorted(before - set(self.journal_files()))

    def corrupt_tail(self, name, nbytes=4096):
        """Overwrites the last `nbytes` of a file with garbage, as a torn write or a bad disk does."""
        path = self.path("journal", name)
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.seek(max(0, size - nbytes))
            f.write(os.urandom(min(size, nbytes)))

    # -- apsiod and apsioctl ---------------------------------------------------------------------

    def start_daemon(self):
        self.runs += 1
        command = [os.path.join(self.binaries, "apsiod")] + self.directories + [
            "--journal-dir", self.path("journal"), "--log-level", "debug"]
        log = open(self.path("apsiod-%d.log" % self.runs), "wb")
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus_address)
        self.daemon = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=env, cwd=self.root)
        log.close()

    def daemon_running(self):
        return self.daemon is not None and self.daemon.poll() is None

    def signal_daemon(self, signum):
        if self.daemon_running():
            os.kill(self.daemon.pid, signum)

    def wait_daemon_exit(self, timeout=60):
        if self.daemon is None:
            return None
        try:
            return self.daemon.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.daemon.pid, signal.SIGKILL)
            self.daemon.wait()
            raise WorldError("apsiod did not exit within %ds of SIGTERM" % timeout)

    def log_text(self, run=None):
        run = run or self.runs
        try:
            with open(self.path("apsiod-%d.log" % run), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def all_logs(self):
        return "\n".join(self.log_text(r) for r in range(1, self.runs + 1))

    def ctl(self, args, user=None, timeout=60):
        command = [os.path.join(self.binaries, "apsioctl")] + self.directories + args
        if user:
            command = ["/usr/bin/setpriv", "--reuid=" + user, "--regid=nogroup", "--clear-groups"] + command
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return 124, "", "apsioctl did not answer within %ds" % timeout
        return run.returncode, run.stdout, run.stderr

    # -- another user's connections on the control socket --------------------------------------

    def hold(self, watches, garbage, user="nobody"):
        """Opens `watches` watch connections and `garbage` half-line connections as `user`, and
        keeps them open until `release`: a child process made that user holds them."""
        import pwd
        entry = pwd.getpwnam(user)
        socket_path = self.path("run", "control.sock")
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the other user
            try:
                os.close(read_end)
                os.setgroups([])
                os.setgid(entry.pw_gid)
                os.setuid(entry.pw_uid)
                held = []
                for index in range(watches + garbage):
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    try:
                        s.connect(socket_path)
                        s.sendall(b'{"command":"watch"}\n' if index < watches else b'{"command":"sta')
                        held.append(s)
                    except OSError:
                        s.close()
                os.write(write_end, b"%d\n" % len(held))
                while True:  # held until killed; events are left unread
                    time.sleep(3600)
            finally:
                os._exit(0)
        os.close(write_end)
        opened = os.read(read_end, 64)
        os.close(read_end)
        self.release()
        self.holder = pid
        return int(opened.strip() or 0)

    def release(self):
        if self.holder:
            try:
                os.kill(self.holder, signal.SIGKILL)
                os.waitpid(self.holder, 0)
            except OSError:
                pass
            self.holder = None

    # -- processes -------------------------------------------------------------------------------

    def spawn(self, name, command, env=None, stdout=None):
        log = open(self.path("bus", name + ".log"), "wb")
        process = subprocess.Popen(command, stdout=stdout or log, stderr=log, stdin=subprocess.DEVNULL,
                                   env=dict(os.environ, **(env or {})))
        log.close()
        self.children[name] = process
        return process

    def close(self):
        self.release()
        if self.daemon_running():
            os.kill(self.daemon.pid, signal.SIGKILL)
            self.daemon.wait()
        for name in ["systemd", "bus"]:
            process = self.children.pop(name, None)
            if process and process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)
