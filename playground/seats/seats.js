// The seat picker. /seats finds seats for a party near a place (`findSeats`) and lists upcoming
// showtimes; /seats/{id} draws the showtime's hall live
// from the `seatMapChanged` subscription (graphql-ws, vendored in /playground/vendor) and holds,
// releases and confirms seats over POST /graphql with a sales channel's API key, with the
// cinema's products and a voucher code if the buyer wants, and recovers
// the channel's live hold after a reload (`holds(showtimeId:)`). Vanilla JS,
// no build step: the gateway serves this module (and hall.js, which draws the hall) as it is.
import { draw, enableKeyboard, ours, refresh, seats, selected, setState } from './hall.js';

const KEY_STORE = 'boxoffice.seats.key';

const MOVIES = 'query { movies(first: 50) { nodes { id title } } }';
const FIND = `query ($input: FindSeatsInput!) { findSeats(input: $input, first: 10) { nodes {
  showtime { id startsAt movie { title } cinema { name } hall { name } }
  distanceMeters seats leavesSingleSeat totalPrice { formatted } } } }`;
const LIST = `query ($from: DateTime) { showtimes(first: 20, filter: { startsFrom: $from }) {
  nodes { id startsAt language movie { title } cinema { name } hall { name } } } }`;
// `price` is the caller's channel's: without a key it is an error, so it is asked with one only.
// With a key, also the price matrix and the channel's code (to pick its prices out) and the
// ticket types' names: a buyer chooses a type per seat and sees each seat's price.
const SHOWTIME = `query ($id: ID!, $priced: Boolean!) { showtime(id: $id) {
  startsAt language movie { title } cinema { id name } hall { name } price @include(if: $priced) { formatted }
  prices @include(if: $priced) { channel seatKind ticketType price { amount formatted } } }
  currentChannel @include(if: $priced) { code } ticketTypes @include(if: $priced) { code name } }`;
const SEAT_MAP = `subscription ($showtimeId: ID!) { seatMapChanged(showtimeId: $showtimeId) {
  kind version seatMap { width rows { label states kinds } }
  changes { label row column state kind } counts { available held sold blocked capacity } } }`;
// What the cinema sells beside seats (public). Retired and out-of-window ones are not offered.
const PRODUCTS = `query ($id: ID!) { node(id: $id) { ... on Cinema { products(first: 50) {
  edges { node { id name price { amount formatted } stock onSale } } } } } }`;
// A hold as the page shows it: its seats (after any voucher), its products, discount and total.
const HOLD_FIELDS = `id seats { label kind ticketType price { formatted } }
  items { productId name quantity amount { formatted } } discount { amount formatted } total { formatted } expiresAt`;
const HOLD = `mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) { ${HOLD_FIELDS} } }`;
// The channel's holds of the showtime, to recover one after a reload.
const HOLDS = `query ($id: ID!) { holds(showtimeId: $id, first: 20) { edges { node { status ${HOLD_FIELDS} } } } }`;
const RELEASE = 'mutation ($id: ID!) { releaseHold(holdId: $id) }';
const CONFIRM = `mutation ($input: ConfirmHoldInput!) { confirmHold(input: $input) {
  id status seats { label } total { formatted } customer { name contact } createdAt
  items { name quantity } pickupCode tickets { seat code } } }`;

