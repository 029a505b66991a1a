// node seat-picker.mjs BASE_URL SHOWTIME_ID KEY
//
// Drives the seat picker page (/seats/{id}) in Chromium (playwright-core with Debian's
// chromium; set CHROMIUM to use another build) as two people at once: A enters the channel key,
// selects two seats side by side with the keyboard, makes the second a CHILD ticket (its price
// and the total follow) and holds them; B, on another page, must show
// them held within 1 s of A's hold answer; A reloads the page and gets the hold back; A
// confirms the order; B shows the seats sold and A the
// order CONFIRMED with a ticket (code and QR) per seat and the pickup code. Prints a JSON summary; exits non-zero on any failure.
import { fail, launchChromium, scriptArgs } from './harness.mjs';

const [base, showtimeId, key] = scriptArgs('node seat-picker.mjs BASE_URL SHOWTIME_ID KEY', 3);
const TIMEOUT = 5_000; // for each step

const browser = await launchChromium();
const errors = []; // uncaught errors of either page
const pages = []; // [name, page], to show what each showed when something fails

/** Opens the page in a fresh context (its own sessionStorage) and waits until it is live. */
async function open(name) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on('pageerror', (error) => errors.push(`${name}: ${error.message}`));
  pages.push([name, page]);
  await page.goto(`${base}/seats/${encodeURIComponent(showtimeId)}`);
  await page.waitForSelector('#status[data-status="live"]');
  await page.waitForSelector('[data-seat]');
  return page;
}

/** Records in `seenAt[state]` (Date.now(), one clock for every page) when all `seats` first
 * show `state`. */
function watch(page, seats, state) {
  return page.evaluate(([seats, state]) => {
    window.seenAt = window.seenAt || {};
    const check = () => {
      const all = seats.every((label) => document.querySelector(`[data-seat="${label}"]`)?.dataset.state === state);
      if (all && !window.seenAt[state]) window.seenAt[state] = Date.now();
    };
    new MutationObserver(check).observe(document.body, { subtree: true, attributes: true, childList: true });
    check();
  }, [seats, state]);
}
const seenAt = (page, state) => page.waitForFunction((state) => window.seenAt[state], state).then((h) => h.jsonValue());

