//! The database's errors as the API's: unreachable is UNAVAILABLE, a duplicate key is told
//! apart, anything else is INTERNAL.

use crate::error::ApiError;

impl From<mongodb::error::Error> for ApiError {
    /// A database that cannot be reached or is not answering is UNAVAILABLE (the client may
    /// retry); any other failure is INTERNAL.
    fn from(error: mongodb::error::Error) -> Self {
        use mongodb::error::ErrorKind;
        /// Server errors that mean "not now": shutting down, stepping down, no primary.
        const NOT_NOW: [i32; 9] = [6, 7, 89, 91, 189, 10107, 11600, 11602, 13435];
        let unavailable = match &*error.kind {
            ErrorKind::ServerSelection { .. }
            | ErrorKind::Io(_)
            | ErrorKind::ConnectionPoolCleared { .. }
            | ErrorKind::Shutdown => true,
            ErrorKind::Command(command) => NOT_NOW.contains(&command.code),
            _ => false,
        };
        if unavailable {
            ApiError::unavailable_caused("the database is not answering", error)
        } else {
            ApiError::internal_caused("a database command failed", error)
        }
    }
}

impl From<bson::de::Error> for ApiError {
    fn from(error: bson::de::Error) -> Self {
        ApiError::internal_caused("decoding a document", error)
    }
}

impl From<bson::ser::Error> for ApiError {
    fn from(error: bson::ser::Error) -> Self {
        ApiError::internal_caused("encoding a document", error)
    }
}

/// MongoDB's E11000: a unique index refused the write.
pub(crate) fn is_duplicate_key(error: &mongodb::error::Error) -> bool {
    use mongodb::error::{ErrorKind, WriteFailure};
    match &*error.kind {
        ErrorKind::Write(WriteFailure::WriteError(write)) => write.code == 11000,
        ErrorKind::Command(command) => command.code == 11000,
        _ => false,
    }
}
