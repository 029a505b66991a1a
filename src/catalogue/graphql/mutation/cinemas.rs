//! Operators creating and changing cinemas.

use async_graphql::{Context, InputObject, Object, ID};

use crate::catalogue::graphql::types::Cinema;
use crate::catalogue::rules::checks as rules;
use crate::catalogue::{self, CinemaEdit, NewCinema};
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::operators::graphql::OperatorsContext;
use crate::orders::rules::{RefundPolicy, MAX_CUTOFF_MINUTES};
use crate::store::documents::GeoJsonPoint;

#[derive(Default)]
pub struct CinemaMutation;

/// A point on Earth.
#[derive(InputObject, Debug, Clone, Copy, serde::Serialize)]
pub struct LocationInput {
    /// Degrees north, -90 to 90.
    pub latitude: f64,
    /// Degrees east, -180 to 180.
    pub longitude: f64,
}

impl LocationInput {
    fn checked(self) -> Result<GeoJsonPoint, ApiError> {
        rules::location(self.latitude, self.longitude)?;
        Ok(GeoJsonPoint::new(self.latitude, self.longitude))
    }
}

/// A new cinema. Its city and district are those of its district region.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct CreateCinemaInput {
    /// Its name, up to 100 characters.
    pub name: String,
    /// Its street address, up to 200 characters.
    pub address: String,
    /// The district (a region of level DISTRICT) it is in.
    pub region_id: ID,
    /// Where it is.
    pub location: LocationInput,
    /// What it offers ("停车场", "IMAX"): up to 20 distinct entries of up to 30 characters.
    #[graphql(default)]
    pub amenities: Vec<String>,
    /// Its terms for cancellations (left out: refunds in full until the start).
    pub refund_policy: Option<RefundPolicyInput>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// Changes to a cinema: the fields given are replaced, the others kept.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct UpdateCinemaInput {
    /// The cinema.
    pub cinema_id: ID,
    /// A new name (reaches its future showtimes; orders keep the name they were sold under).
    pub name: Option<String>,
    /// A new street address.
    pub address: Option<String>,
    /// A new district; the city and district follow from it.
    pub region_id: Option<ID>,
    /// A new location.
    pub location: Option<LocationInput>,
    /// The new list of amenities (replaces the old one).
    pub amenities: Option<Vec<String>>,
    /// New terms for cancellations (they apply to cancellations from now on, of orders sold
    /// before too).
    pub refund_policy: Option<RefundPolicyInput>,
    /// Makes retries safe, as in `createCinema`.
    pub idempotency_key: Option<String>,
}

/// A cinema's terms for cancellations.
#[derive(InputObject, Debug, Clone, Copy, serde::Serialize)]
pub struct RefundPolicyInput {
    /// No refund within this many minutes of the start (0 to 10080; 0: until the start).
    pub cutoff_minutes: i32,
    /// Kept of each cancelled seat's price, in fen (0 to 100000; never more than the price).
    pub fee_per_seat: i64,
}

impl RefundPolicyInput {
    fn checked(self) -> Result<RefundPolicy, ApiError> {
        let policy = RefundPolicy {
            cutoff_minutes: u32::try_from(self.cutoff_minutes).map_err(|_| {
                ApiError::bad_input(format!(
                    "refundPolicy.cutoffMinutes is 0 to {MAX_CUTOFF_MINUTES}, not {}",
                    self.cutoff_minutes
                ))
            })?,
            fee_per_seat: self.fee_per_seat,
        };
        policy.validate()?;
        Ok(policy)
    }
}

#[Object]
impl CinemaMutation {
    /// Creates a cinema in a district. Any operator may; a chain's new cinema joins its scope.
    /// BAD_USER_INPUT names what is wrong (a region that is not a district, a name too long).
    #[tracing::instrument(skip_all)]
    async fn create_cinema(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The cinema.")] input: CreateCinemaInput,
    ) -> Result<Cinema, ApiError> {
        let operator = ctx.calling_operator("creating a cinema")?;
        let cinema = NewCinema {
            name: rules::name("name", &input.name)?,
            address: rules::address(&input.address)?,
            region: global_id::region_id(&input.region_id)?,
            location: input.location.checked()?,
            amenities: rules::amenities(&input.amenities)?,
            refund_policy: input
                .refund_policy
                .map(RefundPolicyInput::checked)
                .transpose()?,
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let id = catalogue::create_cinema(keyed, cinema).await?;
        Ok(Cinema::from_id(id))
    }

    /// Changes a cinema of the caller's scope (FORBIDDEN otherwise, and nothing changes). A
    /// new name or district reaches every future showtime's copy (see ARCHITECTURE.md,
    /// "Extended references stay true").
    #[tracing::instrument(skip_all)]
    async fn update_cinema(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The cinema and the fields to change.")] input: UpdateCinemaInput,
    ) -> Result<Cinema, ApiError> {
        let operator = ctx.calling_operator("changing a cinema")?;
        let cinema = global_id::cinema_id(&input.cinema_id)?;
        let edit = CinemaEdit {
            name: input
                .name
                .as_deref()
                .map(|name| rules::name("name", name))
                .transpose()?,
            address: input.address.as_deref().map(rules::address).transpose()?,
            region: input
                .region_id
                .as_ref()
                .map(|id| global_id::region_id(id))
                .transpose()?,
            location: input.location.map(LocationInput::checked).transpose()?,
            amenities: input
                .amenities
                .as_deref()
                .map(rules::amenities)
                .transpose()?,
            refund_policy: input
                .refund_policy
                .map(RefundPolicyInput::checked)
                .transpose()?,
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let id = catalogue::update_cinema(keyed, cinema, edit).await?;
        Ok(Cinema::from_id(id))
    }
}
