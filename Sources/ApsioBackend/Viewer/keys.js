// The watch page's keys. A key typed into a field (the filter, a highlight term) is the field's:
// none is taken while an input, a list or a text area has the focus, nor with Ctrl, Alt or Meta.

/** The keys and what they do, for the `?` list and for docs/viewer.md. */
export const keyList = [
  ['/', 'Filter: puts the cursor in the text filter'],
  ['Space', 'Pause or resume the tail'],
  ['h', 'Highlight: puts the cursor in the highlight field (Enter adds the term)'],
  ['j', 'Next box'],
  ['k', 'Previous box'],
  ['c', 'Clear the lines shown'],
  ['?', 'This list'],
  ['Esc', 'Close this list or a line’s details; in a field, leave it'],
];

function typing(target) {
  if (!(target instanceof Element)) return false;
  return target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}

/** Calls `actions[key]` for the page's keys; `Escape` in a field leaves the field. */
export function installKeys(actions, signal) {
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    if (typing(event.target)) {
      if (event.key === 'Escape') event.target.blur();
      return;
    }
    // Space on a button or link presses it: that is the button's, not the tail's.
    if (event.key === ' ' && event.target instanceof Element && event.target.closest('button, a, summary')) return;
    const action = actions[event.key === ' ' ? 'Space' : event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }, { signal });
}
