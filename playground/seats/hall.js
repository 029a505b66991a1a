// The hall of the seat picker: draws a seat map from its compact rows, shows each seat's
// state, and moves the keyboard focus between seats (a roving tabindex: one seat is in the Tab
// order, arrow keys move between seats). Imported by seats.js.

const STATES = { a: 'available', h: 'held', s: 'sold', b: 'blocked' };
const KINDS = { s: 'standard', v: 'VIP', w: 'wheelchair', c: 'couple' };

export const seats = new Map(); // label -> seat button
export const selected = new Set(); // labels the user selected
export const ours = new Set(); // labels of the user's own live hold

/** Draws the whole map: one character per position in `states` and `kinds`, gaps included. */
export function draw(grid, map) {
  const focused = grid.contains(document.activeElement) ? document.activeElement.dataset.seat : null;
  grid.replaceChildren();
  grid.style.setProperty('--columns', map.width); // seats shrink to fit a wide hall (CSS)
  seats.clear();
  for (const row of map.rows) {
    const line = document.createElement('div');
    line.className = 'row';
    line.setAttribute('role', 'row');
    line.append(rowLabel(row.label, false));
    for (let column = 0; column < map.width; column++) {
      const cell = document.createElement('div');
      cell.className = 'cell';
      cell.setAttribute('role', 'gridcell');
      const kind = row.kinds[column] || '_';
      if (kind !== '_') cell.append(seatButton(row, column, kind));
      line.append(cell);
    }
    line.append(rowLabel(row.label, true)); // halls label rows on both sides
    grid.append(line);
  }
  for (const label of selected) if (!seats.has(label)) selected.delete(label);
  const first = seats.get(focused) || grid.querySelector('.seat');
  if (first) first.tabIndex = 0;
  if (focused && seats.has(focused)) seats.get(focused).focus();
}

function rowLabel(label, hidden) {
  const cell = document.createElement('div');
  cell.className = 'row-label';
  cell.textContent = label;
  if (hidden) cell.setAttribute('aria-hidden', 'true');
  else cell.setAttribute('role', 'rowheader');
  return cell;
}

function seatButton(row, column, kind) {
  const seat = document.createElement('button');
  seat.type = 'button';
  seat.className = 'seat';
  seat.tabIndex = -1;
  seat.dataset.seat = row.label + (column + 1);
  seat.dataset.row = row.label;
  seat.dataset.column = column;
  seat.dataset.kind = KINDS[kind] || 'standard';
  if (kind === 'c') {
    // Two `c`s side by side are one love seat: an even count of `c`s before it in the run
    // makes a seat the left half of a pair.
    let before = 0;
    while (row.kinds[column - before - 1] === 'c') before++;
    const right = before % 2 === 1;
    if (right || row.kinds[column + 1] === 'c') seat.classList.add(right ? 'couple-right' : 'couple-left');
  }
  seats.set(seat.dataset.seat, seat);
  setState(seat, STATES[row.states[column]] || 'blocked');
  return seat;
}

/** Shows a seat's state: colour and pattern (CSS), a symbol, and the words screen readers
 * read. Only available seats can be selected; the others stay focusable (aria-disabled, not
 * disabled) so arrow keys still reach them and screen readers still read them. */
export function setState(seat, state) {
  const label = seat.dataset.seat;
  seat.dataset.state = state;
  if (state !== 'available') selected.delete(label);
  const chosen = selected.has(label);
  const mine = state === 'held' && ours.has(label);
  seat.classList.toggle('mine', mine);
  seat.toggleAttribute('data-selected', chosen);
  seat.setAttribute('aria-pressed', String(chosen));
  seat.setAttribute('aria-disabled', String(state !== 'available'));
  const number = Number(seat.dataset.column) + 1;
  const symbol = { sold: '✕', blocked: '' }[state];
  seat.textContent = chosen ? '✓' : symbol !== undefined ? symbol : seat.dataset.kind === 'wheelchair' ? '♿' : number;
  seat.setAttribute('aria-label', `Row ${seat.dataset.row}, seat ${number}, ${seat.dataset.kind}, ${mine ? 'held by you' : state}`);
}

/** Shows every seat again (after `selected` or `ours` changed). */
export function refresh() {
  for (const seat of seats.values()) setState(seat, seat.dataset.state);
}

/** Arrow keys move between seats (Home/End to a row's ends); Enter and Space click the focused
 * button as any button. Tab comes back to the seat last focused. */
export function enableKeyboard(grid) {
  grid.addEventListener('keydown', (event) => {
    const seat = event.target.closest('.seat');
    const next = seat && neighbour(seat, event.key);
    if (!next) return;
    event.preventDefault();
    next.focus();
  });
  grid.addEventListener('focusin', (event) => {
    if (!event.target.classList.contains('seat')) return;
    for (const seat of grid.querySelectorAll('.seat[tabindex="0"]')) seat.tabIndex = -1;
    event.target.tabIndex = 0;
  });
}

/** The seat a key moves to from `seat`, if any. */
function neighbour(seat, key) {
  const row = seat.closest('.row');
  const inRow = [...row.querySelectorAll('.seat')];
  const here = inRow.indexOf(seat);
  if (key === 'ArrowLeft') return inRow[here - 1];
  if (key === 'ArrowRight') return inRow[here + 1];
  if (key === 'Home') return inRow[0];
  if (key === 'End') return inRow[inRow.length - 1];
  if (key !== 'ArrowUp' && key !== 'ArrowDown') return null;
  let other = row;
  do other = key === 'ArrowUp' ? other.previousElementSibling : other.nextElementSibling;
  while (other && !other.querySelector('.seat'));
  if (!other) return null;
  // The seat of that row nearest this seat's column.
  const column = Number(seat.dataset.column);
  const distance = (s) => Math.abs(Number(s.dataset.column) - column);
  return [...other.querySelectorAll('.seat')].reduce((best, s) => (distance(s) < distance(best) ? s : best));
}
