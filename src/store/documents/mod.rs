//! The shapes of the documents several features read. Each carries a `schemaVersion`
//! (schema versioning pattern) so later shapes can be migrated lazily.
//!
//! One file per group of collections, every shape re-exported here
//! (`store::documents::ShowtimeDoc`):
//! - `cinemas`: `cinemas`, `regions`, `theaters` (halls) and the GeoJSON point;
//! - `movies`: `movies` (embedded reviews, sales totals) and `movie_details`;
//! - `showtimes`: `showtimes` (the references they copy, prices, the upgrade of schema
//!   version 1) and `showtime_price_revisions`;
//! - `inventory`: `seat_inventory` (seats, live holds, release notes) and the seat map read
//!   for display;
//! - `orders`: `orders` (showtime, seats, customer, status, cancel reason);
//! - `access`: `channels` (and their rate limits), `operators`, `audit_log`;
//! - `events`: the outbox entries a change leaves for the channels' logs (the logs' own shape
//!   is `channel_events`').
//!
//! Only the shapes several features (or the shared loaders) read stay here, each file saying
//! why; a shape only its own feature reads lives in that feature's `store/documents.rs`
//! (ticket types in the catalogue's, the channels' log in `channel_events`', and concessions',
//! sales', vouchers', the waiting list's, want-to-see's and webhooks' own).

mod access;
mod cinemas;
mod events;
mod inventory;
mod movies;
mod orders;
mod showtimes;

pub use access::{AuditDoc, ChannelDoc, DoorDoc, OperatorDoc, RateLimitDoc};
pub use cinemas::{CinemaDoc, GeoJsonPoint, HallDoc, RefundPolicyDoc, RegionDoc};
pub use events::{EventDetailsDoc, OutboxEntryDoc};
pub use inventory::{
    AdmissionDoc, HoldDoc, HoldItemDoc, OfferDoc, ReleasedHoldDoc, SeatCellDoc, SeatInventoryDoc,
    SeatMapDoc, SeatView, VoucherUseDoc, RELEASE_NOTES_KEPT,
};
pub use movies::{
    CastMemberDoc, DetailFields, ExternalRatingDoc, MovieDetailsDoc, MovieDoc, RatingSummary,
    ReviewDoc, SalesDoc,
};
pub use orders::{
    CancelReason, CollectionDoc, CustomerDoc, OrderDoc, OrderLineDoc, OrderShowtimeDoc,
    OrderStatus, ProductLineDoc, RefundDoc, RefundedItemDoc, SalesFigureDoc, TicketLineDoc,
    ORDER_SCHEMA_VERSION,
};
pub use showtimes::{
    ChannelPriceDoc, CinemaRef, HallRef, MovieRef, PriceRevisionDoc, ShowtimeDoc, ShowtimeStatus,
    StoredShowtime, TicketRuleDoc, SHOWTIME_SCHEMA_VERSION,
};

/// The shape version written by this code.
pub const SCHEMA_VERSION: i32 = 1;
