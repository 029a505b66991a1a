// The dashboard's drawings, made by hand (SVG and plain elements, no charting library): a
// showtime's occupancy bar, the revenue by hour, a seat map coloured by state, and a hall's
// seats coloured by how often they sell. Each drawing keeps its figures in data attributes,
// so what is drawn can be checked against the API.

import { count, duration, hourOfWeek, percent, time, yuan } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const STATES = ['sold', 'held', 'available', 'blocked'];
const STATE_OF = { a: 'available', h: 'held', s: 'sold', b: 'blocked' };
const HOUR = 3600 * 1000;

function svg(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

/** Draws `counts` ({sold, held, available, blocked, capacity}) into a bar element: one
 * segment per state, as wide as its share of the hall. */
export function occupancy(bar, counts) {
  bar.replaceChildren();
  for (const state of STATES) {
    bar.dataset[state] = counts[state];
    const share = counts.capacity ? counts[state] / counts.capacity : 0;
    if (!share) continue;
    const segment = document.createElement('span');
    segment.className = `segment ${state}`;
    segment.style.width = `${share * 100}%`;
    segment.title = `${count(counts[state])} ${state}`;
    bar.append(segment);
  }
  bar.dataset.capacity = counts.capacity;
  const sold = counts.capacity ? counts.sold / counts.capacity : 0;
  bar.setAttribute('aria-label', `${percent(sold)} sold: ${STATES.map((s) => `${counts[s]} ${s}`).join(', ')}`);
}

/** Draws revenue by hour from `from` to `before`: a bar per hour, tickets below concessions.
 * `buckets` are `hourlySales` nodes. Returns the totals in fen. */
export function revenue(container, buckets, from, before) {
  const byHour = new Map(buckets.map((b) => [new Date(b.hour).getTime(), b.sales]));
  const hours = Math.round((before - from) / HOUR);
  const totals = { revenue: 0, tickets: 0, concessions: 0 };
  let highest = 0;
  for (const sales of byHour.values()) {
    totals.revenue += sales.revenue.amount;
    totals.tickets += sales.ticketRevenue.amount;
    totals.concessions += sales.concessionRevenue.amount;
    highest = Math.max(highest, sales.ticketRevenue.amount + sales.concessionRevenue.amount);
  }
  const step = hours > 48 ? 6 : 12; // pixels per hour
  const [width, height, top, bottom] = [hours * step, 160, 10, 24];
  const chart = svg('svg', { viewBox: `0 0 ${width + 60} ${height}`, role: 'img', class: 'revenue' });
  chart.setAttribute('aria-label', `Revenue by hour: ${yuan(totals.revenue)} in all`);
  const scale = highest ? (height - top - bottom) / highest : 0;
  chart.append(svg('text', { x: 0, y: top + 4, class: 'axis' }));
  chart.lastChild.textContent = highest ? yuan(highest) : '';
  for (let i = 0; i < hours; i++) {
    const at = from.getTime() + i * HOUR;
    const sales = byHour.get(at);
    const x = 56 + i * step;
    const group = svg('g', { class: 'hour', 'data-hour': new Date(at).toISOString() });
    if (sales) {
      const [tickets, concessions] = [sales.ticketRevenue.amount, sales.concessionRevenue.amount];
      group.dataset.tickets = tickets;
      group.dataset.concessions = concessions;
      const ticketHeight = tickets * scale;
      const concessionHeight = concessions * scale;
      const base = height - bottom;
      group.append(svg('rect', { x, y: base - ticketHeight, width: step - 2, height: ticketHeight, class: 'tickets' }));
      group.append(svg('rect', { x, y: base - ticketHeight - concessionHeight, width: step - 2, height: concessionHeight, class: 'concessions' }));
      const title = svg('title', {});
      title.textContent = `${hourOfWeek(at)}:00 · tickets ${yuan(tickets)}, concessions ${yuan(concessions)}`;
      group.append(title);
    }
    const labelEvery = hours > 48 ? 24 : 3;
    if (i % labelEvery === 0) {
      const label = svg('text', { x, y: height - 6, class: 'axis' });
      label.textContent = hours > 48 ? hourOfWeek(at).replace(/,.*/, '') : time(at);
      group.append(label);
    }
    chart.append(group);
  }
  chart.append(svg('line', { x1: 54, x2: width + 58, y1: height - bottom, y2: height - bottom, class: 'baseline' }));
  container.replaceChildren(chart);
  return totals;
}

/** Draws a seat map's states (compact rows: one character per position) as a grid of cells
 * keyed by seat label, so that CHANGES events can recolour single seats. */
export function stateMap(container, seatMap) {
  container.replaceChildren();
  container.style.setProperty('--columns', seatMap.width);
  for (const row of seatMap.rows) {
    for (let column = 0; column < seatMap.width; column++) {
      const cell = document.createElement('span');
      const code = row.states[column] || '_';
      if (code === '_') {
        cell.className = 'gap';
      } else {
        const label = `${row.label}${column + 1}`;
        cell.className = `seat ${STATE_OF[code]}`;
        cell.dataset.seat = label;
        cell.title = `${label}: ${STATE_OF[code]}`;
      }
      container.append(cell);
    }
  }
}

/** Recolours the seats a CHANGES event names. */
export function applyChanges(container, changes) {
  for (const change of changes) {
    const cell = container.querySelector(`[data-seat="${CSS.escape(change.label)}"]`);
    if (!cell) continue;
    const state = change.state.toLowerCase();
    cell.className = `seat ${state}`;
    cell.title = `${change.label}: ${state}`;
  }
}

/** Colours a hall's layout by `seatSales`: the deeper, the more showtimes the seat sold in. */
export function sellFirstMap(container, layout, figures) {
  const bySeat = new Map(figures.seats.map((seat) => [seat.label, seat]));
  container.replaceChildren();
  container.style.setProperty('--columns', layout.width);
  for (const row of layout.rows) {
    const seats = new Map(row.seats.map((seat) => [seat.column, seat]));
    for (let column = 0; column < layout.width; column++) {
      const cell = document.createElement('span');
      const seat = seats.get(column);
      if (!seat) {
        cell.className = 'gap';
      } else {
        const figure = bySeat.get(seat.label);
        const share = figure ? figure.soldShare : 0;
        cell.className = 'seat heat';
        cell.dataset.seat = seat.label;
        cell.dataset.share = share;
        cell.style.setProperty('--heat', share);
        const showtimes = `${count(figures.showtimes)} showtime${figures.showtimes === 1 ? '' : 's'}`;
        cell.title = figure
          ? `${seat.label}: sold in ${percent(share)} of ${showtimes}, ` +
            `a median ${duration(figure.medianSecondsToSale)} after going on sale`
          : `${seat.label}: not sold in ${showtimes}`;
      }
      container.append(cell);
    }
  }
}
