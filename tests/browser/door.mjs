// node door.mjs BASE_URL CINEMA_ID DOOR_KEY TICKET_CODE
//
// Drives the door page (/door/{cinemaId}) in Chromium (playwright-core with Debian's chromium;
// set CHROMIUM to use another build) as door staff: opens the page of a cinema that does not
// exist (it says so), reads the cinema's name and the showtimes
// the page lists, enters the door key, types the ticket code
// and presses Enter (ADMITTED, green), scans it again (ALREADY_ADMITTED, with when and at which
// door), then scans something that is no ticket (refused). Prints a JSON summary; exits
// non-zero on any failure.
import { launchChromium, scriptArgs } from './harness.mjs';

const [base, cinemaId, key, code] = scriptArgs('node door.mjs BASE_URL CINEMA_ID DOOR_KEY TICKET_CODE', 4);

const browser = await launchChromium();
const errors = [];
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(5_000);
  page.on('pageerror', (error) => errors.push(error.message));
  // An address naming no cinema says so, rather than showing an id or nothing.
  await page.goto(`${base}/door/${encodeURIComponent('Q2luZW1hOjAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMA')}`);
  await page.waitForSelector('body[data-ready="true"]');
  const unknownCinema = await page.textContent('#cinema');
  const unknownListed = await page.isVisible('#day');
  await page.goto(`${base}/door/${encodeURIComponent(cinemaId)}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#key', key);
  await page.press('#key', 'Enter');
  await page.waitForSelector('#scan-form:not([hidden])');
  await page.waitForSelector('#day:not([hidden])');
  const cinema = await page.textContent('#cinema');
  const showtimes = await page.$$eval('#showtimes li', (items) => items.map((item) => ({
    id: item.dataset.showtime, text: item.textContent,
  })));

  /** Types `text` into the code field, presses Enter, and waits for the answer about it. */
  async function scan(text, expected) {
    const started = Date.now();
    await page.fill('#code', text);
    await page.press('#code', 'Enter');
    await page.waitForSelector(`#result[data-code="${expected}"]`);
    const result = await page.evaluate(() => ({
      outcome: document.getElementById('result').dataset.outcome,
      code: document.getElementById('result').dataset.code,
      verdict: document.getElementById('verdict').textContent,
      detail: document.getElementById('detail').textContent,
      codeFieldEmpty: document.getElementById('code').value === '',
    }));
    // Clear the result so the next scan's answer is seen afresh.
    await page.evaluate(() => { document.getElementById('result').dataset.code = ''; });
    return { ...result, ms: Date.now() - started };
  }

  const admitted = await scan(code, 'ADMITTED');
  const again = await scan(code, 'ALREADY_ADMITTED');
  const bad = await scan('not a ticket', 'BAD_USER_INPUT');
  const log = await page.$$eval('#log li', (items) => items.map((item) => item.textContent));
  console.log(JSON.stringify({ unknownCinema, unknownListed, cinema, showtimes, admitted, again, bad, logEntries: log.length, errors }));
} catch (error) {
  console.error(String(error));
  process.exitCode = 1;
} finally {
  await browser.close();
}
