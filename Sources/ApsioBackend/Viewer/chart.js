// A small inline SVG line chart of one series over time, drawn with DOM calls (no inline markup,
// so the page's Content-Security-Policy holds).

const svgNS = 'http://www.w3.org/2000/svg';

export class SeriesChart {
  constructor(container, { capacity = 180, format = String } = {}) {
    this.container = container;
    this.capacity = capacity;
    this.format = format;
    this.points = [];
    this.svg = document.createElementNS(svgNS, 'svg');
    this.svg.setAttribute('viewBox', '0 0 300 90');
    this.svg.setAttribute('preserveAspectRatio', 'none');
    this.svg.setAttribute('role', 'img');
    this.area = this.make('path', 'area');
    this.line = this.make('polyline', 'line');
    this.high = this.make('text', 'label');
    this.low = this.make('text', 'label');
    this.high.setAttribute('x', '2');
    this.high.setAttribute('y', '9');
    this.low.setAttribute('x', '2');
    this.low.setAttribute('y', '88');
    container.replaceChildren(this.svg);
  }

  make(tag, className) {
    const node = document.createElementNS(svgNS, tag);
    node.setAttribute('class', className);
    this.svg.appendChild(node);
    return node;
  }

  clear() {
    this.points = [];
    this.draw();
  }

  add(t, value) {
    if (!Number.isFinite(t) || !Number.isFinite(value)) return;
    this.points.push({ t, value });
    if (this.points.length > this.capacity) this.points.splice(0, this.points.length - this.capacity);
    this.draw();
  }

  draw() {
    const points = this.points;
    if (points.length === 0) {
      this.line.setAttribute('points', '');
      this.area.setAttribute('d', '');
      this.high.textContent = '';
      this.low.textContent = '';
      return;
    }
    const values = points.map((p) => p.value);
    let min = Math.min(...values);
    let max = Math.max(...values);
    if (max === min) { max += 1; min = Math.max(0, min - 1); }
    const first = points[0].t;
    const span = Math.max(points[points.length - 1].t - first, 1);
    const x = (t) => (points.length === 1 ? 300 : ((t - first) / span) * 300);
    const y = (v) => 84 - ((v - min) / (max - min)) * 72;
    const coords = points.map((p) => `${x(p.t).toFixed(1)},${y(p.value).toFixed(1)}`);
    this.line.setAttribute('points', coords.join(' '));
    this.area.setAttribute('d', `M${x(first).toFixed(1)},90 L${coords.join(' L')} L${x(points[points.length - 1].t).toFixed(1)},90 Z`);
    this.high.textContent = this.format(Math.max(...values));
    this.low.textContent = this.format(Math.min(...values));
    this.svg.setAttribute('aria-label', `latest ${this.format(values[values.length - 1])}`);
  }
}
