// The sales dashboard (/dashboard). An operator enters its key once (kept in this tab's
// sessionStorage, sent as a Bearer header, never put in the address); every figure comes from
// the GraphQL API with that key, so the API decides what the page may show: the cinemas are
// `operatorCinemas`, the seats that sell first `Hall.seatSales` (FORBIDDEN outside the
// operator's scope). Occupancy follows `seatMapChanged` over graphql-ws: no polling.
// `body[data-state]` is start, loading, ready, empty or error, for people (the styles) and
// for the browser tests alike.

import * as charts from './charts.js';
import { count, dayOf, startOfDay, time, yuan } from './format.js';

const $ = (id) => document.getElementById(id);
const KEY = 'boxoffice-dashboard-key';
const DAY_MS = 24 * 3600 * 1000;
// A connection runs at most 20 subscriptions (--max-subscriptions-per-connection's default).
const SUBSCRIPTIONS_PER_CONNECTION = 20;

const CINEMAS = `query { operatorCinemas(first: 100) { nodes { id name city } } }`;
const DAY = `query Day($id: ID!, $from: DateTime!, $before: DateTime!) {
  node(id: $id) { ... on Cinema { id name city
    showtimes(startsFrom: $from, startsBefore: $before, first: 100) { nodes {
      id startsAt endsAt status movie { title } hall { id name }
      seatMap { counts { available held sold blocked capacity } } } }
    products(first: 100) { nodes { id name price { amount } stock sold retired } } } }
  voucherBatches(first: 100) { id name codeCount maxRedemptions redeemed reserved enabled } }`;
const SALES = `query Sales($id: ID!, $from: DateTime!, $before: DateTime!, $after: String) {
  node(id: $id) { ... on Cinema { hourlySales(from: $from, before: $before, first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { hour sales { revenue { amount } ticketRevenue { amount } concessionRevenue { amount } } } } } } }`;
const HALL = `query Hall($id: ID!, $before: DateTime!) { node(id: $id) { ... on Hall { name
  layout { width rows { label seats { label column } } }
  seatSales(before: $before) { showtimes seats { label showtimesSold soldShare medianSecondsToSale } } } } }`;
const WAITING = `query Waiting($ids: [ID!]!) { waitingListLengths(showtimeIds: $ids) { showtimeId parties people } }`;
const COUNTS = `subscription ($id: ID!) { seatMapChanged(showtimeId: $id) {
  kind version counts { available held sold blocked capacity } } }`;
const SEAT_MAP = `subscription ($id: ID!) { seatMapChanged(showtimeId: $id) {
  kind version counts { available held sold blocked capacity }
  seatMap { width rows { label states } } changes { label state } } }`;
const REFUSALS = {
  UNAUTHENTICATED: 'This key was refused: check it and enter it again.',
  FORBIDDEN: 'This is not an operator key (a sales channel or door key cannot open the dashboard).',
  RATE_LIMITED: 'Too many requests: wait a moment and reload.',
  UNAVAILABLE: 'The gateway cannot reach its database right now: reload in a moment.',
};

let key = sessionStorage.getItem(KEY) || '';
let cinema = null; // the cinema shown: { id, name, city }
let clients = []; // graphql-ws clients of the day's occupancy bars
let selected = null; // { showtime, client } of the seat maps

class ApiError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

/** Runs a query with the key; its data, or an ApiError with the first error's code. */
async function graphql(query, variables = {}) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  let response;
  try {
    response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  } catch {
    throw new ApiError('NETWORK', 'The gateway cannot be reached.');
  }
  const body = await response.json().catch(() => null);
  const error = body && body.errors && body.errors[0];
  if (error) throw new ApiError((error.extensions && error.extensions.code) || 'ERROR', error.message);
  if (!body || !body.data) throw new ApiError(`HTTP_${response.status}`, 'The gateway gave no answer.');
  return body.data;
}

function setState(state, text = '') {
  document.body.dataset.state = state;
  $('status').textContent = text;
}

function showError(error) {
  $('error').dataset.code = error.code || 'ERROR';
  $('error').textContent = REFUSALS[error.code] || `Something went wrong (${error.code}): ${error.message}`;
  setState('error');
  if (error.code === 'UNAUTHENTICATED' || error.code === 'FORBIDDEN') {
    forget(false);
  }
}

function clearError() {
  $('error').dataset.code = '';
  $('error').textContent = '';
}

/** Drops the key (and the live feeds); shows the key form again. */
function forget(clearMessage = true) {
  key = '';
  sessionStorage.removeItem(KEY);
  stopLive();
  $('board').hidden = true;
  $('key-form').hidden = false;
  $('who').textContent = '';
  if (clearMessage) { clearError(); setState('start'); }
  $('key').focus();
}

