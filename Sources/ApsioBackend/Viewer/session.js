// What a live session's stream says, in words, for every page that shows one: the device page
// and each panel of the page that watches several. Both give `handleSessionEvent` the same small
// view (notices, markers, lines, the session, viewers, a command log), so an event reads the same
// wherever it is shown.
import { bytes, element, shortTime } from './format.js';

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
  missed: 'The session ended while this backend instance heard nothing between its instances, and another has started since; why it ended was not kept.',
};

/** Reasons after which the backend waits for a viewer to act before another session (16.3). */
export const needsRestart = new Set(['until', 'session_bytes']);

export const pauseReasons = {
  inactive: 'the unit is interrupted (reloading, activating or frozen)',
  low_power: 'the machine is in low-power mode',
  low_data: 'the machine is on a metered network',
  data_saver: 'data saver is on for the machine',
};

export function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

export function isObject(value) {
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

/** A page's list of the commands sent and their results, newest first, at most `max`. */
export class CommandLog {
  constructor(list, max, { framed = false } = {}) {
    this.list = list;
    this.max = max;
    this.framed = framed;
    this.entries = new Map();
  }

  clear() {
    this.entries.clear();
    this.list.replaceChildren();
  }

  /** The entry of a command sent (by this page or another viewer), made when first heard of. */
  entry(id, name, by) {
    if (typeof id !== 'string') return null;
    let entry = this.entries.get(id);
    if (entry) return entry;
    const item = element('li');
    item.dataset.id = id;
    item.dataset.name = name;
    const head = element('div');
    const status = element('span', 'muted', 'sent; waiting for the device');
    head.append(element('strong', null, name), ` by ${by ?? '?'} · `, status);
    const body = element('div');
    item.append(head, body);
    this.list.prepend(item);
    entry = { item, status, body };
    this.entries.set(id, entry);
    while (this.list.children.length > this.max) {
      const last = this.list.lastElementChild;
      this.entries.delete(last.dataset.id);
      last.remove();
    }
    return entry;
  }

  /** A command's result: a screenshot's process frame, a raised log level's end, or its facts. */
  result(result) {
    const entry = this.entry(result.id, result.name, null);
    if (!entry) return;
    entry.item.dataset.outcome = result.outcome;
    entry.status.className = `outcome-${result.outcome}`;
    entry.status.textContent = `${result.outcome} at ${shortTime(result.at)}`;
    const value = result.result;
    entry.body.replaceChildren();
    if (result.name === 'screenshot' && isObject(value) && isObject(value.wireframe)) {
      if (this.framed) {
        const details = element('details');
        details.open = true;
        details.append(element('summary', null, 'Process frame'), renderFrame(value.wireframe));
        entry.body.append(details);
      } else {
        entry.body.append(renderFrame(value.wireframe));
      }
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
}

/**
 * One stream event, applied to `view`: `notice(text, kind, label, action)` (which clears
 * `noticeUntilLive`), `hideNotice()`, `marker(text)`, `lines(lines)`, `applySession(session)`,
 * `setViewers(count)`, `commands` (a CommandLog), `renew()`, and optionally `frameDetails(frames)`
 * (metrics, the process frame) and `sessionEnded(reason)`.
 */
export function handleSessionEvent(event, view) {
  switch (event.type) {
    case 'session_started':
      view.notice('A live session started; waiting for the device’s first frames.', 'info');
      view.noticeUntilLive = true;
      view.marker('Session started.');
      break;
    case 'frames': {
      const frames = isObject(event.frames) ? event.frames : {};
      if (frames.state === 'paused') {
        const why = pauseReasons[frames.reason] ?? frames.reason ?? 'no reason given';
        view.notice(`The device paused the session: ${why}. It resumes by itself.`, 'info');
        view.noticeUntilLive = true;
      } else if (frames.state === 'live' && view.noticeUntilLive) {
        view.hideNotice();
        view.noticeUntilLive = false;
      }
      if (Array.isArray(frames.lines)) view.lines(frames.lines);
      if (frames.lines_dropped > 0) view.marker(`${frames.lines_dropped} lines were not sent: the device sends at most 200 a second.`);
      view.frameDetails?.(frames);
      break;
    }
    case 'command':
      if (event.command) view.commands.entry(event.command.id, event.command.name, event.command.by);
      break;
    case 'result':
      if (event.result) view.commands.result(event.result);
      break;
    case 'renewed':
      view.notice(`${event.by ?? 'A viewer'} renewed the session: it now ends at ${shortTime(event.until)}.`, 'info');
      break;
    case 'viewers':
      view.setViewers(event.viewers);
      break;
    case 'session_ended': {
      const reason = event.reason ?? 'ended';
      const words = endReasons[reason] ?? `The session ended (${reason}).`;
      view.marker(`Session ended: ${reason}.`);
      view.applySession(null);
      view.sessionEnded?.(reason);
      if (needsRestart.has(reason)) {
        view.notice(`Session ended (${reason}). ${words} The backend starts no new one until a viewer asks.`, 'ended',
          'Start a new session', () => view.renew());
      } else {
        view.notice(`Session ended (${reason}). ${words} While you watch, a new session starts at the device’s next hello.`,
          'ended');
      }
      break;
    }
    case 'gap':
      view.marker(`${event.missed ?? 'Some'} events were lost between the backend’s instances.`);
      break;
    case 'device_gone':
      view.applySession(null);
      view.notice('The device is gone: it stopped saying hello and its presence ran out.', 'ended');
      break;
    default:
      break;
  }
}
