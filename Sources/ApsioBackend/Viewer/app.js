// The viewer's entry: sign-in, and the routes in the fragment: the fleet (#/devices?FILTER), a
// device's page (#/device/APP/INSTALL), and several devices watched together
// (#/watch/APP/INSTALL,APP/INSTALL,…[?view=merged&q=…&sev=…&hl=…&cols=…], links.js). A link
// opened signed out shows the sign-in form and, once signed in, the page it names: the fragment
// stays as it was throughout.
import { api, ApiError } from './api.js';
import { deviceKey, element } from './format.js';
import { DevicePage } from './device.js';
import { FleetPage } from './fleet.js';
import { parseWatchQuery } from './links.js';
import { parseWatchList, WatchPage } from './watch.js';

const views = ['view-loading', 'view-sign-in', 'view-devices', 'view-device', 'view-watch'];
const $ = (id) => document.getElementById(id);

const state = {
  me: null,
  fleet: null,
  device: null,
  watch: null,
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
  closeWatch({ leave: false });
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
  closeWatch({ leave: false });
  try { await api('POST', '/api/logout'); } catch { /* signed out either way */ }
  signedOut();
}

// MARK: the fleet page

function stopFleet() {
  state.fleet?.close();
}

// MARK: routing

function closeDevice({ leave }) {
  if (state.device) {
    state.device.close({ leave });
    state.device = null;
  }
}

function closeWatch({ leave, keep }) {
  if (state.watch) {
    state.watch.close({ leave, keep });
    state.watch = null;
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
  const fragment = location.hash.replace(/^#\/?/, '');
  const question = fragment.indexOf('?');
  const path = question < 0 ? fragment : fragment.slice(0, question);
  const query = question < 0 ? '' : fragment.slice(question + 1);
  const parts = path.split('/');
  // Leaving a device's page or the watch page within the viewer stops watching; closing the tab
  // does not (a reload must not end the session): the backend lets a silent viewer go after 60 s.
  if (parts[0] === 'device' && parts.length === 3) {
    let app;
    let install;
    try {
      app = decodeURIComponent(parts[1]);
      install = decodeURIComponent(parts[2]);
    } catch {
      location.hash = '#/devices';
      return;
    }
    stopFleet();
    // A device watched on the watch page and opened on its own page stays watched: leaving it
    // here would race the page's join and could land after it.
    closeWatch({ leave: true, keep: deviceKey(app, install) });
    show('view-device');
    if (state.device && state.device.app === app && state.device.install === install) return;
    closeDevice({ leave: true });
    state.device = new DevicePage(app, install, state.me, { onSignedOut: signedOut });
    state.device.open();
    return;
  }
  if (parts[0] === 'watch' && parts.length >= 2) {
    const list = parseWatchList(path.slice('watch/'.length));
    if (list.length > 0) {
      // The device whose page links to its live tail stays watched, as above.
      const kept = state.device && list.some((d) => d.app === state.device.app && d.install === state.device.install);
      closeDevice({ leave: !kept });
      show('view-watch');
      if (state.watch && state.watch.sameAs(list)) {
        state.watch.applyState(parseWatchQuery(query));
        return;
      }
      // Names for the panels at once, from the fleet page's list, until the watch page's own.
      const known = state.fleet ? (app, install) => state.fleet.device(app, install) : () => null;
      stopFleet();
      closeWatch({ leave: true });
      state.watch = new WatchPage(list, query, state.me, { onSignedOut: signedOut, knownDevice: known });
      state.watch.open();
      return;
    }
  }
  closeDevice({ leave: true });
  closeWatch({ leave: true });
  if (parts[0] !== 'devices') history.replaceState(null, '', '#/devices');
  show('view-devices');
  if (!state.fleet) state.fleet = new FleetPage({ onSignedOut: signedOut });
  state.fleet.open(query);
}

$('sign-in-form').addEventListener('submit', signIn);
$('sign-out').addEventListener('click', signOut);
window.addEventListener('hashchange', route);
route();
