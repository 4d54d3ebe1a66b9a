// Watching several devices together (`#/watch/APP/INSTALL,APP/INSTALL,…`): each device is its
// own viewer with its own live session, its 30 minutes, renewal and stop; their lines show in a
// panel per device or in one merged tail where each line names its device, and every command's
// result goes to its own device's panel only.
import { api, ApiError, devicePath } from './api.js';
import { CommandLog, handleSessionEvent, isObject, sleep } from './session.js';
import { clockTime, deviceHash, deviceKey, deviceName, droppedGap, element, knownModel, remaining, severityClass, shortTime } from './format.js';
import { maxWatched } from './fleet.js';
import { LineBuffer } from './buffer.js';
import { contextOf } from './context.js';
import { Delivery, lagText } from './delivery.js';
import { columnText, columns, defaultColumns, lineDetails } from './fields.js';
import { Highlights, maxTerms } from './highlight.js';
import { installKeys, keyList } from './keys.js';
import { parseWatchQuery, watchQuery } from './links.js';
import { VirtualLog } from './vlist.js';

const $ = (id) => document.getElementById(id);
const commandNames = [['screenshot', 'Screenshot'], ['diagnostics', 'Diagnostics'], ['raise_log_level', 'Raise log level']];
const maxPanelLines = 500;
const maxMergedLines = 1000;
/** Each box's lines the page keeps for context and counts, past what its panel shows. */
const maxBoxLines = 1000;
const maxResults = 10;
/** Browsers hold 6 HTTP/1.1 connections per host: per-device stream polls take at most 4 of them,
 * leaving room for commands, renewals and the rest of the page. */
const maxPerDevicePolls = 4;
/** With more devices than polls, each poll gives up its connection after this long. */
const pollTurn = 6000;

/** The devices a `#/watch/…` fragment names, at most 8, each once. */
export function parseWatchList(text) {
  const seen = new Set();
  const list = [];
  for (const part of text.split(',')) {
    const [app, install, extra] = part.split('/');
    if (!app || !install || extra !== undefined) continue;
    let decoded;
    try { decoded = { app: decodeURIComponent(app), install: decodeURIComponent(install) }; } catch { continue; }
    const key = deviceKey(decoded.app, decoded.install);
    if (seen.has(key) || list.length >= maxWatched) continue;
    seen.add(key);
    list.push(decoded);
  }
  return list;
}

class Slots {
  constructor(count) { this.free = count; this.queue = []; }
  acquire() {
    if (this.free > 0) { this.free -= 1; return Promise.resolve(); }
    return new Promise((resolve) => this.queue.push(resolve));
  }
  release() {
    const next = this.queue.shift();
    if (next) next(); else this.free += 1;
  }
}

/**
 * The streams of every watched device. `POST /api/streams` fetches them all in one held request;
 * a backend without it (404) is polled per device, at most 4 polls at a time.
 */
class StreamPump {
  constructor(page) {
    this.page = page;
    this.mode = 'multi';
    this.current = null;
    this.slots = new Slots(maxPerDevicePolls);
    this.wakeUp = null;
  }

  start() { this.multi(); }

  /** The set of devices changed: ask again for the new set. */
  wake() {
    if (this.mode === 'multi') {
      this.current?.abort();
      this.wakeUp?.();
    } else {
      for (const watch of this.page.watches) if (watch.polling && !watch.looping) this.single(watch);
    }
  }

  async multi() {
    const signal = this.page.abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      const polling = this.page.watches.filter((w) => w.polling);
      if (polling.length === 0) {
        await new Promise((resolve) => { this.wakeUp = resolve; signal.addEventListener('abort', resolve, { once: true }); });
        this.wakeUp = null;
        continue;
      }
      const request = new AbortController();
      this.current = request;
      const stop = () => request.abort();
      signal.addEventListener('abort', stop, { once: true });
      const devices = polling.map((w) => (w.after === undefined ? { app: w.app, install: w.install }
        : { app: w.app, install: w.install, after: w.after }));
      try {
        const { data } = await api('POST', '/api/streams', { devices }, { signal: request.signal });
        failures = 0;
        this.page.setNote('One held request fetches every device’s stream (POST /api/streams).');
        for (const entry of Array.isArray(data?.streams) ? data.streams : []) {
          this.page.find(entry.app, entry.install)?.streamReply(entry);
        }
      } catch (error) {
        if (error.name === 'AbortError') continue;
        if (error.status === 401) { this.page.signedOut(); return; }
        if (error.status === 404 || error.status === 405) {
          // This backend streams one device per request: poll each, a few at a time.
          this.mode = 'single';
          this.page.setNote(`Each device’s stream is polled on its own, ${maxPerDevicePolls} at a time.`);
          for (const watch of this.page.watches) if (watch.polling) this.single(watch);
          return;
        }
        failures += 1;
        this.page.setNote(`The streams were interrupted (${error.message}); reconnecting…`);
        await sleep(Math.min(1000 * 2 ** failures, 15000), signal);
      } finally {
        signal.removeEventListener('abort', stop);
        if (this.current === request) this.current = null;
      }
    }
  }

  async single(watch) {
    watch.looping = true;
    let failures = 0;
    try {
      while (watch.polling) {
        await this.slots.acquire();
        // The watch's signal of now: a device watched again has a new one.
        const signal = watch.abort.signal;
        const request = new AbortController();
        const stop = () => request.abort();
        signal.addEventListener('abort', stop, { once: true });
        const crowded = this.page.watches.filter((w) => w.polling).length > maxPerDevicePolls;
        const timer = crowded ? setTimeout(() => request.abort(), pollTurn) : null;
        try {
          const query = watch.after === undefined ? {} : { after: String(watch.after) };
          const { data } = await api('GET', devicePath(watch.app, watch.install, 'stream', query), undefined, { signal: request.signal });
          failures = 0;
          watch.streamReply({ ...(data ?? {}), status: 200 });
        } catch (error) {
          // Given up for another device's turn, or stopped: the loop's condition says which.
          if (error.name === 'AbortError') continue;
          if (error.status === 401) { this.page.signedOut(); return; }
          if (error.status === 404) { watch.streamReply({ status: 404, error: error.code, message: error.message }); continue; }
          failures += 1;
          watch.notice(`The stream was interrupted (${error.message}); reconnecting…`, 'info');
          await sleep(Math.min(1000 * 2 ** failures, 15000), signal);
        } finally {
          clearTimeout(timer);
          signal.removeEventListener('abort', stop);
          this.slots.release();
        }
      }
    } finally {
      watch.looping = false;
    }
  }
}