const $ = (selector) => document.querySelector(selector);
const inOrder = (labels) => [...labels].sort((x, y) => x.localeCompare(y, undefined, { numeric: true })); // A2 < A10
const showtimeId = decodeURIComponent(location.pathname.split('/')[2] || '');
let key = sessionStorage.getItem(KEY_STORE) || '';
let client = null; // the graphql-ws client; a new one for every key
let version = -1; // the version of the map drawn; -1 until the first SNAPSHOT
let hold = null; // the live hold: { id, expiresAt, warnings still to give }
let ticker = null; // the countdown's interval
let pricing = null; // with a key: { channel, matrix: the showtime's prices, names: type → name }
const chosenTypes = new Map(); // label → the ticket type chosen for a selected seat
let cinemaId = null; // the showtime's cinema, whose products are offered
let products = []; // the products on sale, as last listed
// Why a voucher was refused (VOUCHER_REFUSED's extensions.reason), in the buyer's words.
const VOUCHER_REASONS = {
  UNKNOWN: 'no voucher has this code',
  DISABLED: 'this voucher has been withdrawn',
  NOT_YET_VALID: 'this voucher is not valid yet',
  EXPIRED: 'this voucher has expired',
  OUT_OF_SCOPE: 'this voucher is not for this showtime',
  USED_UP: 'this voucher has been used up',
  CUSTOMER_LIMIT: 'this customer has used this voucher as often as it allows',
  CUSTOMER_NEEDED: 'this voucher is limited per customer, and this page names none',
};

// ---- Talking to the gateway ----

class ApiError extends Error {
  constructor(code, message, extensions = {}) { super(message); this.code = code; this.extensions = extensions; }
}

/** Runs one operation over POST /graphql as the channel whose key is entered. */
async function graphql(query, variables) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (key) headers.Authorization = 'Bearer ' + key;
  const response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = await response.json().catch(() => null);
  const error = body && body.errors && body.errors[0];
  if (error) throw new ApiError((error.extensions && error.extensions.code) || 'ERROR', error.message, error.extensions || {});
  if (!body || !body.data) throw new ApiError('HTTP_' + response.status, 'the gateway gave no answer');
  return body.data;
}

/** Subscribes to the seat map over WebSocket; reconnects (and gets a new SNAPSHOT) by itself. */
function connect() {
  if (client) client.dispose();
  version = -1;
  setStatus('connecting', 'Connecting…');
  let ended = false; // the subscription failed for good: no reconnecting then
  const mine = (client = graphqlWs.createClient({
    url: (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/graphql',
    connectionParams: () => (key ? { Authorization: 'Bearer ' + key } : {}),
    retryAttempts: Infinity,
    // Back off up to 10 s between attempts; a refused key (4403) is final until it changes.
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(10000, 500 * 2 ** retries) + Math.random() * 500)),
    shouldRetry: (closed) => !(closed && closed.code === 4403),
    on: {
      closed: () => { if (client === mine && !ended) setStatus('reconnecting', 'Connection lost; reconnecting…'); },
    },
  }));
  mine.subscribe({ query: SEAT_MAP, variables: { showtimeId } }, {
    next: ({ data, errors }) => (errors ? fail(errors[0]) : apply(data.seatMapChanged)),
    error: (error) => {
      ended = true;
      if (client !== mine) return;
      if (error && error.code === 4403) {
        setStatus('refused', 'Not live: the gateway refused the channel key.');
        fail(new ApiError('FORBIDDEN', 'the channel key was refused (WebSocket close 4403)'));
      } else {
        setStatus('closed', 'Not live: the seat map subscription ended. Reload the page.');
        fail(Array.isArray(error) ? error[0] : new ApiError('SUBSCRIPTION', String((error && error.reason) || error)));
      }
    },
    complete: () => {},
  });
}

// ---- Messages ----

function setStatus(state, text) {
  const status = $('#status');
  if (status.dataset.status === state) return; // announce changes only
  status.dataset.status = state;
  status.textContent = text;
}
function say(text) { $('#notice').textContent = text; }
function fail(error) {
  const code = error.code || (error.extensions && error.extensions.code) || 'ERROR';
  $('#error').dataset.code = code;
  $('#error').textContent = explain(code, error);
}
/** What went wrong, in words: a refused voucher's reason, a sold-out product's name. */
function explain(code, error) {
  const extensions = error.extensions || {};
  if (code === 'VOUCHER_REFUSED') {
    $('#error').dataset.reason = extensions.reason;
    return `Voucher refused: ${VOUCHER_REASONS[extensions.reason] || extensions.reason || error.message}.`;
  }
  if (code === 'SOLD_OUT') {
    const product = products.find((p) => p.id === extensions.product);
    const name = product ? product.name : 'a product';
    $('#error').dataset.product = name;
    return `Sold out: ${name} has fewer left than you asked for. Nothing was held; the products are listed again.`;
  }
  return `${code}: ${error.message}`;
}
function clearError() {
  $('#error').textContent = '';
  for (const name of ['code', 'reason', 'product']) delete $('#error').dataset[name];
  $('#voucher').removeAttribute('aria-invalid');
}
const when = (instant) => new Date(instant).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

