// The door page (/door/{cinemaId}): door staff enter their key once, then type, paste or scan
// ticket codes; each is sent to admitTicket with an idempotency key of its own (reused if the
// request fails on the way, so a retry is the same scan) and the answer is shown at once:
// ADMITTED (green) or refused (red) with the reason, when and where for ALREADY_ADMITTED.

const cinemaId = decodeURIComponent(location.pathname.split('/')[2] || '');
const $ = (id) => document.getElementById(id);
const ADMIT = `mutation Admit($code: String!, $key: String) {
  admitTicket(input: { code: $code, idempotencyKey: $key }) {
    seat door admittedAt showtime { startsAt movie { title } hall { name } cinema { id name } } } }`;
const REASONS = {
  ALREADY_ADMITTED: 'Already admitted',
  TICKET_CANCELLED: 'Cancelled ticket',
  ADMISSION_CLOSED: 'Not now',
  FORBIDDEN: 'Not for this cinema',
  BAD_USER_INPUT: 'Not a ticket',
  UNAUTHENTICATED: 'Key refused',
};

let key = sessionStorage.getItem('boxoffice-door-key') || '';

async function admit(code, idempotencyKey) {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: 'Bearer ' + key },
    body: JSON.stringify({ query: ADMIT, variables: { code, key: idempotencyKey } }),
  });
  return response.json();
}

function time(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

function show(outcome, code, verdict, detail) {
  const result = $('result');
  result.hidden = false;
  result.dataset.outcome = outcome;
  result.dataset.code = code;
  $('verdict').textContent = verdict;
  $('detail').textContent = detail;
  const entry = document.createElement('li');
  entry.dataset.code = code;
  entry.textContent = `${new Date().toLocaleTimeString()} ${verdict}${detail ? ' · ' + detail : ''}`;
  $('log').prepend(entry);
}

async function scan(code) {
  const idempotencyKey = crypto.randomUUID();
  let body;
  for (let attempt = 0; attempt < 3 && !body; attempt++) {
    // The same key on a retry: if the first reached the gateway, the retry gets its answer.
    body = await admit(code, idempotencyKey).catch(() => null);
  }
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

function useKey(value) {
  key = value.trim();
  sessionStorage.setItem('boxoffice-door-key', key);
  $('key-form').hidden = true;
  $('scan-form').hidden = false;
  $('code').focus();
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
$('cinema').textContent = cinemaId ? `Cinema ${cinemaId}` : 'No cinema in the address: /door/{cinemaId}';
if (key) useKey(key);
document.body.dataset.ready = 'true';
