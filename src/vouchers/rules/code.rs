//! Voucher codes: 12 characters of an alphabet without look-alikes after an optional
//! prefix, derived from the server secret, the batch and the index, read back without case,
//! spaces or dashes, stored as an HMAC under the server secret.

use crate::domain::ids::ResourceId;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;

/// The characters of a code: digits and capitals without 0, 1, I, L and O.
pub const ALPHABET: &[u8; 31] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/// The characters of a code after its prefix (about 59 bits).
pub const CODE_CHARS: usize = 12;
/// The longest prefix a batch may give its codes.
pub const MAX_PREFIX_CHARS: usize = 8;
/// The most codes one batch makes.
pub const MAX_BATCH: usize = 10_000;

/// A voucher code as a customer types it. Never logged: its `Debug` hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct VoucherCode(String);

impl std::fmt::Debug for VoucherCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VoucherCode(…)")
    }
}

impl VoucherCode {
    /// Code `index` of batch `batch`, after `prefix` (already checked by [`parse_prefix`]):
    /// derived from the server secret, the batch's id and the index, so a retried batch (the
    /// same idempotency key, so the same id) makes the same codes, and neither the batch nor
    /// the key's stored answer keeps one. Without the secret, a code says nothing of the
    /// others. About 59 bits: 12 base-31 digits of a 128-bit HMAC (the modulo's bias is
    /// under 2^-60).
    pub fn of_batch(secret: &TicketSecret, batch: ResourceId, index: u32, prefix: &str) -> Self {
        let mut id = [0u8; 16];
        id[..12].copy_from_slice(&batch.bytes());
        id[12..].copy_from_slice(&index.to_be_bytes());
        let mac = secret.derive(b"boxoffice voucher batch codes v1", &id);
        let mut high = [0u8; 16];
        high.copy_from_slice(&mac[..16]);
        let mut n = u128::from_be_bytes(high);
        let base = ALPHABET.len() as u128;
        let mut code = String::with_capacity(prefix.len() + CODE_CHARS);
        code.push_str(prefix);
        for _ in 0..CODE_CHARS {
            code.push(char::from(ALPHABET[(n % base) as usize]));
            n /= base;
        }
        VoucherCode(code)
    }

    /// A code as sent: case, spaces and dashes do not matter. BAD_USER_INPUT when it cannot be
    /// a code (wrong length or characters), before anything is looked up.
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let length = CODE_CHARS..=CODE_CHARS + MAX_PREFIX_CHARS;
        normalized(text, length)
            .map(VoucherCode)
            .ok_or_else(|| ApiError::bad_input("voucher is not a voucher code"))
    }

    /// The code, to show once to the operator that made it.
    pub fn reveal(&self) -> &str {
        &self.0
    }

    /// What is stored and looked up: an HMAC of the code under the server secret.
    pub fn hash(&self, secret: &TicketSecret) -> [u8; 32] {
        secret.derive(b"boxoffice voucher codes v1", self.0.as_bytes())
    }
}

/// A batch's prefix: at most `MAX_PREFIX_CHARS` characters of the alphabet, read as codes are
/// (case, spaces and dashes do not matter); empty for none.
pub fn parse_prefix(text: &str) -> Result<String, ApiError> {
    normalized(text, 0..=MAX_PREFIX_CHARS).ok_or_else(|| {
        ApiError::bad_input(format!(
            "prefix must be at most {MAX_PREFIX_CHARS} of the characters {}",
            std::str::from_utf8(ALPHABET).unwrap_or_default()
        ))
    })
}

/// `text` in capitals without spaces or dashes, when that is `length` characters of the
/// alphabet. A text more than twice the longest is refused before anything is copied, so a
/// caller cannot make this allocate at will.
fn normalized(text: &str, length: std::ops::RangeInclusive<usize>) -> Option<String> {
    if text.len() > 2 * length.end() {
        return None;
    }
    let normal: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let fits = length.contains(&normal.len()) && normal.bytes().all(|b| ALPHABET.contains(&b));
    fits.then_some(normal)
}

/// How many codes a batch makes: 1 to `MAX_BATCH`.
pub fn batch_size(count: i64) -> Result<usize, ApiError> {
    usize::try_from(count)
        .ok()
        .filter(|count| (1..=MAX_BATCH).contains(count))
        .ok_or_else(|| ApiError::bad_input(format!("count must be 1 to {MAX_BATCH}")))
}

#[cfg(test)]
mod tests {
    use crate::domain::ticket_codes::TicketSecret;

