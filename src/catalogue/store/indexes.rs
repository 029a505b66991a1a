//! The catalogue's indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, sparse, unique, Wanted};
use crate::store::names::{
    CHANNELS, CINEMAS, MOVIES, OPERATORS, REGIONS, REVIEWS, SHOWTIMES, SHOWTIME_PRICE_REVISIONS,
    THEATERS,
};
use crate::store::Store;

impl Store {
    /// The indexes of cinemas, regions, halls, movies, reviews, showtimes and their price
    /// revisions, channels and door keys.
    pub(crate) fn catalogue_indexes() -> Vec<Wanted> {
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
            // Showtimes whose cancellation is under way (`cancellingSince` exists only then): the
            // background resumer reads them and nothing else.
            sparse(SHOWTIMES, doc! { "cancellingSince": 1 }, "cancelling"),
            // A key identifies its channel: no two channels may share one.
            unique(CHANNELS, doc! { "apiKeyHash": 1 }, "api_key"),
            // A cinema's door staff keys (only door keys have `door`).
            sparse(
                OPERATORS,
                doc! { "door.cinemaId": 1, "_id": 1 },
                "door_cinema",
            ),
            // Showtimes with events still to relay (a price revision leaves them; `store::outbox`).
            index(SHOWTIMES, doc! { "outbox.at": 1 }, "outbox"),
        ]
    }
}
