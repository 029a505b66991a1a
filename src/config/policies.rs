//! What the process builds from the flags: the database options, and the policies, limits
//! and intervals each feature and layer is given. Apart from the flags so that what an
//! operator sets reads as one list per area, and what each setting becomes as one list here.

use std::time::Duration;

use super::{BookingArgs, CatalogueArgs, DatabaseArgs, EventArgs, Limits, ProcessArgs};
use crate::domain::paging::PageLimits;
use crate::domain::rate_limit::RateLimit;
use crate::graphql::QueryLimits;
use crate::holds::rules::HoldPolicy;
use crate::idempotency::KeyPolicy;
use crate::store::DatabaseOptions;

impl DatabaseArgs {
    /// How the store connects.
    pub fn options(&self) -> DatabaseOptions {
        DatabaseOptions {
            timeout: Duration::from_millis(self.db_timeout_ms),
            write_concern: self.write_concern.clone(),
            journal: self.write_journal,
            read_concern: self.read_concern.clone(),
            monitor_commands: false,
            max_pool_size: self.db_max_pool_size,
            admission_wait: Duration::from_millis(self.admission_wait_ms),
            latency_probes: true,
            open_connections_at_start: true,
        }
    }
}

impl EventArgs {
    pub fn webhook_lease(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.webhook_lease_ms)
    }

    pub fn retention(&self) -> crate::channel_events::rules::Retention {
        crate::channel_events::rules::Retention::hours(self.event_retention_hours)
            .expect("clap checks the range")
    }
}

impl CatalogueArgs {
    pub fn rules(&self) -> crate::catalogue::rules::limits::CatalogueRules {
        crate::catalogue::rules::limits::CatalogueRules {
            max_hall_seats: self.max_hall_seats,
            cleaning_gap: chrono::TimeDelta::minutes(i64::from(self.cleaning_gap_minutes)),
        }
    }
}

impl BookingArgs {
    /// How often the background tasks run.
    pub fn intervals(&self) -> crate::background::Intervals {
        crate::background::Intervals {
            sweep: std::time::Duration::from_secs(self.sweep_interval_seconds.max(1)),
            sales: std::time::Duration::from_millis(self.sales_interval_ms.max(10)),
            offer_policy: self.hold_policy(),
        }
    }

    pub fn key_policy(&self) -> KeyPolicy {
        KeyPolicy {
            lease: Duration::from_millis(self.key_lease_ms),
            ..KeyPolicy::default()
        }
    }

    /// When tickets admit at the door.
    pub fn admission_window(&self) -> crate::admissions::AdmissionWindow {
        crate::admissions::AdmissionWindow {
            opens_before: chrono::Duration::minutes(self.admission_opens_minutes.into()),
            closes_after: chrono::Duration::minutes(self.admission_closes_minutes.into()),
        }
    }

    pub fn hold_policy(&self) -> HoldPolicy {
        HoldPolicy {
            max_seats: self.max_seats_per_hold,
            ttl: std::time::Duration::from_secs(self.hold_ttl_seconds),
            extension: std::time::Duration::from_secs(self.hold_extension_seconds),
        }
    }
}

impl Limits {
    pub fn query(&self) -> QueryLimits {
        QueryLimits {
            max_depth: self.max_depth,
            max_complexity: self.max_complexity,
            max_tokens: self.max_tokens,
            max_aliases: self.max_aliases,
            max_directives: self.max_directives,
            max_nesting: self.max_nesting,
            introspection: self.introspection,
        }
    }

    /// The default rate limit of a channel.
    pub fn channel_rate(&self) -> RateLimit {
        RateLimit {
            per_second: self.channel_requests_per_second,
            burst: self.channel_burst,
        }
    }

    /// The rate limit of an anonymous client.
    pub fn anonymous_rate(&self) -> RateLimit {
        RateLimit {
            per_second: self.anonymous_requests_per_second,
            burst: self.anonymous_burst,
        }
    }

    pub fn pages(&self) -> PageLimits {
        PageLimits {
            max_first: self.max_page_size,
        }
    }
}

impl ProcessArgs {
    /// The grace of a graceful stop.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_millis(self.shutdown_grace_ms)
    }

    /// The gateway heartbeat's interval.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_millis(self.gateway_heartbeat_ms)
    }
}
