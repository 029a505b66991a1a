// What every browser test starts with: its arguments (or its usage and exit 2), a failure that
// exits 1, a limit of 60 s on the whole run, and Chromium (Debian's, or the build CHROMIUM
// names; playwright-core brings none).
import { chromium } from 'playwright-core';

/** Prints `message` and exits 1. */
export function fail(message) {
  console.error(message);
  process.exit(1);
}

/** The script's `count` arguments, every one given, or `usage` and exit 2; starts the limit. */
export function scriptArgs(usage, count) {
  const values = process.argv.slice(2, 2 + count);
  if (values.length < count || values.some((value) => !value)) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  setTimeout(() => fail('timed out after 60 s'), 60_000).unref();
  return values;
}

/** Chromium, headless. */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox'], // runs as root in CI containers
  });
}
