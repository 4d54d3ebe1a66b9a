// The viewers' JSON API of the backend. The sign-in rides in its HttpOnly cookie, so
// the page never holds the token: a script injected into the page could not read it either.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Sends one request; answers `{status, data}` or throws an ApiError with the backend's words. */
export async function api(method, path, body, { signal } = {}) {
  const init = { method, credentials: 'same-origin', cache: 'no-store', headers: {}, signal };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'the backend cannot be reached');
  }
  let data = null;
  if (response.status !== 204) {
    const text = await response.text();
    if (text) {
      try { data = JSON.parse(text); } catch { data = null; }
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, data?.error ?? `http_${response.status}`,
      data?.message ?? `the backend answered ${response.status}`);
  }
  return { status: response.status, data };
}

/** The path of a device route, with `?app=` so two apps' devices with one install stay apart. */
export function devicePath(app, install, route, query = {}) {
  const params = new URLSearchParams({ app, ...query });
  return `/api/devices/${encodeURIComponent(install)}/${route}?${params}`;
}

/** Sends a GET whose answer is text (JSON lines, say): answers `{status, text}` for any status, so
 * the caller decides what a 404 means; throws an ApiError only when the backend cannot be reached. */
export async function apiText(path, { signal } = {}) {
  let response;
  try {
    response = await fetch(path, { method: 'GET', credentials: 'same-origin', cache: 'no-store', signal });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'the backend cannot be reached');
  }
  return { status: response.status, text: await response.text() };
}
