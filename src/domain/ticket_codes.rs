//! Ticket codes: what a buyer shows at the door, and the pickup code a kiosk takes.
//!
//! A ticket's QR payload names the ticket (cinema, showtime, order, seat) and carries an HMAC
//! of it under a key derived from the server secret for that cinema: anyone can read it, no
//! one can make or change one without the key, and a door checks it without a database read.
//! The pickup code of an order is 10 characters derived the same way: 50 bits, as hard to
//! guess as a random one, and stored nowhere (shown by deriving it again).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::ids::{CinemaId, OrderId, ShowtimeId};
use super::layout::parse_seat_label;
use crate::error::ApiError;

type HmacSha256 = Hmac<Sha256>;

/// The prefix of every ticket code: its version.
const PREFIX: &str = "BO1.";
/// Bytes of the HMAC a code carries (128 bits: forging one means guessing them).
const MAC_BYTES: usize = 16;
/// The longest seat label ("AB12").
const MAX_LABEL: usize = 8;
/// Crockford's base 32: no I, L, O, U, so a code read aloud or typed is not misread.
const PICKUP_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const PICKUP_CHARS: usize = 10;

/// The server's secret, from which every ticket-code key is derived. Never shown or logged.
#[derive(Clone, PartialEq, Eq)]
pub struct TicketSecret([u8; 32]);

impl std::fmt::Debug for TicketSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TicketSecret(…)")
    }
}

impl TicketSecret {
    pub fn new(bytes: [u8; 32]) -> Self {
        TicketSecret(bytes)
    }

    /// A fresh random secret.
    pub fn random() -> Self {
        use rand::RngCore;
        let mut bytes = [0; 32];
        rand::rng().fill_bytes(&mut bytes);
        TicketSecret(bytes)
    }

    /// Reads a secret given as 32 bytes or more of base64url (the first 32 bytes of its
    /// SHA-256 when longer).
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(text.trim().trim_end_matches('='))
            .map_err(|_| ApiError::bad_input("the ticket secret is not base64url"))?;
        if bytes.len() < 32 {
            return Err(ApiError::bad_input(
                "the ticket secret must be at least 32 bytes (43 base64url characters)",
            ));
        }
        let mut secret = [0; 32];
        if bytes.len() == 32 {
            secret.copy_from_slice(&bytes);
        } else {
            use sha2::Digest;
            secret.copy_from_slice(&Sha256::digest(&bytes));
        }
        Ok(TicketSecret(secret))
    }

    fn mac(&self, parts: &[&[u8]]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes any key length");
        for part in parts {
            mac.update(&(part.len() as u32).to_be_bytes());
            mac.update(part);
        }
        mac
    }

    /// A key for `purpose` and `id` (a webhook endpoint's secret): knowing it says nothing of
    /// this secret or of any other key.
    pub fn derive(&self, purpose: &[u8], id: &[u8]) -> [u8; 32] {
        self.mac(&[purpose, id]).finalize().into_bytes().into()
    }

    /// The key of one cinema's ticket codes: a door device of that cinema could hold it and
    /// check codes offline, and it says nothing of other cinemas' keys.
    fn cinema_key(&self, cinema: CinemaId) -> TicketSecret {
        let key = self.mac(&[b"boxoffice ticket codes v1", &cinema.bytes()]);
        TicketSecret(key.finalize().into_bytes().into())
    }
}

/// One ticket: a seat of an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    pub cinema: CinemaId,
    pub showtime: ShowtimeId,
    pub order: OrderId,
    pub seat: String,
}

impl Ticket {
    fn body(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(36 + 1 + self.seat.len());
        body.extend_from_slice(&self.cinema.bytes());
        body.extend_from_slice(&self.showtime.bytes());
        body.extend_from_slice(&self.order.bytes());
        body.push(self.seat.len() as u8);
        body.extend_from_slice(self.seat.as_bytes());
        body
    }

