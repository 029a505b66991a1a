//! What every resolver reaches through its context: the store, the request's loaders, the
//! caller and the page limits. `schema::prepare` attaches them to each request, with the
//! features' data, which each feature's resolvers read through a trait of their own
//! (`catalogue::graphql::CatalogueContext`, ...) or `data_unchecked`.

use async_graphql::Context;

use super::loaders::Loaders;
use crate::domain::paging::{PageLimits, PageRequest};
use crate::domain::rate_limit::RateLimit;
use crate::error::ApiError;
use crate::store::Store;

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The code of the calling sales channel; `None` for an anonymous caller or an operator.
    pub channel: Option<String>,
    /// The code of the calling operator (a cinema chain, or the platform); `None` otherwise.
    pub operator: Option<String>,
    /// The channel's own rate limit, if its record sets one.
    pub rate_limit: Option<RateLimit>,
    /// For door staff (an operator key that admits tickets and does nothing else): the
    /// cinema and door it admits at.
    pub door: Option<Door>,
}

/// Where a door staff key admits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Door {
    pub cinema: crate::domain::ids::CinemaId,
    pub name: String,
}

impl Caller {
    pub fn anonymous() -> Self {
        Caller {
            channel: None,
            operator: None,
            rate_limit: None,
            door: None,
        }
    }

    pub fn channel(code: String) -> Self {
        Caller {
            channel: Some(code),
            ..Caller::anonymous()
        }
    }

    pub fn operator(code: String) -> Self {
        Caller {
            operator: Some(code),
            ..Caller::anonymous()
        }
    }
}

/// Typed access to the request data.
pub trait ContextExt {
    fn store(&self) -> &Store;
    fn loaders(&self) -> &Loaders;
    fn caller(&self) -> &Caller;
    /// The calling channel's code, or UNAUTHENTICATED saying `action` needs one (FORBIDDEN
    /// for an operator: operators do not sell).
    fn calling_channel(&self, action: &str) -> Result<&str, ApiError>;
    /// The calling operator's code: UNAUTHENTICATED for an anonymous caller, FORBIDDEN for a
    /// sales channel.
    fn calling_operator(&self, action: &str) -> Result<&str, ApiError>;
    /// The calling door staff's door: UNAUTHENTICATED for an anonymous caller, FORBIDDEN for
    /// anyone else.
    fn calling_door(&self, action: &str) -> Result<&Door, ApiError>;
    /// Validates a connection's `first`/`after` against the configured cap.
    fn page(&self, first: Option<i32>, after: Option<String>) -> Result<PageRequest, ApiError>;
}

impl ContextExt for Context<'_> {
    fn store(&self) -> &Store {
        self.data_unchecked::<Store>()
    }

    fn loaders(&self) -> &Loaders {
        self.data_unchecked::<Loaders>()
    }

    fn caller(&self) -> &Caller {
        self.data_unchecked::<Caller>()
    }

    fn calling_channel(&self, action: &str) -> Result<&str, ApiError> {
        let caller = self.caller();
        if caller.operator.is_some() {
            return Err(ApiError::forbidden(format!(
                "{action} needs a sales channel's API key, not an operator's"
            )));
        }
        caller.channel.as_deref().ok_or_else(|| {
            ApiError::unauthenticated(format!("{action} needs a sales channel's API key"))
        })
    }

    fn calling_operator(&self, action: &str) -> Result<&str, ApiError> {
        let caller = self.caller();
        if caller.door.is_some() {
            return Err(ApiError::forbidden(format!(
                "{action} needs an operator's API key; a door staff key only admits tickets"
            )));
        }
        if caller.channel.is_some() {
            return Err(ApiError::forbidden(format!(
                "{action} needs an operator's API key; a sales channel cannot"
            )));
        }
        caller.operator.as_deref().ok_or_else(|| {
            ApiError::unauthenticated(format!("{action} needs an operator's API key"))
        })
    }

    fn calling_door(&self, action: &str) -> Result<&Door, ApiError> {
        let caller = self.caller();
        if let Some(door) = &caller.door {
            return Ok(door);
        }
        if caller.channel.is_none() && caller.operator.is_none() {
            return Err(ApiError::unauthenticated(format!(
                "{action} needs a door staff key"
            )));
        }
        Err(ApiError::forbidden(format!(
            "{action} needs a door staff key (an operator makes one with `createDoorKey`)"
        )))
    }

    fn page(&self, first: Option<i32>, after: Option<String>) -> Result<PageRequest, ApiError> {
        PageRequest::new(first, after, *self.data_unchecked::<PageLimits>())
    }
}
