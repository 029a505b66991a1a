//! The booking policy's flags: the hold, the passes that keep it, the key lease, the door.

use clap::Args;

/// The booking policy and the pace of the passes that keep it: how many seats a hold takes
/// and how long it lasts, how often expired holds are swept and the sales figures caught up,
/// how long an idempotency key is leased, and the admission window.
#[derive(Debug, Clone, Copy, Args)]
pub struct BookingArgs {
    /// The most seats one hold may take (1 to 10).
    #[arg(long, env = "BOXOFFICE_MAX_SEATS_PER_HOLD", default_value_t = 6, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::domain::list_caps::MAX_SEATS_PER_HOLD as u64))]
    pub max_seats_per_hold: usize,
    /// How long a hold lasts, in seconds.
    #[arg(long, env = "BOXOFFICE_HOLD_TTL_SECONDS", default_value_t = crate::holds::rules::HOLD_SECONDS)]
    pub hold_ttl_seconds: u64,
    /// How much longer a hold lasts once `extendHold` extended it (once per hold), in seconds.
    #[arg(long, env = "BOXOFFICE_HOLD_EXTENSION_SECONDS", default_value_t = crate::holds::rules::EXTENSION_SECONDS, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub hold_extension_seconds: u64,
    /// How often expired holds are returned to sale, in seconds.
    #[arg(long, env = "BOXOFFICE_SWEEP_INTERVAL_SECONDS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..))]
    pub sweep_interval_seconds: u64,
    /// How often the sales figures catch up with confirmed and cancelled orders, in
    /// milliseconds.
    #[arg(long, env = "BOXOFFICE_SALES_INTERVAL_MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..))]
    pub sales_interval_ms: u64,
    /// How long a request with an idempotency key keeps the key after its last heartbeat, in
    /// milliseconds: a retry takes the key over only once this has passed (the first attempt
    /// died or stalled). It renews the lease every third of it.
    #[arg(long, env = "BOXOFFICE_KEY_LEASE_MS", default_value_t = 3000, value_parser = clap::value_parser!(u64).range(300..=600_000))]
    pub key_lease_ms: u64,
    /// How long before a showtime's start its tickets start to admit at the door, in minutes.
    #[arg(long, env = "BOXOFFICE_ADMISSION_OPENS_MINUTES", default_value_t = 60, value_parser = clap::value_parser!(u32).range(0..=1440))]
    pub admission_opens_minutes: u32,
    /// How long after a showtime's start its tickets still admit, in minutes.
    #[arg(long, env = "BOXOFFICE_ADMISSION_CLOSES_MINUTES", default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=1440))]
    pub admission_closes_minutes: u32,
}

impl Default for BookingArgs {
    fn default() -> Self {
        BookingArgs {
            max_seats_per_hold: 6,
            hold_ttl_seconds: crate::holds::rules::HOLD_SECONDS,
            hold_extension_seconds: crate::holds::rules::EXTENSION_SECONDS,
            sweep_interval_seconds: 15,
            sales_interval_ms: 1000,
            key_lease_ms: 3000,
            admission_opens_minutes: 60,
            admission_closes_minutes: 30,
        }
    }
}
