//! The one error type of the API.
//!
//! Every layer returns [`ApiError`]; the GraphQL layer turns it into a GraphQL error with
//! `extensions.code` in exactly one place (`graphql::errors`), where internal errors are logged
//! with their context and masked for clients. Internal and unavailable errors keep their cause
//! chain (an `anyhow::Error` behind an `Arc`, so the error stays `Clone`): the log shows every
//! cause, clients see a fixed text.

use std::fmt;
use std::sync::Arc;

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
    /// The order's refund policy does not allow this cancellation (too close to the start).
    #[error("{0}")]
    RefundNotAllowed(String),
    /// The ticket was admitted already: when, and at which door.
    #[error("{message}")]
    AlreadyAdmitted {
        message: String,
        at: chrono::DateTime<chrono::Utc>,
        door: String,
    },
    /// The order's items were collected at the counter already: when, and where.
    #[error("{message}")]
    AlreadyCollected {
        message: String,
        at: chrono::DateTime<chrono::Utc>,
        door: String,
    },
    /// A product has less stock left than a hold asks for; `product` is its global id.
    #[error("{message}")]
    SoldOut { message: String, product: String },
    /// The ticket's seat is no longer sold to its order (cancelled, or its showtime was).
    #[error("{0}")]
    TicketCancelled(String),
    /// The ticket is scanned outside its showtime's admission window.
    #[error("{0}")]
    AdmissionClosed(String),
    /// The idempotency key was used before with another request.
    #[error("{0}")]
    IdempotencyKeyReused(String),
    /// A hold may not use the voucher it names; `reason` says why (`vouchers::rules::Refusal`:
    /// UNKNOWN, DISABLED, NOT_YET_VALID, EXPIRED, OUT_OF_SCOPE, USED_UP, CUSTOMER_LIMIT,
    /// CUSTOMER_NEEDED).
    #[error("{message}")]
    VoucherRefused { message: String, reason: String },
    /// The object named by the request does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A position in the event log older than its retention: the events after it may be
    /// gone, so reading on from it could skip some. Read the orders, then start from now.
    #[error("{0}")]
    CursorExpired(String),
    /// The query is too deep or too costly to run.
    #[error("{0}")]
    QueryTooComplex(String),
    /// The database cannot be reached or is not answering in time: retry in a moment. The
    /// cause is logged; clients get a fixed text.
    #[error("unavailable: {0:#}")]
    Unavailable(Arc<anyhow::Error>),
    /// The gateway refused to start work it could not finish in time: too many requests in
    /// flight, no database connection within the short wait, not enough of the request's time
    /// left for its next command, or the showtime's queue full. Code UNAVAILABLE (HTTP 503
    /// with `Retry-After`); not logged one by one (an overload would flood the log), counted
    /// in `boxoffice_overload_refusals_total`.
    #[error("{0}")]
    Overloaded(String),
    /// This attempt at an idempotency key's operation lost the key to a retry that took it
    /// over: its answer does not count. Never shown to a client: the key's stored answer is
    /// given instead.
    #[error("attempt {attempt} no longer owns its idempotency key")]
    Fenced { attempt: i32 },
    /// Anything the client cannot fix. The cause chain is logged and never shown to clients.
    #[error("internal error: {0:#}")]
    Internal(Arc<anyhow::Error>),
}

