// node subscribe.mjs BASE_URL SHOWTIME_ID KEY
//
// Drives the live seat map with the graphql-ws client (the npm package, over `ws`): subscribes
// to seatMapChanged, waits for the SNAPSHOT, holds two available seats over POST /graphql with
// the channel's key, waits for the CHANGES event that shows them, and prints a JSON summary.
// Exits non-zero with a message on any failure, or when it has not finished within 10 s.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [base, showtimeId, key] = process.argv.slice(2);
if (!base || !showtimeId || !key) {
  console.error('usage: node subscribe.mjs BASE_URL SHOWTIME_ID KEY');
  process.exit(2);
}
const STATE = { a: 'AVAILABLE', h: 'HELD', s: 'SOLD', b: 'BLOCKED' };
const SEAT_MAP = `subscription ($showtimeId: ID!) { seatMapChanged(showtimeId: $showtimeId) {
  showtimeId kind version seatMap { width rows { label states kinds } }
  changes { label row column state kind } counts { available held sold blocked capacity } } }`;
const HOLD = `mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) {
  id seats { label } expiresAt } }`;

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** What went wrong, from what graphql-ws rejects with. */
function describe(error) {
  if (Array.isArray(error)) return 'GraphQL errors: ' + JSON.stringify(error);
  if (error && typeof error.code === 'number') return `the socket closed: ${error.code} ${error.reason}`;
  if (error && error.message) return error.stack || error.message; // an Error, or ws's ErrorEvent
  if (error && error.type) return `a WebSocket ${error.type} event (is there a WebSocket server at /graphql?)`;
  return String(error);
}
setTimeout(() => fail('timed out after 10 s'), 10_000).unref();

const client = createClient({
  url: base.replace(/^http/, 'ws') + '/graphql',
  webSocketImpl: WebSocket,
  connectionParams: { Authorization: 'Bearer ' + key },
  retryAttempts: 0, // a test wants to see the first failure, not a retry
});

/** The subscription's events, one at a time. */
const events = client.iterate({ query: SEAT_MAP, variables: { showtimeId } });
async function nextEvent() {
  const { value, done } = await events.next();
  if (done) fail('the subscription ended');
  if (value.errors) fail('subscription errors: ' + JSON.stringify(value.errors));
  return value.data.seatMapChanged;
}

try {
  const snapshot = await nextEvent();
  if (snapshot.kind !== 'SNAPSHOT') fail('the first event is not a SNAPSHOT: ' + JSON.stringify(snapshot));
  if (snapshot.showtimeId !== showtimeId) fail('the SNAPSHOT is of showtime ' + snapshot.showtimeId);

  // Every seat's state from the snapshot's compact rows (character i is column i, label
  // row + (i + 1)); then two available seats.
  const stateOf = {};
  for (const row of snapshot.seatMap.rows) {
    [...row.states].forEach((state, column) => {
      if (state !== '_') stateOf[row.label + (column + 1)] = STATE[state];
    });
  }
  const seats = Object.keys(stateOf).filter((label) => stateOf[label] === 'AVAILABLE').slice(0, 2);
  if (seats.length < 2) fail('fewer than two seats are available: ' + JSON.stringify(snapshot.seatMap));

  const response = await fetch(base + '/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + key },
    body: JSON.stringify({ query: HOLD, variables: { input: { showtimeId, seats } } }),
  });
  const answer = await response.json();
  if (answer.errors) fail('holdSeats failed: ' + JSON.stringify(answer.errors));

  // The change that shows the hold. A fresh SNAPSHOT may come at any time (the contract):
  // skip those, counting them.
  let changes = await nextEvent();
  let snapshotsBetween = 0;
  while (changes.kind === 'SNAPSHOT') {
    snapshotsBetween++;
    changes = await nextEvent();
  }
  await events.return();
  await client.dispose();
  console.log(JSON.stringify({
    snapshot: {
      kind: snapshot.kind,
      version: snapshot.version,
      counts: snapshot.counts,
      seats: Object.fromEntries(seats.map((label) => [label, stateOf[label]])),
    },
    held: seats,
    holdId: answer.data.holdSeats.id,
    snapshotsBetween,
    change: {
      kind: changes.kind,
      version: changes.version,
      seatMap: changes.seatMap,
      changes: changes.changes,
      counts: changes.counts,
    },
  }, null, 2));
  process.exit(0);
} catch (error) {
  fail('failed: ' + describe(error));
}