/** One watched device: its viewer, session, panel and share of the merged tail. */
class DeviceWatch {
  constructor(page, app, install) {
    this.page = page;
    this.app = app;
    this.install = install;
    this.key = deviceKey(app, install);
    this.abort = new AbortController();
    this.polling = false;
    this.looping = false;
    this.after = undefined;
    this.session = null;
    this.sessionReceivedAt = 0;
    this.facts = null;
    this.buffer = new LineBuffer(maxBoxLines);
    this.delivery = new Delivery();
    this.build();
  }

  path(route, query) {
    return devicePath(this.app, this.install, route, query);
  }

  get name() {
    return this.facts ? deviceName(this.facts) : this.install;
  }

  build() {
    const panel = element('section', 'watch-panel pane');
    panel.dataset.app = this.app;
    panel.dataset.install = this.install;
    panel.dataset.key = this.key;
    const head = element('div', 'panel-head');
    this.title = element('a', 'panel-name', this.install);
    this.title.href = deviceHash(this.app, this.install);
    this.subtitle = element('p', 'muted panel-facts', this.app);
    head.append(element('h2'), this.subtitle);
    head.firstChild.append(this.title);

    const bar = element('div', 'session-bar');
    this.stateText = element('strong', 'panel-state', '—');
    this.timeLeft = element('span', 'muted');
    this.viewerCount = element('span', 'muted');
    this.renewButton = element('button', 'panel-renew', 'Renew');
    this.renewButton.type = 'button';
    this.renewButton.disabled = true;
    this.renewButton.title = 'Sets this session’s end to 30 minutes from now';
    this.stopButton = element('button', 'quiet panel-stop', 'Stop');
    this.stopButton.type = 'button';
    const session = element('span', null, 'Session: ');
    session.append(this.stateText);
    bar.append(session, this.timeLeft, this.viewerCount, element('span', 'spacer'), this.renewButton, this.stopButton);

    this.noticeBox = element('div', 'notice panel-notice');
    this.noticeBox.hidden = true;
    this.noticeText = element('span');
    this.noticeButton = element('button');
    this.noticeButton.type = 'button';
    this.noticeButton.hidden = true;
    this.noticeBox.append(this.noticeText, this.noticeButton);

    const commands = element('div', 'commands');
    this.commandButtons = {};
    for (const [name, label] of commandNames) {
      const button = element('button', 'panel-command', label);
      button.type = 'button';
      button.dataset.command = name;
      button.disabled = true;
      this.commandButtons[name] = button;
      commands.append(button);
    }
    this.commandNote = element('span', 'muted');
    commands.append(this.commandNote);
    this.resultList = element('ol', 'results panel-results');
    this.resultList.setAttribute('aria-label', 'Command results');
    this.commands = new CommandLog(this.resultList, maxResults, { framed: true });
    this.log = element('ol', 'log panel-log');
    this.log.setAttribute('aria-live', 'off');
    panel.append(head, bar, this.buildDelivery(), this.noticeBox, commands, this.resultList, this.log);
    this.panel = panel;

    const signal = this.page.abort.signal;
    this.renewButton.addEventListener('click', () => this.renew(), { signal });
    this.stopButton.addEventListener('click', () => (this.polling || this.status === 'joining' ? this.stop() : this.start()), { signal });
    this.noticeButton.addEventListener('click', () => this.noticeAction?.(), { signal });
    for (const [name] of commandNames) this.commandButtons[name].addEventListener('click', () => this.send(name), { signal });
  }