async function open() {
  clearError();
  setState('loading', 'Loading your cinemas…');
  $('key-form').hidden = true;
  let cinemas;
  try {
    cinemas = (await graphql(CINEMAS)).operatorCinemas.nodes;
  } catch (error) {
    showError(error);
    return;
  }
  const select = $('cinema');
  select.replaceChildren(...cinemas.map((c) => new Option(`${c.name} · ${c.city}`, c.id)));
  $('board').hidden = false;
  if (!cinemas.length) {
    $('board').hidden = true;
    setState('empty', 'This operator writes no cinema: there is nothing to show.');
    return;
  }
  if (!$('day').value) $('day').value = dayOf(Date.now());
  await showDay();
}

/** Reads and draws the chosen cinema's day; then follows its showtimes live. */
async function showDay() {
  stopLive();
  clearError();
  setState('loading', 'Loading the day…');
  const day = $('day').value;
  const from = startOfDay(day);
  const before = new Date(from.getTime() + DAY_MS);
  let data;
  try {
    data = await graphql(DAY, { id: $('cinema').value, from: from.toISOString(), before: before.toISOString() });
    if (!data.node) throw new ApiError('NOT_FOUND', 'The cinema is gone.');
    cinema = data.node;
    $('who').textContent = `${cinema.name} · ${cinema.city} · ${day}`;
    drawTimeline(cinema.showtimes.nodes, day);
    await showWaiting(cinema.showtimes.nodes.map((s) => s.id));
    drawProducts(cinema.products.nodes);
    drawVouchers(data.voucherBatches);
    await showRevenue();
  } catch (error) {
    showError(error);
    return;
  }
  setState('ready', '');
  follow(cinema.showtimes.nodes.filter((s) => s.status === 'SCHEDULED').map((s) => s.id));
}

function drawTimeline(showtimes, day) {
  const list = $('timeline');
  list.replaceChildren();
  $('timeline-empty').hidden = showtimes.length > 0;
  for (const showtime of showtimes) {
    const item = document.createElement('li');
    item.className = 'showtime';
    item.dataset.showtime = showtime.id;
    item.dataset.hall = showtime.hall.id;
    // Placed on the day: its start and length as a share of 24 hours.
    const start = Math.max(0, (new Date(showtime.startsAt) - startOfDay(day)) / DAY_MS);
    const length = (new Date(showtime.endsAt) - new Date(showtime.startsAt)) / DAY_MS;
    item.style.setProperty('--start', start);
    item.style.setProperty('--length', Math.min(length, 1 - start));
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'when';
    button.textContent = `${time(showtime.startsAt)}–${time(showtime.endsAt)} ${showtime.movie.title} · ${showtime.hall.name}`;
    button.addEventListener('click', () => select(showtime));
    const bar = document.createElement('div');
    bar.className = 'bar';
    const figures = document.createElement('span');
    figures.className = 'figures';
    const waiting = document.createElement('span');
    waiting.className = 'waiting';
    item.append(button, bar, figures, waiting);
    if (showtime.status !== 'SCHEDULED') item.dataset.status = showtime.status;
    list.append(item);
    showCounts(showtime.id, showtime.seatMap.counts);
  }
}

/** Redraws one showtime's occupancy bar. */
function showCounts(showtimeId, counts) {
  const item = document.querySelector(`#timeline [data-showtime="${CSS.escape(showtimeId)}"]`);
  if (!item) return;
  charts.occupancy(item.querySelector('.bar'), counts);
  const sold = counts.capacity ? counts.sold / counts.capacity : 0;
  item.querySelector('.figures').textContent =
    `${Math.round(sold * 100)}% sold · ${count(counts.sold)} sold, ${count(counts.held)} held, ` +
    `${count(counts.available)} free of ${count(counts.capacity)}`;
}

/** Each showtime's waiting list (parties and people in line), beside its figures. */
async function showWaiting(ids) {
  if (!ids.length) return;
  const lengths = (await graphql(WAITING, { ids })).waitingListLengths;
  for (const { showtimeId, parties, people } of lengths) {
    const item = document.querySelector(`#timeline [data-showtime="${CSS.escape(showtimeId)}"]`);
    if (!item) continue;
    item.dataset.waiting = parties;
    item.querySelector('.waiting').textContent =
      parties ? ` · waiting list: ${count(parties)} ${parties === 1 ? 'party' : 'parties'} (${count(people)} people)` : '';
  }
}

/** Revenue by hour for the day, or the week ending with it; every page of the buckets. */
async function showRevenue() {
  const day = $('day').value;
  const before = new Date(startOfDay(day).getTime() + DAY_MS);
  const from = new Date(before.getTime() - ($('range').value === 'week' ? 7 : 1) * DAY_MS);
  const buckets = [];
  let after = null;
  // A week is 168 hours: two pages of 100 at most (the loop's cap guards a looping cursor).
  for (let page = 0; page < 3; page++) {
    const data = await graphql(SALES, { id: $('cinema').value, from: from.toISOString(), before: before.toISOString(), after });
    const hourly = data.node.hourlySales;
    buckets.push(...hourly.nodes);
    if (!hourly.pageInfo.hasNextPage) break;
    after = hourly.pageInfo.endCursor;
  }
  const chart = $('revenue-chart');
  chart.dataset.from = from.toISOString();
  chart.dataset.before = before.toISOString();
  const totals = charts.revenue(chart, buckets, from, before);
  for (const [id, fen] of [['revenue-total', totals.revenue], ['ticket-total', totals.tickets], ['concession-total', totals.concessions]]) {
    $(id).dataset.fen = fen;
    $(id).textContent = yuan(fen);
  }
  $('revenue-empty').hidden = buckets.length > 0;
}

