// A device's page: joins its viewers, long-polls its stream, and shows what the session sends:
// log lines, metrics, the latest process frame, command results, and why a session ended.
import { api, apiText, devicePath } from './api.js';
import { SeriesChart } from './chart.js';
import { CommandLog, handleSessionEvent, isObject, renderFrame, sleep } from './session.js';
import { bytes, clockTime, deviceName, droppedGap, element, knownModel, remaining, severityClass, severityName, shortTime } from './format.js';

const $ = (id) => document.getElementById(id);
const maxLogLines = 2000;
const maxResults = 20;
const maxAuditRows = 200;
const commandNames = ['screenshot', 'diagnostics', 'raise_log_level'];

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
    this.commands = new CommandLog($('results'), maxResults);
    this.noticeUntilLive = false;
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
    // The live tail of this one device: a link a person can send, as for several.
    $('log-live-tail').href = `#/watch/${encodeURIComponent(this.app)}/${encodeURIComponent(this.install)}`;
    $('audit').hidden = true;
    $('audit-body').replaceChildren();
    $('log').replaceChildren();
    this.commands.clear();
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
      this.notice('Watching. A live session starts at the device’s next hello (every 15 to 120 seconds).', 'info');
    }
    this.poll();
  }

  failed(error, what) {
    if (error.name === 'AbortError' || this.closed) return;
    if (error.status === 401) { this.onSignedOut('Your sign-in ended; sign in again.'); return; }
    const text = error.code === 'no_device'
      ? 'This device is not present: it has not said hello recently, or its tester entry no longer counts.'
      : `${what}: ${error.message}.`;
    this.notice(text, 'ended', 'Try again', () => { this.hideNotice(); this.start(); });
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
        this.notice(`The stream was interrupted (${error.message}); reconnecting…`, 'info');
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
    this.notice('You are no longer watching this device: a viewer that does not poll for 60 seconds is let go, '
      + 'and signing out elsewhere ends it too.', 'ended', 'Watch again', () => { this.hideNotice(); this.start(); });
  }

  handle(event) {
    handleSessionEvent(event, this);
  }

  lines(lines) {
    this.appendLines(lines);
  }

  /** What only the device page shows of a frames event: metrics and the process frame. */
  frameDetails(frames) {
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
        this.notice(`Renewed: the session now ends at ${shortTime(data.session.until)}.`, 'info');
      } else if (!data.session) {
        this.notice('Asked for a new session: it starts at the device’s next hello.', 'info');
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
      this.commands.entry(data.id, data.name, this.me.user);
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
      const gap = droppedGap(line.attributes);
      if (gap) {
        item.classList.add('dropped');
        text.prepend(element('span', 'gap', gap), ' ');
      }
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

  notice(text, kind = 'info', actionLabel, action) {
    $('notice').hidden = false;
    $('notice').className = `notice ${kind}`;
    $('notice-text').textContent = text;
    $('notice-action').hidden = !actionLabel;
    $('notice-action').textContent = actionLabel ?? '';
    this.noticeAction = action;
    // Set again by the caller for a notice that the session's live frames make moot.
    this.noticeUntilLive = false;
  }

  hideNotice() {
    $('notice').hidden = true;
    this.noticeAction = undefined;
  }
}
