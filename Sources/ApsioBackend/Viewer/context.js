// A line's context: the lines before and after it from the same box, as this page's buffer holds
// them, marked where the buffer ends (older lines fell out, or nothing newer came yet).
import { clockTime, element, severityName } from './format.js';

export const contextLines = 10;

/** Where `record` is in `buffer` (ordered by `n`), or -1 when it fell out. */
function indexOf(buffer, record) {
  let low = 0;
  let high = buffer.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (buffer[mid].n === record.n) return mid;
    if (buffer[mid].n < record.n) low = mid + 1; else high = mid - 1;
  }
  return -1;
}

/** The context list of `record`: `highlights` marks the lines as the tail does. */
export function contextOf(record, buffer, fellOut, highlights) {
  const list = element('ol', 'log context-log');
  const at = indexOf(buffer.items, record);
  if (at < 0) {
    list.append(element('li', 'edge', 'This line fell out of the page’s buffer: its context is gone.'));
    return list;
  }
  const from = Math.max(0, at - contextLines);
  const to = Math.min(buffer.items.length, at + contextLines + 1);
  if (from === 0) {
    list.append(element('li', 'edge edge-start', fellOut > 0
      ? `Start of the page’s buffer for this box: ${fellOut} older lines fell out.`
      : 'Start of the page’s buffer for this box: nothing older since watching began.'));
  }
  for (let i = from; i < to; i += 1) {
    const entry = buffer.items[i];
    const item = element('li', entry.kind === 'line' ? `sev-${severityName(entry.severity).toLowerCase()}` : 'gap');
    if (entry === record) item.classList.add('chosen');
    item.append(element('span', 't', clockTime(entry.t)));
    if (entry.kind === 'line') item.append(element('span', 'sev', severityName(entry.severity)));
    const text = element('span', entry.kind === 'line' ? 'body' : 'gap');
    highlights.mark(text, entry.body);
    item.append(text);
    list.append(item);
  }
  if (to === buffer.items.length) list.append(element('li', 'edge edge-end', 'Newest line of this box so far.'));
  return list;
}
