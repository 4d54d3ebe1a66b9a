// Highlight terms in the live tail: up to 8 at once, each with its own colour that it keeps while
// others come and go, applied to every line as it is drawn and kept while the filter hides lines.
import { element } from './format.js';

/** A person reads 8 colours apart; more would be a limit no one could see anyway. */
export const maxTerms = 8;
export const maxTermLength = 64;

export class Highlights {
  constructor() {
    /** Each term with its colour slot (0–7), in the order they were added. */
    this.terms = [];
    this.pattern = null;
  }

  /** Adds a term (trimmed, at most 64 characters, once whatever its case); false when refused. */
  add(text) {
    const term = String(text ?? '').trim().slice(0, maxTermLength);
    if (!term || this.terms.length >= maxTerms) return false;
    if (this.terms.some((t) => t.text.toLowerCase() === term.toLowerCase())) return false;
    const used = new Set(this.terms.map((t) => t.slot));
    let slot = 0;
    while (used.has(slot)) slot += 1;
    this.terms.push({ text: term, slot });
    this.compile();
    return true;
  }

  remove(text) {
    this.terms = this.terms.filter((t) => t.text !== text);
    this.compile();
  }

  set(list) {
    this.terms = [];
    for (const text of list) this.add(text);
    this.compile();
  }

  list() {
    return this.terms.map((t) => t.text);
  }

  compile() {
    if (this.terms.length === 0) { this.pattern = null; this.slots = null; return; }
    // Longest first, so that a term inside another does not cut the longer one's match short.
    const sorted = [...this.terms].sort((a, b) => b.text.length - a.text.length);
    const escaped = sorted.map((t) => t.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.pattern = new RegExp(escaped.join('|'), 'gi');
    this.slots = new Map(this.terms.map((t) => [t.text.toLowerCase(), t.slot]));
  }

  /** `node`'s content as `text` with every term's matches in a <mark> of its colour. Text nodes
   * only: a line's text is never parsed as markup. */
  mark(node, text) {
    if (!this.pattern) { node.textContent = text; return; }
    const parts = [];
    let at = 0;
    this.pattern.lastIndex = 0;
    for (let match = this.pattern.exec(text); match; match = this.pattern.exec(text)) {
      if (match.index > at) parts.push(text.slice(at, match.index));
      const slot = this.slots.get(match[0].toLowerCase()) ?? 0;
      const mark = element('mark', `hl hl-${slot}`, match[0]);
      parts.push(mark);
      at = match.index + match[0].length;
    }
    if (at < text.length) parts.push(text.slice(at));
    node.replaceChildren(...parts);
  }
}
