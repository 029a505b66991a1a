//! `markWantToSee` and `unmarkWantToSee`: a channel's customer's want-to-see list.

use async_graphql::{Context, InputObject, Object, ID};

use super::types::WantedMovie;
use crate::counters::graphql::CountersContext;
use crate::counters::Counted;
use crate::domain::customer::CustomerId;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::want_to_see;

#[derive(Default)]
pub struct WantToSeeMutation;

/// A movie and a customer of the calling channel.
#[derive(InputObject, Debug)]
pub struct WantToSeeInput {
    /// The movie.
    pub movie_id: ID,
    /// The channel's opaque id of its customer (1 to 64 characters, no spaces or control
    /// characters): never a name or a phone number.
    pub customer_id: String,
}

#[Object]
impl WantToSeeMutation {
    /// Puts a movie on a customer's want-to-see list (again: nothing changes).
    #[tracing::instrument(skip(self, ctx))]
    async fn mark_want_to_see(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The movie and the customer.")] input: WantToSeeInput,
    ) -> Result<WantedMovie, ApiError> {
        let channel = ctx.calling_channel("marking movies")?;
        let customer = CustomerId::parse(&input.customer_id)?;
        let movie = global_id::movie_id(&input.movie_id)?;
        let (marked, added) =
            want_to_see::mark_want_to_see(ctx.store(), channel, &customer, movie).await?;
        if added {
            ctx.tally().add(Counted::WantToSee(movie), 1);
        }
        Ok(WantedMovie(marked))
    }

    /// Takes a movie off a customer's want-to-see list: true when it was on it.
    #[tracing::instrument(skip(self, ctx))]
    async fn unmark_want_to_see(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The movie and the customer.")] input: WantToSeeInput,
    ) -> Result<bool, ApiError> {
        let channel = ctx.calling_channel("unmarking movies")?;
        let customer = CustomerId::parse(&input.customer_id)?;
        let movie = global_id::movie_id(&input.movie_id)?;
        let removed =
            want_to_see::unmark_want_to_see(ctx.store(), channel, &customer, movie).await?;
        if removed {
            ctx.tally().add(Counted::WantToSee(movie), -1);
        }
        Ok(removed)
    }
}
