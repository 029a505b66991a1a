//! The platform operator creating and changing movies (a chain is FORBIDDEN: a movie belongs
//! to no cinema).

use async_graphql::{Context, InputObject, Object, ID};
use chrono::Datelike;

use crate::catalogue;
use crate::catalogue::graphql::types::Movie;
use crate::catalogue::rules::checks as rules;
use crate::catalogue::{DetailsChanges, MovieChanges};
use crate::domain::global_id;
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::operators::graphql::OperatorsContext;
use crate::store::documents::{
    CastMemberDoc, MovieDetailsDoc, MovieDoc, RatingSummary, SalesDoc, SCHEMA_VERSION,
};

#[derive(Default)]
pub struct MovieMutation;

/// One member of a movie's full cast.
#[derive(InputObject, Debug, Clone, serde::Serialize)]
pub struct CastMemberInput {
    /// The actor's name.
    pub name: String,
    /// The character played; may be empty.
    #[graphql(default)]
    pub character: String,
}

/// A new movie: its summary (what lists show) and its details (loaded only when asked).
#[derive(InputObject, Debug, serde::Serialize)]
pub struct CreateMovieInput {
    /// Its title, up to 100 characters.
    pub title: String,
    /// Its title in its original language (defaults to the title).
    pub original_title: Option<String>,
    /// Its year, from 1888 to five years from now.
    pub year: i32,
    /// Its runtime in minutes, 1 to 600.
    pub runtime_minutes: i32,
    /// One to five distinct genres ("科幻", "动作").
    pub genres: Vec<String>,
    /// Up to 10 directors.
    #[graphql(default)]
    pub directors: Vec<String>,
    /// Up to 10 top-billed actors.
    #[graphql(default)]
    pub top_cast: Vec<String>,
    /// Its poster: an https:// address.
    pub poster_url: String,
    /// A one-paragraph plot, up to 1,000 characters.
    #[graphql(default)]
    pub plot: String,
    /// The whole story, up to 10,000 characters.
    #[graphql(default)]
    pub full_plot: String,
    /// Up to 10 spoken languages.
    #[graphql(default)]
    pub languages: Vec<String>,
    /// Up to 10 countries of production.
    #[graphql(default)]
    pub countries: Vec<String>,
    /// The full cast, up to 200 members.
    #[graphql(default)]
    pub cast: Vec<CastMemberInput>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// Changes to a movie: the fields given are replaced, the others kept.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct UpdateMovieInput {
    /// The movie.
    pub movie_id: ID,
    /// A new title (reaches its future showtimes; orders keep the title they were sold under).
    pub title: Option<String>,
    /// A new original title.
    pub original_title: Option<String>,
    /// A new year.
    pub year: Option<i32>,
    /// A new runtime in minutes (reaches the future showtimes' copy; a scheduled showtime
    /// keeps its start and end).
    pub runtime_minutes: Option<i32>,
    /// New genres (replace the old ones).
    pub genres: Option<Vec<String>>,
    /// New directors.
    pub directors: Option<Vec<String>>,
    /// New top cast.
    pub top_cast: Option<Vec<String>>,
    /// A new poster address.
    pub poster_url: Option<String>,
    /// A new plot.
    pub plot: Option<String>,
    /// A new full plot.
    pub full_plot: Option<String>,
    /// New languages.
    pub languages: Option<Vec<String>>,
    /// New countries.
    pub countries: Option<Vec<String>>,
    /// A new full cast.
    pub cast: Option<Vec<CastMemberInput>>,
    /// Makes retries safe, as in `createMovie`.
    pub idempotency_key: Option<String>,
}

fn cast(members: &[CastMemberInput]) -> Result<Vec<CastMemberDoc>, ApiError> {
    rules::cast_size(members.len())?;
    members
        .iter()
        .enumerate()
        .map(|(index, member)| {
            let (name, character) = rules::cast_member(index, &member.name, &member.character)?;
            Ok(CastMemberDoc { name, character })
        })
        .collect()
}

