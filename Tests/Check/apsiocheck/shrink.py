"""Shrinking: a failing history made as short as it will go while it still breaks the same
promise, by removing runs of operations (ddmin) and then single ones. A history is timing-bound,
so each candidate gets `tries` runs and counts as failing if any run fails."""


def shrink(history, fails, log=print, tries=2, budget=60):
    """`fails(history) -> bool`; returns the shortest failing history found within `budget` runs."""
    ops = list(history["ops"])
    runs = 0

    def attempt(candidate):
        nonlocal runs
        for _ in range(tries):
            if runs >= budget:
                return False
            runs += 1
            if fails(dict(history, ops=candidate)):
                return True
        return False

    chunks = 2
    while len(ops) >= 1 and runs < budget:
        size = max(1, len(ops) // chunks)
        reduced = False
        for start in range(0, len(ops), size):
            candidate = ops[:start] + ops[start + size:]
            if attempt(candidate):
                log("  shrunk to %d operations" % len(candidate))
                ops = candidate
                chunks = max(chunks - 1, 2)
                reduced = True
                break
        if not reduced:
            if size == 1:
                break
            chunks = min(len(ops), chunks * 2)
    return dict(history, ops=ops), runs
