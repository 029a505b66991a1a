// node find-seats.mjs BASE_URL
//
// Drives the find-seats panel of /seats in Chromium (playwright-core with Debian's chromium; set
// CHROMIUM to use another build): waits for the movies, searches for two people within 10 km of
// 上海's centre for any movie, reads the options, then follows the first one to its showtime's
// live seat map. Prints a JSON summary; exits non-zero on any failure.
import { fail, launchChromium, scriptArgs } from './harness.mjs';

const [base] = scriptArgs('node find-seats.mjs BASE_URL', 1);

const browser = await launchChromium();
const errors = [];
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(5_000);
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/seats`);
  await page.waitForFunction(() => document.querySelectorAll('#find-movie option').length > 1);
  const movies = await page.$$eval('#find-movie option', (options) => options.map((o) => o.textContent));
  await page.fill('#find-party', '2');
  await page.selectOption('#find-where', { label: '上海' });
  await page.selectOption('#find-radius', '10000');
  await page.click('#find-form button[type="submit"]');
  await page.waitForSelector('#options li a');
  const options = await page.$$eval('#options li a', (links) => links.map((a) => ({
    href: a.getAttribute('href'), seats: a.dataset.seats.split(' '), text: a.textContent,
  })));
  const status = await page.textContent('#find-status');
  await page.click('#options li a');
  await page.waitForSelector('#status[data-status="live"]');
  const landedOn = new URL(page.url()).pathname;
  console.log(JSON.stringify({ movies, options, status, landedOn, errors }));
} catch (error) {
  fail(`${error.stack}\nerrors: ${JSON.stringify(errors)}`);
} finally {
  await browser.close();
}
