// The watch page's state as the fragment's query, so a link shows a colleague the same boxes, view,
// filter, highlights and columns (`#/watch/APP/INSTALL,…?view=merged&q=…&sev=13&hl=…&hl=…&cols=unit,pid`).
// A link is what anyone can send: every value is checked here, and the page only ever puts these
// values into inputs and textContent.
import { maxTermLength, maxTerms } from './highlight.js';
import { columnIds } from './fields.js';

export const maxFilterLength = 200;
const severities = new Set(['1', '5', '9', '13', '17']);

/** The state a query names, each value valid or left out. */
export function parseWatchQuery(query) {
  const params = new URLSearchParams(query ?? '');
  const state = { view: params.get('view') === 'merged' ? 'merged' : 'grid', q: '', sev: '1', hl: [], cols: null };
  const q = params.get('q');
  if (q !== null) state.q = q.slice(0, maxFilterLength);
  if (severities.has(params.get('sev'))) state.sev = params.get('sev');
  const seen = new Set();
  for (const term of params.getAll('hl')) {
    const text = term.trim().slice(0, maxTermLength);
    if (!text || seen.has(text.toLowerCase()) || state.hl.length >= maxTerms) continue;
    seen.add(text.toLowerCase());
    state.hl.push(text);
  }
  if (params.has('cols')) state.cols = params.get('cols').split(',').filter((id) => columnIds.includes(id));
  return state;
}

/** The query of a state; defaults are left out so that a plain link stays plain. */
export function watchQuery({ view, q, sev, hl, cols }, defaultCols) {
  const params = new URLSearchParams();
  if (view === 'merged') params.set('view', 'merged');
  if (q) params.set('q', q);
  if (sev && sev !== '1') params.set('sev', sev);
  for (const term of hl ?? []) params.append('hl', term);
  if (cols && cols.join(',') !== defaultCols.join(',')) params.set('cols', cols.join(','));
  const text = params.toString();
  return text ? `?${text}` : '';
}