fn this_year() -> i32 {
    chrono::Utc::now().year()
}

#[Object]
impl MovieMutation {
    /// Creates a movie (platform operator only).
    #[tracing::instrument(skip_all)]
    async fn create_movie(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The movie.")] input: CreateMovieInput,
    ) -> Result<Movie, ApiError> {
        let operator = ctx.calling_operator("creating a movie")?;
        let title = rules::name("title", &input.title)?;
        let unset = MovieId([0; 12]);
        let summary = MovieDoc {
            id: unset,
            schema_version: SCHEMA_VERSION,
            original_title: match &input.original_title {
                Some(original) => rules::name("originalTitle", original)?,
                None => title.clone(),
            },
            title,
            year: rules::year(input.year, this_year())?,
            runtime_minutes: rules::runtime_minutes(input.runtime_minutes)?,
            genres: rules::genres(&input.genres)?,
            directors: rules::people("directors", &input.directors)?,
            top_cast: rules::people("topCast", &input.top_cast)?,
            rating: RatingSummary {
                average: 0.0,
                count: 0,
            },
            poster_url: rules::poster_url(&input.poster_url)?,
            recent_reviews: Vec::new(),
            sales: SalesDoc::default(),
        };
        let details = MovieDetailsDoc {
            id: unset,
            schema_version: SCHEMA_VERSION,
            plot: rules::plot("plot", &input.plot, false)?,
            full_plot: rules::plot("fullPlot", &input.full_plot, true)?,
            languages: rules::places("languages", &input.languages)?,
            countries: rules::places("countries", &input.countries)?,
            cast: cast(&input.cast)?,
            external_ratings: Vec::new(),
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let id = catalogue::create_movie(keyed, summary, details).await?;
        Ok(Movie::from_id(id))
    }

    /// Changes a movie's summary and details (platform operator only). A new title or runtime
    /// reaches every future showtime's copy.
    #[tracing::instrument(skip_all)]
    async fn update_movie(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The movie and the fields to change.")] input: UpdateMovieInput,
    ) -> Result<Movie, ApiError> {
        let operator = ctx.calling_operator("changing a movie")?;
        let movie = global_id::movie_id(&input.movie_id)?;
        let text = |argument: &str, value: &Option<String>| {
            value
                .as_deref()
                .map(|value| rules::name(argument, value))
                .transpose()
        };
        let summary = MovieChanges {
            title: text("title", &input.title)?,
            original_title: text("originalTitle", &input.original_title)?,
            year: input
                .year
                .map(|year| rules::year(year, this_year()))
                .transpose()?,
            runtime_minutes: input
                .runtime_minutes
                .map(rules::runtime_minutes)
                .transpose()?,
            genres: input.genres.as_deref().map(rules::genres).transpose()?,
            directors: input
                .directors
                .as_deref()
                .map(|people| rules::people("directors", people))
                .transpose()?,
            top_cast: input
                .top_cast
                .as_deref()
                .map(|people| rules::people("topCast", people))
                .transpose()?,
            poster_url: input
                .poster_url
                .as_deref()
                .map(rules::poster_url)
                .transpose()?,
        };
        let details = DetailsChanges {
            plot: input
                .plot
                .as_deref()
                .map(|plot| rules::plot("plot", plot, false))
                .transpose()?,
            full_plot: input
                .full_plot
                .as_deref()
                .map(|plot| rules::plot("fullPlot", plot, true))
                .transpose()?,
            languages: input
                .languages
                .as_deref()
                .map(|places| rules::places("languages", places))
                .transpose()?,
            countries: input
                .countries
                .as_deref()
                .map(|places| rules::places("countries", places))
                .transpose()?,
            cast: input.cast.as_deref().map(cast).transpose()?,
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let id = catalogue::update_movie(keyed, movie, summary, details).await?;
        Ok(Movie::from_id(id))
    }
}
