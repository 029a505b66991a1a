//! `WantedMovie` (a movie on a customer's want-to-see list), `Wanter` (a customer who wants to
//! see a movie) and `WantToSeeCount`.

use async_graphql::{Object, SimpleObject};
use chrono::{DateTime, Utc};

use crate::catalogue::graphql::types::Movie;
use crate::want_to_see::store::documents::{WantedMovieDoc, WanterDoc};

/// A movie on a customer's want-to-see list.
pub struct WantedMovie(pub WantedMovieDoc);

/// A movie on a customer's want-to-see list, with when it was marked.
#[Object]
impl WantedMovie {
    /// The movie.
    async fn movie(&self) -> Movie {
        Movie::from_id(self.0.movie)
    }

    /// Its title when it was marked (kept on the list: a list reads one document).
    async fn title(&self) -> &str {
        &self.0.title
    }

    /// When the customer marked it.
    async fn marked_at(&self) -> DateTime<Utc> {
        self.0.at
    }
}

/// A customer who wants to see a movie.
pub struct Wanter(pub WanterDoc);

/// A channel's customer who wants to see a movie (for the platform operator).
#[Object]
impl Wanter {
    /// The sales channel the customer came through.
    async fn channel(&self) -> &str {
        self.0
            .wanter
            .split_once('/')
            .map_or("", |(channel, _)| channel)
    }

    /// The channel's opaque id of the customer.
    async fn customer_id(&self) -> &str {
        self.0
            .wanter
            .split_once('/')
            .map_or(self.0.wanter.as_str(), |(_, customer)| customer)
    }

    /// When the customer marked the movie.
    async fn marked_at(&self) -> DateTime<Utc> {
        self.0.at
    }
}

/// How many customers want to see a movie, counted exactly (for the platform operator).
#[derive(SimpleObject)]
pub struct WantToSeeCount {
    /// Customers whose list has the movie, over every channel.
    pub exact: i64,
    /// What listings show (`Movie.wantToSeeCount`): within the last second's marks of every
    /// gateway of `exact`, and set to it every 10 minutes.
    pub shown: i64,
    /// Whether its wanters outgrew one bucket of the by-movie side (seed 002's outlier
    /// pattern): its list of wanters spans several documents.
    pub outlier: bool,
}
