//! The indexes every query relies on, created idempotently at start-up.

use bson::{doc, Document};
use mongodb::options::IndexOptions;
use mongodb::IndexModel;

use super::{names, Store};
use crate::error::ApiError;

/// An index a query relies on.
pub(crate) struct Wanted {
    collection: &'static str,
    keys: Document,
    name: &'static str,
    unique: bool,
    /// Only documents that have the field (the pending-propagation markers).
    sparse: bool,
    /// A TTL index: documents go this long after the indexed date.
    expire_after: Option<std::time::Duration>,
}

pub(crate) fn index(collection: &'static str, keys: Document, name: &'static str) -> Wanted {
    Wanted {
        collection,
        keys,
        name,
        unique: false,
        sparse: false,
        expire_after: None,
    }
}

fn sparse(collection: &'static str, keys: Document, name: &'static str) -> Wanted {
    Wanted {
        sparse: true,
        ..index(collection, keys, name)
    }
}

fn unique(collection: &'static str, keys: Document, name: &'static str) -> Wanted {
    Wanted {
        unique: true,
        ..index(collection, keys, name)
    }
}

/// Every index: the seat inventory's (its own module declares them) and these.
fn wanted() -> Vec<Wanted> {
    let mut wanted = Store::inventory_indexes();
    wanted.extend(plumbing_and_features());
    wanted
}

