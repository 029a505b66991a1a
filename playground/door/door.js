// The door page (/door/{cinemaId}): door staff enter their key once, then type, paste or scan
// ticket codes; each is sent to admitTicket with an idempotency key of its own (reused if the
// request fails on the way, so a retry is the same scan) and the answer is shown at once:
// ADMITTED (green) or refused (red) with the reason, when and where for ALREADY_ADMITTED.
// The page names its cinema and lists the showtimes the door admits for: from four hours ago
// (a film that started is still admitted for a while) to a day ahead.
// In counter mode the same key hands over an order's products: staff type the pickup code the
// customer says, collectItems answers with what to hand over (green), or why not (red),
// when and where for ALREADY_COLLECTED. The mode is kept in the tab, like the key.

const cinemaId = decodeURIComponent(location.pathname.split('/')[2] || '');
const $ = (id) => document.getElementById(id);
const ADMIT = `mutation Admit($code: String!, $key: String) {
  admitTicket(input: { code: $code, idempotencyKey: $key }) {
    seat door admittedAt showtime { startsAt movie { title } hall { name } cinema { id name } } } }`;
const COLLECT = `mutation Collect($code: String!, $key: String) {
  collectItems(input: { pickupCode: $code, idempotencyKey: $key }) {
    orderId collectedAt door items { name quantity } } }`;
const DAY = `query Door($id: ID!, $from: DateTime!, $before: DateTime!) {
  cinema(id: $id) { name city
    showtimes(startsFrom: $from, startsBefore: $before, first: 50) {
      nodes { id startsAt status movie { title } hall { name } } } } }`;
const HOUR = 3600 * 1000;
const REASONS = {
  ALREADY_ADMITTED: 'Already admitted',
  TICKET_CANCELLED: 'Cancelled ticket',
  ADMISSION_CLOSED: 'Not now',
  FORBIDDEN: 'Not for this cinema',
  BAD_USER_INPUT: 'Not a ticket',
  UNAUTHENTICATED: 'Key refused',
};
// The same for a pickup code at the counter.
const COUNTER_REASONS = {
  ALREADY_COLLECTED: 'Already collected',
  TICKET_CANCELLED: 'Cancelled order',
  ADMISSION_CLOSED: 'Not now',
  NOT_FOUND: 'Unknown code',
  FORBIDDEN: 'Not for this cinema',
  BAD_USER_INPUT: 'Not a pickup code',
  UNAUTHENTICATED: 'Key refused',
};

let key = sessionStorage.getItem('boxoffice-door-key') || '';
let mode = sessionStorage.getItem('boxoffice-door-mode') === 'counter' ? 'counter' : 'tickets';

async function graphql(query, variables) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (key) headers.Authorization = 'Bearer ' + key;
  const response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return response.json();
}

/** Sends `query` with `code` and an idempotency key of its own, up to three times: the same
 * key on a retry, so if the first reached the gateway the retry gets its answer. Null when
 * the gateway cannot be reached. */
async function once(query, code) {
  const idempotencyKey = crypto.randomUUID();
  let body = null;
  for (let attempt = 0; attempt < 3 && !body; attempt++) {
    body = await graphql(query, { code, key: idempotencyKey }).catch(() => null);
  }
  return body;
}

/** Names the cinema and lists the showtimes around now (one read, open to anyone); says so
 * when it cannot. */
async function loadDay() {
  const from = new Date(Date.now() - 4 * HOUR).toISOString();
  const before = new Date(Date.now() + 24 * HOUR).toISOString();
  const body = await graphql(DAY, { id: cinemaId, from, before }).catch(() => null);
  const cinema = body && body.data && body.data.cinema;
  if (!cinema) {
    // Reads are open to anyone, so an answer without the cinema means there is none.
    $('cinema').textContent = body ? 'No such cinema: check the address' : 'The gateway cannot be reached';
    return;
  }
  $('cinema').textContent = `${cinema.name} · ${cinema.city}`;
  const list = $('showtimes');
  list.replaceChildren();
  for (const s of cinema.showtimes.nodes) {
    const entry = document.createElement('li');
    entry.dataset.showtime = s.id;
    const cancelled = s.status === 'SCHEDULED' ? '' : ' · cancelled';
    entry.textContent = `${when(s.startsAt)} ${s.movie.title} · ${s.hall.name}${cancelled}`;
    list.append(entry);
  }
  $('showtimes-empty').hidden = cinema.showtimes.nodes.length > 0;
  $('day').hidden = false;
}

