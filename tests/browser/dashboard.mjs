// node dashboard.mjs BASE_URL CINEMA_ID SHOWTIME_ID OPERATOR_KEY OTHER_CHAIN_KEY CHANNEL_KEY SCREENSHOT
//
// Drives the sales dashboard (/dashboard) in Chromium as three operators: a wrong key (the
// error state), another chain's key (its cinemas only), and the cinema's own chain: its
// day (the showtime's occupancy bar), the week's revenue, and the bar following a hold made
// through the API (by the channel) and its release, live. Saves a screenshot to SCREENSHOT
// (outside the repository). Prints a JSON summary; exits non-zero on any failure.
import { launchChromium, scriptArgs } from './harness.mjs';

const [base, cinemaId, showtimeId, operatorKey, otherKey, channelKey, screenshot] = scriptArgs(
  'node dashboard.mjs BASE_URL CINEMA_ID SHOWTIME_ID OPERATOR_KEY OTHER_CHAIN_KEY CHANNEL_KEY SCREENSHOT', 7);

/** Runs a GraphQL operation against the gateway from here (not the page), as `key`. */
async function api(query, variables, key) {
  const headers = { 'Content-Type': 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  const response = await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = await response.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const browser = await launchChromium();
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  page.setDefaultTimeout(5_000);
  page.on('pageerror', (error) => errors.push(error.message));
  const state = () => page.evaluate(() => ({
    state: document.body.dataset.state,
    error: document.getElementById('error').textContent,
    code: document.getElementById('error').dataset.code,
    keyFormShown: !document.getElementById('key-form').hidden,
    kept: sessionStorage.getItem('boxoffice-dashboard-key'),
    url: location.href,
    text: document.body.innerText,
  }));
  const enter = async (key) => {
    await page.waitForSelector('#key-form:not([hidden])');
    await page.fill('#key', key);
    await page.press('#key', 'Enter');
  };

  // 1. A wrong key: the error state says so, the form is back, nothing is kept.
  await page.goto(`${base}/dashboard`);
  await enter(`bop_${'0'.repeat(43)}`);
  await page.waitForSelector('body[data-state="error"]');
  const wrongKey = await state();

  // 2. Another chain's key: its own cinemas, none of this one.
  await enter(otherKey);
  await page.waitForSelector('body[data-state="ready"], body[data-state="empty"]');
  const other = await state();
  other.cinemas = await page.$$eval('#cinema option', (options) => options.map((o) => o.value));
  other.showtimes = await page.$$eval('#timeline [data-showtime]', (items) => items.map((i) => i.dataset.showtime));

  // 3. The cinema's chain: the showtime's day (in the cinema's time zone), the week's revenue.
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await enter(operatorKey);
  await page.waitForSelector('body[data-state="ready"]');
  const { showtime } = await api('query ($id: ID!) { showtime(id: $id) { startsAt } }', { id: showtimeId });
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' })
    .format(new Date(showtime.startsAt));
  await page.selectOption('#cinema', cinemaId);
  await page.fill('#day', day);
  await page.dispatchEvent('#day', 'change');
  await page.waitForSelector(`#timeline [data-showtime="${showtimeId}"]`);
  await page.waitForSelector('body[data-state="ready"]');
  await page.selectOption('#range', 'week');
  await page.waitForFunction(() => document.querySelectorAll('#revenue-chart g.hour').length === 168);
  const item = `#timeline [data-showtime="${showtimeId}"]`;
  const bar = () => page.$eval(`${item} .bar`, (b) => ({ ...b.dataset }));
  const shown = {
    day,
    text: await page.textContent(`${item} .when`),
    figures: await page.textContent(`${item} .figures`),
    waiting: await page.$eval(item, (i) => i.dataset.waiting),
    bar: await bar(),
    revenue: await page.evaluate(() => {
      const fen = (id) => Number(document.getElementById(id).dataset.fen);
      const chart = document.getElementById('revenue-chart');
      const hours = [...chart.querySelectorAll('g.hour[data-tickets]')].map((g) => ({
        hour: g.dataset.hour, tickets: Number(g.dataset.tickets), concessions: Number(g.dataset.concessions),
      }));
      return {
        total: fen('revenue-total'), tickets: fen('ticket-total'), concessions: fen('concession-total'),
        totalText: document.getElementById('revenue-total').textContent,
        from: chart.dataset.from, before: chart.dataset.before, hours,
      };
    }),
    products: await page.$$eval('#products tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))),
    after: await state(),
  };
  await page.waitForSelector('#live[data-live="on"]');

  // 4. A hold made through the API shows in the bar, then goes when it is released.
  const HOLD = 'mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, seats: ["A1", "A2"] }) { id } }';
  const held = await api(HOLD, { id: showtimeId }, channelKey);
  let answered = Date.now();
  await page.waitForSelector(`${item} .bar[data-held="2"]`);
  const holdSeenMs = Date.now() - answered;
  const heldBar = await bar();
  await api('mutation ($id: ID!) { releaseHold(holdId: $id) }', { id: held.holdSeats.id }, channelKey);
  answered = Date.now();
  await page.waitForSelector(`${item} .bar[data-held="0"]`);
  const releaseSeenMs = Date.now() - answered;

  // 5. The showtime's seats: states, and which sell first in its hall.
  await page.click(`${item} .when`);
  await page.waitForSelector('#state-map .seat.sold');
  await page.waitForSelector('#first-map .seat');
  const maps = await page.evaluate(() => ({
    sold: [...document.querySelectorAll('#state-map .seat.sold')].map((s) => s.dataset.seat),
    shares: Object.fromEntries([...document.querySelectorAll('#first-map .seat')].map((s) => [s.dataset.seat, Number(s.dataset.share)])),
    caption: document.getElementById('first-caption').textContent,
  }));
  await page.screenshot({ path: screenshot, fullPage: true });
  const final = await state();
  delete wrongKey.text;
  console.log(JSON.stringify({
    wrongKey, other, shown, holdSeenMs, heldBar, releaseSeenMs, maps,
    urls: [wrongKey.url, other.url, final.url], kept: final.kept, errors,
  }));
} catch (error) {
  console.error(String(error));
  process.exitCode = 1;
} finally {
  await browser.close();
}