  /** The panel's row of how its lines arrive: lag, rate, and drops where they happened. */
  buildDelivery() {
    const row = element('div', 'panel-delivery');
    this.lagText = element('span', 'lag', 'lag —');
    this.lagText.title = 'The median, over the last minute, of each line’s arrival here (this browser’s clock) '
      + 'less its journal time (the box’s clock)';
    this.rateText = element('span', 'rate', '0 lines/s');
    this.dropText = element('span', 'drops');
    this.dropDevice = element('span', 'drop-device', '0');
    this.dropBackend = element('span', 'drop-backend', '0');
    this.dropPage = element('span', 'drop-page', '0');
    this.dropText.append('dropped: box ', this.dropDevice, ' · backend ', this.dropBackend, ' · page ', this.dropPage);
    this.lagFlag = element('strong', 'lag-flag');
    this.lagFlag.hidden = true;
    row.append(this.lagText, this.rateText, this.dropText, this.lagFlag);
    row.dataset.lag = 'none';
    return row;
  }

  /** Once a second: the lag's median, the rate and the drop counts. */
  showDelivery(nowMs) {
    const { state, p50, rate } = this.delivery.summary(nowMs);
    const row = this.lagText.parentElement;
    row.dataset.lag = state;
    this.panel.classList.toggle('lagging', state === 'lagging');
    this.lagText.textContent = state === 'none' ? 'lag —' : `lag ${lagText(p50)}`;
    this.rateText.textContent = `${rate < 10 ? rate.toFixed(1) : Math.round(rate)} lines/s`;
    this.lagFlag.hidden = state !== 'lagging' && state !== 'skew';
    this.lagFlag.textContent = state === 'lagging'
      ? `lagging ${lagText(p50)} behind: the box’s network or its backlog`
      : state === 'skew' ? `clock skew: the box’s clock is about ${(-p50 / 1000).toFixed(1)} s ahead of this browser’s` : '';
    const device = this.delivery.device;
    this.dropDevice.textContent = String(this.delivery.deviceDropped);
    this.dropDevice.title = `${device.frameCap} over the frame cap (200 a second), ${device.rateLimit} by RateLimit=, `
      + `${device.journald} by journald`;
    this.dropBackend.textContent = String(this.delivery.backendEvents);
    this.dropBackend.title = 'events the backend let go because this page fell behind its stream';
    this.dropPage.textContent = String(this.buffer.fellOut);
    this.dropPage.title = `lines that fell out of this page’s buffer of ${maxBoxLines} for this box`;
  }

  setFacts(device) {
    if (!device) return;
    this.facts = device;
    this.title.textContent = deviceName(device);
    this.title.title = `installation ${this.install}`;
    const facts = [this.app, knownModel(device) ? null : 'model not reported', device.os, device.release && `release ${device.release}`];
    this.subtitle.textContent = facts.filter(Boolean).join(' · ');
    for (const tag of this.page.mergedLog.querySelectorAll(`li[data-key="${CSS.escape(this.key)}"] .dev`)) tag.textContent = this.name;
  }

  setStatus(status) {
    this.status = status;
    this.panel.dataset.status = status;
    this.stopButton.textContent = status === 'watching' || status === 'joining' ? 'Stop' : 'Watch again';
  }

  async start() {
    this.abort = new AbortController();
    this.setStatus('joining');
    this.hideNotice();
    let data;
    try {
      ({ data } = await api('GET', this.path('watch'), undefined, { signal: this.abort.signal }));
      if (!data.watching) ({ data } = await api('POST', this.path('watch'), undefined, { signal: this.abort.signal }));
    } catch (error) {
      if (error.name === 'AbortError') return;
      if (error.status === 401) { this.page.signedOut(); return; }
      this.setStatus('lost');
      this.applySession(null);
      const text = error.code === 'no_device'
        ? 'This device is not present: it has not said hello recently, or its tester entry no longer counts.'
        : `Cannot watch this device: ${error.message}.`;
      this.notice(text, 'ended', 'Try again', () => this.start());
      return;
    }
    this.setViewers(data.viewers);
    this.applySession(data.session);
    if (!data.session) {
      this.notice('Watching. A live session starts at the device’s next hello.', 'info');
      this.noticeUntilLive = true;
    }
    this.setStatus('watching');
    this.polling = true;
    this.page.pump.wake();
  }

  /** Leaves this device's viewers; the others go on. */
  stop() {
    this.polling = false;
    this.abort.abort();
    this.setStatus('stopped');
    this.applySession(null);
    this.setViewers(null);
    this.page.pump.wake();
    this.notice('You stopped watching this device. Its session ends when no one else watches.', 'ended');
    this.page.marker(this, 'Stopped watching.');
    return api('DELETE', this.path('watch')).catch(() => {});
  }

