// The viewer's entry: sign-in, the fleet page, and the route to a device's page.
// Routes live in the fragment: #/devices and #/device/APP/INSTALL.
import { api, ApiError } from './api.js';
import { ago, element } from './format.js';
import { DevicePage } from './device.js';

const views = ['view-loading', 'view-sign-in', 'view-devices', 'view-device'];
const $ = (id) => document.getElementById(id);

const state = {
  me: null,
  fleetTimer: null,
  device: null,
};

function show(view) {
  for (const id of views) $(id).hidden = id !== view;
}

function showSignedIn() {
  $('who').hidden = !state.me;
  $('sign-out').hidden = !state.me;
  if (state.me) {
    $('who').textContent = `${state.me.user}${state.me.may_send_commands ? ' (may send commands)' : ' (watch only)'}`;
  }
}

/** A 401 anywhere means the sign-in is gone (expired, signed out elsewhere): back to the form. */
function signedOut(message) {
  state.me = null;
  stopFleet();
  closeDevice({ leave: false });
  showSignedIn();
  show('view-sign-in');
  $('sign-in-error').hidden = !message;
  $('sign-in-error').textContent = message ?? '';
  $('user').focus();
}

async function signIn(event) {
  event.preventDefault();
  const button = $('sign-in-button');
  button.disabled = true;
  $('sign-in-error').hidden = true;
  try {
    const { data } = await api('POST', '/api/login', { user: $('user').value, password: $('password').value });
    state.me = { user: data.user, may_send_commands: data.may_send_commands };
    $('password').value = '';
    showSignedIn();
    route();
  } catch (error) {
    $('sign-in-error').hidden = false;
    $('sign-in-error').textContent = error.status === 401 ? 'Unknown user or wrong password.' : error.message;
  } finally {
    button.disabled = false;
  }
}

async function signOut() {
  closeDevice({ leave: false });
  try { await api('POST', '/api/logout'); } catch { /* signed out either way */ }
  signedOut();
}

// MARK: the fleet page

function stopFleet() {
  clearTimeout(state.fleetTimer);
  state.fleetTimer = null;
}

function stateBadge(device) {
  const cell = element('td');
  if (device.session) {
    cell.append(element('span', `badge ${device.session.state}`, device.session.state));
    if (device.session.reason) cell.append(' ', element('span', 'muted', device.session.reason));
  } else {
    cell.append(element('span', `badge ${device.foreground}`, device.foreground));
    if (device.reason && device.reason !== 'inactive') cell.append(' ', element('span', 'muted', device.reason));
  }
  return cell;
}

function renderFleet(devices) {
  const body = $('devices-body');
  const rows = devices.map((device) => {
    const row = element('tr');
    row.dataset.install = device.install;
    row.dataset.app = device.app;
    const link = element('a', null, device.app);
    link.href = `#/device/${encodeURIComponent(device.app)}/${encodeURIComponent(device.install)}`;
    link.title = `installation ${device.install}`;
    const appCell = element('td');
    appCell.append(link);
    const hello = element('td', null, ago(device.last_hello));
    hello.title = new Date(device.last_hello).toLocaleString();
    row.append(appCell, element('td', null, device.tester), element('td', null, device.model || '—'),
      element('td', null, device.os || '—'), element('td', null, device.release || '—'), stateBadge(device), hello,
      element('td', 'num', device.viewers));
    return row;
  });
  body.replaceChildren(...rows);
  $('devices-empty').hidden = devices.length > 0;
  $('devices-updated').textContent = `updated ${new Date().toLocaleTimeString()}.`;
}

async function refreshFleet() {
  stopFleet();
  try {
    const { data } = await api('GET', '/api/devices');
    $('devices-error').hidden = true;
    renderFleet(data.devices ?? []);
  } catch (error) {
    if (error.status === 401) { signedOut('Your sign-in ended; sign in again.'); return; }
    $('devices-error').hidden = false;
    $('devices-error').textContent = `Cannot list devices: ${error.message}. Trying again.`;
  }
  if (!$('view-devices').hidden) state.fleetTimer = setTimeout(refreshFleet, 3000);
}

// MARK: routing

function closeDevice({ leave }) {
  if (state.device) {
    state.device.close({ leave });
    state.device = null;
  }
}

async function route() {
  if (!state.me) {
    try {
      const { data } = await api('GET', '/api/me');
      state.me = data;
      showSignedIn();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) { signedOut(); return; }
      show('view-loading');
      $('view-loading').replaceChildren(element('p', 'error', `The backend cannot be reached: ${error.message}. Reload to try again.`));
      return;
    }
  }
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'device' && parts.length === 3) {
    stopFleet();
    const app = decodeURIComponent(parts[1]);
    const install = decodeURIComponent(parts[2]);
    if (state.device && state.device.app === app && state.device.install === install) return;
    closeDevice({ leave: true });
    show('view-device');
    state.device = new DevicePage(app, install, state.me, { onSignedOut: signedOut });
    state.device.open();
    return;
  }
  // Leaving a device's page within the viewer stops watching it; closing the tab does not
  // (a reload must not end the session): the backend lets a silent viewer go after 60 s.
  closeDevice({ leave: true });
  if (location.hash !== '#/devices') history.replaceState(null, '', '#/devices');
  show('view-devices');
  refreshFleet();
}

$('sign-in-form').addEventListener('submit', signIn);
$('sign-out').addEventListener('click', signOut);
window.addEventListener('hashchange', route);
route();
