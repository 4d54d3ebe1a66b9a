// A device's page: joins its viewers, long-polls its stream, and shows what the session sends:
// log lines, metrics, the latest process frame, command results, and why a session ended.
import { api, apiText, devicePath } from './api.js';
import { SeriesChart } from './chart.js';
import { bytes, clockTime, deviceName, element, knownModel, remaining, severityClass, severityName, shortTime } from './format.js';

const $ = (id) => document.getElementById(id);
const maxLogLines = 2000;
const maxResults = 20;
const maxAuditRows = 200;
const commandNames = ['screenshot', 'diagnostics', 'raise_log_level'];

/** Why a session ended (spec 16.3, 16.7), in words a viewer can act on. */
export const endReasons = {
  until: 'The session reached its end, 30 minutes after it started or was last renewed.',
  session_bytes: 'The session sent its 10,000,000 bytes.',
  day_bytes: 'The device sent its 50,000,000 bytes for today (UTC); it starts no session before the day ends.',
  replaced: 'Another sender took over this device’s channel (its token was replaced). What came before was this session; what comes next is a new one.',
  viewers_left: 'Every viewer left.',
  silent: 'The device went silent: no frames and no next for 60 seconds, or its presence ran out.',
  closed: 'The device closed its channel: the unit stopped or went to the background, or live inspection or consent was withdrawn on the machine.',
  stop: 'The backend told the device to stop.',
  paused: 'The session stayed paused for 60 seconds.',
  tester_removed: 'The device’s tester entry expired or was removed from the policy.',
  backend_restarted: 'The backend’s shared state was lost (its Redis restarted empty); the device says hello again and a new session can start.',
};

/** Reasons after which the backend waits for a viewer to act before another session (16.3). */
export const needsRestart = new Set(['until', 'session_bytes']);