// ---- The hall ----

/** Applies one event of the subscription. */
function apply(event) {
  if (event.kind === 'SNAPSHOT') {
    draw($('#grid'), event.seatMap);
  } else {
    if (version < 0 || event.version <= version) return; // before the first SNAPSHOT, or seen
    for (const change of event.changes) {
      const seat = seats.get(change.label);
      if (seat) setState(seat, change.state.toLowerCase());
    }
  }
  version = event.version;
  for (const [name, count] of Object.entries(event.counts)) {
    const cell = document.querySelector(`[data-count="${name}"]`);
    if (cell) cell.textContent = count;
  }
  setStatus('live', 'Live: seats update as they are sold.');
  update();
}

function toggle(seat) {
  const label = seat.dataset.seat;
  if (seat.dataset.state !== 'available') return say(`${label} is ${seat.dataset.state}.`);
  if (selected.has(label)) selected.delete(label);
  else selected.add(label);
  setState(seat, 'available');
  update();
}

// ---- Holds and orders ----

/** Lists an order's tickets: each seat with its code and the code's QR (qrcode-generator). */
function showTickets(tickets) {
  const list = $('#order-tickets');
  list.replaceChildren(...tickets.map((ticket) => {
    const item = document.createElement('li');
    item.dataset.ticketSeat = ticket.seat;
    item.dataset.ticketCode = ticket.code;
    const qr = window.qrcode ? window.qrcode(0, 'M') : null;
    if (qr) {
      qr.addData(ticket.code);
      qr.make();
      const image = document.createElement('img');
      image.src = qr.createDataURL(3, 4);
      image.alt = `QR code of the ticket for seat ${ticket.seat}`;
      image.className = 'qr';
      item.append(image);
    }
    const seat = document.createElement('strong');
    seat.textContent = ticket.seat;
    const code = document.createElement('code');
    code.textContent = ticket.code;
    item.append(seat, ' ', code);
    return item;
  }));
}

// ---- Ticket types and prices ----

const typeName = (code) => (pricing && pricing.names[code]) || code;

/** The channel's price of a seat of `kind` (hall.js's lower-case kind) as `type`: the
 * matrix's price naming the kind, else its price for every kind; null when not sold so. */
function priceOf(kind, type) {
  if (!pricing) return null;
  const entries = pricing.matrix.filter((p) => p.channel === pricing.channel && p.ticketType === type);
  const exact = entries.find((p) => p.seatKind === kind.toUpperCase());
  return (exact || entries.find((p) => p.seatKind === null) || {}).price || null;
}

/** The ticket types the channel sells a seat of `kind` as, ADULT first. */
function typesFor(kind) {
  if (!pricing) return ['ADULT'];
  const types = [...new Set(pricing.matrix.filter((p) => p.channel === pricing.channel).map((p) => p.ticketType))];
  return types.filter((type) => priceOf(kind, type)).sort((x, y) => (x === 'ADULT' ? -1 : y === 'ADULT' ? 1 : 0));
}

let shownSelection = ''; // what showSelection last drew, so live updates leave an open choice be
let seatsTotal = null; // the selected seats' prices in fen, and their format: { amount, sign }