fn plumbing_and_features() -> Vec<Wanted> {
    use names::*;
    vec![
        index(
            CINEMAS,
            doc! { "city": 1, "name": 1, "_id": 1 },
            "city_name",
        ),
        index(
            CINEMAS,
            doc! { "location": "2dsphere" },
            "location_2dsphere",
        ),
        // Cinemas under a region of any level (province, city or district): `regionIds` holds
        // the whole path, so one equality on the multikey field, then the list's own order.
        index(
            CINEMAS,
            doc! { "regionIds": 1, "city": 1, "name": 1, "_id": 1 },
            "region_city_name",
        ),
        // Tree of regions (seed 001, array of ancestors): a region's children in name order
        // (the provinces under `parentId: null`), and everything under a region at any depth.
        index(
            REGIONS,
            doc! { "parentId": 1, "name": 1, "_id": 1 },
            "parent_name",
        ),
        index(REGIONS, doc! { "ancestors": 1 }, "ancestors"),
        index(
            THEATERS,
            doc! { "cinemaId": 1, "name": 1, "_id": 1 },
            "cinema",
        ),
        index(MOVIES, doc! { "title": 1, "_id": 1 }, "title"),
        index(
            MOVIES,
            doc! { "genres": 1, "title": 1, "_id": 1 },
            "genre_title",
        ),
        index(
            REVIEWS,
            doc! { "movieId": 1, "createdAt": -1, "_id": -1 },
            "movie_newest",
        ),
        index(SHOWTIMES, doc! { "startsAt": 1, "_id": 1 }, "starts"),
        index(
            SHOWTIMES,
            doc! { "cinema.id": 1, "startsAt": 1, "_id": 1 },
            "cinema_starts",
        ),
        index(
            SHOWTIMES,
            doc! { "movie.id": 1, "cinema.city": 1, "startsAt": 1, "_id": 1 },
            "movie_city_starts",
        ),
        index(
            SHOWTIMES,
            doc! { "cinema.city": 1, "startsAt": 1, "_id": 1 },
            "city_starts",
        ),
        // Attribute pattern (seed 000): one multikey index answers both "price of showtime S on
        // channel C" and "all showtimes sold on channel C".
        index(
            SHOWTIMES,
            doc! { "prices.channel": 1, "startsAt": 1, "_id": 1 },
            "channel_starts",
        ),
        // A hall's showtimes in start order: the overlap check of scheduling (the few that
        // start within a day before the new one frees the hall), its future showtimes (a
        // layout change is refused under them) and the copies of its name to bring up to date.
        index(
            SHOWTIMES,
            doc! { "theater.id": 1, "startsAt": 1, "_id": 1 },
            "theater_starts",
        ),
        // Sources whose copies in showtimes are being brought up to date (extended
        // references): the marker exists only while a propagation is pending, so the
        // background pass that finishes them reads only those.
        sparse(CINEMAS, doc! { "refPending": 1 }, "ref_pending"),
        sparse(THEATERS, doc! { "refPending": 1 }, "ref_pending"),
        sparse(MOVIES, doc! { "refPending": 1 }, "ref_pending"),
        // The seed's lookup of a cinema's showtimes of a movie in a hall.
        index(
            SHOWTIMES,
            doc! { "cinema.id": 1, "movie.id": 1, "theater.id": 1 },
            "cinema_movie_hall",
        ),
        // A showtime's price revisions, newest first.
        index(
            SHOWTIME_PRICE_REVISIONS,
            doc! { "showtimeId": 1, "revision": -1 },
            "showtime_revision",
        ),
        // One revision per request: a late attempt of a key cannot change the prices twice.
        unique(SHOWTIME_PRICE_REVISIONS, doc! { "request": 1 }, "request"),
        index(
            ORDERS,
            doc! { "channel": 1, "createdAt": -1, "_id": -1 },
            "channel_newest",
        ),
        // A showtime's cancellation: its orders still to cancel, and those it cancelled.
        index(
            ORDERS,
            doc! { "showtime.id": 1, "status": 1 },
            "showtime_status",
        ),
        // Showtimes whose cancellation is under way (`cancellingSince` exists only then): the
        // background resumer reads them and nothing else.
        sparse(SHOWTIMES, doc! { "cancellingSince": 1 }, "cancelling"),
        // The reconciler's and the sales projection's searches for orders to settle or count.
        index(
            ORDERS,
            doc! { "status": 1, "salesCounted": 1 },
            "status_sales",
        ),
        // Orders with a refund under way (`refunding` exists only then) or whose refunds the
        // sales figures may not reflect yet (`salesStale` exists only then).
        sparse(ORDERS, doc! { "refunding": 1 }, "refunding"),
        sparse(ORDERS, doc! { "salesStale": 1 }, "sales_stale"),
        Wanted {
            expire_after: Some(std::time::Duration::from_secs(
                crate::idempotency::rules::KEEP_SECONDS,
            )),
            ..index(IDEMPOTENCY_KEYS, doc! { "createdAt": 1 }, "expiry")
        },
        // Records of gateways that died without deleting theirs.
        Wanted {
            expire_after: Some(crate::gateways::rules::RECORD_TTL),
            ..index(GATEWAYS, doc! { "seenAt": 1 }, "seen_expiry")
        },
        // A key identifies its channel: no two channels may share one.
        unique(CHANNELS, doc! { "apiKeyHash": 1 }, "api_key"),
        unique(OPERATORS, doc! { "apiKeyHash": 1 }, "api_key"),
        // A cinema's door staff keys (only door keys have `door`).
        sparse(
            OPERATORS,
            doc! { "door.cinemaId": 1, "_id": 1 },
            "door_cinema",
        ),
        // Channel events: each channel's log in order (seed 004's composite key that sorts by
        // time), deleted at their expiry; the documents with events still to relay.
        unique(
            EVENTS,
            doc! { "channel": 1, "sequence": 1 },
            "channel_sequence",
        ),
        Wanted {
            expire_after: Some(std::time::Duration::ZERO),
            ..index(EVENTS, doc! { "expiresAt": 1 }, "expiry")
        },
        // Webhooks: a channel's endpoints, those due (`dueAt` exists only then), and an
        // endpoint's deliveries in the log's order, deleted with their events.
        index(
            WEBHOOK_ENDPOINTS,
            doc! { "channel": 1, "_id": 1 },
            "channel",
        ),
        sparse(WEBHOOK_ENDPOINTS, doc! { "dueAt": 1 }, "due"),
        // The channel's cap: one endpoint per slot (`webhooks::rules::cap_slots`).
        Wanted {
            unique: true,
            ..sparse(WEBHOOK_ENDPOINTS, doc! { "capSlot": 1 }, "cap_slot")
        },
        index(
            WEBHOOK_DELIVERIES,
            doc! { "endpoint": 1, "sequence": -1, "_id": -1 },
            "endpoint_sequence",
        ),
        Wanted {
            expire_after: Some(std::time::Duration::ZERO),
            ..index(WEBHOOK_DELIVERIES, doc! { "expiresAt": 1 }, "expiry")
        },
        index(SHOWTIMES, doc! { "outbox.at": 1 }, "outbox"),
        // The audit log, newest first, of everyone or of one operator.
        index(AUDIT_LOG, doc! { "at": -1, "_id": -1 }, "at"),
        index(
            AUDIT_LOG,
            doc! { "operator": 1, "at": -1, "_id": -1 },
            "operator_at",
        ),
        // Want-to-see lists: the entries in flight, for the repair pass; a movie's buckets,
        // newest first.
        sparse(WANT_TO_SEE, doc! { "movies.since": 1 }, "since"),
        index(
            WANT_TO_SEE_BY_MOVIE,
            doc! { "movie": 1, "bucket": -1 },
            "movie_bucket",
        ),
        // Vouchers: an operator's batches, newest first; a code's redemptions, one per
        // number (the cap holds by this index: its fields never change, see
        // `vouchers::store::redemptions`), the free ones, those the reconciler is due to look
        // at, and a batch's figures.
        index(
            VOUCHER_BATCHES,
            doc! { "operator": 1, "_id": -1 },
            "operator",
        ),
        unique(
            VOUCHER_REDEMPTIONS,
            doc! { "voucher": 1, "slot": 1 },
            "voucher_slot",
        ),
        index(
            VOUCHER_REDEMPTIONS,
            doc! { "voucher": 1, "state": 1 },
            "voucher_state",
        ),
        sparse(VOUCHER_REDEMPTIONS, doc! { "checkAt": 1 }, "check_at"),
        index(
            VOUCHER_REDEMPTIONS,
            doc! { "batch": 1, "state": 1 },
            "batch_state",
        ),
        // A cinema's hourly sales figures, newest hour first (`sales::hourly_sales`).
        index(
            CINEMA_SALES_HOURLY,
            doc! { "cinemaId": 1, "hour": -1 },
            "cinema_newest",
        ),
        // Concessions: a cinema's products in the order they were made; the stock entries
        // the reconciler is due to look at; an order found by its pickup code's keyed hash.
        index(PRODUCTS, doc! { "cinemaId": 1, "_id": 1 }, "cinema"),
        sparse(PRODUCTS, doc! { "pending.checkAt": 1 }, "pending_check_at"),
        sparse(ORDERS, doc! { "pickupKey": 1 }, "pickup_key"),
        // Waiting lists: one entry per customer of a channel and showtime (fields that never
        // change); a showtime's line in order; the showtimes with parties in line.
        unique(
            WAITING_LIST,
            doc! { "showtime": 1, "channel": 1, "customer": 1 },
            "customer",
        ),
        index(
            WAITING_LIST,
            doc! { "showtime": 1, "state": 1, "seq": 1 },
            "showtime_state_seq",
        ),
        index(
            WAITING_LIST,
            doc! { "state": 1, "showtime": 1 },
            "state_showtime",
        ),
    ]
}

