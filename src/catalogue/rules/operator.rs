//! Operators: who writes the catalogue. A cinema chain writes its own cinemas (and their
//! halls and showtimes); the platform writes every cinema and reads the audit log.

use crate::domain::ids::CinemaId;

/// Which cinemas an operator may write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperatorScope {
    /// Every cinema: the platform operator.
    All,
    /// These cinemas, and those it creates.
    Cinemas(Vec<CinemaId>),
}