/** Each selected seat with a choice of ticket type and its price, and the selection's total. */
function showSelection(labels) {
  for (const label of [...chosenTypes.keys()]) if (!selected.has(label)) chosenTypes.delete(label);
  const drawn = JSON.stringify([labels, [...chosenTypes], Boolean(pricing)]);
  if (drawn === shownSelection) return;
  shownSelection = drawn;
  let total = 0;
  let format = null;
  $('#selection-types').replaceChildren(...labels.map((label) => {
    const kind = (seats.get(label) && seats.get(label).dataset.kind) || 'standard';
    const types = typesFor(kind);
    if (!types.includes(chosenTypes.get(label))) chosenTypes.set(label, types[0] || 'ADULT');
    const item = document.createElement('li');
    item.dataset.selectedSeat = label;
    const choice = document.createElement('select');
    choice.dataset.ticketTypeFor = label;
    choice.setAttribute('aria-label', `Ticket type of seat ${label}`);
    choice.append(...types.map((type) => new Option(typeName(type), type, false, type === chosenTypes.get(label))));
    choice.addEventListener('change', () => { chosenTypes.set(label, choice.value); update(); });
    const price = priceOf(kind, chosenTypes.get(label));
    if (price) { total += price.amount; format = format || price.formatted; }
    const amount = document.createElement('span');
    amount.dataset.priceOf = label;
    amount.textContent = price ? price.formatted : '–';
    item.append(`${label} (${kind}) `, choice, ' ', amount);
    return item;
  }));
  // The total in the prices' own format: their currency sign, two decimals.
  seatsTotal = labels.length && format ? { amount: total, sign: format.replace(/[\d.,\s]/g, '') } : null;
}

/** The selection's total: its seats and the products chosen, before any voucher. */
function showTotal() {
  const price = (id) => (products.find((p) => p.id === id) || { price: { amount: 0 } }).price.amount;
  const items = chosenItems().reduce((sum, item) => sum + item.quantity * price(item.productId), 0);
  $('#selection-total').textContent = seatsTotal ? `${seatsTotal.sign}${((seatsTotal.amount + items) / 100).toFixed(2)}` : '–';
}

// ---- Products and the voucher ----

/** Lists the cinema's products on sale, each with a quantity 0..20 (no more than its stock),
 * or "sold out". Quantities already chosen stay, as far as the stock allows. */
async function loadProducts() {
  if (!cinemaId) return;
  const chosen = new Map(chosenItems().map((item) => [item.productId, item.quantity]));
  try {
    const { node } = await graphql(PRODUCTS, { id: cinemaId });
    products = ((node && node.products.edges) || []).map((edge) => edge.node).filter((p) => p.onSale);
  } catch (error) {
    return fail(error);
  }
  $('#product-list').replaceChildren(...products.map((product, i) => {
    const item = document.createElement('li');
    item.dataset.productId = product.id;
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = product.name;
    const price = document.createElement('span');
    price.className = 'price';
    price.textContent = product.price.formatted;
    if (product.stock === 0) {
      item.dataset.soldOut = '';
      const out = document.createElement('span');
      out.className = 'sold-out';
      out.textContent = 'sold out';
      const what = document.createElement('span');
      what.append(name, ' ', price);
      item.append(what, out);
      return item;
    }
    // The label names the product and its price: a screen reader says both with the stepper.
    const label = document.createElement('label');
    label.htmlFor = `quantity-${i}`;
    label.append(name, ' ', price);
    const quantity = document.createElement('input');
    quantity.id = `quantity-${i}`;
    quantity.type = 'number';
    quantity.min = '0';
    quantity.max = String(product.stock === null ? 20 : Math.min(20, product.stock));
    quantity.value = String(Math.min(Number(quantity.max), chosen.get(product.id) || 0));
    quantity.inputMode = 'numeric';
    quantity.dataset.quantityOf = product.id;
    quantity.addEventListener('input', update);
    item.append(label, quantity);
    return item;
  }));
  $('#products').hidden = products.length === 0;
  update();
}

/** The product lines to hold: each product with a quantity above 0. */
function chosenItems() {
  return [...document.querySelectorAll('[data-quantity-of]')]
    .map((input) => ({ productId: input.dataset.quantityOf, quantity: Math.trunc(Number(input.value)) || 0 }))
    .filter((item) => item.quantity > 0);
}

