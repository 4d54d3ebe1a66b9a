// The page's own buffer of a box's lines (and of the merged tail): bounded, and counting what fell
// out of it, so that a page left open for hours holds the same memory as after a minute.

/** Lines go in batches of this many past the bound: one splice now and then, not one a line. */
const slack = 256;

export class LineBuffer {
  constructor(max) {
    this.max = max;
    this.items = [];
    /** Lines (not markers) that fell out since the page opened. */
    this.fellOut = 0;
  }

  push(record) {
    this.items.push(record);
    if (this.items.length > this.max + slack) {
      const gone = this.items.splice(0, this.items.length - this.max);
      for (const record of gone) if (record.kind === 'line') this.fellOut += 1;
      return gone;
    }
    return null;
  }

  /** The records after `n` (every record has a rising `n`), at most `limit`, oldest first. */
  after(n, limit) {
    let i = this.items.length;
    while (i > 0 && this.items[i - 1].n > n && this.items.length - i < limit) i -= 1;
    return this.items.slice(i);
  }

  get last() {
    return this.items.length > 0 ? this.items[this.items.length - 1].n : 0;
  }
}