    fn tag(&self, secret: &TicketSecret) -> [u8; MAC_BYTES] {
        let key = secret.cinema_key(self.cinema);
        let full = key.mac(&[b"ticket", &self.body()]).finalize().into_bytes();
        let mut tag = [0; MAC_BYTES];
        tag.copy_from_slice(&full[..MAC_BYTES]);
        tag
    }

    /// The ticket's QR payload: `BO1.` and the ticket with its HMAC, in base64url.
    pub fn code(&self, secret: &TicketSecret) -> String {
        let mut bytes = self.body();
        bytes.extend_from_slice(&self.tag(secret));
        format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
    }

    /// The ticket a code names, if the code is one of ours and unaltered. BAD_USER_INPUT for
    /// anything else, saying only that it is not a valid ticket code (a forger learns nothing
    /// about which part was wrong).
    pub fn verify(secret: &TicketSecret, code: &str) -> Result<Ticket, ApiError> {
        let invalid = || ApiError::bad_input("this is not a valid ticket code");
        let bytes = code
            .trim()
            .strip_prefix(PREFIX)
            .filter(|rest| rest.len() <= 128)
            .and_then(|rest| URL_SAFE_NO_PAD.decode(rest).ok())
            .ok_or_else(invalid)?;
        if bytes.len() < 37 + MAC_BYTES {
            return Err(invalid());
        }
        let id = |at: usize| -> [u8; 12] { bytes[at..at + 12].try_into().expect("12 bytes") };
        let label_len = usize::from(bytes[36]);
        if label_len == 0 || label_len > MAX_LABEL || bytes.len() != 37 + label_len + MAC_BYTES {
            return Err(invalid());
        }
        let seat = std::str::from_utf8(&bytes[37..37 + label_len])
            .ok()
            .filter(|label| parse_seat_label(label).is_ok())
            .ok_or_else(invalid)?;
        let ticket = Ticket {
            cinema: CinemaId(id(0)),
            showtime: ShowtimeId(id(12)),
            order: OrderId(id(24)),
            seat: seat.to_owned(),
        };
        let key = secret.cinema_key(ticket.cinema);
        let mac = key.mac(&[b"ticket", &ticket.body()]);
        // Constant time: a forger learns nothing from how long a refusal takes.
        mac.verify_truncated_left(&bytes[37 + label_len..])
            .map_err(|_| invalid())?;
        Ok(ticket)
    }
}

/// The pickup code of order `order` (for a kiosk): 10 characters of Crockford's base 32.
pub fn pickup_code(secret: &TicketSecret, order: OrderId) -> String {
    let digest = secret
        .mac(&[b"boxoffice pickup codes v1", &order.bytes()])
        .finalize()
        .into_bytes();
    // 10 characters of 5 bits from the first 50 bits.
    let bits = u64::from_be_bytes(digest[..8].try_into().expect("8 bytes")) >> 14;
    (0..PICKUP_CHARS)
        .rev()
        .map(|i| PICKUP_ALPHABET[((bits >> (5 * i)) & 31) as usize] as char)
        .collect()
}