/** What holdSeats takes beside the seats: the voucher when one is typed, the chosen products. */
function extras() {
  const extra = {};
  const voucher = $('#voucher').value.trim();
  if (voucher) extra.voucher = voucher;
  const items = chosenItems();
  if (items.length) extra.items = items;
  return extra;
}

/** Enables what can be done now and shows the selection. */
function update() {
  const labels = inOrder(selected);
  $('#selection').textContent = labels.length ? labels.join(', ') : 'none';
  showSelection(labels);
  showTotal();
  $('#hold-selected').disabled = !key || !labels.length || hold !== null;
  $('#hold-best').disabled = !key || hold !== null;
}

async function holdSeats(input) {
  clearError();
  if (!$('#hold-form').reportValidity()) return; // a quantity beyond its stock, say
  try {
    const { holdSeats: answer } = await graphql(HOLD, { input: { showtimeId, ...input, ...extras() } });
    // Held: the voucher and the products are the hold's now; the stock left has changed.
    $('#voucher').value = '';
    for (const quantity of document.querySelectorAll('[data-quantity-of]')) quantity.value = '0';
    showHold(answer, 'Held');
    loadProducts();
  } catch (error) {
    fail(error);
    if (error.code === 'VOUCHER_REFUSED') {
      $('#voucher').setAttribute('aria-invalid', 'true');
      $('#voucher').focus();
    } else if (error.code === 'SOLD_OUT') {
      // Someone else took what was left: show what is left now, and point at the product.
      await loadProducts();
      const row = document.querySelector(`[data-product-id="${CSS.escape(error.extensions.product || '')}"]`);
      if (row) row.dataset.refused = '';
    }
  }
  update();
}

/** Shows `answer` (a hold) as the buyer's, with its countdown. */
function showHold(answer, verb) {
  hold = { id: answer.id, expiresAt: Date.parse(answer.expiresAt), warnings: [60, 30, 10] };
  selected.clear();
  ours.clear();
  for (const seat of answer.seats) ours.add(seat.label);
  refresh();
  const panel = $('#hold');
  panel.hidden = false;
  panel.dataset.holdId = answer.id;
  $('#hold-seats').replaceChildren(...answer.seats.map((s) => {
    const item = document.createElement('li');
    item.dataset.heldSeat = s.label;
    item.dataset.ticketType = s.ticketType;
    item.textContent = `${s.label} (${s.kind === 'VIP' ? s.kind : s.kind.toLowerCase()}) ${typeName(s.ticketType)} ${s.price.formatted}`;
    return item;
  }));
  $('#hold-items').replaceChildren(...(answer.items || []).map((line) => {
    const item = document.createElement('li');
    item.dataset.heldItem = line.productId;
    item.textContent = `${line.name} × ${line.quantity} ${line.amount.formatted}`;
    return item;
  }));
  // What a voucher took off the seats (zero without one).
  $('#hold-discount-line').hidden = !(answer.discount && answer.discount.amount > 0);
  $('#hold-discount').textContent = answer.discount ? `−${answer.discount.formatted}` : '';
  $('#hold-total').textContent = answer.total.formatted;
  say(`${verb} ${[...ours].join(', ')}. Confirm the order before the hold expires.`);
  clearInterval(ticker);
  ticker = setInterval(tick, 1000);
  tick();
  update();
}

/** After a reload: the channel's newest live hold of this showtime becomes the buyer's again. */
async function recoverHold() {
  if (!key || hold) return;
  try {
    const { holds } = await graphql(HOLDS, { id: showtimeId });
    const live = holds.edges.map((edge) => edge.node).filter((h) => h.status === 'ACTIVE');
    if (live.length && !hold) showHold(live[live.length - 1], 'Recovered your hold of');
  } catch (error) {
    fail(error);
  }
}

function tick() {
  const left = Math.max(0, Math.round((hold.expiresAt - Date.now()) / 1000));
  $('#countdown').textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  // Announce a minute, 30 and 10 seconds left, once each (not every second).
  if (hold.warnings.length && left <= hold.warnings[0] && left > 0) {
    while (hold.warnings.length && left <= hold.warnings[0]) hold.warnings.shift();
    say(`The hold expires in ${left} seconds.`);
  }
  if (left === 0) endHold('The hold expired: its seats are free again.');
}