/// Every index, as (collection, name).
pub(super) fn wanted_names() -> Vec<(&'static str, &'static str)> {
    wanted()
        .into_iter()
        .map(|w| (w.collection, w.name))
        .collect()
}

impl Store {
    /// Creates every index that does not exist yet, so this runs at each start. Existing ones
    /// are left alone by name: re-sending a 2dsphere spec conflicts with the stored one, which
    /// carries the server's `2dsphereIndexVersion`.
    #[tracing::instrument(skip(self))]
    pub async fn ensure_indexes(&self) -> Result<(), ApiError> {
        let mut by_collection: Vec<(&str, Vec<IndexModel>)> = Vec::new();
        let mut existing: Vec<(&str, Vec<String>)> = Vec::new();
        for Wanted {
            collection,
            keys,
            name,
            unique,
            sparse,
            expire_after,
        } in wanted()
        {
            if !existing.iter().any(|(c, _)| *c == collection) {
                existing.push((collection, self.existing_index_names(collection).await?));
            }
            let (_, names) = existing
                .iter()
                .find(|(c, _)| *c == collection)
                .expect("listed");
            if names.iter().any(|existing| existing == name) {
                continue;
            }
            let model = IndexModel::builder()
                .keys(keys)
                .options(
                    IndexOptions::builder()
                        .name(name.to_owned())
                        .unique(unique.then_some(true))
                        .sparse(sparse.then_some(true))
                        .expire_after(expire_after)
                        .build(),
                )
                .build();
            match by_collection.iter_mut().find(|(c, _)| *c == collection) {
                Some((_, models)) => models.push(model),
                None => by_collection.push((collection, vec![model])),
            }
        }
        for (collection, models) in by_collection {
            self.collection::<Document>(collection)
                .create_indexes(models)
                .await?;
        }
        Ok(())
    }

    /// The names of the indexes of a collection; none when it does not exist yet.
    pub(super) async fn existing_index_names(
        &self,
        collection: &str,
    ) -> Result<Vec<String>, ApiError> {
        match self
            .collection::<Document>(collection)
            .list_index_names()
            .await
        {
            Ok(names) => Ok(names),
            // NamespaceNotFound: the collection is created with its first index.
            Err(error) if matches!(*error.kind, mongodb::error::ErrorKind::Command(ref e) if e.code == 26) => {
                Ok(Vec::new())
            }
            Err(error) => Err(error.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_index_is_wanted_twice() {
        let mut seen = std::collections::HashSet::new();
        for Wanted {
            collection, name, ..
        } in wanted()
        {
            assert!(seen.insert((collection, name)), "{collection}.{name} twice");
        }
    }

    #[test]
    fn every_indexed_collection_is_one_of_all_the_collections() {
        for Wanted { collection, .. } in wanted() {
            assert!(names::ALL.contains(&collection), "{collection}");
        }
    }
}