/// The machine-readable codes clients switch on (`extensions.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    BadUserInput,
    Unauthenticated,
    Forbidden,
    SeatUnavailable,
    HoldExpired,
    RefundNotAllowed,
    AlreadyAdmitted,
    AlreadyCollected,
    SoldOut,
    TicketCancelled,
    AdmissionClosed,
    IdempotencyKeyReused,
    VoucherRefused,
    NotFound,
    CursorExpired,
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
            ErrorCode::RefundNotAllowed => "REFUND_NOT_ALLOWED",
            ErrorCode::AlreadyAdmitted => "ALREADY_ADMITTED",
            ErrorCode::AlreadyCollected => "ALREADY_COLLECTED",
            ErrorCode::SoldOut => "SOLD_OUT",
            ErrorCode::TicketCancelled => "TICKET_CANCELLED",
            ErrorCode::AdmissionClosed => "ADMISSION_CLOSED",
            ErrorCode::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            ErrorCode::VoucherRefused => "VOUCHER_REFUSED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::CursorExpired => "CURSOR_EXPIRED",
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

    /// INTERNAL with a message of our own (no underlying error).
    pub fn internal(message: impl fmt::Display) -> Self {
        ApiError::Internal(Arc::new(anyhow::Error::msg(message.to_string())))
    }

    /// INTERNAL caused by `cause`, which the log shows with its own causes after `context`.
    pub fn internal_caused<E>(context: &'static str, cause: E) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        ApiError::Internal(Arc::new(anyhow::Error::new(cause).context(context)))
    }

    /// UNAVAILABLE with a message of our own.
    pub fn unavailable(message: impl fmt::Display) -> Self {
        ApiError::Unavailable(Arc::new(anyhow::Error::msg(message.to_string())))
    }

    /// UNAVAILABLE caused by `cause` (a database that is down or not answering).
    pub fn unavailable_caused<E>(context: &'static str, cause: E) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        ApiError::Unavailable(Arc::new(anyhow::Error::new(cause).context(context)))
    }

    /// The underlying error of an INTERNAL or UNAVAILABLE error, with its causes.
    pub fn cause(&self) -> Option<&anyhow::Error> {
        match self {
            ApiError::Internal(cause) | ApiError::Unavailable(cause) => Some(cause),
            _ => None,
        }
    }

    /// Whether the error leaves the effect of a write unknown (it may or may not have
    /// happened): the database failed or went away mid-operation.
    /// A refusal for overload counts too: a command earlier in the same request may have
    /// written, and the retry must run again rather than be given this answer.
    pub fn effect_unknown(&self) -> bool {
        matches!(
            self,
            ApiError::Internal(_) | ApiError::Unavailable(_) | ApiError::Overloaded(_)
        )
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::BadUserInput(_) => ErrorCode::BadUserInput,
            ApiError::Unauthenticated(_) => ErrorCode::Unauthenticated,
            ApiError::Forbidden(_) => ErrorCode::Forbidden,
            ApiError::SeatUnavailable { .. } => ErrorCode::SeatUnavailable,
            ApiError::HoldExpired(_) => ErrorCode::HoldExpired,
            ApiError::RefundNotAllowed(_) => ErrorCode::RefundNotAllowed,
            ApiError::AlreadyAdmitted { .. } => ErrorCode::AlreadyAdmitted,
            ApiError::AlreadyCollected { .. } => ErrorCode::AlreadyCollected,
            ApiError::SoldOut { .. } => ErrorCode::SoldOut,
            ApiError::TicketCancelled(_) => ErrorCode::TicketCancelled,
            ApiError::AdmissionClosed(_) => ErrorCode::AdmissionClosed,
            ApiError::IdempotencyKeyReused(_) => ErrorCode::IdempotencyKeyReused,
            ApiError::VoucherRefused { .. } => ErrorCode::VoucherRefused,
            ApiError::NotFound(_) => ErrorCode::NotFound,
            ApiError::CursorExpired(_) => ErrorCode::CursorExpired,
            ApiError::QueryTooComplex(_) => ErrorCode::QueryTooComplex,
            ApiError::Unavailable(_) | ApiError::Overloaded(_) => ErrorCode::Unavailable,
            ApiError::Fenced { .. } | ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// Why a voucher was refused (VOUCHER_REFUSED), else none.
    pub fn reason(&self) -> Option<&str> {
        match self {
            ApiError::VoucherRefused { reason, .. } => Some(reason),
            _ => None,
        }
    }

    /// The product an error names (SOLD_OUT), else none.
    pub fn product(&self) -> Option<&str> {
        match self {
            ApiError::SoldOut { product, .. } => Some(product),
            _ => None,
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
        Self::from_stored(code, message, seats, None)
    }

    /// As `from_parts`, with a VOUCHER_REFUSED's reason (a SOLD_OUT's product).
    pub fn from_stored(
        code: &str,
        message: String,
        seats: Vec<String>,
        reason: Option<String>,
    ) -> Self {
        match code {
            "VOUCHER_REFUSED" => ApiError::VoucherRefused {
                message,
                reason: reason.unwrap_or_default(),
            },
            "BAD_USER_INPUT" => ApiError::BadUserInput(message),
            "UNAUTHENTICATED" => ApiError::Unauthenticated(message),
            "FORBIDDEN" => ApiError::Forbidden(message),
            "SEAT_UNAVAILABLE" => ApiError::SeatUnavailable { message, seats },
            // A stored SOLD_OUT keeps its product where a refusal keeps its reason.
            "SOLD_OUT" => ApiError::SoldOut {
                message,
                product: reason.unwrap_or_default(),
            },
            "HOLD_EXPIRED" => ApiError::HoldExpired(message),
            "REFUND_NOT_ALLOWED" => ApiError::RefundNotAllowed(message),
            "TICKET_CANCELLED" => ApiError::TicketCancelled(message),
            "ADMISSION_CLOSED" => ApiError::AdmissionClosed(message),
            "IDEMPOTENCY_KEY_REUSED" => ApiError::IdempotencyKeyReused(message),
            "NOT_FOUND" => ApiError::NotFound(message),
            "CURSOR_EXPIRED" => ApiError::CursorExpired(message),
            "QUERY_TOO_COMPLEX" => ApiError::QueryTooComplex(message),
            "UNAVAILABLE" => ApiError::unavailable(message),
            _ => ApiError::internal(message),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_internal_error_keeps_its_causes_and_shows_clients_none() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "port 27017");
        let error = ApiError::internal_caused("a database command failed", refused);
        let cause = error.cause().expect("a cause");
        assert_eq!(cause.chain().count(), 2, "the context, then the io error");
        assert_eq!(
            cause
                .root_cause()
                .downcast_ref::<std::io::Error>()
                .map(|e| e.kind()),
            Some(std::io::ErrorKind::ConnectionRefused)
        );
        assert_eq!(
            error.to_string(),
            "internal error: a database command failed: port 27017"
        );
        assert_eq!(error.client_message(), "internal error");
        assert_eq!(error.code(), ErrorCode::Internal);
        assert!(error.clone().effect_unknown());
    }

    #[test]
    fn a_replayed_error_keeps_its_code_and_message() {
        for code in [
            ErrorCode::Unavailable,
            ErrorCode::SeatUnavailable,
            ErrorCode::NotFound,
        ] {
            let replayed = ApiError::from_parts(code.as_str(), "gone".into(), vec!["A1".into()]);
            assert_eq!(replayed.code(), code);
        }
        assert_eq!(
            ApiError::from_parts("NEW_CODE", "x".into(), vec![]).code(),
            ErrorCode::Internal
        );
        let refused = ApiError::from_stored(
            "VOUCHER_REFUSED",
            "x".into(),
            vec![],
            Some("USED_UP".into()),
        );
        assert_eq!(refused.code(), ErrorCode::VoucherRefused);
        assert_eq!(refused.reason(), Some("USED_UP"));
    }
}