export const pauseReasons = {
  inactive: 'the unit is interrupted (reloading, activating or frozen)',
  low_power: 'the machine is in low-power mode',
  low_data: 'the machine is on a metered network',
  data_saver: 'data saver is on for the machine',
};

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A process frame (the service's wireframe) as a summary line and a table of its processes. */
export function renderFrame(frame) {
  const box = element('div', 'frame');
  if (!isObject(frame)) {
    box.append(element('p', 'muted', 'The frame could not be read.'));
    return box;
  }
  const summary = [`${frame.active_state ?? '?'}/${frame.sub_state ?? '?'}`];
  if (frame.tasks != null) summary.push(`${frame.tasks} tasks`);
  if (frame.memory_bytes != null) summary.push(`memory ${bytes(frame.memory_bytes)}`);
  box.append(element('p', 'frame-summary', summary.join(' · ')));
  const table = element('table', 'grid frame-table');
  const head = element('tr');
  for (const [title, numeric] of [['PID', true], ['PPID', true], ['Name', false], ['State', false], ['Threads', true],
    ['RSS', true], ['CPU %', true]]) {
    head.append(element('th', numeric ? 'num' : null, title));
  }
  table.append(element('thead'));
  table.tHead.append(head);
  const body = element('tbody');
  for (const process of Array.isArray(frame.processes) ? frame.processes : []) {
    if (!isObject(process)) continue;
    const row = element('tr');
    const name = process.argv0 && process.argv0 !== process.comm ? `${process.comm} (${process.argv0})` : process.comm;
    const cpu = typeof process.cpu_percent === 'number' ? process.cpu_percent.toFixed(1) : '—';
    row.append(element('td', 'num', process.pid), element('td', 'num', process.ppid), element('td', null, name ?? '?'),
      element('td', null, process.state ?? '?'), element('td', 'num', process.threads ?? '—'),
      element('td', 'num', bytes(process.rss_bytes)), element('td', 'num', cpu));
    body.append(row);
  }
  table.append(body);
  const wrap = element('div', 'table-wrap');
  wrap.append(table);
  box.append(wrap);
  if (frame.omitted_processes > 0) box.append(element('p', 'muted', `${frame.omitted_processes} more processes not listed.`));
  if (Array.isArray(frame.sockets) && frame.sockets.length > 0) {
    const listening = frame.sockets.filter(isObject).map((s) => `${s.transport} ${s.address}:${s.port}`);
    box.append(element('p', 'muted', `Listening: ${listening.join(', ')}`));
  }
  return box;
}

const auditWords = {
  watch: 'started watching', leave: 'stopped watching', session_started: 'session started',
  session_ended: 'session ended', renewed: 'renewed', command: 'sent a command', result: 'command result',
};

function duration(ms) {
  const seconds = Math.round(Number(ms) / 1000);
  if (!Number.isFinite(seconds)) return '';
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** An audit entry's particulars in words: why a session ended and how long it ran, a command's name and outcome. */
function auditDetails(entry) {
  const parts = [];
  if (entry.name) parts.push(String(entry.name));
  if (entry.outcome) parts.push(String(entry.outcome));
  if (entry.reason) parts.push(`reason ${entry.reason}`);
  if (entry.duration_ms != null) parts.push(`after ${duration(entry.duration_ms)}`);
  if (Array.isArray(entry.viewers) && entry.viewers.length > 0) parts.push(`watched by ${entry.viewers.join(', ')}`);
  if (entry.id) parts.push(`id ${entry.id}`);
  return parts.join(' · ') || '—';
}

export class DevicePage {
  constructor(app, install, me, { onSignedOut }) {
    this.app = app;
    this.install = install;
    this.me = me;
    this.onSignedOut = onSignedOut;
    this.abort = new AbortController();
    this.closed = false;
    this.after = undefined;
    this.session = null;
    this.sessionReceivedAt = 0;
    this.results = new Map();
    this.newWhilePaused = 0;
    this.ticks = 0;
  }

  path(route, query) {
    return devicePath(this.app, this.install, route, query);
  }

  open() {
    const signal = this.abort.signal;
    $('device-title').textContent = this.install;
    $('device-facts').textContent = `${this.app} · installation ${this.install}`;
    $('audit').hidden = true;
    $('audit-body').replaceChildren();
    $('log').replaceChildren();
    $('results').replaceChildren();
    $('frame').replaceChildren(element('p', 'muted', 'No frame yet.'));
    for (const id of ['m-memory', 'm-thermal', 'm-battery', 'm-low-power', 'm-network']) $(id).textContent = '—';
    $('m-thermal').className = '';
    $('command-note').textContent = '';
    this.chart = new SeriesChart($('memory-chart'), { format: bytes });
    this.hideNotice();
    this.applySession(null);
    this.setViewers(null);
    this.updateLogCount();

    $('renew').addEventListener('click', () => this.renew(), { signal });
    $('leave').addEventListener('click', () => { location.hash = '#/devices'; }, { signal });
    for (const name of commandNames) {
      $(`cmd-${name}`).addEventListener('click', () => this.send(name), { signal });
    }
    $('log-severity').addEventListener('change', () => this.applyFilter(), { signal });
    $('log-filter').addEventListener('input', () => this.applyFilter(), { signal });
    $('log-pause').addEventListener('change', () => {
      if (!$('log-pause').checked) { this.newWhilePaused = 0; this.scrollToEnd(); this.updateLogCount(); }
    }, { signal });
    $('notice-action').addEventListener('click', () => this.noticeAction?.(), { signal });
    this.timer = setInterval(() => this.tick(), 1000);
    this.start();
  }

  /** Stops polling; `leave` also tells the backend this person stopped watching. */
  close({ leave }) {
    this.closed = true;
    this.abort.abort();
    clearInterval(this.timer);
    if (leave) {
      fetch(this.path('watch'), { method: 'DELETE', credentials: 'same-origin', keepalive: true }).catch(() => {});
    }
  }

  async start() {
    this.loadFacts();
    this.loadAudit();
    let data;
    try {
      ({ data } = await api('GET', this.path('watch'), undefined, { signal: this.abort.signal }));
      if (!data.watching) ({ data } = await api('POST', this.path('watch'), undefined, { signal: this.abort.signal }));
    } catch (error) {
      this.failed(error, 'Cannot watch this device');
      return;
    }
    this.setViewers(data.viewers);
    this.applySession(data.session);
    if (!data.session) {
      this.showNotice('Watching. A live session starts at the device’s next hello (every 15 to 120 seconds).', 'info');
    }
    this.poll();
  }

  failed(error, what) {
    if (error.name === 'AbortError' || this.closed) return;
    if (error.status === 401) { this.onSignedOut('Your sign-in ended; sign in again.'); return; }
    const text = error.code === 'no_device'
      ? 'This device is not present: it has not said hello recently, or its tester entry no longer counts.'
      : `${what}: ${error.message}.`;
    this.showNotice(text, 'ended', 'Try again', () => { this.hideNotice(); this.start(); });
  }

  async loadFacts() {
    try {
      const { data } = await api('GET', '/api/devices', undefined, { signal: this.abort.signal });
      const device = (data.devices ?? []).find((d) => d.app === this.app && d.install === this.install);
      if (!device) return;
      // Named as the team knows it: its tester id and model; a box without DMI data by its id.
      $('device-title').textContent = deviceName(device);
      const facts = [this.app, knownModel(device) ? null : 'model not reported', device.os,
        device.release && `release ${device.release}`,
        `unit ${device.foreground}${device.reason ? ` (${device.reason})` : ''}`, `installation ${this.install}`];
      $('device-facts').textContent = facts.filter(Boolean).join(' · ');
    } catch {
      // The facts are a courtesy; the stream says what matters.
    }
  }

  /** Who watched this device and what they sent (admins only): shown when the backend answers. */
  async loadAudit() {
    let answer;
    try {
      const device = `${this.app}/${this.install}`;
      answer = await apiText(`/api/audit?${new URLSearchParams({ device })}`, { signal: this.abort.signal });
    } catch {
      return;
    }
    if (this.closed) return;
    if (answer.status === 401) { this.onSignedOut('Your sign-in ended; sign in again.'); return; }
    if (answer.status !== 200) { $('audit').hidden = true; return; }
    const entries = [];
    for (const text of answer.text.split('\n')) {
      if (!text.trim()) continue;
      try {
        const entry = JSON.parse(text);
        if (isObject(entry)) entries.push(entry);
      } catch {
        // A line that is not JSON is skipped; the rest still shows.
      }
    }
    entries.sort((a, b) => (Number(b.at) || 0) - (Number(a.at) || 0));
    const rows = entries.slice(0, maxAuditRows).map((entry) => {
      const row = element('tr');
      row.dataset.type = String(entry.type ?? '');
      if (entry.name) row.dataset.name = String(entry.name);
      const time = element('td', null, `${new Date(Number(entry.at)).toLocaleDateString()} ${clockTime(entry.at)}`);
      row.append(time, element('td', null, auditWords[entry.type] ?? entry.type ?? '?'), element('td', null, entry.user ?? '—'),
        element('td', null, auditDetails(entry)));
      return row;
    });
    $('audit-body').replaceChildren(...rows);
    $('audit-empty').hidden = rows.length > 0;
    $('audit-count').textContent = entries.length > maxAuditRows
      ? `newest ${maxAuditRows} of ${entries.length}` : `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`;
    $('audit').hidden = false;
  }

  async poll() {
    let failures = 0;
    while (!this.closed) {
      let data;
      try {
        const query = this.after === undefined ? {} : { after: String(this.after) };
        ({ data } = await api('GET', this.path('stream', query), undefined, { signal: this.abort.signal }));
        if (failures > 0) this.hideNotice();
        failures = 0;
      } catch (error) {
        if (error.name === 'AbortError' || this.closed) return;
        if (error.status === 401) { this.onSignedOut('Your sign-in ended; sign in again.'); return; }
        if (error.status === 404) { this.notWatching(); return; }
        failures += 1;
        this.showNotice(`The stream was interrupted (${error.message}); reconnecting…`, 'info');
        await sleep(Math.min(1000 * 2 ** failures, 15000), this.abort.signal);
        continue;
      }
      if (!data) continue;
      if (data.watching === false) { this.notWatching(); return; }
      for (const event of data.events ?? []) this.handle(event);
      if (data.last_seq > 0) this.after = data.last_seq;
      if (data.dropped > 0) this.marker(`${data.dropped} events were dropped: this page fell behind the stream.`);
      if ('session' in data) this.applySession(data.session);
      if ('viewers' in data) this.setViewers(data.viewers);
    }
  }

  notWatching() {
    this.applySession(null);
    this.showNotice('You are no longer watching this device: a viewer that does not poll for 60 seconds is let go, '
      + 'and signing out elsewhere ends it too.', 'ended', 'Watch again', () => { this.hideNotice(); this.start(); });
  }

  handle(event) {
    switch (event.type) {
      case 'session_started':
        this.showNotice('A live session started; waiting for the device’s first frames.', 'info');
        this.marker('Session started.');
        break;
      case 'frames':
        this.frames(event.frames ?? {});
        break;
      case 'command':
        if (event.command) this.commandEntry(event.command.id, event.command.name, event.command.by);
        break;
      case 'result':
        if (event.result) this.resultEntry(event.result);
        break;
      case 'renewed':
        this.showNotice(`${event.by ?? 'A viewer'} renewed the session: it now ends at ${shortTime(event.until)}.`, 'info');
        break;
      case 'viewers':
        this.setViewers(event.viewers);
        break;
      case 'session_ended': {
        const reason = event.reason ?? 'ended';
        const words = endReasons[reason] ?? `The session ended (${reason}).`;
        this.marker(`Session ended: ${reason}.`);
        this.applySession(null);
        if (needsRestart.has(reason)) {
          this.showNotice(`Session ended (${reason}). ${words} The backend starts no new one until a viewer asks.`, 'ended',
            'Start a new session', () => this.renew());
        } else {
          this.showNotice(`Session ended (${reason}). ${words} While you watch, a new session starts at the device’s next hello.`,
            'ended');
        }
        break;
      }
      case 'gap':
        this.marker(`${event.missed ?? 'Some'} events were lost between the backend’s instances.`);
        break;
      case 'device_gone':
        this.applySession(null);
        this.showNotice('The device is gone: it stopped saying hello and its presence ran out.', 'ended');
        break;
      default:
        break;
    }
  }

  frames(frames) {
    if (frames.state === 'paused') {
      const why = pauseReasons[frames.reason] ?? frames.reason ?? 'no reason given';
      this.showNotice(`The device paused the session: ${why}. It resumes by itself.`, 'info');
    } else if (frames.state === 'live' && this.session?.state === 'paused') {
      this.hideNotice();
    } else if (frames.state === 'live' && $('notice-text').textContent.startsWith('A live session started')) {
      this.hideNotice();
    }
    if (Array.isArray(frames.lines)) this.appendLines(frames.lines);
    if (frames.lines_dropped > 0) this.marker(`${frames.lines_dropped} lines were not sent: the device sends at most 200 a second.`);
    if (isObject(frames.metrics)) this.metrics(frames.metrics);
    if (isObject(frames.wireframe)) $('frame').replaceChildren(renderFrame(frames.wireframe));
  }

  // MARK: the session

  applySession(session) {
    this.session = isObject(session) ? session : null;
    this.sessionReceivedAt = performance.now();
    const s = this.session;
    $('session-state').textContent = s ? `${s.state}${s.reason ? ` (${s.reason})` : ''}` : 'none';
    $('renew').disabled = !(s && s.until != null);
    const mayCommand = Boolean(this.me?.may_send_commands);
    for (const name of commandNames) $(`cmd-${name}`).disabled = !(s && mayCommand);
    if (!mayCommand) $('command-note').textContent = 'Your account may watch; only an admin sends commands.';
    else if (!s) $('command-note').textContent = 'Commands need a live session.';
    else if ($('command-note').textContent === 'Commands need a live session.') $('command-note').textContent = '';
    this.tick();
  }

  setViewers(count) {
    $('viewer-count').textContent = typeof count === 'number' ? `${count} viewer${count === 1 ? '' : 's'}` : '';
  }

  tick() {
    const s = this.session;
    let text = '';
    if (s && typeof s.remaining_ms === 'number') {
      const left = s.remaining_ms - (performance.now() - this.sessionReceivedAt);
      text = `${remaining(left)} left (ends ${shortTime(s.until)})`;
    } else if (s) {
      text = 'the 30 minutes start at the device’s first frames';
    }
    $('time-left').textContent = text;
    this.ticks += 1;
    if (this.ticks % 15 === 0 && !this.closed) { this.loadFacts(); this.loadAudit(); }
  }

  async renew() {
    try {
      const { data } = await api('POST', this.path('watch'), undefined, { signal: this.abort.signal });
      this.setViewers(data.viewers);
      this.applySession(data.session);
      if (data.session?.until) {
        this.showNotice(`Renewed: the session now ends at ${shortTime(data.session.until)}.`, 'info');
      } else if (!data.session) {
        this.showNotice('Asked for a new session: it starts at the device’s next hello.', 'info');
      }
    } catch (error) {
      this.failed(error, 'Cannot renew');
    }
  }

  // MARK: commands

  async send(name) {
    const button = $(`cmd-${name}`);
    button.disabled = true;
    $('command-note').textContent = '';
    try {
      const { data } = await api('POST', this.path('commands'), { name }, { signal: this.abort.signal });
      this.commandEntry(data.id, data.name, this.me.user);
    } catch (error) {
      if (error.name === 'AbortError') return;
      if (error.status === 401) { this.onSignedOut('Your sign-in ended; sign in again.'); return; }
      const words = {
        403: 'Your account may watch but not send commands.',
        409: 'The device is not in a live session.',
        429: 'The device already has 16 commands waiting.',
      };
      $('command-note').textContent = words[error.status] ?? `The command was not sent: ${error.message}.`;
    } finally {
      button.disabled = !(this.session && this.me?.may_send_commands);
    }
  }

  commandEntry(id, name, by) {
    if (typeof id !== 'string') return null;
    let entry = this.results.get(id);
    if (entry) return entry;
    const item = element('li');
    item.dataset.id = id;
    item.dataset.name = name;
    const head = element('div');
    const status = element('span', 'muted', 'sent; waiting for the device');
    head.append(element('strong', null, name), ` by ${by ?? '?'} · `, status);
    const body = element('div');
    item.append(head, body);
    $('results').prepend(item);
    entry = { item, status, body };
    this.results.set(id, entry);
    while ($('results').children.length > maxResults) {
      const last = $('results').lastElementChild;
      this.results.delete(last.dataset.id);
      last.remove();
    }
    return entry;
  }

  resultEntry(result) {
    const entry = this.commandEntry(result.id, result.name, null);
    if (!entry) return;
    entry.item.dataset.outcome = result.outcome;
    entry.status.className = `outcome-${result.outcome}`;
    entry.status.textContent = `${result.outcome} at ${shortTime(result.at)}`;
    const value = result.result;
    entry.body.replaceChildren();
    if (result.name === 'screenshot' && isObject(value) && isObject(value.wireframe)) {
      entry.body.append(renderFrame(value.wireframe));
    } else if (result.name === 'raise_log_level' && isObject(value) && typeof value.until === 'number') {
      entry.body.append(element('p', null, `The unit’s debug lines are captured and sent until ${shortTime(value.until)}.`));
    } else if (isObject(value)) {
      const list = element('dl', 'facts');
      for (const key of Object.keys(value).sort()) {
        const shown = typeof value[key] === 'object' ? JSON.stringify(value[key]) : value[key];
        list.append(element('dt', null, key), element('dd', null, shown));
      }
      entry.body.append(list);
    } else if (value !== null && value !== undefined) {
      entry.body.append(element('p', null, JSON.stringify(value)));
    }
  }

  // MARK: metrics

  metrics(m) {
    const memory = m['apsio.memory.footprint'];
    if (typeof memory === 'number') {
      $('m-memory').textContent = bytes(memory);
      this.chart.add(Number(m.t) || Date.now(), memory);
    }
    const thermal = m['apsio.device.thermal_state'];
    if (typeof thermal === 'string') {
      $('m-thermal').textContent = thermal;
      $('m-thermal').className = `thermal-${thermal}`;
    }
    const level = m['apsio.battery.level'];
    if (typeof level === 'number') {
      const state = m['apsio.battery.state'] ?? (m['apsio.battery.charging'] ? 'charging' : '');
      $('m-battery').textContent = `${Math.round(level * 100)} %${state ? ` · ${String(state).replace('_', ' ')}` : ''}`;
    } else {
      $('m-battery').textContent = 'none';
    }
    if (typeof m['apsio.device.low_power'] === 'boolean') $('m-low-power').textContent = m['apsio.device.low_power'] ? 'on' : 'off';
    const network = m['network.connection.type'];
    if (typeof network === 'string') $('m-network').textContent = `${network}${m['apsio.network.vpn'] ? ' · VPN' : ''}`;
  }

  // MARK: log lines

  appendLines(lines) {
    const log = $('log');
    const fragment = document.createDocumentFragment();
    for (const line of lines) {
      if (!isObject(line)) continue;
      const severity = Number(line.severity) || 9;
      const item = element('li', severityClass(severity));
      item.dataset.severity = String(severity);
      const body = typeof line.body === 'string' ? line.body : JSON.stringify(line.body);
      const time = element('span', 't', clockTime(line.t));
      time.title = new Date(Number(line.t)).toISOString();
      const text = element('span', 'body', body);
      const attributes = isObject(line.attributes) ? Object.entries(line.attributes) : [];
      if (attributes.length > 0) {
        text.append(' ', element('span', 'attrs', attributes.map(([k, v]) => `${k}=${v}`).join(' ')));
      }
      item.dataset.text = `${body} ${attributes.map(([k, v]) => `${k}=${v}`).join(' ')}`.toLowerCase();
      item.append(time, element('span', 'sev', severityName(severity)), text);
      item.hidden = !this.matches(item);
      fragment.append(item);
    }
    this.appendToLog(fragment);
    if ($('log-pause').checked) this.newWhilePaused += lines.length;
    this.updateLogCount();
    while (log.children.length > maxLogLines) log.firstElementChild.remove();
  }

  /** A line that is not the device's: a session's start or end, a gap. Never filtered out. */
  marker(text) {
    const item = element('li', 'gap');
    item.append(element('span', 't', clockTime(Date.now())), element('span', 'gap', text));
    this.appendToLog(item);
  }

  appendToLog(node) {
    $('log').append(node);
    if (!$('log-pause').checked) this.scrollToEnd();
  }

  scrollToEnd() {
    const log = $('log');
    log.scrollTop = log.scrollHeight;
  }

  matches(item) {
    if (!item.dataset.severity) return true;
    const min = Number($('log-severity').value) || 1;
    const text = $('log-filter').value.trim().toLowerCase();
    return Number(item.dataset.severity) >= min && (text === '' || item.dataset.text.includes(text));
  }

  applyFilter() {
    for (const item of $('log').children) item.hidden = !this.matches(item);
    this.updateLogCount();
    if (!$('log-pause').checked) this.scrollToEnd();
  }

  updateLogCount() {
    let lines = 0;
    let shown = 0;
    for (const item of $('log').children) {
      if (!item.dataset.severity) continue;
      lines += 1;
      if (!item.hidden) shown += 1;
    }
    let text = shown === lines ? `${lines} lines` : `${shown} of ${lines} lines`;
    if ($('log-pause').checked && this.newWhilePaused > 0) text += `, ${this.newWhilePaused} new below`;
    $('log-count').textContent = text;
  }

  // MARK: notices

  showNotice(text, kind = 'info', actionLabel, action) {
    $('notice').hidden = false;
    $('notice').className = `notice ${kind}`;
    $('notice-text').textContent = text;
    $('notice-action').hidden = !actionLabel;
    $('notice-action').textContent = actionLabel ?? '';
    this.noticeAction = action;
  }

  hideNotice() {
    $('notice').hidden = true;
    this.noticeAction = undefined;
  }
}
