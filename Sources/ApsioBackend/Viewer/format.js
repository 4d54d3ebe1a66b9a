// How the viewer writes times, sizes and severities.

const severityNames = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'];

/** OpenTelemetry's severity number (1–24) as its short name: 1–4 TRACE … 21–24 FATAL. */
export function severityName(number) {
  const n = Math.min(Math.max(Math.trunc(Number(number)) || 1, 1), 24);
  return severityNames[Math.floor((n - 1) / 4)];
}

export function severityClass(number) {
  return `sev-${severityName(number).toLowerCase()}`;
}

/**
 * A line that stands for lines that were dropped (docs/otlp.md, "Entries journald dropped" and
 * "Entries RateLimit= dropped"): the words of the gap it marks, or null for any other line. Known
 * by its count attribute, a key no journald field can have; its cause says who dropped them.
 */
export function droppedGap(attributes) {
  const count = attributes?.['apsio.journal.dropped.count'];
  if (typeof count !== 'number' || !Number.isFinite(count)) return null;
  const who = attributes['apsio.journal.dropped.cause'] === 'apsiod_rate_limit' ? 'RateLimit=' : 'journald';
  return `gap: ${who} dropped ${count === 1 ? '1 line' : `${count} lines`} here`;
}

function pad(value, width = 2) {
  return String(value).padStart(width, '0');
}

/** Unix milliseconds as the viewer's local time of day, to the millisecond. */
export function clockTime(unixMs) {
  const date = new Date(Number(unixMs));
  if (Number.isNaN(date.getTime())) return '--:--:--';
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export function shortTime(unixMs) {
  const date = new Date(Number(unixMs));
  if (Number.isNaN(date.getTime())) return '--:--';
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function ago(unixMs, nowMs = Date.now()) {
  const seconds = Math.max(0, Math.round((nowMs - Number(unixMs)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  return `${Math.floor(minutes / 60)} h ago`;
}

export function bytes(value) {
  const n = Number(value);
  if (!Number.isFinite(n)) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = n / 1024;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) { scaled /= 1024; unit += 1; }
  return `${scaled.toFixed(scaled < 10 ? 2 : 1)} ${units[unit]}`;
}

/** Milliseconds left as m:ss (or h:mm:ss). */
export function remaining(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** A new element with a class and text: text always through textContent, never parsed as HTML. */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** The model a device reported, or null when it has none worth showing: a box without DMI data
 * (many VMs) reports "" or "unknown", and such a box is known by its tester id alone. */
export function knownModel(device) {
  const model = typeof device?.model === 'string' ? device.model.trim() : '';
  return model === '' || model.toLowerCase() === 'unknown' ? null : model;
}

/** What a team calls a device: the tester id it chose, and the model when the box reports one. */
export function deviceName(device) {
  if (!device) return '';
  const model = knownModel(device);
  const tester = device.tester || device.install;
  return model ? `${tester} · ${model}` : tester;
}

/** The one word the fleet page sorts devices into: the session's state while one runs, otherwise
 * why the device cannot go live (its foreground state, then its hello's reason), else `active`. */
export function fleetState(device) {
  const session = device?.session;
  if (session && (session.state === 'live' || session.state === 'paused')) return session.state;
  if (device?.foreground === 'background') return 'background';
  if (device?.foreground === 'interrupted' || device?.reason === 'inactive') return 'interrupted';
  if (device?.reason) return device.reason === 'low_power' || device.reason === 'capped' ? device.reason : 'other';
  return 'active';
}

/** The key a device is known by on the page: its app and install, which together are unique. */
export function deviceKey(app, install) {
  return `${app}/${install}`;
}

/** A device's own page, `#/device/APP/INSTALL`. */
export function deviceHash(app, install) {
  return `#/device/${encodeURIComponent(app)}/${encodeURIComponent(install)}`;
}
