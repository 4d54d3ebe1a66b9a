#!/usr/bin/python3
"""The viewer in a real headless Chromium against the demo (scripts/demo.sh) with the real apsiod:
a person signs in, opens the demo device, sees the demo service's new log lines arrive, presses
Screenshot and sees the frame with the service's process; the machine says it is being watched.
Saves a PNG of the page. The demo is stopped by its pid when the test ends, whatever happened, and
stops everything it started by theirs.

With --front nginx the demo runs the production path instead (docs/nginx.md): the page, its API and
apsiod's traffic go through nginx over TLS to apsio-backend instances. The browser accepts the
demo's certificate for its one key, as apsiod trusts it alone; nothing else is exempt from checks.

Usage: viewer_test.py --demo scripts/demo.sh --bin BUILD_BIN_DIR --artifacts DIR [--front nginx [--instances N]]
"""
import argparse
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

# Generous: the machine is shared and loaded; a wait ends as soon as its condition holds.
PATIENCE = 90
# The demo builds nothing here, but starts five processes and waits for apsiod's first serving.
DEMO_STARTUP = 180
# What the demo service writes (scripts/demo.sh): the page shows the service's own lines.
DEMO_LINE = re.compile(r"^(GET|POST) /|^order \d+ shipped|^slow query on orders|^upstream inventory timed out")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_line(process, needle, timeout, seen):
    """Reads the process's stdout until it has said `needle`, within `timeout` seconds; what it
    said is appended to `seen`. Reads the pipe itself: a buffered reader would keep lines that
    came in one write where select() cannot see them."""
    deadline = time.monotonic() + timeout
    fd = process.stdout.fileno()
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        seen.append(chunk.decode("utf-8", errors="replace"))
        if needle in "".join(seen):
            return
    raise RuntimeError(f"no '{needle}' from the demo within {timeout} s; it said:\n{''.join(seen)}")


def read_info(path):
    with open(path, encoding="utf-8") as info:
        return dict(line.rstrip("\n").split("=", 1) for line in info if "=" in line)