function drawProducts(products) {
  const rows = products.filter((p) => !p.retired).map((p) => {
    const row = document.createElement('tr');
    row.dataset.product = p.id;
    for (const text of [p.name, yuan(p.price.amount), count(p.sold), p.stock === null ? 'unlimited' : count(p.stock)]) {
      row.append(Object.assign(document.createElement('td'), { textContent: text }));
    }
    return row;
  });
  $('products').replaceChildren(...rows);
  $('products-empty').hidden = rows.length > 0;
}

function drawVouchers(batches) {
  const rows = batches.map((b) => {
    const row = document.createElement('tr');
    row.dataset.batch = b.id;
    // Every code may be redeemed maxRedemptions times; reserved ones are held by live holds.
    const left = Math.max(0, b.codeCount * b.maxRedemptions - b.redeemed - b.reserved);
    const name = b.enabled ? b.name : `${b.name} (disabled)`;
    for (const text of [name, count(b.redeemed), count(b.reserved), count(left)]) {
      row.append(Object.assign(document.createElement('td'), { textContent: text }));
    }
    return row;
  });
  $('vouchers').replaceChildren(...rows);
  $('vouchers-empty').hidden = rows.length > 0;
}

// ---- Live ----

function client() {
  return graphqlWs.createClient({
    url: `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/graphql`,
    // Seat maps are public: the operator's key is not needed, and not sent, here.
    retryAttempts: Infinity,
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(10000, 500 * 2 ** retries))),
    on: {
      connected: () => { $('live').dataset.live = 'on'; $('live').textContent = 'Live: seats update as they change.'; },
      closed: () => { $('live').dataset.live = 'off'; $('live').textContent = 'Reconnecting…'; },
    },
  });
}

/** Follows each showtime's counts over graphql-ws, a connection per 20 showtimes. */
function follow(showtimeIds) {
  for (let i = 0; i < showtimeIds.length; i += SUBSCRIPTIONS_PER_CONNECTION) {
    const live = client();
    clients.push(live);
    for (const id of showtimeIds.slice(i, i + SUBSCRIPTIONS_PER_CONNECTION)) {
      live.subscribe({ query: COUNTS, variables: { id } }, {
        next: ({ data }) => data && showCounts(id, data.seatMapChanged.counts),
        error: () => {},
        complete: () => {},
      });
    }
  }
}

function stopLive() {
  for (const live of clients) live.dispose();
  clients = [];
  if (selected) selected.client.dispose();
  selected = null;
}

/** Shows a showtime's seats: their states live, and its hall's seats that sell first. */
async function select(showtime) {
  if (selected) selected.client.dispose();
  for (const item of document.querySelectorAll('#timeline .showtime')) {
    item.classList.toggle('selected', item.dataset.showtime === showtime.id);
  }
  $('seats-hint').hidden = true;
  $('state-caption').textContent = `Seat states · ${time(showtime.startsAt)} ${showtime.movie.title} · ${showtime.hall.name}`;
  const live = client();
  selected = { showtime: showtime.id, client: live };
  const map = $('state-map');
  live.subscribe({ query: SEAT_MAP, variables: { id: showtime.id } }, {
    next: ({ data }) => {
      if (!data) return;
      const event = data.seatMapChanged;
      if (event.kind === 'SNAPSHOT') charts.stateMap(map, event.seatMap);
      else charts.applyChanges(map, event.changes);
      showCounts(showtime.id, event.counts);
    },
    error: () => {},
    complete: () => {},
  });
  try {
    const before = new Date(startOfDay($('day').value).getTime() + DAY_MS).toISOString();
    const hall = (await graphql(HALL, { id: showtime.hall.id, before })).node;
    const n = hall.seatSales.showtimes;
    $('first-caption').textContent = `Which seats sell first · ${hall.name}, ${count(n)} showtime${n === 1 ? '' : 's'} of the 7 days to this day`;
    charts.sellFirstMap($('first-map'), hall.layout, hall.seatSales);
  } catch (error) {
    $('first-caption').textContent = `Which seats sell first: ${REFUSALS[error.code] || error.message}`;
  }
}

// ---- Start ----

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  key = $('key').value.trim();
  $('key').value = '';
  sessionStorage.setItem(KEY, key);
  open();
});
$('forget').addEventListener('click', () => forget());
for (const id of ['cinema', 'day']) $(id).addEventListener('change', () => showDay());
$('range').addEventListener('change', () => showRevenue().catch(showError));

if (key) {
  open();
} else {
  $('key-form').hidden = false;
  setState('start', 'Enter an operator key to begin.');
}
