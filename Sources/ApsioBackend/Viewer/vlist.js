// A virtualised log: every line it shows is kept in memory, but only the lines in sight (and a
// margin above and below) are elements in the page. Two spacers stand for the lines out of sight,
// so the scroll bar is as long as the whole log. Appending or trimming then lays out a screenful
// of lines, never the whole log: with eight busy boxes that is the difference between keeping up
// and not (docs/performance.md, "The live view page").
//
// Lines wrap, so their heights differ. A line's height is known once it has been drawn: a
// ResizeObserver reports it after the browser's own layout, so nothing here reads the layout line
// by line. A line never drawn counts as the smallest line seen so far; since no line is shorter,
// the lines drawn always fill the screen, and the scroll bar is right within a few lines' worth.

/** Lines drawn beyond those in sight, above and below, as a share of the screen's height: what a
 * flick of the wheel shows before the next frame draws more. */
const margin = 0.5;
/** A line's height in pixels before any was measured (a line of the log's font is more): on the
 * small side, so that a first frame draws too many lines rather than leave a gap. */
const firstGuess = 14;
/** The log's height in pixels before the browser reported it (a log that has just been shown). */
const firstViewport = 600;

let logs = 0;

export class VirtualLog {
  /**
   * `list`: the scrolling element (an `ol`). `max`: the lines it keeps. `make(record)`: a line's
   * element. `matches(record)`: whether the filter shows it. `schedule()`: asks for a frame, in
   * which the page calls `draw` (all drawing is batched per animation frame).
   */
  constructor(list, { max, make, matches, schedule, signal }) {
    this.list = list;
    this.max = max;
    this.make = make;
    this.matches = matches;
    this.schedule = schedule;
    /** Every record the log holds, oldest first, and those of them the filter shows. */
    this.items = [];
    this.shown = [];
    /** Device lines (not markers) held and shown: the page's count, kept as lines come and go. */
    this.lines = 0;
    this.shownLines = 0;
    /** Each record's measured height in this log, on the record itself (a record is in a panel
     * and in the merged tail, which lay it out differently). 0: not measured. */
    this.height = Symbol(`height ${(logs += 1)}`);
    this.smallest = 0;
    /** The records drawn, in order (a run of `shown`), each with its element. */
    this.rows = [];
    this.elements = new WeakMap();
    this.stale = false;
    /** The log's height (from the ResizeObserver) and where it is scrolled to (from the scroll
     * events), so that drawing reads no layout. */
    this.viewport = 0;
    this.scrollTop = 0;
    /** Whether the next draw goes to the end (new lines, or a filter, while not paused), or
     * must (the log shows again after the view hid it). */
    this.toEnd = true;
    this.revealed = false;
    /** Whether anything changed since the last draw: a frame draws only the logs that did. */
    this.dirty = true;
    this.top = spacer();
    this.bottom = spacer();
    this.drawn = { top: -1, bottom: -1 };
    list.replaceChildren(this.top, this.bottom);
    this.observer = new ResizeObserver((entries) => this.resized(entries));
    this.observer.observe(list);
    signal?.addEventListener('abort', () => this.observer.disconnect(), { once: true });
    list.addEventListener('scroll', () => {
      this.scrollTop = list.scrollTop;
      this.dirty = true;
      this.schedule();
    }, { passive: true, signal });
  }

  // MARK: what the log holds

  /** New records at the end; the oldest go past `max`. The next draw goes to the end. */
  push(records) {
    for (const record of records) {
      this.items.push(record);
      record[this.height] = 0;
      const line = record.kind === 'line';
      if (line) this.lines += 1;
      if (this.matches(record)) {
        this.shown.push(record);
        if (line) this.shownLines += 1;
      }
    }
    const excess = this.items.length - this.max;
    if (excess > 0) {
      // Out of the array only: the elements of lines out of sight are already gone, so a trim
      // costs no layout and can happen at every frame.
      let hidden = 0;
      for (const record of this.items.splice(0, excess)) {
        if (record.kind === 'line') this.lines -= 1;
        if (this.shown[hidden] === record) {
          hidden += 1;
          if (record.kind === 'line') this.shownLines -= 1;
        }
      }
      if (hidden > 0) this.shown.splice(0, hidden);
    }
    this.toEnd = true;
    this.dirty = true;
  }