try {
  const a = await open('A');
  const b = await open('B');

  // A enters the key: the page reconnects with it and gets a fresh SNAPSHOT.
  await a.fill('#key', key);
  await a.click('#key-form button[type="submit"]');
  await a.waitForSelector('#status[data-status="live"]');
  await a.waitForSelector('#hold-best:enabled');

  // Two available seats side by side (the second right of the first, in the same row).
  const seats = await a.evaluate(() => {
    for (const seat of document.querySelectorAll('[data-seat][data-state="available"]')) {
      const right = seat.parentElement.nextElementSibling?.querySelector('[data-seat]');
      if (right && right.dataset.state === 'available') return [seat.dataset.seat, right.dataset.seat];
    }
    return null;
  });
  if (!seats) fail('no two available seats side by side');

  // By keyboard: focus the first, Space selects it, → moves to the second, Enter selects it.
  await a.focus(`[data-seat="${seats[0]}"]`);
  await a.keyboard.press('Space');
  await a.keyboard.press('ArrowRight');
  const focused = await a.evaluate(() => document.activeElement?.dataset.seat);
  if (focused !== seats[1]) fail(`ArrowRight moved focus to ${focused}, not ${seats[1]}`);
  await a.keyboard.press('Enter');
  for (const label of seats) {
    await a.waitForSelector(`[data-seat="${label}"][aria-pressed="true"][data-selected]`);
  }
  // The second seat as a CHILD ticket: its price and the selection's total follow.
  const typeChoice = `select[data-ticket-type-for="${seats[1]}"]`;
  await a.waitForSelector(`${typeChoice} option[value="CHILD"]`, { state: 'attached' });
  const typesOffered = await a.$$eval(`${typeChoice} option`, (options) => options.map((o) => o.value));
  await a.selectOption(typeChoice, 'CHILD');
  const selectionPrices = await a.$$eval('[data-price-of]', (items) => items.map((i) => i.textContent));
  const selectionTotal = await a.textContent('#selection-total');

  // A holds them; B must show them held within 1 s of A's answer.
  await watch(b, seats, 'held');
  await a.evaluate(() => {
    window.answeredAt = undefined;
    const hold = document.querySelector('#hold');
    new MutationObserver(() => {
      if (hold.dataset.holdId && window.answeredAt === undefined) window.answeredAt = Date.now();
    }).observe(hold, { attributes: true });
  });
  await a.click('#hold-selected');
  const answeredAt = await a.waitForFunction(() => window.answeredAt).then((h) => h.jsonValue());
  const heldAt = await seenAt(b, 'held');
  const holdId = await a.getAttribute('#hold', 'data-hold-id');
  const countdown = await a.textContent('#countdown');
  const heldTypes = await a.$$eval('#hold-seats li', (items) => items.map((i) => i.dataset.ticketType));
  const holdTotal = await a.textContent('#hold-total');

  // A reloads the page: the hold comes back (the key is kept for the tab), its seats A's.
  await a.reload();
  await a.waitForSelector('#status[data-status="live"]');
  await a.waitForSelector(`#hold[data-hold-id="${holdId}"]:not([hidden])`);
  const recoveredHoldId = await a.getAttribute('#hold', 'data-hold-id');
  const recoveredCountdown = await a.textContent('#countdown');

  // A confirms; B shows the seats sold, A the order.
  await watch(b, seats, 'sold');
  await a.fill('#customer-name', 'Li Lei');
  await a.fill('#customer-contact', 'li.lei@example.com');
  await a.click('#confirm-form button[type="submit"]');
  await a.waitForSelector('#order[data-order-status]');
  const orderId = await a.getAttribute('#order', 'data-order-id');
  const orderStatus = await a.getAttribute('#order', 'data-order-status');
  await seenAt(b, 'sold');
  const states = async (page) => Object.fromEntries(await Promise.all(seats.map(async (label) =>
    [label, await page.getAttribute(`[data-seat="${label}"]`, 'data-state')])));

  const summary = {
    seats,
    latencyMs: heldAt - answeredAt,
    typesOffered,
    selectionPrices,
    selectionTotal,
    heldTypes,
    holdTotal,
    holdId,
    recoveredHoldId,
    recoveredCountdown,
    countdown,
    orderId,
    orderStatus,
    orderSeats: await a.textContent('#order-seats'),
    pickupCode: await a.textContent('#order-pickup'),
    // Each ticket with its code, and whether its QR code was drawn (an image of some size).
    tickets: await a.$$eval('#order-tickets li', (items) => items.map((item) => {
      const image = item.querySelector('img.qr');
      return { seat: item.dataset.ticketSeat, code: item.dataset.ticketCode, qrWidth: image ? image.naturalWidth : 0 };
    })),
    statesOnA: await states(a),
    statesOnB: await states(b),
    soldCountOnB: Number(await b.textContent('[data-count="sold"]')),
    errorOnA: await a.textContent('#error'),
    errorOnB: await b.textContent('#error'),
    pageErrors: errors,
  };
  await browser.close();
  console.log(JSON.stringify(summary, null, 2));
  if (errors.length) fail('the pages threw: ' + errors.join('; '));
  process.exit(0);
} catch (error) {
  let shown = '';
  for (const [name, page] of pages) {
    const text = async (selector) => (await page.textContent(selector, { timeout: 500 }).catch(() => '?')).trim();
    shown += `\npage ${name}: status "${await text('#status')}", error "${await text('#error')}"`;
  }
  await browser.close().catch(() => {});
  fail('failed: ' + (error.stack || error) + shown + (errors.length ? '\npage errors: ' + errors.join('; ') : ''));
}
