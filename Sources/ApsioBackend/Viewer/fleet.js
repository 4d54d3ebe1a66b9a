// The fleet page: every device present, across apps, kept up to date by the backend's fleet
// events (or, from a backend without them, by polling the device list), filtered, sorted and
// counted on the page. Rows are made once per device and changed in place, so a fleet of 1,000
// devices costs a few cell updates per change, not a new table.
import { api } from './api.js';
import { ago, deviceHash, deviceKey, deviceName, element, fleetState, knownModel } from './format.js';

const $ = (id) => document.getElementById(id);

/** The states a device is counted under, in the order the page shows them. */
export const fleetStates = ['live', 'paused', 'active', 'interrupted', 'background', 'low_power', 'capped', 'other'];
const stateWords = {
  live: 'live', paused: 'paused', active: 'active, can go live', interrupted: 'interrupted', background: 'background',
  low_power: 'low power', capped: 'capped', other: 'other reason',
};
/** Why a device cannot go live, in words (its hello's reason). */
const reasonWords = { inactive: 'inactive', low_power: 'low power mode', capped: 'capped' };
/** How many devices one watch page takes: each holds a session and a share of the stream polls. */
export const maxWatched = 8;
const noModel = '(none)';
const filterKeys = ['app', 'state', 'model', 'os', 'release', 'q'];
const pollEvery = 3000;

/** The filter a `#/devices?…` fragment holds. */
export function parseFleetQuery(query) {
  const params = new URLSearchParams(query);
  const filter = {};
  for (const key of filterKeys) filter[key] = params.get(key) ?? '';
  filter.sort = params.get('sort') === 'name' ? 'name' : 'hello';
  return filter;
}

function fleetHash(filter) {
  const params = new URLSearchParams();
  for (const key of filterKeys) if (filter[key]) params.set(key, filter[key]);
  if (filter.sort === 'name') params.set('sort', 'name');
  const query = params.toString();
  return query ? `#/devices?${query}` : '#/devices';
}

/**
 * Where the devices come from. `GET /api/fleet/events` (server-sent events: a snapshot, then
 * changes) when the backend serves it; otherwise `GET /api/devices` every 3 s, with the changes
 * computed here, so the page above it sees the same snapshot-then-changes either way.
 */
class FleetFeed {
  constructor({ onSnapshot, onChange, onStatus, onSignedOut }) {
    Object.assign(this, { onSnapshot, onChange, onStatus, onSignedOut });
    this.closed = false;
    this.source = null;
    this.timer = null;
    this.known = new Map();
  }

  start() {
    if (typeof EventSource === 'function') this.openEvents(); else this.poll();
  }

  close() {
    this.closed = true;
    this.source?.close();
    this.source = null;
    clearTimeout(this.timer);
  }

  openEvents() {
    let heard = false;
    const source = new EventSource('/api/fleet/events', { withCredentials: true });
    this.source = source;
    this.mode = 'events';
    source.addEventListener('snapshot', (event) => {
      const data = parse(event.data);
      if (!data || !Array.isArray(data.devices)) return;
      heard = true;
      this.eventsWorked = true;
      this.onSnapshot(data.devices);
      this.onStatus({ mode: 'events' });
    });
    source.addEventListener('change', (event) => {
      const data = parse(event.data);
      if (!data) return;
      this.onChange(Array.isArray(data.upsert) ? data.upsert : [], Array.isArray(data.remove) ? data.remove : []);
      this.onStatus({ mode: 'events' });
    });
    source.addEventListener('degraded', () => {
      this.onStatus({ mode: 'events', error: 'the backend cannot read the fleet’s state now; the list shows what it last knew' });
    });
    source.addEventListener('recovered', () => this.onStatus({ mode: 'events' }));
    source.addEventListener('signed_out', () => {
      this.close();
      this.onSignedOut();
    });
    source.addEventListener('error', () => {
      if (this.closed || this.source !== source) return;
      if (!heard || source.readyState === EventSource.CLOSED) {
        // No stream here (a backend without fleet events answers 404), no sign-in, or the
        // browser gave up reconnecting: the device list says which, and carries the page; a
        // backend whose events worked is asked for them again after a while.
        source.close();
        this.source = null;
        this.known = new Map();
        this.listed = false;
        this.poll();
      } else {
        // The browser reconnects by itself; the new snapshot replaces the rows.
        this.onStatus({ mode: 'events', error: 'the fleet stream was interrupted; reconnecting' });
      }
    });
  }

