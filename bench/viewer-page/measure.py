#!/usr/bin/python3
"""Drives the live view page with BOXES scripted devices at RATE lines a second each (see run.sh)
and prints, every --sample-every seconds and at the end: the lines the page took, its long tasks
(count, longest, p99), its JS heap (used, after a forced collection at the end) and its DOM nodes.
Reuses the browser test's helpers (Tests/Browser/viewer_test.py) to start the backend, the
scripted devices and Chromium."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "Tests", "Browser"))
import viewer_test as vt  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

OBSERVE = """
window.benchTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.benchTasks.push(e.duration); })
  .observe({ type: 'longtask' });
// Where a long frame's time went (Chromium's long animation frames): scripts, the layout they
// forced, and the frame's own style, layout and paint.
window.benchFrames = { count: 0, total: 0, scripts: 0, forced: 0, styleLayout: 0, paint: 0 };
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const f = window.benchFrames;
      f.count += 1;
      f.total += e.duration;
      for (const s of e.scripts) { f.scripts += s.duration; f.forced += s.forcedStyleAndLayoutDuration; }
      const end = e.startTime + e.duration;
      if (e.styleAndLayoutStart) { f.styleLayout += end - e.styleAndLayoutStart; f.paint += 0; }
      if (e.renderStart && e.styleAndLayoutStart) f.paint += e.styleAndLayoutStart - e.renderStart;
    }
  }).observe({ type: 'long-animation-frame' });
} catch { /* an older browser: the long tasks alone */ }
"""
# The lines shown per panel and the rate each panel reads: what the page says it took.
READ = """
const rates = [...document.querySelectorAll('.watch-panel .rate')].map((e) => parseFloat(e.textContent));
const tasks = window.benchTasks.splice(0);
const frames = { ...window.benchFrames };
for (const key of Object.keys(window.benchFrames)) window.benchFrames[key] = 0;
return { tasks, rates, frames, count: document.getElementById('watch-count').textContent,
         heap: performance.memory ? performance.memory.usedJSHeapSize : null };
"""


def metrics(driver):
    got = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return {m["name"]: m["value"] for m in got}


def profile(driver, seconds):
    """The page's main thread for `seconds`, sampled by DevTools: the functions with the most
    self time (the renderer's own work shows as '(program)' and '(garbage collector)')."""
    driver.execute_cdp_cmd("Profiler.enable", {})
    driver.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 1000})
    driver.execute_cdp_cmd("Profiler.start", {})
    time.sleep(seconds)
    got = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
    nodes = {node["id"]: node for node in got["nodes"]}
    deltas = got.get("timeDeltas", [])
    self_ms = {}
    for sample, delta in zip(got.get("samples", []), deltas[1:] + [0]):
        frame = nodes[sample]["callFrame"]
        name = f"{frame['functionName'] or '(anonymous)'} {os.path.basename(frame['url'])}:{frame['lineNumber'] + 1}"
        self_ms[name] = self_ms.get(name, 0) + delta / 1000
    total = sum(self_ms.values())
    print(f"viewer-page: profile of {seconds} s: {total:.0f} ms sampled", flush=True)
    for name, ms in sorted(self_ms.items(), key=lambda item: -item[1])[:15]:
        print(f"viewer-page:   {ms:8.0f} ms  {name}", flush=True)


