//! Operators: who writes the catalogue. A cinema chain writes its own cinemas (and their
//! halls and showtimes); the platform writes every cinema and reads the audit log.

use crate::domain::api_key::validate_operator_code;
use crate::domain::ids::CinemaId;
use crate::error::ApiError;

/// Which cinemas an operator may write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperatorScope {
    /// Every cinema: the platform operator.
    All,
    /// These cinemas, and those it creates.
    Cinemas(Vec<CinemaId>),
}

/// BAD_USER_INPUT unless `code` is an operator code and `name` is not blank.
pub fn check_new_operator(code: &str, name: &str) -> Result<(), ApiError> {
    validate_operator_code(code)?;
    if name.trim().is_empty() {
        return Err(ApiError::bad_input("an operator needs a name"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_operator_needs_a_code_and_a_name() {
        assert!(check_new_operator("wanda", "万达").is_ok());
        assert!(check_new_operator("Wanda", "万达").is_err());
        assert!(check_new_operator("wanda", "  ").is_err());
    }
}