/// The key the counter finds an order by (`collectItems`): a keyed hash of its pickup code,
/// so that the code is stored nowhere and a copy of the database gives none away. The code
/// is read as typed by a person: case, spaces and dashes do not matter. BAD_USER_INPUT for
/// one that is not 10 characters of the code alphabet.
pub fn pickup_key(secret: &TicketSecret, code: &str) -> Result<String, ApiError> {
    // Checked before anything is made of it: a pickup code is 10 characters.
    if code.len() > 4 * PICKUP_CHARS {
        return Err(ApiError::bad_input("a pickup code is 10 characters"));
    }
    let code: String = code
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if code.len() != PICKUP_CHARS || !code.bytes().all(|c| PICKUP_ALPHABET.contains(&c)) {
        return Err(ApiError::bad_input(
            "a pickup code is 10 characters: digits and capitals without I, L, O and U",
        ));
    }
    let digest = secret
        .mac(&[b"boxoffice pickup lookup v1", code.as_bytes()])
        .finalize()
        .into_bytes();
    Ok(URL_SAFE_NO_PAD.encode(digest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pickup_key_is_found_from_the_code_as_typed_and_gives_it_not_away() {
        let code = pickup_code(&secret(9), OrderId([3; 12]));
        let key = pickup_key(&secret(9), &code).unwrap();
        let typed = format!("{}-{} ", &code[..5].to_lowercase(), &code[5..]);
        assert_eq!(pickup_key(&secret(9), &typed).unwrap(), key);
        assert!(!key.contains(&code));
        assert_ne!(
            pickup_key(&secret(8), &code).unwrap(),
            key,
            "keyed by the secret"
        );
        for bad in ["", "ABC", "0123456789A", "ILOU012345", &"x".repeat(100)] {
            assert!(pickup_key(&secret(9), bad).is_err(), "{bad}");
        }
    }

    fn secret(byte: u8) -> TicketSecret {
        TicketSecret::new([byte; 32])
    }

    fn ticket() -> Ticket {
        Ticket {
            cinema: CinemaId([1; 12]),
            showtime: ShowtimeId([2; 12]),
            order: OrderId([3; 12]),
            seat: "D7".into(),
        }
    }

    #[test]
    fn a_code_names_its_ticket_and_verifies() {
        let code = ticket().code(&secret(9));
        assert!(code.starts_with("BO1."), "{code}");
        assert_eq!(Ticket::verify(&secret(9), &code).unwrap(), ticket());
    }

    #[test]
    fn a_code_under_another_secret_or_altered_is_refused() {
        let code = ticket().code(&secret(9));
        assert!(
            Ticket::verify(&secret(8), &code).is_err(),
            "another server's"
        );
        // Every single changed character of the payload is caught.
        let body = &code[PREFIX.len()..];
        for i in 0..body.len() {
            let mut altered: Vec<char> = body.chars().collect();
            altered[i] = if altered[i] == 'A' { 'B' } else { 'A' };
            let altered = format!("{PREFIX}{}", altered.into_iter().collect::<String>());
            if altered != code {
                assert!(Ticket::verify(&secret(9), &altered).is_err(), "{altered}");
            }
        }
        // Another seat, order or cinema under the same secret is another code.
        let other_seat = Ticket {
            seat: "D8".into(),
            ..ticket()
        };
        assert_ne!(other_seat.code(&secret(9)), code);
    }

    #[test]
    fn malformed_codes_are_refused_alike() {
        for code in [
            "",
            "BO1.",
            "BO1.!!!",
            "BO2.AAAA",
            "hello",
            &"BO1.".repeat(60),
        ] {
            let error = Ticket::verify(&secret(9), code).unwrap_err();
            assert_eq!(error.to_string(), "this is not a valid ticket code");
        }
    }

    #[test]
    fn pickup_codes_are_ten_unambiguous_characters_and_differ_per_order_and_secret() {
        let code = pickup_code(&secret(9), OrderId([3; 12]));
        assert_eq!(code.len(), 10);
        assert!(code.bytes().all(|c| PICKUP_ALPHABET.contains(&c)), "{code}");
        assert_eq!(
            code,
            pickup_code(&secret(9), OrderId([3; 12])),
            "derived, not random"
        );
        assert_ne!(code, pickup_code(&secret(9), OrderId([4; 12])));
        assert_ne!(code, pickup_code(&secret(8), OrderId([3; 12])));
    }

    #[test]
    fn secrets_are_32_bytes_or_more_and_never_shown() {
        assert!(TicketSecret::parse("short").is_err());
        let text = URL_SAFE_NO_PAD.encode([7u8; 32]);
        assert_eq!(TicketSecret::parse(&text).unwrap(), secret(7));
        assert!(TicketSecret::parse(&URL_SAFE_NO_PAD.encode([7u8; 48])).is_ok());
        assert_eq!(format!("{:?}", secret(7)), "TicketSecret(…)");
    }
}
