// node seat-picker-products.mjs BASE_URL SHOWTIME_ID KEY OTHER_KEY VOUCHER BAD_VOUCHER
//
// Drives the seat picker page (/seats/{id}) in Chromium (playwright-core with Debian's
// chromium; set CHROMIUM to use another build) as a buyer with the channel key KEY: reads the
// products the page offers (name, price, sold out or the stepper's maximum), selects two seats
// side by side, then holds them
//  1. with BAD_VOUCHER: refused, the page says why in words;
//  2. with 2 × 爆米花 and the last 薯片, which another buyer (OTHER_KEY, straight to the API)
//     takes just before: refused SOLD_OUT naming 薯片, which the list then shows sold out;
//  3. with 2 × 爆米花 and VOUCHER: held, the page shows the seats at their discounted price,
//     the item, the discount and the total;
// then confirms the order, which lists the item. Prints a JSON summary; exits non-zero on any
// failure.
import { fail, launchChromium, scriptArgs } from './harness.mjs';

const [base, showtimeId, key, otherKey, voucher, badVoucher] = scriptArgs('node seat-picker-products.mjs BASE_URL SHOWTIME_ID KEY OTHER_KEY VOUCHER BAD_VOUCHER', 6);

const browser = await launchChromium();
const errors = [];
let page;
try {
  page = await browser.newPage();
  page.setDefaultTimeout(5_000);
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/seats/${encodeURIComponent(showtimeId)}`);
  await page.fill('#key', key);
  await page.click('#key-form button[type="submit"]');
  await page.waitForSelector('#status[data-status="live"]');
  await page.waitForSelector('#hold-best:enabled');
  await page.waitForSelector('#products:not([hidden]) [data-product-id]');

  /** The products as the page lists them. */
  const listed = () => page.$$eval('#product-list li', (items) => items.map((item) => ({
    id: item.dataset.productId,
    name: item.querySelector('.name').textContent,
    price: item.querySelector('.price').textContent,
    soldOut: 'soldOut' in item.dataset,
    shown: item.querySelector('.sold-out')?.textContent ?? null,
    max: item.querySelector('input')?.max ?? null,
    label: item.querySelector('input')?.labels[0]?.textContent ?? null,
  })));
  const offered = await listed();
  const byName = (name) => offered.find((p) => p.name === name) || fail(`${name} is not offered`);
  const quantity = (name) => `[data-quantity-of="${byName(name).id}"]`;

  // Two available seats side by side, selected by clicking.
  const seats = await page.evaluate(() => {
    for (const seat of document.querySelectorAll('[data-seat][data-state="available"]')) {
      const right = seat.parentElement.nextElementSibling?.querySelector('[data-seat]');
      if (right && right.dataset.state === 'available') return [seat.dataset.seat, right.dataset.seat];
    }
    return null;
  });
  if (!seats) fail('no two available seats side by side');
  for (const label of seats) {
    await page.click(`[data-seat="${label}"]`);
    await page.waitForSelector(`[data-seat="${label}"][aria-pressed="true"]`);
  }

  /** Clicks "Hold selected seats" and waits for the error `code` (or the hold, for 'HELD'). */
  async function hold(code) {
    // Forget the previous answer, so that only this hold's can match.
    await page.evaluate(() => { delete document.querySelector('#error').dataset.code; });
    await page.click('#hold-selected');
    if (code === 'HELD') await page.waitForSelector('#hold[data-hold-id]:not([hidden])');
    else await page.waitForSelector(`#error[data-code="${code}"]`);
    return page.evaluate(() => {
      const error = document.querySelector('#error');
      return {
        error: error.textContent,
        reason: error.dataset.reason ?? null,
        product: error.dataset.product ?? null,
        held: !document.querySelector('#hold').hidden,
        voucherInvalid: document.querySelector('#voucher').getAttribute('aria-invalid'),
      };
    });
  }

  // 1. A voucher that is not valid yet: refused with its reason, nothing held.
  await page.fill('#voucher', badVoucher);
  const badVoucherShown = await hold('VOUCHER_REFUSED');

  // 2. Another buyer takes the last 薯片 (with a seat of its own) while this page shows it.
  const otherSeat = await page.evaluate((mine) => [...document.querySelectorAll('[data-seat][data-state="available"]')]
    .map((seat) => seat.dataset.seat).find((label) => !mine.includes(label)), seats);
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${otherKey}` },
    body: JSON.stringify({
      query: 'mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) { id } }',
      variables: { input: { showtimeId, seats: [otherSeat], items: [{ productId: byName('薯片').id, quantity: 1 }] } },
    }),
  }).then((r) => r.json());
  if (!response.data?.holdSeats) fail('the other buyer could not hold 薯片: ' + JSON.stringify(response));
  await page.fill('#voucher', '');
  await page.fill(quantity('爆米花'), '2');
  await page.fill(quantity('薯片'), '1');
  const totalBeforeVoucher = await page.textContent('#selection-total');
  const soldOutShown = await hold('SOLD_OUT');
  // The list is read again: 薯片 is sold out now, marked as the one refused; 爆米花 keeps its 2.
  await page.waitForSelector(`[data-product-id="${byName('薯片').id}"][data-sold-out][data-refused]`);
  const afterSoldOut = await listed();
  const popcornKept = await page.inputValue(quantity('爆米花'));

  // 3. The good voucher, 2 × 爆米花: held.
  await page.fill('#voucher', voucher);
  const held = await hold('HELD');
  const holdShown = await page.evaluate(() => ({
    id: document.querySelector('#hold').dataset.holdId,
    seats: [...document.querySelectorAll('#hold-seats li')].map((li) => li.textContent),
    items: [...document.querySelectorAll('#hold-items li')].map((li) => li.textContent),
    discount: document.querySelector('#hold-discount-line').hidden ? null : document.querySelector('#hold-discount').textContent,
    total: document.querySelector('#hold-total').textContent,
    voucherField: document.querySelector('#voucher').value,
  }));

  // The order lists the item.
  await page.fill('#customer-name', 'Li Lei');
  await page.fill('#customer-contact', 'li.lei@example.com');
  await page.click('#confirm-form button[type="submit"]');
  await page.waitForSelector('#order[data-order-status]');
  const order = await page.evaluate(() => ({
    id: document.querySelector('#order').dataset.orderId,
    status: document.querySelector('#order').dataset.orderStatus,
    items: document.querySelector('#order-items').textContent,
    total: document.querySelector('#order-total').textContent,
    pickupCode: document.querySelector('#order-pickup').textContent,
  }));

  console.log(JSON.stringify({
    seats, offered, badVoucherShown, totalBeforeVoucher, soldOutShown, afterSoldOut, popcornKept,
    held, holdShown, order, errors,
  }));
} catch (error) {
  const shown = page ? await page.textContent('#error', { timeout: 500 }).catch(() => '?') : '?';
  console.error(`failed: ${error.stack || error}\nerror shown: "${shown}"`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