  /** Closing the page inside the viewer leaves, as a device's page does; a reload does not. */
  close({ leave }) {
    const wasWatching = this.polling || this.status === 'joining';
    this.polling = false;
    this.abort.abort();
    if (leave && wasWatching) {
      fetch(this.path('watch'), { method: 'DELETE', credentials: 'same-origin', keepalive: true }).catch(() => {});
    }
  }

  /** One device's part of a stream answer: as `GET …/stream` answers, plus its status. */
  streamReply(entry) {
    if (!this.polling) return;
    // 204: this device's poll was let go when another device answered first; nothing to show.
    if (entry.status === 204) return;
    if (entry.status >= 500) {
      // The backend cannot reach its state for now: this device is still watched, and asked
      // for again with the others.
      this.notice(`The stream was interrupted (${entry.message ?? entry.status}); reconnecting…`, 'info');
      return;
    }
    if (entry.status !== undefined && entry.status !== 200) {
      this.notWatching(entry.error === 'no_device'
        ? 'The device is gone: it is no longer present.'
        : `You are no longer watching this device (${entry.message ?? entry.error ?? entry.status}).`);
      return;
    }
    if (entry.watching === false) {
      this.notWatching('You are no longer watching this device: a viewer that does not poll for 60 seconds is let go.');
      return;
    }
    if (this.noticeText.textContent.startsWith('The stream was interrupted')) this.hideNotice();
    for (const event of Array.isArray(entry.events) ? entry.events : []) this.handle(event);
    if (entry.last_seq > 0) this.after = entry.last_seq;
    if (entry.dropped > 0) {
      this.delivery.backendEvents += entry.dropped;
      this.page.marker(this, `${entry.dropped} events were dropped: this page fell behind the stream.`);
    }
    if ('session' in entry) this.applySession(entry.session);
    if ('viewers' in entry) this.setViewers(entry.viewers);
  }

  notWatching(text) {
    this.polling = false;
    this.setStatus('lost');
    this.applySession(null);
    this.notice(text, 'ended', 'Watch again', () => this.start());
    this.page.pump.wake();
  }

  handle(event) {
    // The box's own count of lines it did not send (its frame cap), counted before it is shown.
    const dropped = event?.type === 'frames' && isObject(event.frames) ? Number(event.frames.lines_dropped) : 0;
    if (dropped > 0) this.delivery.device.frameCap += dropped;
    handleSessionEvent(event, this);
  }

  marker(text) {
    this.page.marker(this, text);
  }

  lines(lines) {
    this.page.addLines(this, lines);
  }

  sessionEnded(reason) {
    this.panel.dataset.ended = reason;
  }

  applySession(session) {
    this.session = isObject(session) ? session : null;
    this.sessionReceivedAt = performance.now();
    const s = this.session;
    if (s) delete this.panel.dataset.ended;
    this.stateText.textContent = s ? `${s.state}${s.reason ? ` (${s.reason})` : ''}` : 'none';
    this.panel.dataset.session = s ? s.state : 'none';
    this.renewButton.disabled = !(s && s.until != null && this.polling);
    const may = Boolean(this.page.me?.may_send_commands);
    for (const [name] of commandNames) this.commandButtons[name].disabled = !(s && may && this.status !== 'stopped');
    if (!may) this.commandNote.textContent = 'Only an admin sends commands.';
    this.tick();
  }

  setViewers(count) {
    this.viewerCount.textContent = typeof count === 'number' ? `${count} viewer${count === 1 ? '' : 's'}` : '';
  }

  tick() {
    const s = this.session;
    let text = '';
    if (s && typeof s.remaining_ms === 'number') {
      text = `${remaining(s.remaining_ms - (performance.now() - this.sessionReceivedAt))} left`;
    } else if (s) {
      text = '30 minutes from the first frames';
    }
    if (this.timeLeft.textContent !== text) this.timeLeft.textContent = text;
  }

  async renew() {
    if (this.status !== 'watching') return;
    try {
      const { data } = await api('POST', this.path('watch'), undefined, { signal: this.abort.signal });
      this.setViewers(data.viewers);
      this.applySession(data.session);
      if (data.session?.until) this.notice(`Renewed: ends at ${shortTime(data.session.until)}.`, 'info');
      else if (!data.session) this.notice('Asked for a new session: it starts at the device’s next hello.', 'info');
    } catch (error) {
      if (error.name === 'AbortError') return;
      if (error.status === 401) { this.page.signedOut(); return; }
      this.notice(`Cannot renew: ${error.message}.`, 'ended');
    }
  }

  async send(name) {
    const button = this.commandButtons[name];
    button.disabled = true;
    this.commandNote.textContent = '';
    try {
      const { data } = await api('POST', this.path('commands'), { name }, { signal: this.abort.signal });
      this.commands.entry(data.id, data.name, this.page.me?.user);
    } catch (error) {
      if (error.name === 'AbortError') return;
      if (error.status === 401) { this.page.signedOut(); return; }
      const words = { 403: 'Your account may watch but not send commands.', 409: 'Not in a live session.', 429: '16 commands already wait.' };
      this.commandNote.textContent = words[error.status] ?? `Not sent: ${error.message}.`;
    } finally {
      button.disabled = !(this.session && this.page.me?.may_send_commands && this.status === 'watching');
    }
  }