  /** Empties the log at once (its elements too): Clear. */
  clear() {
    this.items = [];
    this.shown = [];
    this.lines = 0;
    this.shownLines = 0;
    this.dropRows();
    this.top.style.height = '0px';
    this.bottom.style.height = '0px';
    this.drawn = { top: 0, bottom: 0 };
    this.toEnd = true;
    this.dirty = true;
  }

  /** The filter changed: what is shown is found again, and drawn at the next frame. */
  refilter(toEnd) {
    this.shown = this.items.filter((record) => this.matches(record));
    this.shownLines = this.shown.reduce((sum, record) => sum + (record.kind === 'line' ? 1 : 0), 0);
    this.stale = true;
    this.dirty = true;
    if (toEnd) this.toEnd = true;
  }

  /** The lines' look changed (the columns): every line is made anew and measured again. */
  remake() {
    for (const record of this.items) record[this.height] = 0;
    this.smallest = 0;
    this.stale = true;
    this.dirty = true;
  }

  /** The log shows again: its next draw is at its end. */
  reveal() {
    this.revealed = true;
    this.dirty = true;
  }

  /** The elements drawn, each with its record: to change them in place (highlights, names). */
  *drawnRows() {
    for (const { record, element } of this.rows) yield [element, record];
  }

  // MARK: drawing

  /**
   * Draws the lines in sight into the page: those at the end when `toEnd` (or when new lines
   * came while following), else those where the log is scrolled to. Writes only: no layout is
   * read. Returns whether the log should then be scrolled to its end (`toEnd`, done by the page
   * for every log at once).
   */
  draw(follow) {
    if (!this.dirty) return false;
    const toEnd = (follow && this.toEnd) || this.revealed;
    this.toEnd = false;
    this.revealed = false;
    this.dirty = false;
    const shown = this.shown;
    const guess = this.smallest || firstGuess;
    const viewport = this.viewport || firstViewport;
    // Where each shown line starts: its measured height, or the smallest line's.
    const starts = new Float64Array(shown.length + 1);
    for (let i = 0; i < shown.length; i += 1) starts[i + 1] = starts[i] + (shown[i][this.height] || guess);
    const total = starts[shown.length];
    const end = Math.max(0, total - viewport);
    const at = toEnd ? end : Math.min(Math.max(this.scrollTop, 0), end);
    let from = firstAfter(starts, at - viewport * margin) - 1;
    let to = firstAfter(starts, at + viewport * (1 + margin));
    from = Math.max(0, Math.min(from, shown.length));
    to = Math.max(from, Math.min(to, shown.length));
    // A selection keeps its lines drawn, so that scrolling while selecting does not cut it short.
    const held = this.selected();
    if (held) { from = Math.min(from, held[0]); to = Math.max(to, held[1] + 1); }
    this.place(from, to);
    const top = starts[from];
    const bottom = total - starts[to];
    if (top !== this.drawn.top) this.top.style.height = `${top}px`;
    if (bottom !== this.drawn.bottom) this.bottom.style.height = `${bottom}px`;
    this.drawn = { top, bottom };
    return toEnd;
  }

