//! `MovieDetails`: the part of a movie that only detail pages show (`movie_details`).

use std::sync::Arc;

use async_graphql::{Object, SimpleObject};

use crate::domain::list_caps::{MAX_CAST, MAX_EXTERNAL_RATINGS};
use crate::graphql::types::list_cost;
use crate::store::documents::{DetailFields, MovieDetailsDoc};

/// A movie's details, stored apart from the summary so lists stay small.
pub struct MovieDetails(pub Arc<MovieDetailsDoc>);

impl MovieDetails {
    /// The stored fields a selection of details reads (its look-ahead, fragments included).
    pub fn fields_asked(selection: &async_graphql::Lookahead<'_>) -> DetailFields {
        [
            ("plot", DetailFields::PLOT),
            ("fullPlot", DetailFields::FULL_PLOT),
            ("languages", DetailFields::LANGUAGES),
            ("countries", DetailFields::COUNTRIES),
            ("cast", DetailFields::CAST),
            ("externalRatings", DetailFields::EXTERNAL_RATINGS),
        ]
        .into_iter()
        .filter(|(name, _)| selection.field(name).exists())
        .fold(DetailFields::default(), |all, (_, fields)| all | fields)
    }
}

/// A member of the cast.
#[derive(SimpleObject)]
pub struct CastMember {
    /// The actor.
    pub name: String,
    /// The part they play.
    pub character: String,
}

/// A rating from another site.
#[derive(SimpleObject)]
pub struct ExternalRating {
    /// Where it comes from, e.g. "豆瓣".
    pub source: String,
    /// The score on that site's scale.
    pub score: f64,
    /// The top of that site's scale.
    pub max_score: f64,
    /// How many votes it is based on.
    pub votes: i64,
}

/// The part of a movie only detail pages show, stored apart (`movie_details`) so lists stay
/// small.
#[Object(cache_control(max_age = 60))]
impl MovieDetails {
    /// A one-paragraph plot.
    async fn plot(&self) -> &str {
        &self.0.plot
    }

    /// The full plot.
    async fn full_plot(&self) -> &str {
        &self.0.full_plot
    }

    /// Spoken languages.
    async fn languages(&self) -> &[String] {
        &self.0.languages
    }

    /// Production countries.
    async fn countries(&self) -> &[String] {
        &self.0.countries
    }

    /// The cast in billing order: the first 50.
    #[graphql(complexity = "list_cost(MAX_CAST, child_complexity)")]
    async fn cast(&self) -> Vec<CastMember> {
        self.0
            .cast
            .iter()
            .take(MAX_CAST)
            .map(|member| CastMember {
                name: member.name.clone(),
                character: member.character.clone(),
            })
            .collect()
    }

    /// Ratings on other sites (at most 10).
    #[graphql(complexity = "list_cost(MAX_EXTERNAL_RATINGS, child_complexity)")]
    async fn external_ratings(&self) -> Vec<ExternalRating> {
        self.0
            .external_ratings
            .iter()
            .take(MAX_EXTERNAL_RATINGS)
            .map(|rating| ExternalRating {
                source: rating.source.clone(),
                score: rating.score,
                max_score: rating.max_score,
                votes: rating.votes,
            })
            .collect()
    }
}