    use super::*;

    fn secret() -> TicketSecret {
        TicketSecret::new([7; 32])
    }

    #[test]
    fn a_batch_code_is_twelve_characters_of_the_alphabet_after_its_prefix() {
        let batch = ResourceId([1; 12]);
        let code = VoucherCode::of_batch(&secret(), batch, 0, "SUMMER");
        let text = code.reveal();
        assert_eq!(text.len(), 6 + CODE_CHARS);
        assert!(text.starts_with("SUMMER"));
        assert!(text.bytes().all(|b| ALPHABET.contains(&b)), "{text}");
        assert_eq!(
            VoucherCode::parse(text).unwrap(),
            code,
            "it reads back as itself"
        );
    }

    #[test]
    fn a_batch_makes_the_same_codes_again_and_each_is_its_own() {
        let batch = ResourceId([1; 12]);
        let codes: std::collections::HashSet<String> = (0..MAX_BATCH as u32)
            .map(|i| {
                VoucherCode::of_batch(&secret(), batch, i, "")
                    .reveal()
                    .to_owned()
            })
            .collect();
        assert_eq!(codes.len(), MAX_BATCH, "10,000 codes, all different");
        let again = VoucherCode::of_batch(&secret(), batch, 7, "");
        assert_eq!(again, VoucherCode::of_batch(&secret(), batch, 7, ""));
        let other_batch = VoucherCode::of_batch(&secret(), ResourceId([2; 12]), 7, "");
        let other_secret = VoucherCode::of_batch(&TicketSecret::new([8; 32]), batch, 7, "");
        assert_ne!(again, other_batch);
        assert_ne!(again, other_secret);
        // The digits are spread over the alphabet: each character turns up in 10,000 codes.
        let used: std::collections::HashSet<u8> = codes.iter().flat_map(|c| c.bytes()).collect();
        assert_eq!(used.len(), ALPHABET.len());
    }

    #[test]
    fn the_alphabet_has_no_look_alikes() {
        for look_alike in *b"01ILO" {
            assert!(!ALPHABET.contains(&look_alike), "{}", look_alike as char);
        }
        let mut sorted = ALPHABET.to_vec();
        sorted.dedup();
        assert_eq!(sorted.len(), ALPHABET.len());
    }

    #[test]
    fn a_code_is_read_without_case_spaces_or_dashes() {
        let code = VoucherCode::parse("abcd-efgh 2345").unwrap();
        assert_eq!(code.reveal(), "ABCDEFGH2345");
        assert_eq!(
            code.hash(&secret()),
            VoucherCode::parse("ABCDEFGH2345").unwrap().hash(&secret())
        );
    }

    #[test]
    fn what_cannot_be_a_code_is_refused_before_any_look_up() {
        for text in [
            "",
            "ABCDEFGH234",           // one short
            "ABCDEFGH2345ABCDEFGH2", // one past the longest prefix
            "ABCDEFGH2340",          // a zero
            "ABCDEFGH234O",          // an O
            "ABCDÉFGH2345",
        ] {
            let refused = VoucherCode::parse(text).unwrap_err();
            assert_eq!(refused.code().as_str(), "BAD_USER_INPUT", "{text}");
        }
        let huge = "A".repeat(1_000_000);
        assert!(VoucherCode::parse(&huge).is_err());
    }

    #[test]
    fn a_code_is_never_shown_by_debug() {
        let code = VoucherCode::parse("ABCDEFGH2345").unwrap();
        assert!(!format!("{code:?}").contains("ABCD"));
    }

    #[test]
    fn the_stored_hash_depends_on_the_server_secret() {
        let code = VoucherCode::parse("ABCDEFGH2345").unwrap();
        assert_ne!(code.hash(&secret()), code.hash(&TicketSecret::new([8; 32])));
        let other = VoucherCode::parse("ABCDEFGH2346").unwrap();
        assert_ne!(code.hash(&secret()), other.hash(&secret()));
    }

    #[test]
    fn prefixes_and_batches_are_bounded() {
        assert_eq!(parse_prefix("sum-mer").unwrap(), "SUMMER");
        assert_eq!(parse_prefix("").unwrap(), "");
        assert!(parse_prefix("SUMMERTAG").is_err());
        assert!(parse_prefix("SPRING").is_err(), "an I");
        assert_eq!(batch_size(10_000).unwrap(), 10_000);
        for refused in [0, -1, 10_001, i64::MAX] {
            assert!(batch_size(refused).is_err(), "{refused}");
        }
    }
}
