//! API keys: 32 random bytes shown once as `bo_<base64url>` (a sales channel's) or
//! `bop_<base64url>` (an operator's: a cinema chain, or the platform); only their SHA-256 is
//! stored. The keys are high-entropy, so a plain (unsalted, fast) hash is enough to make a
//! stolen `channels` collection useless, and it lets a key be looked up by its hash.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::error::ApiError;

const PREFIX: &str = "bo_";
const OPERATOR_PREFIX: &str = "bop_";

/// Who a key belongs to, told by its prefix, so a key is looked up in one collection only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// A sales channel (`bo_`).
    Channel,
    /// An operator (`bop_`).
    Operator,
}
/// Length of the base64url text of 32 bytes.
const SECRET_CHARS: usize = 43;

/// A channel's secret key, as the channel sends it (`Authorization: Bearer bo_...`).
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never log a key.
        f.write_str("ApiKey(…)")
    }
}

impl ApiKey {
    /// A new random key.
    pub fn generate(rng: &mut impl RngCore) -> Self {
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        ApiKey::from_secret(secret)
    }

    pub fn from_secret(secret: [u8; 32]) -> Self {
        ApiKey(format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(secret)))
    }

    /// A new random operator key.
    pub fn generate_operator(rng: &mut impl RngCore) -> Self {
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        ApiKey::operator_from_secret(secret)
    }

    pub fn operator_from_secret(secret: [u8; 32]) -> Self {
        ApiKey(format!(
            "{OPERATOR_PREFIX}{}",
            URL_SAFE_NO_PAD.encode(secret)
        ))
    }

    /// Whose key it is.
    pub fn kind(&self) -> KeyKind {
        if self.0.starts_with(OPERATOR_PREFIX) {
            KeyKind::Operator
        } else {
            KeyKind::Channel
        }
    }

    /// Reads a key a client sent; UNAUTHENTICATED when it cannot be one of ours.
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let well_formed = [PREFIX, OPERATOR_PREFIX]
            .iter()
            .find_map(|prefix| text.strip_prefix(prefix))
            .is_some_and(|secret| {
                secret.len() == SECRET_CHARS && URL_SAFE_NO_PAD.decode(secret).is_ok()
            });
        if well_formed {
            Ok(ApiKey(text.to_owned()))
        } else {
            Err(ApiError::unauthenticated("the API key is malformed"))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The hex SHA-256 of the key: what `channels` stores.
    pub fn hash(&self) -> String {
        Sha256::digest(self.0.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

/// Validates an operator code: the same rule as a channel code.
pub fn validate_operator_code(code: &str) -> Result<(), ApiError> {
    validate_code(code).map_err(|_| {
        ApiError::bad_input(format!(
            "operator code `{code}` must be 2 to 32 of a-z, 0-9, - and _, starting with a letter"
        ))
    })
}

/// Validates a channel code: 2 to 32 of `a-z`, `0-9`, `-`, `_`, starting with a letter.
pub fn validate_channel_code(code: &str) -> Result<(), ApiError> {
    validate_code(code)
}

fn validate_code(code: &str) -> Result<(), ApiError> {
    let valid = (2..=32).contains(&code.len())
        && code.starts_with(|c: char| c.is_ascii_lowercase())
        && code
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if valid {
        Ok(())
    } else {
        Err(ApiError::bad_input(format!(
            "channel code `{code}` must be 2 to 32 of a-z, 0-9, - and _, starting with a letter"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_parse_and_hash_stably() {
        let key = ApiKey::generate(&mut rand::rng());
        assert!(key.as_str().starts_with("bo_"));
        assert_eq!(key.as_str().len(), 3 + SECRET_CHARS);
        let parsed = ApiKey::parse(key.as_str()).unwrap();
        assert_eq!(parsed.hash(), key.hash());
        assert_eq!(key.hash().len(), 64);
        assert_ne!(ApiKey::generate(&mut rand::rng()).hash(), key.hash());
    }

    #[test]
    fn operator_keys_are_told_apart_by_their_prefix() {
        let key = ApiKey::generate_operator(&mut rand::rng());
        assert!(key.as_str().starts_with("bop_"));
        let parsed = ApiKey::parse(key.as_str()).unwrap();
        assert_eq!(parsed.kind(), KeyKind::Operator);
        assert_eq!(ApiKey::from_secret([1; 32]).kind(), KeyKind::Channel);
        assert!(ApiKey::parse("bop_short").is_err());
        assert!(validate_operator_code("wanda").is_ok());
        assert!(validate_operator_code("Wanda").is_err());
    }

    #[test]
    fn malformed_keys_are_unauthenticated() {
        for bad in [
            "",
            "bo_",
            "bo_short",
            "xx_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "bo_!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
        ] {
            let error = ApiKey::parse(bad).unwrap_err();
            assert_eq!(error.code().as_str(), "UNAUTHENTICATED");
        }
    }

    #[test]
    fn keys_never_appear_in_debug_output() {
        let key = ApiKey::from_secret([7; 32]);
        assert!(!format!("{key:?}").contains(&key.as_str()[3..]));
    }

    #[test]
    fn channel_codes_are_short_slugs() {
        assert!(validate_channel_code("maoyan").is_ok());
        assert!(validate_channel_code("box-office_2").is_ok());
        for bad in [
            "",
            "a",
            "Maoyan",
            "9lives",
            "猫眼",
            "has space",
            &"x".repeat(33),
        ] {
            assert!(validate_channel_code(bad).is_err(), "{bad}");
        }
    }
}