  notice(text, kind = 'info', actionLabel, action) {
    this.noticeBox.hidden = false;
    this.noticeBox.className = `notice panel-notice ${kind}`;
    this.noticeText.textContent = text;
    this.noticeButton.hidden = !actionLabel;
    this.noticeButton.textContent = actionLabel ?? '';
    this.noticeAction = action;
    // Set by the caller for a notice that the session's live frames make moot.
    this.noticeUntilLive = false;
  }

  hideNotice() {
    this.noticeBox.hidden = true;
    this.noticeAction = undefined;
  }
}

export class WatchPage {
  constructor(list, query, me, { onSignedOut, knownDevice }) {
    this.list = list;
    this.state = parseWatchQuery(query);
    this.view = this.state.view;
    this.me = me;
    this.onSignedOut = onSignedOut;
    this.knownDevice = knownDevice;
    this.abort = new AbortController();
    this.closed = false;
    this.watches = [];
    this.mergedLog = $('merged-log');
    this.merged = new LineBuffer(maxMergedLines);
    this.newWhilePaused = 0;
    this.pausedBy = null;
    this.n = 0;
    this.highlights = new Highlights();
    this.records = new WeakMap();
    this.filter = { min: 1, text: '' };
    this.focused = -1;
    this.renderQueued = false;
  }

  /** The fragment this page is at, so a link shows the same devices, view, filter, highlights
   * and columns. */
  static hash(list, state) {
    const parts = list.map(({ app, install }) => `${encodeURIComponent(app)}/${encodeURIComponent(install)}`);
    return `#/watch/${parts.join(',')}${watchQuery(state, defaultColumns)}`;
  }

  sameAs(list) {
    return list.length === this.watches.length && list.every((d, i) => this.watches[i].key === deviceKey(d.app, d.install));
  }

