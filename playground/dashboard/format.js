// Numbers and times as people read them. Money arrives as integer fen and is formatted from
// the integer (never through a float, so ¥1,234.50 is exact); times are shown in the cinema's
// time zone, whatever the browser's.

// Every cinema of the platform is in China: one time zone, UTC+8 all year (no daylight time).
export const CINEMA_TIME_ZONE = 'Asia/Shanghai';
const OFFSET = '+08:00';

/** ¥1,234.50 from 123450 fen; −¥3.00 from −300. */
export function yuan(fen) {
  const sign = fen < 0 ? '−' : '';
  const whole = Math.abs(Math.trunc(fen));
  const units = Math.floor(whole / 100).toLocaleString('en-US');
  const cents = String(whole % 100).padStart(2, '0');
  return `${sign}¥${units}.${cents}`;
}

/** 87% from 0.87 (whole percents; a share above 0 never shows as 0%). */
export function percent(share) {
  if (share > 0 && share < 0.005) return '<1%';
  return `${Math.round(share * 100)}%`;
}

/** 1,234 */
export function count(n) {
  return Number(n).toLocaleString('en-US');
}

const clock = new Intl.DateTimeFormat('en-GB', { timeZone: CINEMA_TIME_ZONE, hour: '2-digit', minute: '2-digit' });
const dayAndHour = new Intl.DateTimeFormat('en-GB', { timeZone: CINEMA_TIME_ZONE, weekday: 'short', day: 'numeric', hour: '2-digit' });
const isoDay = new Intl.DateTimeFormat('en-CA', { timeZone: CINEMA_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/** 19:30, in the cinema's time zone. */
export function time(instant) {
  return clock.format(new Date(instant));
}

/** "Sat 28, 19", an hour of a week, in the cinema's time zone. */
export function hourOfWeek(instant) {
  return dayAndHour.format(new Date(instant));
}

/** The cinema's calendar day of an instant: "2026-11-29". */
export function dayOf(instant) {
  return isoDay.format(new Date(instant));
}

/** The instant a cinema's calendar day ("2026-11-29") starts. */
export function startOfDay(day) {
  return new Date(`${day}T00:00:00${OFFSET}`);
}

/** Minutes of the cinema's day from its midnight (0 to 1440), for placing on a timeline. */
export function minuteOfDay(instant, day) {
  return (new Date(instant) - startOfDay(day)) / 60000;
}

/** "2 h 05 min", "40 s": a wait for people. */
export function duration(seconds) {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.round(hours / 24)} days`;
}