function endHold(message) {
  clearInterval(ticker);
  const panel = $('#hold');
  panel.hidden = true;
  delete panel.dataset.holdId;
  hold = null;
  ours.clear();
  refresh();
  if (message) say(message);
  update();
  loadProducts(); // a release or an expiry gives units back
}

async function release() {
  clearError();
  try {
    const { releaseHold } = await graphql(RELEASE, { id: hold.id });
    endHold(`Released ${releaseHold.join(', ')}.`);
  } catch (error) {
    fail(error);
  }
}

async function confirmOrder() {
  clearError();
  const customer = { name: $('#customer-name').value.trim(), contact: $('#customer-contact').value.trim() };
  try {
    const { confirmHold: order } = await graphql(CONFIRM, { input: { holdId: hold.id, customer } });
    endHold(null);
    const panel = $('#order');
    panel.hidden = false;
    panel.dataset.orderId = order.id;
    panel.dataset.orderStatus = order.status;
    $('#order-id').textContent = order.id;
    $('#order-status').textContent = order.status;
    $('#order-seats').textContent = order.seats.map((s) => s.label).join(', ');
    const items = order.items || [];
    $('#order-items').textContent = items.map((item) => `${item.name} × ${item.quantity}`).join(', ');
    for (const part of document.querySelectorAll('#order .if-items')) part.hidden = !items.length;
    $('#order-total').textContent = order.total.formatted;
    $('#order-customer').textContent = `${order.customer.name} (${order.customer.contact})`;
    $('#order-pickup').textContent = order.pickupCode || '';
    showTickets(order.tickets || []);
    say(`Order ${order.id} is ${order.status}.`);
  } catch (error) {
    fail(error);
  }
}

// ---- The pages ----

async function showList() {
  $('#list').hidden = false;
  const list = $('#showtimes');
  try {
    const { showtimes } = await graphql(LIST, { from: new Date().toISOString() });
    list.replaceChildren(...showtimes.nodes.map((s) => {
      const link = document.createElement('a');
      link.href = '/seats/' + encodeURIComponent(s.id);
      link.textContent = `${when(s.startsAt)} · ${s.movie.title} (${s.language}) · ${s.cinema.name}, ${s.hall.name}`;
      const item = document.createElement('li');
      item.append(link);
      return item;
    }));
    if (!showtimes.nodes.length) list.textContent = 'No upcoming showtimes.';
  } catch (error) {
    list.textContent = `Could not list the showtimes: ${error.code}: ${error.message}`;
  }
}

/** The find-seats panel: the movies to choose from, then the options of each search, each
 * linking to its showtime's map. */
async function showFinder() {
  $('#finder').hidden = false;
  try {
    const { movies } = await graphql(MOVIES, {});
    $('#find-movie').append(...movies.nodes.map((movie) => new Option(movie.title, movie.id)));
  } catch (error) {
    $('#find-status').textContent = `Could not list the movies: ${error.code}: ${error.message}`;
  }
  $('#find-form').addEventListener('submit', (event) => {
    event.preventDefault();
    findSeats();
  });
}

/** Where to search: the chosen city's centre, or the browser's position. */
function searchPoint() {
  const where = $('#find-where').value;
  if (where !== 'here') {
    const [latitude, longitude] = where.split(',').map(Number);
    return Promise.resolve({ latitude, longitude });
  }
  return new Promise((resolve, reject) => navigator.geolocation.getCurrentPosition(
    (position) => resolve({ latitude: position.coords.latitude, longitude: position.coords.longitude }),
    () => reject(new ApiError('NO_LOCATION', 'the browser did not give a location')),
  ));
}

