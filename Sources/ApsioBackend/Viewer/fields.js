// A live line's fields: the columns a person can show beside each line (from the attributes the
// box sends with it), and all of one line's attributes when it is clicked.
import { lagText, skewMs } from './delivery.js';
import { clockTime, element, severityName } from './format.js';

/** The columns, in the order shown; `attribute` is the line attribute each reads (docs/otlp.md). */
export const columns = [
  { id: 'sev', label: 'severity' },
  { id: 'unit', label: 'unit', attribute: 'systemd.unit' },
  { id: 'pid', label: 'pid', attribute: 'process.pid' },
  { id: 'comm', label: 'comm', attribute: 'process.executable.name' },
  { id: 'invocation', label: 'invocation', attribute: 'session.id' },
  { id: 'lag', label: 'lag' },
];
export const columnIds = columns.map((c) => c.id);
export const defaultColumns = ['sev'];

/** The text of a line's column. */
export function columnText(column, record) {
  if (column.id === 'sev') return severityName(record.severity);
  // A narrow column: skew in one word; the line's details say more.
  if (column.id === 'lag') return record.lag < skewMs ? 'skew' : lagText(record.lag);
  const value = record.attributes?.[column.attribute];
  if (value === undefined || value === null) return '—';
  // An invocation id is 32 hex digits; its start tells invocations apart on screen.
  return column.id === 'invocation' ? String(value).slice(0, 8) : String(value);
}

/** Every attribute of one line, with its times: the box's (the journal's) and this page's. */
export function lineDetails(record, deviceName) {
  const list = element('dl', 'facts line-facts');
  const add = (key, value) => {
    const term = element('dt', null, key);
    const detail = element('dd', null, value);
    detail.dataset.key = key;
    list.append(term, detail);
  };
  add('device', deviceName);
  add('journal time (box’s clock)', `${new Date(Number(record.t)).toISOString()} (${clockTime(record.t)})`);
  add('arrived here (this browser’s clock)', `${new Date(record.arrived).toISOString()} (${clockTime(record.arrived)})`);
  add('lag', record.lag < skewMs ? `clock skew: the box’s clock is ${(-record.lag / 1000).toFixed(1)} s or more ahead of this browser’s`
    : lagText(record.lag));
  add('severity', `${severityName(record.severity)} (${record.severity})`);
  for (const key of Object.keys(record.attributes ?? {}).sort()) {
    const value = record.attributes[key];
    add(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return list;
}