  open() {
    const signal = this.abort.signal;
    this.mergedLog.replaceChildren();
    $('watch-panels').replaceChildren();
    this.pump = new StreamPump(this);
    for (const { app, install } of this.list) {
      const watch = new DeviceWatch(this, app, install);
      watch.setFacts(this.knownDevice(app, install));
      this.watches.push(watch);
      $('watch-panels').append(watch.panel);
    }
    // What each log shows: the merged tail from the page's merged buffer, a panel from its box's,
    // each a virtualised list that holds its lines and draws only those in sight. `floor`: what
    // Clear left behind; `rendered`: the last record the log took.
    const view = (log, buffer, max, merged) => ({
      buffer, max, merged, rendered: 0, floor: 0,
      vlist: new VirtualLog(log, {
        max, make: (record) => this.item(record, merged), matches: (record) => this.matches(record),
        schedule: () => this.scheduleRender(), signal,
      }),
    });
    this.views = [view(this.mergedLog, this.merged, maxMergedLines, true),
      ...this.watches.map((w) => view(w.log, w.buffer, maxPanelLines, false))];
    $('watch-title').textContent = `Watching ${this.watches.length} device${this.watches.length === 1 ? '' : 's'} together`;
    this.buildColumns();
    this.applyState(this.state);
    $('view-grid').addEventListener('click', () => this.setView('grid', true), { signal });
    $('view-merged').addEventListener('click', () => this.setView('merged', true), { signal });
    $('renew-all').addEventListener('click', () => { for (const w of this.watches) w.renew(); }, { signal });
    $('stop-all').addEventListener('click', () => { for (const w of this.watches) if (w.polling || w.status === 'joining') w.stop(); }, { signal });
    $('watch-severity').addEventListener('change', () => this.applyFilter(), { signal });
    $('watch-filter').addEventListener('input', () => this.applyFilter(), { signal });
    $('watch-pause').addEventListener('change', () => this.setPaused($('watch-pause').checked, 'you'), { signal });
    $('watch-clear').addEventListener('click', () => this.clear(), { signal });
    $('watch-highlight').addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      if (this.highlights.add($('watch-highlight').value)) {
        $('watch-highlight').value = '';
        this.highlightsChanged();
      }
    }, { signal });
    $('highlight-terms').addEventListener('click', (event) => {
      const chip = event.target instanceof Element ? event.target.closest('button[data-term]') : null;
      if (!chip) return;
      this.highlights.remove(chip.dataset.term);
      this.highlightsChanged();
    }, { signal });
    $('watch-columns').addEventListener('change', () => this.columnsChanged(), { signal });
    // A click on a line shows its attributes and context; a click that ends a selection does not,
    // nor a double-click that selects a word: the details wait for the double-click's time, so
    // that they do not open and move the page under the second click.
    let pending = null;
    $('view-watch').addEventListener('click', (event) => {
      clearTimeout(pending);
      const item = event.target instanceof Element ? event.target.closest('.log li[data-n]') : null;
      if (!item || event.detail > 1) return;
      const record = this.records.get(item);
      if (!record) return;
      pending = setTimeout(() => { if (!this.closed && document.getSelection().isCollapsed) this.showDetails(record); }, 300);
    }, { signal });
    $('line-details-close').addEventListener('click', () => this.hideDetails(), { signal });
    // Selecting text in a log, or copying it, pauses the tail: the lines being read stay put.
    document.addEventListener('selectionchange', () => {
      const selection = document.getSelection();
      if (selection.isCollapsed || $('watch-pause').checked) return;
      const node = selection.anchorNode instanceof Element ? selection.anchorNode : selection.anchorNode?.parentElement;
      if (node?.closest('#view-watch .log')) this.setPaused(true, 'selection');
    }, { signal });
    document.addEventListener('copy', () => { if (!$('watch-pause').checked) this.setPaused(true, 'selection'); }, { signal });
    $('keys-help-button').addEventListener('click', () => this.toggleHelp(), { signal });
    $('keys-help-close').addEventListener('click', () => this.toggleHelp(false), { signal });
    $('keys-list').replaceChildren(...keyList.flatMap(([key, words]) => [element('dt', null, key), element('dd', null, words)]));
    installKeys({
      '/': () => $('watch-filter').focus(),
      Space: () => this.setPaused(!$('watch-pause').checked, 'you'),
      h: () => $('watch-highlight').focus(),
      j: () => this.focusBox(1),
      k: () => this.focusBox(-1),
      c: () => this.clear(),
      '?': () => this.toggleHelp(),
      Escape: () => { this.toggleHelp(false); this.hideDetails(); },
    }, signal);
    this.timer = setInterval(() => this.tick(), 1000);
    this.ticks = 0;
    this.setNote('');
    this.updateCount();
    this.loadFacts();
    this.pump.start();
    for (const watch of this.watches) watch.start();
  }

  /** `keep`: the key of a device the next page watches, which this page does not leave. */
  close({ leave, keep }) {
    this.closed = true;
    for (const watch of this.watches) watch.close({ leave: leave && watch.key !== keep });
    this.abort.abort();
    clearInterval(this.timer);
    this.hideDetails();
    this.toggleHelp(false);
    // The page's elements serve the next watch page: it starts unpaused.
    $('watch-pause').checked = false;
    $('view-watch').classList.remove('paused');
  }

  signedOut() {
    if (!this.closed) this.onSignedOut('Your sign-in ended; sign in again.');
  }

  find(app, install) {
    return this.watches.find((w) => w.app === app && w.install === install) ?? null;
  }

  setNote(text) {
    if ($('watch-note').textContent !== text) $('watch-note').textContent = text;
  }

  /** A link's state (or a reload's): the view, filter, severity, highlights and columns. */
  applyState(state) {
    this.state = state;
    $('watch-filter').value = state.q;
    $('watch-severity').value = state.sev;
    this.highlights.set(state.hl);
    const cols = state.cols ?? defaultColumns;
    for (const box of $('watch-columns').querySelectorAll('input[data-col]')) box.checked = cols.includes(box.dataset.col);
    this.showColumns();
    this.showTerms();
    this.view = state.view;
    this.setView(state.view);
    this.filter = { min: Number(state.sev) || 1, text: state.q.trim().toLowerCase() };
    this.rebuild();
    this.saveState();
  }

  currentState() {
    return {
      view: this.view, q: $('watch-filter').value.trim(), sev: $('watch-severity').value, hl: this.highlights.list(),
      cols: [...$('watch-columns').querySelectorAll('input[data-col]')].filter((b) => b.checked).map((b) => b.dataset.col),
    };
  }

  /** The fragment follows what the person set, without a history entry per key typed. */
  saveState() {
    const hash = WatchPage.hash(this.list, this.currentState());
    if (location.hash !== hash) history.replaceState(null, '', hash);
    $('watch-link').href = hash;
  }

  setView(view, byHand = false) {
    this.view = view;
    $('view-watch').classList.toggle('watch-merged', view === 'merged');
    $('view-watch').classList.toggle('watch-grid', view === 'grid');
    $('view-grid').setAttribute('aria-pressed', String(view === 'grid'));
    $('view-merged').setAttribute('aria-pressed', String(view === 'merged'));
    if (byHand) this.saveState(); else $('watch-link').href = WatchPage.hash(this.list, this.currentState());
    // A log that shows again opens at its end, whatever it was scrolled to before it was hidden.
    for (const v of this.views ?? []) if (v.merged === (view === 'merged')) v.vlist.reveal();
    this.render();
  }

  async loadFacts() {
    try {
      const { data } = await api('GET', '/api/devices', undefined, { signal: this.abort.signal });
      for (const device of Array.isArray(data?.devices) ? data.devices : []) this.find(device.app, device.install)?.setFacts(device);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.signedOut();
      // Otherwise the names wait for the next try; the streams say what matters.
    }
  }

  tick() {
    const now = Date.now();
    for (const watch of this.watches) { watch.tick(); watch.showDelivery(now); }
    this.ticks += 1;
    if (this.ticks % 15 === 0 && !this.closed) this.loadFacts();
  }

  // MARK: lines: records in the page's buffers, drawn once a frame into the logs on screen

  addLines(watch, lines) {
    const now = Date.now();
    let count = 0;
    for (const line of lines) {
      if (!isObject(line)) continue;
      const attributes = isObject(line.attributes) ? line.attributes : {};
      const body = typeof line.body === 'string' ? line.body : JSON.stringify(line.body);
      const attrs = Object.entries(attributes).map(([k, v]) => `${k}=${v}`).join(' ');
      const gap = droppedGap(attributes);
      if (gap) {
        const cause = attributes['apsio.journal.dropped.cause'] === 'apsiod_rate_limit' ? 'rateLimit' : 'journald';
        watch.delivery.device[cause] += attributes['apsio.journal.dropped.count'];
      }
      this.n += 1;
      const record = {
        n: this.n, watch, kind: 'line', t: Number(line.t), severity: Number(line.severity) || 9, body, attrs, attributes,
        gap, search: `${body} ${attrs}`.toLowerCase(), arrived: now, lag: null,
      };
      record.lag = watch.delivery.arrived(record.t, now);
      watch.buffer.push(record);
      this.merged.push(record);
      count += 1;
    }
    if ($('watch-pause').checked) this.newWhilePaused += count;
    this.scheduleRender();
  }

  /** A line that is not the device's (a session's start or end, a gap), in both places. */
  marker(watch, text) {
    this.n += 1;
    const record = { n: this.n, watch, kind: 'marker', t: Date.now(), body: text, search: '', arrived: Date.now() };
    watch.buffer.push(record);
    this.merged.push(record);
    this.scheduleRender();
  }

  scheduleRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => { this.renderQueued = false; this.render(); });
  }

  /** Draws what came since the last frame into the logs on screen; none while paused, so what
   * a person reads does not move (a paused log still draws the lines it is scrolled to). A log
   * hidden by the view catches up when it shows. */
  render(force = false) {
    if (this.closed) return;
    const follow = force || !$('watch-pause').checked;
    const toEnd = [];
    for (const view of this.views) {
      if (view.merged !== (this.view === 'merged')) continue;
      if (follow) {
        const fresh = view.buffer.after(Math.max(view.rendered, view.floor), view.max);
        if (fresh.length > 0) {
          view.vlist.push(fresh);
          view.rendered = fresh[fresh.length - 1].n;
        }
      }
      if (view.vlist.draw(follow)) toEnd.push(view.vlist);
    }
    // Every write first, then one layout for all the scrolls.
    for (const vlist of toEnd) vlist.scrollToEnd();
    this.updateCount();
  }

  item(record, merged) {
    const item = element('li', record.kind === 'line' ? severityClass(record.severity) : 'gap');
    item.dataset.key = record.watch.key;
    item.dataset.n = String(record.n);
    this.records.set(item, record);
    item.append(element('span', 't', clockTime(record.t)));
    if (merged) {
      const tag = element('span', 'dev', record.watch.name);
      tag.title = `${record.watch.app}, installation ${record.watch.install}`;
      item.append(tag);
    }
    if (record.kind === 'marker') {
      item.append(element('span', 'gap', record.body));
      return item;
    }
    item.dataset.severity = String(record.severity);
    // Only the columns shown are made: eight busy boxes make thousands of lines a minute.
    for (const column of this.shownColumns) item.append(element('span', `f f-${column.id}${column.id === 'sev' ? ' sev' : ''}`, columnText(column, record)));
    const text = element('span', 'body');
    const message = element('span', 'msg');
    this.highlights.mark(message, record.body);
    text.append(message);
    if (record.attrs) text.append(' ', element('span', 'attrs', record.attrs));
    if (record.gap) {
      item.classList.add('dropped');
      text.prepend(element('span', 'gap', record.gap), ' ');
    }
    item.append(text);
    return item;
  }

  matches(record) {
    if (record.kind !== 'line') return true;
    return record.severity >= this.filter.min && (this.filter.text === '' || record.search.includes(this.filter.text));
  }

  applyFilter() {
    this.filter = { min: Number($('watch-severity').value) || 1, text: $('watch-filter').value.trim().toLowerCase() };
    // Not paused, the logs go to their end, as new lines take them there; paused, they stay.
    const follow = !$('watch-pause').checked;
    for (const view of this.views) view.vlist.refilter(follow);
    this.saveState();
    this.updateCount();
    this.scheduleRender();
  }

  updateCount() {
    let lines = 0;
    let shown = 0;
    for (const view of this.views) {
      if (view.merged !== (this.view === 'merged')) continue;
      lines += view.vlist.lines;
      shown += view.vlist.shownLines;
    }
    let text = shown === lines ? `${lines} lines shown` : `${shown} of ${lines} lines shown`;
    const fellOut = this.watches.reduce((sum, w) => sum + w.buffer.fellOut, 0);
    if (fellOut > 0) text += `; ${fellOut} older lines fell out of the page’s buffer`;
    if ($('watch-pause').checked) {
      text += this.pausedBy === 'selection' ? '; paused while you select' : '; paused';
      if (this.newWhilePaused > 0) text += `, ${this.newWhilePaused} new below`;
    }
    if ($('watch-count').textContent !== text) $('watch-count').textContent = text;
  }

  // MARK: reading: pause, clear, a line's details and context, boxes in turn

  setPaused(paused, by) {
    $('watch-pause').checked = paused;
    this.pausedBy = paused ? by : null;
    $('view-watch').classList.toggle('paused', paused);
    if (!paused) {
      this.newWhilePaused = 0;
      // Resuming follows the tail again: each log goes to its end, new lines or not.
      for (const view of this.views) view.vlist.reveal();
    }
    this.render();
  }

  /** Empties the logs on screen; the buffers stay, for a line's context. */
  clear() {
    for (const view of this.views) {
      view.vlist.clear();
      view.floor = view.buffer.last;
      view.rendered = view.floor;
    }
    this.newWhilePaused = 0;
    this.updateCount();
  }

  /** Draws the logs anew from the buffers (the columns changed), paused or not: what Clear
   * emptied stays empty, and a log hidden by the view is drawn when it shows. */
  rebuild() {
    for (const view of this.views) {
      view.vlist.remake();
      view.vlist.clear();
      view.rendered = view.floor;
    }
    this.render(true);
  }

  showDetails(record) {
    const watch = record.watch;
    $('line-details-title').textContent = `${watch.name} · ${clockTime(record.t)}`;
    const body = element('p', 'details-body');
    this.highlights.mark(body, record.body);
    const parts = [body];
    if (record.kind === 'line') parts.push(lineDetails(record, watch.name));
    parts.push(element('h3', null, 'Context: this box’s lines before and after, from the page’s buffer'),
      contextOf(record, watch.buffer, watch.buffer.fellOut, this.highlights));
    $('line-details-body').replaceChildren(...parts);
    $('line-details').hidden = false;
    $('line-details').scrollIntoView({ block: 'nearest' });
    // The context list scrolls on its own: the chosen line in its middle, the page left alone.
    const list = $('line-details').querySelector('.context-log');
    const chosen = list?.querySelector('.chosen');
    if (chosen) list.scrollTop = chosen.offsetTop - list.clientHeight / 2;
  }

  hideDetails() {
    $('line-details').hidden = true;
  }

  toggleHelp(show = $('keys-help').hidden) {
    $('keys-help').hidden = !show;
  }

  /** `j` and `k`: the next or previous box's panel, outlined and scrolled into view. */
  focusBox(step) {
    if (this.watches.length === 0) return;
    // The first j is the first box, the first k the last.
    const from = this.focused < 0 ? (step > 0 ? -1 : 0) : this.focused;
    this.focused = (from + step + this.watches.length) % this.watches.length;
    this.watches.forEach((w, i) => w.panel.classList.toggle('focused', i === this.focused));
    const panel = this.watches[this.focused].panel;
    panel.scrollIntoView({ block: 'nearest' });
    $('watch-focus').textContent = `Box ${this.focused + 1} of ${this.watches.length}: ${this.watches[this.focused].name}`;
  }

  // MARK: highlights and columns

  showTerms() {
    const chips = this.highlights.terms.map(({ text, slot }) => {
      const chip = element('button', `hl-term hl-${slot}`, `${text} ×`);
      chip.type = 'button';
      chip.dataset.term = text;
      chip.title = 'Remove this highlight';
      return chip;
    });
    $('highlight-terms').replaceChildren(...chips);
    const full = this.highlights.terms.length >= maxTerms;
    $('watch-highlight').disabled = full;
    $('watch-highlight').placeholder = full ? `${maxTerms} terms at most` : 'a term, then Enter';
  }

  highlightsChanged() {
    this.showTerms();
    this.remark();
    this.saveState();
  }

  /** Marks the lines drawn with the terms of now (the others are marked when they are drawn). */
  remark() {
    for (const view of this.views) {
      for (const [item, record] of view.vlist.drawnRows()) {
        const message = item.querySelector('.msg');
        if (message) this.highlights.mark(message, record.body);
      }
    }
  }

  buildColumns() {
    const boxes = columns.map((column) => {
      const label = element('label', 'check');
      const box = element('input');
      box.type = 'checkbox';
      box.dataset.col = column.id;
      box.id = `col-${column.id}`;
      label.append(box, ` ${column.label}`);
      return label;
    });
    $('watch-columns').replaceChildren(element('span', 'muted', 'Columns:'), ...boxes);
  }

  showColumns() {
    const on = new Set([...$('watch-columns').querySelectorAll('input[data-col]')].filter((b) => b.checked).map((b) => b.dataset.col));
    this.shownColumns = columns.filter((c) => on.has(c.id));
  }

  columnsChanged() {
    this.showColumns();
    this.rebuild();
    this.saveState();
  }
}