function time(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A showtime's start: its time, with its day when that is not today. */
function when(iso) {
  const at = new Date(iso);
  const clock = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (at.toDateString() === new Date().toDateString()) return clock;
  return `${at.toLocaleDateString([], { weekday: 'short', day: 'numeric', month: 'short' })} ${clock}`;
}

/** Shows an answer, big, and logs it. `items` (a collection's lines, "name × quantity") are
 * listed under the verdict. */
function show(outcome, code, verdict, detail, items = []) {
  const result = $('result');
  result.hidden = false;
  result.dataset.outcome = outcome;
  result.dataset.code = code;
  $('verdict').textContent = verdict;
  $('detail').textContent = detail;
  $('handover').replaceChildren(...items.map((line) => {
    const item = document.createElement('li');
    item.textContent = line;
    return item;
  }));
  $('handover').hidden = items.length === 0;
  const entry = document.createElement('li');
  entry.dataset.code = code;
  const said = [detail, items.join(', ')].filter(Boolean).join(' · ');
  entry.textContent = `${new Date().toLocaleTimeString()} ${verdict}${said ? ' · ' + said : ''}`;
  $('log').prepend(entry);
}

async function scan(code) {
  const body = await once(ADMIT, code);
  if (!body) return show('refused', 'NETWORK', 'No answer', 'the gateway cannot be reached: scan again');
  const error = body.errors && body.errors[0];
  if (!error && body.data && body.data.admitTicket) {
    const a = body.data.admitTicket;
    const s = a.showtime;
    $('cinema').textContent = s.cinema.name;
    return show('admitted', 'ADMITTED', `Admitted · ${a.seat}`, `${s.movie.title} · ${s.hall.name} · ${time(s.startsAt)}`);
  }
  const code_ = (error && error.extensions && error.extensions.code) || 'ERROR';
  let detail = error ? error.message : 'no answer';
  if (code_ === 'ALREADY_ADMITTED') {
    detail = `at ${time(error.extensions.admittedAt)} through ${error.extensions.door}`;
  }
  show('refused', code_, REASONS[code_] || code_, detail);
}

/** Hands over the products of the order whose pickup code is `code`. */
async function collect(code) {
  const body = await once(COLLECT, code);
  if (!body) return show('refused', 'NETWORK', 'No answer', 'the gateway cannot be reached: try again');
  const error = body.errors && body.errors[0];
  if (!error && body.data && body.data.collectItems) {
    const lines = body.data.collectItems.items;
    const units = lines.reduce((sum, line) => sum + line.quantity, 0);
    const items = lines.map((line) => `${line.name} × ${line.quantity}`);
    return show('collected', 'COLLECTED', 'Hand over', `${units} ${units === 1 ? 'item' : 'items'} in all`, items);
  }
  const code_ = (error && error.extensions && error.extensions.code) || 'ERROR';
  let detail = error ? error.message : 'no answer';
  if (code_ === 'ALREADY_COLLECTED') {
    detail = `at ${time(error.extensions.collectedAt)} by ${error.extensions.door}`;
  }
  show('refused', code_, COUNTER_REASONS[code_] || code_, detail);
}

/** Tickets or counter: shows that mode's form, ready to type into. */
function setMode(value) {
  mode = value;
  sessionStorage.setItem('boxoffice-door-mode', mode);
  document.body.dataset.mode = mode;
  for (const radio of document.querySelectorAll('input[name="mode"]')) radio.checked = radio.value === mode;
  $('scan-form').hidden = mode !== 'tickets';
  $('collect-form').hidden = mode !== 'counter';
  $(mode === 'tickets' ? 'code' : 'pickup').focus();
}

function useKey(value) {
  key = value.trim();
  sessionStorage.setItem('boxoffice-door-key', key);
  $('key-form').hidden = true;
  $('mode').hidden = false;
  setMode(mode);
}

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  useKey($('key').value);
});
$('scan-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const code = $('code').value.trim();
  if (!code) return;
  $('code').value = '';
  $('code').focus();
  await scan(code);
});
$('mode').addEventListener('change', (event) => setMode(event.target.value));
$('collect-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const code = $('pickup').value.trim();
  if (!code) return;
  $('pickup').value = '';
  $('pickup').focus();
  await collect(code);
});
if (key) useKey(key);
if (cinemaId) {
  $('cinema').textContent = 'Loading the cinema…';
  await loadDay();
} else {
  $('cinema').textContent = 'No cinema in the address: /door/{cinemaId}';
}
document.body.dataset.ready = 'true';
