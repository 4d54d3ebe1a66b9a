#!/usr/bin/python3
"""The viewer in a real headless Chromium: a person signs in, opens the scripted device, sees new
log lines arrive, presses Screenshot and sees the process frame it returns. Saves a PNG of the
page. Every process it starts is stopped by its pid when it ends, whatever happened.

Usage: viewer_test.py --devbackend PATH --artifacts DIR
"""
import argparse
import os
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

HERE = os.path.dirname(os.path.abspath(__file__))
APP = "com.example.demo"
APP_KEY = "apsio_app_browser_test"
INSTALL = "3b7e5a10-9c2d-4f8e-b1a6-0d4c7e9f2a51"
TESTER = "browser-box"
USER = "ann"
PASSWORD = "ann-browser-password"
# Generous: the machine is shared and loaded; a wait ends as soon as its condition holds.
PATIENCE = 90


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_line(process, needle, timeout):
    """Reads the process's stdout until a line containing `needle`, within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return line
    raise RuntimeError(f"no '{needle}' from the process; it said: {''.join(seen)!r}")


def stop(process):
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devbackend", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    args = parser.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    screenshot_path = os.path.abspath(os.path.join(args.artifacts, "viewer.png"))

    workdir = tempfile.mkdtemp(prefix="apsio-browser-")
    backend = device = driver = None
    try:
        accounts = os.path.join(workdir, "accounts.txt")
        subprocess.run([args.devbackend, "--accounts", accounts, "--add-user", f"{USER}:admin", "--iterations", "1000"],
                       input=PASSWORD + "\n", text=True, check=True, capture_output=True, timeout=PATIENCE)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        backend = subprocess.Popen(
            [args.devbackend, "--dev", "--listen", f"127.0.0.1:{port}", "--live-origin", base,
             "--app", f"{APP}:{APP_KEY}", "--tester", f"{TESTER}:{INSTALL}", "--interval", "15",
             "--accounts", accounts],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wait_for_line(backend, "listening on", PATIENCE)
        device = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "scripted_device.py"), "--backend", base, "--app-key", APP_KEY,
             "--install", INSTALL, "--tester", TESTER, "--hello-every", "1"])

        options = webdriver.ChromeOptions()
        options.binary_location = args.chromium
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1400,1100", "--no-first-run", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
        wait = WebDriverWait(driver, PATIENCE, poll_frequency=0.2)

        # Sign in.
        driver.get(base + "/")
        wait.until(EC.visibility_of_element_located((By.ID, "user"))).send_keys(USER)
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in-button").click()
        step("signed in")

        # The fleet lists the device by itself; open it.
        row = f'#devices-body tr[data-install="{INSTALL}"] a'
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, row))).click()
        wait.until(EC.visibility_of_element_located((By.ID, "view-device")))
        step("opened the device")

        # New log lines arrive: the log grows past what it showed a moment ago.
        lines = "#log li[data-severity]"
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, lines)) >= 2)
        first_count = len(driver.find_elements(By.CSS_SELECTOR, lines))
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, lines)) >= first_count + 3)
        newest = driver.find_elements(By.CSS_SELECTOR, lines)[-1].text
        assert newest.strip(), "a log line with text"
        step(f"log lines arrive ({len(driver.find_elements(By.CSS_SELECTOR, lines))} so far; newest: {newest!r})")

        # Metrics reach the chart, and the frame pane shows the unit's processes.
        wait.until(lambda d: d.find_element(By.ID, "m-memory").text.endswith("iB"))
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#memory-chart polyline").get_attribute("points"))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#frame table tbody tr"))

        # Screenshot: the command goes out and its frame comes back into the results.
        wait.until(EC.element_to_be_clickable((By.ID, "cmd-screenshot"))).click()
        done = '#results li[data-name="screenshot"][data-outcome="done"] table.frame-table tbody tr'
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, done)))
        frame_rows = driver.find_elements(By.CSS_SELECTOR, done)
        assert any("demo-service" in row.text for row in frame_rows), "the screenshot lists the unit's process"
        step("the screenshot's frame is shown")

        # The filter hides what does not match, and shows it again.
        driver.find_element(By.ID, "log-filter").send_keys("no line says this")
        wait.until(lambda d: not any(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, lines)))
        driver.find_element(By.ID, "log-filter").clear()
        driver.execute_script("document.getElementById('log-filter').dispatchEvent(new Event('input'))")
        wait.until(lambda d: any(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, lines)))

        driver.save_screenshot(screenshot_path)
        # Network entries are answers the page expects and handles (the 401 of /api/me before
        # signing in); anything else severe is a script error or a policy violation.
        problems = [entry for entry in driver.get_log("browser")
                    if entry.get("level") == "SEVERE" and entry.get("source") != "network"]
        assert not problems, f"the page logged errors (a Content-Security-Policy violation shows here): {problems}"
        print(f"browser test: passed; screenshot of the page: {screenshot_path}")
        return 0
    except (TimeoutException, AssertionError, RuntimeError) as error:
        if driver is not None:
            try:
                driver.save_screenshot(screenshot_path)
                print(f"browser test: page at failure: {screenshot_path}", file=sys.stderr)
                print(f"browser console: {driver.get_log('browser')}", file=sys.stderr)
            except Exception:  # the browser itself may be gone
                pass
        print(f"browser test: FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        if driver is not None:
            driver.quit()
        stop(device)
        stop(backend)
        shutil.rmtree(workdir, ignore_errors=True)


def step(text):
    print(f"browser test: {text}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
