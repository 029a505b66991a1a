//! The catalogue's store code: cinemas, halls (`theaters`), movies with their details and
//! reviews, showtimes and their schedule, prices and their revisions, ticket types, regions,
//! channels, door keys; the propagation of the copies a document keeps of
//! another's fields (`references`, `catalogue_updates`); the demo's bulk writes.

mod cancellations;
mod catalogue_updates;
mod catalogue_writes;
mod channels;
mod cinemas;
pub mod documents;
mod door_keys;
mod halls;
mod indexes;
mod movies;
mod price_revisions;
mod references;
mod regions;
mod schedule;
mod shapes;
mod showtimes;
mod ticket_types;

pub use cancellations::CancellationState;
pub use catalogue_updates::{
    CinemaChanges, CinemaRegion, DetailsChanges, HallChanges, MovieChanges, Updated,
};
pub use catalogue_writes::CatalogueBatch;
pub use cinemas::{CinemaFilter, CinemaWithDistance};
pub use movies::MovieFilter;
pub use price_revisions::{PriceChange, PriceChanged};
pub use references::{Copied, Propagation};
pub use schedule::{ScheduleRefusal, Scheduled};
pub use showtimes::{ShowtimeFilter, ShowtimeParts};
pub use ticket_types::{TicketTypeInsert, MAX_DEFINED_TICKET_TYPES};
