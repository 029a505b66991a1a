// node door-counter.mjs BASE_URL CINEMA_ID COUNTER_KEY NORTH_KEY PICKUP_CODE
//
// Drives the door page (/door/{cinemaId}) in Chromium (playwright-core with Debian's chromium;
// set CHROMIUM to use another build) in counter mode, in Shanghai's time zone: staff at the
// counter (COUNTER_KEY) switch to Counter, type the pickup code and press Enter (what to hand
// over, green), type it again (ALREADY_COLLECTED, when and by which door), then a code too
// short and one of no order; the page reloads still in counter mode, and switches back to
// tickets. Then staff at another door (NORTH_KEY) try the same code: ALREADY_COLLECTED, by the
// counter. Prints a JSON summary; exits non-zero on any failure.
import { launchChromium, scriptArgs } from './harness.mjs';

const [base, cinemaId, counterKey, northKey, pickupCode] = scriptArgs('node door-counter.mjs BASE_URL CINEMA_ID COUNTER_KEY NORTH_KEY PICKUP_CODE', 5);

const browser = await launchChromium();
const errors = [];

/** A door page of its own (its own sessionStorage) with door key `key`, in counter mode. */
async function counter(key) {
  // Times as a cinema in 上海 shows them, whatever the machine's zone.
  const context = await browser.newContext({ timezoneId: 'Asia/Shanghai', locale: 'en-GB' });
  const page = await context.newPage();
  page.setDefaultTimeout(5_000);
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/door/${encodeURIComponent(cinemaId)}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#key', key);
  await page.press('#key', 'Enter');
  await page.waitForSelector('#scan-form:not([hidden])'); // tickets first
  await page.check('input[name="mode"][value="counter"]');
  await page.waitForSelector('#collect-form:not([hidden])');
  return page;
}

/** Types `text` as a pickup code, presses Enter, and waits for the answer `expected`. */
async function collect(page, text, expected) {
  await page.fill('#pickup', text);
  await page.press('#pickup', 'Enter');
  await page.waitForSelector(`#result[data-code="${expected}"]`);
  const result = await page.evaluate(() => ({
    outcome: document.getElementById('result').dataset.outcome,
    verdict: document.getElementById('verdict').textContent,
    detail: document.getElementById('detail').textContent,
    items: [...document.querySelectorAll('#handover li')].map((li) => li.textContent),
    background: getComputedStyle(document.getElementById('result')).backgroundColor,
    pickupFieldEmpty: document.getElementById('pickup').value === '',
    focused: document.activeElement.id,
  }));
  // Clear the result so the next answer is seen afresh.
  await page.evaluate(() => { document.getElementById('result').dataset.code = ''; });
  return result;
}

try {
  const page = await counter(counterKey);
  const focusedOnSwitch = await page.evaluate(() => document.activeElement.id);
  const collected = await collect(page, pickupCode, 'COLLECTED');
  const again = await collect(page, pickupCode, 'ALREADY_COLLECTED');
  const short = await collect(page, 'ABC', 'BAD_USER_INPUT');
  const unknown = await collect(page, '0000000000', 'NOT_FOUND');
  const log = await page.$$eval('#log li', (items) => items.map((item) => item.textContent));

  // The mode is kept in the tab; switching back to tickets shows the ticket form again.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  // What is on screen (isVisible: a `hidden` form must not be shown all the same).
  const afterReload = {
    mode: await page.$eval('input[name="mode"]:checked', (radio) => radio.value),
    keyForm: await page.isVisible('#key-form'),
    counterForm: await page.isVisible('#collect-form'),
    ticketForm: await page.isVisible('#scan-form'),
  };
  await page.check('input[name="mode"][value="tickets"]');
  await page.waitForSelector('#scan-form:not([hidden])');
  const backToTickets = {
    counterForm: await page.isVisible('#collect-form'),
    focused: await page.evaluate(() => document.activeElement.id),
  };

  // Another door: the order was collected, by the counter.
  const north = await counter(northKey);
  const atNorth = await collect(north, pickupCode, 'ALREADY_COLLECTED');

  console.log(JSON.stringify({
    focusedOnSwitch, collected, again, short, unknown, log, afterReload, backToTickets, atNorth, errors,
  }));
} catch (error) {
  console.error(String(error.stack || error));
  process.exitCode = 1;
} finally {
  await browser.close();
}