  async poll() {
    if (this.closed) return;
    this.mode = 'polling';
    try {
      const { data } = await api('GET', '/api/devices');
      if (this.closed) return;
      this.diff(Array.isArray(data?.devices) ? data.devices : []);
      this.onStatus({ mode: 'polling' });
      this.polls = (this.polls ?? 0) + 1;
      if (this.eventsWorked && this.polls % 20 === 0 && typeof EventSource === 'function') {
        this.openEvents();
        return;
      }
    } catch (error) {
      if (this.closed) return;
      if (error.status === 401) { this.onSignedOut(); return; }
      this.onStatus({ mode: 'polling', error: `cannot list devices: ${error.message}; trying again` });
    }
    this.timer = setTimeout(() => this.poll(), pollEvery);
  }

  /** The changes between the last list and this one, as the fleet events would have sent them. */
  diff(devices) {
    const first = !this.listed;
    this.listed = true;
    const next = new Map();
    const upsert = [];
    for (const device of devices) {
      const key = deviceKey(device.app, device.install);
      const text = JSON.stringify(device);
      next.set(key, { text, app: device.app, install: device.install });
      if (this.known.get(key)?.text !== text) upsert.push(device);
    }
    const remove = [];
    for (const [key, { app, install }] of this.known) if (!next.has(key)) remove.push({ app, install });
    this.known = next;
    if (first) this.onSnapshot(devices); else if (upsert.length > 0 || remove.length > 0) this.onChange(upsert, remove);
  }
}

function parse(text) {
  try { return JSON.parse(text); } catch { return null; }
}

export class FleetPage {
  constructor({ onSignedOut }) {
    this.onSignedOut = onSignedOut;
    this.entries = new Map();
    this.selected = new Set();
    this.filter = parseFleetQuery('');
    this.feed = null;
    this.abort = null;
    this.pending = null;
    this.options = {};
  }

  /** Shows the page with the filter of its fragment; the feed keeps running while it shows. */
  open(query) {
    this.setFilter(parseFleetQuery(query));
    if (this.feed) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    const changed = () => this.readFilters();
    for (const id of ['f-app', 'f-state', 'f-model', 'f-os', 'f-release', 'f-sort']) $(id).addEventListener('change', changed, { signal });
    $('f-text').addEventListener('input', changed, { signal });
    $('f-clear').addEventListener('click', () => { this.setFilter(parseFleetQuery('')); this.filterChanged(); }, { signal });
    $('fleet-counts').addEventListener('click', (event) => {
      const button = event.target.closest('button[data-state]');
      if (!button) return;
      this.filter.state = this.filter.state === button.dataset.state ? '' : button.dataset.state;
      $('f-state').value = this.filter.state;
      this.filterChanged();
    }, { signal });
    $('devices-body').addEventListener('change', (event) => {
      if (event.target.matches('input.pick')) this.pick(event.target);
    }, { signal });
    $('watch-selected').addEventListener('click', () => this.watchSelected(), { signal });
    $('clear-selection').addEventListener('click', () => {
      this.selected.clear();
      for (const entry of this.entries.values()) entry.pick.checked = false;
      this.selectionChanged();
    }, { signal });
    this.ticker = setInterval(() => this.tickAges(), 5000);
    $('devices-updated').textContent = 'connecting…';
    this.feed = new FleetFeed({
      onSnapshot: (devices) => this.snapshot(devices),
      onChange: (upsert, remove) => this.change(upsert, remove),
      onStatus: (status) => this.status(status),
      onSignedOut: () => this.onSignedOut('Your sign-in ended; sign in again.'),
    });
    this.feed.start();
    this.selectionChanged();
  }