async function findSeats() {
  const options = $('#options');
  const status = $('#find-status');
  status.textContent = 'Searching…';
  options.replaceChildren();
  try {
    const point = await searchPoint();
    const from = new Date();
    const input = {
      near: { ...point, radiusMeters: Number($('#find-radius').value) },
      startsFrom: from.toISOString(),
      startsBefore: new Date(from.getTime() + Number($('#find-hours').value) * 3_600_000).toISOString(),
      partySize: Number($('#find-party').value),
      channel: $('#find-channel').value.trim(),
    };
    if ($('#find-movie').value) input.movieId = $('#find-movie').value;
    const { findSeats: found } = await graphql(FIND, { input });
    options.replaceChildren(...found.nodes.map((option) => {
      const s = option.showtime;
      const link = document.createElement('a');
      link.href = '/seats/' + encodeURIComponent(s.id);
      const km = (option.distanceMeters / 1000).toFixed(1);
      const single = option.leavesSingleSeat ? ' (leaves a single seat)' : '';
      link.textContent = `${when(s.startsAt)} · ${s.movie.title} · ${s.cinema.name}, ${s.hall.name} · ${km} km · seats ${option.seats.join(' ')}${single} · ${option.totalPrice.formatted}`;
      link.dataset.seats = option.seats.join(' ');
      const item = document.createElement('li');
      item.append(link);
      return item;
    }));
    status.textContent = found.nodes.length ? `${found.nodes.length} options, best first.` : 'No seats found together for that party: try further, later or fewer people.';
  } catch (error) {
    status.textContent = `Could not search: ${error.code}: ${error.message}`;
  }
}

/** The header: movie, cinema, hall, time, language, and the channel's price. */
async function showHeader() {
  try {
    const { showtime, currentChannel, ticketTypes } = await graphql(SHOWTIME, { id: showtimeId, priced: Boolean(key) });
    if (!showtime) return fail(new ApiError('NOT_FOUND', 'there is no such showtime'));
    if (cinemaId !== showtime.cinema.id) {
      cinemaId = showtime.cinema.id;
      loadProducts();
    }
    pricing = currentChannel ? {
      channel: currentChannel.code,
      matrix: showtime.prices || [],
      names: Object.fromEntries((ticketTypes || []).map((t) => [t.code, t.name])),
    } : null;
    shownSelection = '';
    update();
    $('#title').textContent = showtime.movie.title;
    document.title = `${showtime.movie.title} · Seat picker`;
    const price = showtime.price ? ` · standard seat ${showtime.price.formatted}` : '';
    $('#details').textContent = `${showtime.cinema.name} · ${showtime.hall.name} · ${when(showtime.startsAt)} · ${showtime.language}${price}`;
  } catch (error) {
    fail(error);
  }
}

function showPicker() {
  $('#picker').hidden = false;
  $('#sales').hidden = false;
  $('#key').value = key;
  const grid = $('#grid');
  grid.addEventListener('click', (event) => {
    const seat = event.target.closest('.seat');
    if (seat) toggle(seat); // also Enter and Space on a focused seat
  });
  enableKeyboard(grid);
  $('#key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    key = $('#key').value.trim();
    if (key) sessionStorage.setItem(KEY_STORE, key);
    else sessionStorage.removeItem(KEY_STORE);
    clearError();
    if (hold) endHold('The key changed: the hold stays with the previous channel until it expires.');
    say(key ? 'Using the channel key.' : 'No channel key: seats can be watched, not held.');
    showHeader(); // the price is the channel's
    connect();
    update();
    recoverHold();
  });
  $('#hold-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const labels = inOrder(selected);
    holdSeats({ seats: labels, ticketTypes: labels.map((label) => chosenTypes.get(label) || 'ADULT') });
  });
  $('#hold-best').addEventListener('click', () => {
    holdSeats({ best: { count: Number($('#best-count').value), kind: $('#best-kind').value } });
  });
  $('#release').addEventListener('click', release);
  $('#confirm-form').addEventListener('submit', (event) => {
    event.preventDefault();
    confirmOrder();
  });
  update();
  showHeader();
  connect();
  recoverHold();
}

if (showtimeId) showPicker();
else {
  showFinder();
  showList();
}
