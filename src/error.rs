//! The one error type of the API.
//!
//! Every layer returns [`ApiError`]; the GraphQL layer turns it into a GraphQL error with
//! `extensions.code` in exactly one place (`graphql::errors`), where internal errors are logged
//! with their context and masked for clients.

use std::fmt;

/// What went wrong, in terms a client can act on.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// The request itself is wrong: malformed ids, cursors, coordinates, arguments out of range.
    #[error("{0}")]
    BadUserInput(String),
    /// No valid credentials: a missing, malformed or unknown API key where one is needed.
    #[error("{0}")]
    Unauthenticated(String),
    /// The caller is known but may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// Some requested seats are not free; `seats` names them (empty when no block of seats
    /// fits a best-available request).
    #[error("{message}")]
    SeatUnavailable { message: String, seats: Vec<String> },
    /// The hold lapsed before it was confirmed; its seats may be someone else's now.
    #[error("{0}")]
    HoldExpired(String),
    /// The idempotency key was used before with another request.
    #[error("{0}")]
    IdempotencyKeyReused(String),
    /// The object named by the request does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The query is too deep or too costly to run.
    #[error("{0}")]
    QueryTooComplex(String),
    /// The database cannot be reached or is not answering in time: retry in a moment. The
    /// message is logged; clients get a fixed text.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// This attempt at an idempotency key's operation lost the key to a retry that took it
    /// over: its answer does not count. Never shown to a client: the key's stored answer is
    /// given instead.
    #[error("attempt {attempt} no longer owns its idempotency key")]
    Fenced { attempt: i32 },
    /// Anything the client cannot fix. The message is logged and never shown to clients.
    #[error("internal error: {0}")]
    Internal(String),
}

/// The machine-readable codes clients switch on (`extensions.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    BadUserInput,
    Unauthenticated,
    Forbidden,
    SeatUnavailable,
    HoldExpired,
    IdempotencyKeyReused,
    NotFound,
    QueryTooComplex,
    RateLimited,
    SubscriptionLimit,
    RequestTimeout,
    PersistedQueryNotFound,
    Unavailable,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadUserInput => "BAD_USER_INPUT",
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::SeatUnavailable => "SEAT_UNAVAILABLE",
            ErrorCode::HoldExpired => "HOLD_EXPIRED",
            ErrorCode::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::QueryTooComplex => "QUERY_TOO_COMPLEX",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::SubscriptionLimit => "SUBSCRIPTION_LIMIT",
            ErrorCode::RequestTimeout => "REQUEST_TIMEOUT",
            ErrorCode::PersistedQueryNotFound => "PERSISTED_QUERY_NOT_FOUND",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ApiError {
    pub fn bad_input(message: impl Into<String>) -> Self {
        ApiError::BadUserInput(message.into())
    }

    pub fn unauthenticated(message: impl Into<String>) -> Self {
        ApiError::Unauthenticated(message.into())
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        ApiError::Forbidden(message.into())
    }

    /// SEAT_UNAVAILABLE naming the seats that were taken.
    pub fn seats_taken(seats: Vec<String>) -> Self {
        ApiError::SeatUnavailable {
            message: format!("seats {} are not available", seats.join(", ")),
            seats,
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::NotFound(message.into())
    }

    pub fn internal(context: impl fmt::Display) -> Self {
        ApiError::Internal(context.to_string())
    }

    pub fn unavailable(context: impl fmt::Display) -> Self {
        ApiError::Unavailable(context.to_string())
    }

    /// Whether the error leaves the effect of a write unknown (it may or may not have
    /// happened): the database failed or went away mid-operation.
    pub fn effect_unknown(&self) -> bool {
        matches!(self, ApiError::Internal(_) | ApiError::Unavailable(_))
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::BadUserInput(_) => ErrorCode::BadUserInput,
            ApiError::Unauthenticated(_) => ErrorCode::Unauthenticated,
            ApiError::Forbidden(_) => ErrorCode::Forbidden,
            ApiError::SeatUnavailable { .. } => ErrorCode::SeatUnavailable,
            ApiError::HoldExpired(_) => ErrorCode::HoldExpired,
            ApiError::IdempotencyKeyReused(_) => ErrorCode::IdempotencyKeyReused,
            ApiError::NotFound(_) => ErrorCode::NotFound,
            ApiError::QueryTooComplex(_) => ErrorCode::QueryTooComplex,
            ApiError::Unavailable(_) => ErrorCode::Unavailable,
            ApiError::Fenced { .. } | ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The seats an error names (SEAT_UNAVAILABLE), else none.
    pub fn seats(&self) -> &[String] {
        match self {
            ApiError::SeatUnavailable { seats, .. } => seats,
            _ => &[],
        }
    }

    /// Rebuilds an error a client was given, from its code, message and seats (for replaying a
    /// stored answer). An unknown code becomes INTERNAL.
    pub fn from_parts(code: &str, message: String, seats: Vec<String>) -> Self {
        match code {
            "BAD_USER_INPUT" => ApiError::BadUserInput(message),
            "UNAUTHENTICATED" => ApiError::Unauthenticated(message),
            "FORBIDDEN" => ApiError::Forbidden(message),
            "SEAT_UNAVAILABLE" => ApiError::SeatUnavailable { message, seats },
            "HOLD_EXPIRED" => ApiError::HoldExpired(message),
            "IDEMPOTENCY_KEY_REUSED" => ApiError::IdempotencyKeyReused(message),
            "NOT_FOUND" => ApiError::NotFound(message),
            "QUERY_TOO_COMPLEX" => ApiError::QueryTooComplex(message),
            "UNAVAILABLE" => ApiError::Unavailable(message),
            _ => ApiError::Internal(message),
        }
    }

    /// The message a client may see: internal details are replaced by a fixed text.
    pub fn client_message(&self) -> String {
        match self {
            ApiError::Internal(_) | ApiError::Fenced { .. } => "internal error".to_owned(),
            ApiError::Unavailable(_) => {
                "the service is unavailable for a moment; retry the request".to_owned()
            }
            other => other.to_string(),
        }
    }
}

/// Shorthand for results of the API.
pub type ApiResult<T> = Result<T, ApiError>;