  close() {
    this.feed?.close();
    this.feed = null;
    this.abort?.abort();
    this.abort = null;
    clearInterval(this.ticker);
    clearTimeout(this.pending);
    this.pending = null;
  }

  // MARK: the feed's changes

  snapshot(devices) {
    const seen = new Set();
    for (const device of devices) seen.add(this.upsert(device));
    for (const key of [...this.entries.keys()]) if (!seen.has(key)) this.removeKey(key);
    this.schedule();
  }

  change(upsert, remove) {
    for (const device of upsert) this.upsert(device);
    for (const gone of remove) this.removeKey(deviceKey(gone.app, gone.install));
    this.schedule();
  }

  upsert(device) {
    const key = deviceKey(device.app, device.install);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = this.makeRow(key, device);
      this.entries.set(key, entry);
    }
    entry.device = device;
    entry.state = fleetState(device);
    entry.name = deviceName(device);
    entry.model = knownModel(device) ?? noModel;
    entry.search = [device.app, device.install, device.tester, device.model, device.os, device.release]
      .join(' ').toLowerCase();
    this.fill(entry);
    return key;
  }

  removeKey(key) {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.row.remove();
    this.entries.delete(key);
    if (this.selected.delete(key)) this.selectionChanged();
  }

  makeRow(key, device) {
    const row = element('tr');
    row.dataset.key = key;
    row.dataset.app = device.app;
    row.dataset.install = device.install;
    const pick = element('input', 'pick');
    pick.type = 'checkbox';
    pick.value = key;
    pick.checked = this.selected.has(key);
    pick.setAttribute('aria-label', 'watch together');
    const pickCell = element('td');
    pickCell.append(pick);
    const link = element('a', 'device-link');
    link.href = deviceHash(device.app, device.install);
    const nameCell = element('td');
    nameCell.append(link);
    const cells = {};
    for (const name of ['app', 'os', 'release', 'foreground', 'session', 'viewers', 'hello']) {
      cells[name] = element('td', name === 'viewers' ? 'num' : null);
    }
    cells.foregroundBadge = element('span', 'badge');
    cells.reason = element('span', 'muted reason');
    cells.foreground.append(cells.foregroundBadge, ' ', cells.reason);
    cells.sessionBadge = element('span', 'badge');
    cells.session.append(cells.sessionBadge);
    // The model is in the device's name (the model filter offers it too).
    row.append(pickCell, nameCell, cells.app, cells.os, cells.release, cells.foreground,
      cells.session, cells.viewers, cells.hello);
    return { key, row, pick, link, cells, device, index: -1 };
  }

  /** Writes the device into its row, touching only what changed. */
  fill(entry) {
    const { device, cells } = entry;
    entry.row.dataset.state = entry.state;
    set(entry.link, 'textContent', entry.name);
    set(entry.link, 'title', `${device.app}, installation ${device.install}`);
    set(cells.app, 'textContent', device.app);
    set(cells.os, 'textContent', device.os || '—');
    set(cells.release, 'textContent', device.release || '—');
    const foreground = device.foreground || 'active';
    set(cells.foregroundBadge, 'textContent', foreground);
    set(cells.foregroundBadge, 'className', `badge ${foreground}`);
    set(cells.reason, 'textContent', device.reason ? (reasonWords[device.reason] ?? device.reason) : (device.caps_reached ? 'caps reached; waits for a viewer' : ''));
    const session = device.session;
    set(cells.sessionBadge, 'textContent', session ? `${session.state}${session.reason ? ` (${session.reason})` : ''}` : '—');
    set(cells.sessionBadge, 'className', session ? `badge ${session.state}` : 'muted');
    set(cells.viewers, 'textContent', String(device.viewers ?? 0));
    set(cells.hello, 'textContent', ago(device.last_hello));
    set(cells.hello, 'title', new Date(device.last_hello).toLocaleString());
  }

  tickAges() {
    const now = Date.now();
    for (const entry of this.entries.values()) set(entry.cells.hello, 'textContent', ago(entry.device.last_hello, now));
  }

  status({ mode, error }) {
    $('devices-error').hidden = !error;
    $('devices-error').textContent = error ? `${error[0].toUpperCase()}${error.slice(1)}.` : '';
    const how = mode === 'events' ? 'updates as the backend sends changes' : 'refreshed every 3 seconds';
    $('devices-updated').textContent = `${how}; last at ${new Date().toLocaleTimeString()}.`;
  }

  // MARK: filter, sort, counts

  /** Several changes arrive together (a snapshot, a burst of hellos): order and count once. */
  schedule() {
    if (this.pending) return;
    this.pending = setTimeout(() => { this.pending = null; this.render(); }, 50);
  }

  readFilters() {
    this.filter = {
      app: $('f-app').value, state: $('f-state').value, model: $('f-model').value, os: $('f-os').value,
      release: $('f-release').value, q: $('f-text').value.trim(), sort: $('f-sort').value === 'name' ? 'name' : 'hello',
    };
    this.filterChanged();
  }

  filterChanged() {
    // The fragment holds the filter, so a link or a reload shows the same devices; replaceState
    // rewrites it without a hashchange (and without a history entry per keystroke).
    const hash = fleetHash(this.filter);
    if (location.hash !== hash) history.replaceState(null, '', hash);
    this.render();
  }

  setFilter(filter) {
    this.filter = filter;
    for (const [id, key] of [['f-app', 'app'], ['f-state', 'state'], ['f-model', 'model'], ['f-os', 'os'], ['f-release', 'release']]) {
      ensureOption($(id), filter[key]);
      $(id).value = filter[key];
    }
    $('f-text').value = filter.q;
    $('f-sort').value = filter.sort;
    this.render();
  }

  matches(entry, { ignoreState = false } = {}) {
    const f = this.filter;
    const d = entry.device;
    if (f.app && d.app !== f.app) return false;
    if (!ignoreState && f.state && entry.state !== f.state) return false;
    if (f.model && entry.model !== f.model) return false;
    if (f.os && (d.os || '') !== f.os) return false;
    if (f.release && (d.release || '') !== f.release) return false;
    if (f.q && !entry.search.includes(f.q.toLowerCase())) return false;
    return true;
  }

  render() {
    const entries = [...this.entries.values()];
    const byName = (a, b) => a.name.localeCompare(b.name) || a.device.app.localeCompare(b.device.app)
      || a.device.install.localeCompare(b.device.install);
    entries.sort(this.filter.sort === 'name' ? byName
      : (a, b) => (Number(b.device.last_hello) || 0) - (Number(a.device.last_hello) || 0) || byName(a, b));
    const counts = Object.fromEntries(fleetStates.map((s) => [s, 0]));
    let shown = 0;
    entries.forEach((entry, index) => {
      entry.index = index;
      if (this.matches(entry, { ignoreState: true })) counts[entry.state] = (counts[entry.state] ?? 0) + 1;
      const visible = this.matches(entry);
      if (entry.row.hidden === visible) entry.row.hidden = !visible;
      if (visible) shown += 1;
    });
    this.order(entries);
    this.renderCounts(counts);
    this.renderOptions(entries);
    $('devices-empty').hidden = this.entries.size > 0;
    $('fleet-shown').textContent = this.entries.size === shown
      ? `${shown} device${shown === 1 ? '' : 's'}`
      : `${shown} of ${this.entries.size} devices match the filter`;
  }

  /** Puts the rows in order with few moves: a row that moved is moved, the others stay. */
  order(entries) {
    const body = $('devices-body');
    let cursor = body.firstElementChild;
    for (const entry of entries) {
      // A row that belongs further down is passed over; it is moved when its turn comes.
      while (cursor && cursor !== entry.row && (this.entries.get(cursor.dataset.key)?.index ?? -1) > entry.index + 1) {
        cursor = cursor.nextElementSibling;
      }
      if (cursor === entry.row) { cursor = cursor.nextElementSibling; continue; }
      body.insertBefore(entry.row, cursor);
    }
  }

  renderCounts(counts) {
    const box = $('fleet-counts');
    if (!this.countButtons) {
      this.countButtons = {};
      for (const state of fleetStates) {
        const button = element('button', 'count quiet');
        button.type = 'button';
        button.dataset.state = state;
        const number = element('strong');
        button.append(element('span', `badge ${state}`, stateWords[state]), ' ', number);
        this.countButtons[state] = { button, number };
        box.append(button);
      }
    }
    for (const state of fleetStates) {
      const { button, number } = this.countButtons[state];
      set(number, 'textContent', String(counts[state] ?? 0));
      button.setAttribute('aria-pressed', String(this.filter.state === state));
      button.hidden = (counts[state] ?? 0) === 0 && this.filter.state !== state && (state === 'other' || state === 'background');
    }
  }

  /** The app, model, OS and release lists offer what the fleet has, each with its count. */
  renderOptions(entries) {
    const values = { app: new Map(), model: new Map(), os: new Map(), release: new Map() };
    for (const entry of entries) {
      const d = entry.device;
      for (const [key, value] of [['app', d.app], ['model', entry.model], ['os', d.os || ''], ['release', d.release || '']]) {
        if (value === '') continue;
        values[key].set(value, (values[key].get(value) ?? 0) + 1);
      }
    }
    for (const [key, id] of [['app', 'f-app'], ['model', 'f-model'], ['os', 'f-os'], ['release', 'f-release']]) {
      const signature = [...values[key].entries()].sort().map(([v, n]) => `${v}\u0000${n}`).join('\u0001');
      if (this.options[key] === signature) continue;
      this.options[key] = signature;
      const select = $(id);
      const keep = this.filter[key];
      const choices = [element('option', null, 'all')];
      choices[0].value = '';
      for (const [value, count] of [...values[key].entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
        const option = element('option', null, `${value === noModel ? 'not reported' : value} (${count})`);
        option.value = value;
        choices.push(option);
      }
      if (keep && !values[key].has(keep)) {
        const option = element('option', null, `${keep} (0)`);
        option.value = keep;
        choices.push(option);
      }
      select.replaceChildren(...choices);
      select.value = keep;
    }
  }

  // MARK: selecting devices to watch together

  pick(box) {
    if (box.checked) {
      if (this.selected.size >= maxWatched) {
        box.checked = false;
        $('selection-note').textContent = `At most ${maxWatched} devices are watched together.`;
        return;
      }
      this.selected.add(box.value);
    } else {
      this.selected.delete(box.value);
    }
    this.selectionChanged();
  }

  selectionChanged() {
    const n = this.selected.size;
    $('watch-selected').disabled = n === 0;
    $('watch-selected').textContent = n === 0 ? 'Watch selected together' : `Watch ${n} together`;
    $('clear-selection').hidden = n === 0;
    $('selection-note').textContent = n === 0 ? `Tick up to ${maxWatched} devices to watch them together.` : `${n} of at most ${maxWatched} selected.`;
  }

  watchSelected() {
    const keys = [...this.selected].filter((key) => this.entries.has(key));
    if (keys.length === 0) return;
    const parts = keys.map((key) => {
      const { device } = this.entries.get(key);
      return `${encodeURIComponent(device.app)}/${encodeURIComponent(device.install)}`;
    });
    location.hash = `#/watch/${parts.join(',')}`;
  }

  /** What the page knows of a device (for the watch page's names before its own list arrives). */
  device(app, install) {
    return this.entries.get(deviceKey(app, install))?.device ?? null;
  }
}

function set(node, property, value) {
  if (node[property] !== value) node[property] = value;
}

function ensureOption(select, value) {
  if (!value || [...select.options].some((option) => option.value === value)) return;
  const option = element('option', null, value);
  option.value = value;
  select.append(option);
}