def mib(value):
    return f"{value / 1048576:.1f} MiB"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--view", choices=["grid", "merged"], default="grid")
    parser.add_argument("--boxes", type=int, default=8)
    parser.add_argument("--rate", type=int, default=50)
    parser.add_argument("--sample-every", type=int, default=30)
    parser.add_argument("--profile", type=int, default=0,
                        help="first take a CPU profile of the page for this many seconds and print where its time went")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args()
    args.front = None
    workdir = tempfile.mkdtemp(prefix="apsio-viewer-page-")
    processes, devices, driver = [], None, None
    try:
        user, password = "bench", os.urandom(9).hex()
        accounts = os.path.join(workdir, "accounts.txt")
        subprocess.run([os.path.join(args.bin, "apsio-devbackend"), "--accounts", accounts, "--add-user", f"{user}:admin"],
                       input=password + "\n", text=True, check=True, capture_output=True, timeout=60)
        app = "com.example.bench"
        keys = {app: "apsio_app_" + os.urandom(8).hex()}
        plan = [{"app": app, "app_key": keys[app], "install": str(uuid.uuid4()), "tester": f"bench-box-{i + 1}",
                 "model": "Scripted test device", "lines_per_second": args.rate} for i in range(args.boxes)]
        base, device_base, _ = vt.start_fleet_backends(args, workdir, processes, accounts, keys, plan)
        fleet = os.path.join(workdir, "fleet.json")
        with open(fleet, "w", encoding="utf-8") as file:
            json.dump(plan, file)
        log = open(os.path.join(workdir, "devices.log"), "w", encoding="utf-8")
        devices = subprocess.Popen([sys.executable, os.path.join(here, "..", "..", "Tests", "Browser", "scripted_device.py"),
                                    "--backend", device_base, "--fleet", fleet, "--hello-every", "2"],
                                   stdout=log, stderr=subprocess.STDOUT)
        driver = vt.start_browser(args)
        wait = WebDriverWait(driver, 90, poll_frequency=0.2)
        driver.execute_cdp_cmd("Performance.enable", {})
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVE})
        vt.sign_in(driver, wait, base, user, password)
        wait.until(EC.visibility_of_element_located((By.ID, "view-devices")))
        # Every box has said hello before the page opens them: a box not present yet is refused
        # ("not present") and its panel waits for a person to press Try again.
        wait.until(lambda d: len(vt.visible_rows(d)) == len(plan))
        watch = ",".join(f"{d['app']}/{d['install']}" for d in plan)
        driver.get(base + "/#/watch/" + watch + ("?view=merged" if args.view == "merged" else ""))
        wait.until(EC.visibility_of_element_located((By.ID, "view-watch")))
        wait.until(lambda d: all(r >= args.rate * 0.5 for r in d.execute_script(READ)["rates"] or [0]))
        driver.execute_script(READ)  # the long tasks of opening the page are not the steady state's
        print(f"viewer-page: {args.boxes} boxes at {args.rate} lines/s each, {args.view} view, {args.seconds} s", flush=True)
        if args.profile:
            profile(driver, args.profile)
            driver.execute_script(READ)
        began = time.monotonic()
        tasks, samples = [], []
        while time.monotonic() - began < args.seconds:
            time.sleep(min(args.sample_every, max(0.0, args.seconds - (time.monotonic() - began))))
            read = driver.execute_script(READ)
            tasks += read["tasks"]
            m = metrics(driver)
            samples.append((time.monotonic() - began, m["JSHeapUsedSize"], m["Nodes"], read))
            longest = max(read["tasks"], default=0)
            print(f"viewer-page: t={samples[-1][0]:5.0f} s heap {mib(m['JSHeapUsedSize'])} nodes {m['Nodes']:.0f} "
                  f"long tasks {len(read['tasks'])} (longest {longest:.0f} ms) lines/s per box "
                  f"{min(read['rates']):.0f}-{max(read['rates']):.0f}; {read['count']}", flush=True)
            f = read["frames"]
            if f["count"]:
                print(f"viewer-page:   long animation frames {f['count']:.0f}, {f['total']:.0f} ms: scripts {f['scripts']:.0f} ms "
                      f"(layout they forced {f['forced']:.0f} ms), the frames' style and layout {f['styleLayout']:.0f} ms, "
                      f"before it (rAF callbacks and the like) {f['paint']:.0f} ms", flush=True)
        driver.execute_cdp_cmd("HeapProfiler.enable", {})
        driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
        after = metrics(driver)
        tasks.sort()
        p99 = tasks[min(len(tasks) - 1, int(len(tasks) * 0.99))] if tasks else 0
        heaps = [s[1] for s in samples]
        half = len(heaps) // 2
        print(f"viewer-page: RESULT long tasks {len(tasks)} in {args.seconds} s, longest {max(tasks, default=0):.0f} ms, "
              f"p99 {p99:.0f} ms; JS heap {mib(min(heaps))} to {mib(max(heaps))} "
              f"(first half's max {mib(max(heaps[:half] or heaps))}, second half's {mib(max(heaps[half:]))}), "
              f"{mib(after['JSHeapUsedSize'])} after a collection; DOM nodes {min(s[2] for s in samples):.0f} to "
              f"{max(s[2] for s in samples):.0f}", flush=True)
        return 0
    finally:
        if driver is not None:
            driver.quit()
        vt.stop_pid(devices)
        for process, _ in reversed(processes):
            vt.stop_pid(process)
        subprocess.run(["rm", "-rf", workdir], check=False)


if __name__ == "__main__":
    sys.exit(main())
