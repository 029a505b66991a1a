//! Integration tests: the whole gateway over a real MongoDB wire-protocol server.

mod channels;
mod cinemas;
mod conformance;
mod crashes;
mod examined;
mod fencing;
mod fixtures;
mod helpers;
mod holds;
mod hostile;
mod idempotency;
mod kills;
mod limits;
mod movies;
mod nesting;
mod orders;
mod outage;
mod playground;
mod processes;
mod races;
mod rate_limits;
mod round_trips;
mod sale;
mod sales;
mod schema_file;
mod showtimes;