  /** Scrolls to the end; called after every log has drawn, so the layout it needs is one. */
  scrollToEnd() {
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** Makes the elements drawn be `shown[from..<to]`: the lines that stay are left as they are,
   * those that left sight are removed, the new ones made and put at either end. */
  place(from, to) {
    const want = this.shown;
    if (this.stale) { this.dropRows(); this.stale = false; }
    if (to <= from) { this.dropRows(); return; }
    const first = want[from].n;
    const last = want[to - 1].n;
    // `shown` only changes at its ends between frames (a filter makes it stale), so the rows that
    // stay are one run in the middle of those drawn.
    let keepFrom = 0;
    while (keepFrom < this.rows.length && this.rows[keepFrom].record.n < first) keepFrom += 1;
    let keepTo = this.rows.length;
    while (keepTo > keepFrom && this.rows[keepTo - 1].record.n > last) keepTo -= 1;
    for (let i = 0; i < keepFrom; i += 1) this.unmake(this.rows[i]);
    for (let i = keepTo; i < this.rows.length; i += 1) this.unmake(this.rows[i]);
    const kept = this.rows.slice(keepFrom, keepTo);
    let before = [];
    let after = [];
    if (kept.length === 0) {
      after = want.slice(from, to).map((record) => this.row(record));
    } else {
      const keptFirst = kept[0].record.n;
      const keptLast = kept[kept.length - 1].record.n;
      let i = from;
      for (; i < to && want[i].n < keptFirst; i += 1) before.push(this.row(want[i]));
      i += kept.length;
      for (; i < to; i += 1) if (want[i].n > keptLast) after.push(this.row(want[i]));
    }
    if (before.length > 0) this.top.after(...before.map((r) => r.element));
    if (after.length > 0) this.bottom.before(...after.map((r) => r.element));
    this.rows = [...before, ...kept, ...after];
  }

  row(record) {
    const element = this.make(record);
    this.elements.set(element, record);
    this.observer.observe(element);
    return { record, element };
  }

  unmake(row) {
    this.observer.unobserve(row.element);
    row.element.remove();
  }

  dropRows() {
    for (const row of this.rows) this.observer.unobserve(row.element);
    this.rows = [];
    this.list.replaceChildren(this.top, this.bottom);
  }

  /** The indexes in `shown` of the first and last lines a selection in this log touches. */
  selected() {
    const selection = document.getSelection();
    if (!selection || selection.isCollapsed || this.rows.length === 0) return null;
    const ends = [selection.anchorNode, selection.focusNode].map((node) => {
      const el = node instanceof Element ? node : node?.parentElement;
      const item = el?.closest('li');
      return item && item.parentElement === this.list ? this.elements.get(item) : null;
    });
    const found = ends.filter(Boolean).map((record) => this.indexOf(record)).filter((i) => i >= 0);
    if (found.length === 0) return null;
    return [Math.min(...found), Math.max(...found)];
  }

  indexOf(record) {
    let low = 0;
    let high = this.shown.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const n = this.shown[mid].n;
      if (n === record.n) return mid;
      if (n < record.n) low = mid + 1; else high = mid - 1;
    }
    return -1;
  }

  /** The browser's layout measured the lines drawn (or the log itself): kept for the next draw. */
  resized(entries) {
    let changed = false;
    for (const entry of entries) {
      const size = entry.borderBoxSize?.[0];
      if (!size) continue;
      if (entry.target === this.list) {
        // Narrower or wider, the lines drawn wrap anew and are reported again; those out of sight
        // keep the height they had (forgetting them would move what a paused reader looks at
        // whenever a scroll bar comes or goes), and are measured again when drawn.
        this.viewport = entry.contentBoxSize[0].blockSize;
        changed = true;
        continue;
      }
      const record = this.elements.get(entry.target);
      // A line removed since (its size is then 0) keeps what was measured while it was drawn.
      if (!record || !entry.target.isConnected || size.blockSize === 0) continue;
      if (record[this.height] !== size.blockSize) {
        record[this.height] = size.blockSize;
        changed = true;
      }
      if (this.smallest === 0 || size.blockSize < this.smallest) this.smallest = size.blockSize;
    }
    if (changed) {
      this.dirty = true;
      this.schedule();
    }
  }
}

/** An element that stands for the lines out of sight above or below those drawn. */
function spacer() {
  const item = document.createElement('li');
  item.className = 'vspace';
  item.setAttribute('aria-hidden', 'true');
  return item;
}

/** The first index of `starts` (rising) whose value is greater than `y`, or its length. */
function firstAfter(starts, y) {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (starts[mid] <= y) low = mid + 1; else high = mid;
  }
  return low;
}