def stop_demo(demo):
    """SIGTERM: the demo stops what it started, by pid, then exits. Only if it cannot, its own
    process group (made for it at its start) is killed."""
    if demo is None or demo.poll() is not None:
        return
    demo.send_signal(signal.SIGTERM)
    try:
        demo.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(demo.pid, signal.SIGKILL)
        demo.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True, help="scripts/demo.sh")
    parser.add_argument("--bin", required=True, help="where apsiod, apsioctl and apsio-devbackend are built")
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    parser.add_argument("--front", choices=["nginx"], help="the demo's nginx in front of its backend instances")
    parser.add_argument("--instances", type=int, default=3, help="backend instances behind --front")
    args = parser.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    screenshot_path = os.path.abspath(os.path.join(args.artifacts, "viewer.png"))

    workdir = tempfile.mkdtemp(prefix="apsio-browser-")
    demo = driver = None
    demo_said = []
    info = {}
    try:
        info_path = os.path.join(workdir, "demo.info")
        front = ["--front", args.front, "--instances", str(args.instances)] if args.front else []
        demo = subprocess.Popen(
            [args.demo, "--port", str(free_port()), "--bin", args.bin, "--info", info_path] + front,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        # The demo writes its info file before it prints the banner's last line.
        wait_for_line(demo, "Press Ctrl-C", DEMO_STARTUP, demo_said)
        info = read_info(info_path)
        base, install, service_pid = info["base"], info["install"], info["service_pid"]
        step(f"the demo runs: {base}, apsiod's install {install}, the demo service's pid {service_pid}")

        options = webdriver.ChromeOptions()
        options.binary_location = args.chromium
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1400,1100", "--no-first-run", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"]:
            options.add_argument(flag)
        if info.get("spki"):
            options.add_argument("--ignore-certificate-errors-spki-list=" + info["spki"])
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
        wait = WebDriverWait(driver, PATIENCE, poll_frequency=0.2)

        # Sign in with the account the demo printed.
        driver.get(base + "/")
        wait.until(EC.visibility_of_element_located((By.ID, "user"))).send_keys(info["user"])
        driver.find_element(By.ID, "password").send_keys(info["password"])
        driver.find_element(By.ID, "sign-in-button").click()
        step("signed in")
        if args.front:
            # The page came through nginx over TLS and HTTP/2, where every tab's held stream poll
            # shares one connection (docs/nginx.md).
            protocol = driver.execute_script("return performance.getEntriesByType('navigation')[0].nextHopProtocol")
            assert base.startswith("https://") and protocol == "h2", f"the page over {protocol} from {base}"
            step(f"the page came through nginx: {base} over {protocol}")

        # The fleet lists apsiod's install once it said hello; open it.
        row = f'#devices-body tr[data-install="{install}"] a'
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, row))).click()
        wait.until(EC.visibility_of_element_located((By.ID, "view-device")))
        step("opened the device")

        # The session starts at apsiod's next hello (at most interval_s later); then the demo
        # service's new lines arrive: the log grows past what it showed a moment ago.
        lines = "#log li[data-severity]"
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, lines)) >= 2)
        first_count = len(driver.find_elements(By.CSS_SELECTOR, lines))
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, lines)) >= first_count + 3)
        bodies = [e.text for e in driver.find_elements(By.CSS_SELECTOR, lines + " .body")]
        assert any(DEMO_LINE.search(body.strip()) for body in bodies), f"the demo service's lines in the log: {bodies[-5:]}"
        step(f"log lines arrive ({len(bodies)} so far; newest: {bodies[-1]!r})")

        # The machine says it is being watched (16.2): apsioctl status names the viewer.
        status = subprocess.run(
            [os.path.join(args.bin, "apsioctl"), "--runtime-dir", os.path.join(info["work"], "runtime"), "status"],
            capture_output=True, text=True, timeout=PATIENCE)
        assert "Your team is viewing demo live" in status.stdout, f"apsioctl status while watched: {status.stdout}{status.stderr}"
        step("apsioctl status on the box: " + status.stdout.splitlines()[1].strip())

        # Metrics reach the chart, and the frame pane shows the unit's processes.
        wait.until(lambda d: d.find_element(By.ID, "m-memory").text.endswith("iB"))
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#memory-chart polyline").get_attribute("points"))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#frame table tbody tr"))

        # Screenshot: the command goes out and its frame comes back into the results, with the
        # demo service's real process in it.
        wait.until(EC.element_to_be_clickable((By.ID, "cmd-screenshot"))).click()
        done = '#results li[data-name="screenshot"][data-outcome="done"] table.frame-table tbody tr'
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, done)))
        cells = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                 for row in driver.find_elements(By.CSS_SELECTOR, done)]
        assert any(len(row) > 2 and row[0] == service_pid and "demo-service" in row[2] for row in cells), \
            f"the screenshot lists the demo service's process {service_pid}: {cells}"
        step(f"the screenshot's frame shows the demo service's process {service_pid}")

        if args.front:
            # nginx's access log: the viewer's and apsiod's requests went to the instances, more
            # than one when there are several (nothing sticks), and the logs to the collector.
            with open(info["access_log"], encoding="utf-8") as log:
                forwarded = [line.split() for line in log if line.count(" ") == 3]
            instances = set(info["instances"].split())
            upstreams = {fields[3].removeprefix("upstream=") for fields in forwarded if fields[1] != "/v1/logs"}
            assert upstreams <= instances, f"requests went elsewhere than the instances {instances}: {upstreams}"
            assert len(instances) == 1 or len(upstreams) > 1, f"one instance served everything: {upstreams}"
            logs = {fields[3].removeprefix("upstream=") for fields in forwarded if fields[1] == "/v1/logs"}
            assert logs <= {info["collector"]}, f"/v1/logs went to {logs}, not the collector {info['collector']}"
            step(f"through nginx: {len(forwarded)} requests over {len(upstreams)} of {len(instances)} instances")

        # The filter hides what does not match, and shows it again.
        driver.find_element(By.ID, "log-filter").send_keys("no line says this")
        wait.until(lambda d: not any(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, lines)))
        driver.find_element(By.ID, "log-filter").clear()
        driver.execute_script("document.getElementById('log-filter').dispatchEvent(new Event('input'))")
        wait.until(lambda d: any(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, lines)))

        # A page worth looking at: a screenful of the service's lines.
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, lines)) >= 20)
        driver.save_screenshot(screenshot_path)
        # Network entries are answers the page expects and handles (the 401 of /api/me before
        # signing in); anything else severe is a script error or a policy violation.
        problems = [entry for entry in driver.get_log("browser")
                    if entry.get("level") == "SEVERE" and entry.get("source") != "network"]
        assert not problems, f"the page logged errors (a Content-Security-Policy violation shows here): {problems}"
        print(f"browser test: passed; screenshot of the page: {screenshot_path}")
        return 0
    except (TimeoutException, AssertionError, RuntimeError, KeyError, OSError) as error:
        if driver is not None:
            try:
                driver.save_screenshot(screenshot_path)
                print(f"browser test: page at failure: {screenshot_path}", file=sys.stderr)
                print(f"browser console: {driver.get_log('browser')}", file=sys.stderr)
            except Exception:  # the browser itself may be gone
                pass
        # The demo removes its directory when it stops: keep its processes' logs first.
        names = ["apsiod.log", "backend.log", "journal-remote.log", "dbusmock.log", "bus.log", "collector.log",
                 "nginx.log", "nginx/error.log", "nginx/access.log", "redis.log"]
        names += [f"instance-{i}.log" for i in range(1, args.instances + 1)]
        for name in names:
            if info.get("work") and os.path.exists(os.path.join(info["work"], name)):
                shutil.copy(os.path.join(info["work"], name), os.path.join(args.artifacts, name.replace("/", "-")))
        print(f"browser test: FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        print(f"browser test: the demo said:\n{''.join(demo_said)}the processes' logs: {args.artifacts}", file=sys.stderr)
        return 1
    finally:
        if driver is not None:
            driver.quit()
        stop_demo(demo)
        shutil.rmtree(workdir, ignore_errors=True)


def step(text):
    print(f"browser test: {text}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
