//! The rules of a voucher (issue 36): a code that changes what a hold's seats cost, made by
//! an operator and redeemed by a channel.
//!
//! - **Codes** are `CODE_CHARS` (12) characters of an alphabet without look-alikes (no 0/O,
//!   1/I/L), about 59 bits, derived from the server secret, the batch and the code's index
//!   (`VoucherCode::of_batch`); a batch may put a prefix of its own before them. A code
//!   is read back without case, spaces or dashes, so `abcd-efgh-2345` is `ABCDEFGH2345`.
//! - **Stored hashed and keyed.** A code is far shorter than an API key, so a plain hash of
//!   it could be searched for; it is stored as an HMAC under the gateway's server secret
//!   (`VoucherCode::hash`), so a copy of the database without the secret redeems nothing,
//!   and a code is still found by one equality on its hash.
//! - **Scopes** never reach past the cinemas of the operator that made the voucher.
//! - **Effects** change each seat's price, in integer fen, and never raise it: an amount off
//!   (not below 0), a percentage off, a fixed price (the list price when lower), or unlocking
//!   a ticket type the showtime would refuse (the price is then that type's). **Rounding:** a
//!   percentage takes `floor(price × percent / 100)` fen off each seat, so a discount is never
//!   more than the percentage says, and the sum of a hold is the sum of its seats.

use chrono::{DateTime, Utc};

use crate::catalogue::rules::operator::OperatorScope;
use crate::domain::customer::CustomerId;
use crate::domain::ids::{CinemaId, MovieId, ResourceId, ShowtimeId};
use crate::domain::pricing::TicketType;
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
/// The most redemptions a voucher may allow in total.
pub const MAX_REDEMPTIONS: u32 = 1_000_000;
/// The longest a voucher may be valid.
pub const MAX_VALIDITY_DAYS: i64 = 366;

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

/// Where a voucher may be redeemed: at the cinemas of the operator that made it (every
/// cinema for the platform's; a chain's cinemas as they were when it was made), narrowed to
/// one of them, one movie or one showtime when made so. A chain's voucher for a movie is
/// for that movie at the chain's cinemas only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoucherScope {
    cinemas: OperatorScope,
    only: Option<Narrowed>,
}

/// What a voucher's scope is narrowed to, within its operator's cinemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrowed {
    Cinema(CinemaId),
    Movie(MovieId),
    Showtime(ShowtimeId),
}

/// What a hold is for, as a voucher's scope sees it.
#[derive(Debug, Clone, Copy)]
pub struct SaleAt {
    pub cinema: CinemaId,
    pub movie: MovieId,
    pub showtime: ShowtimeId,
}

impl VoucherScope {
    /// The scope of a voucher made by an operator whose scope is `cinemas`, narrowed to
    /// `only`. FORBIDDEN for a cinema the operator does not write. (A showtime's cinema is
    /// checked by whoever reads the showtime; `covers` holds the line either way.)
    pub fn new(cinemas: OperatorScope, only: Option<Narrowed>) -> Result<Self, ApiError> {
        if let (OperatorScope::Cinemas(own), Some(Narrowed::Cinema(cinema))) = (&cinemas, only) {
            if !own.contains(&cinema) {
                return Err(ApiError::forbidden(format!(
                    "cinema {cinema} is not one of the calling operator's"
                )));
            }
        }
        Ok(VoucherScope { cinemas, only })
    }

    /// The operator's cinemas it was made within.
    pub fn cinemas(&self) -> &OperatorScope {
        &self.cinemas
    }

    /// What it is narrowed to.
    pub fn only(&self) -> Option<Narrowed> {
        self.only
    }

    /// Whether a hold for `sale` may use the voucher.
    pub fn covers(&self, sale: &SaleAt) -> bool {
        let at_its_cinemas = match &self.cinemas {
            OperatorScope::All => true,
            OperatorScope::Cinemas(cinemas) => cinemas.contains(&sale.cinema),
        };
        at_its_cinemas
            && match self.only {
                None => true,
                Some(Narrowed::Cinema(cinema)) => cinema == sale.cinema,
                Some(Narrowed::Movie(movie)) => movie == sale.movie,
                Some(Narrowed::Showtime(showtime)) => showtime == sale.showtime,
            }
    }
}

/// What a voucher does to each seat of a hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoucherEffect {
    /// This many fen off each seat, never below 0.
    AmountOff(i64),
    /// This percentage off each seat (1 to 100), the discount rounded down to the fen.
    PercentOff(u8),
    /// Each seat at this price, or at its list price when that is lower.
    FixedPrice(i64),
    /// A ticket type the showtime refuses (a rule's hours, say) may be bought, at its price.
    UnlockTicketType(TicketType),
}

/// The most fen an amount may be (100,000 yuan): far above any seat's price.
pub const MAX_AMOUNT: i64 = 10_000_000;

impl VoucherEffect {
    /// The effect as an operator gives it, checked: amounts 1 to `MAX_AMOUNT` fen (a fixed
    /// price may be 0: a free seat), a percentage 1 to 100.
    pub fn checked(self) -> Result<Self, ApiError> {
        let ok = match &self {
            VoucherEffect::AmountOff(amount) => (1..=MAX_AMOUNT).contains(amount),
            VoucherEffect::FixedPrice(amount) => (0..=MAX_AMOUNT).contains(amount),
            VoucherEffect::PercentOff(percent) => (1..=100).contains(percent),
            VoucherEffect::UnlockTicketType(_) => true,
        };
        if ok {
            Ok(self)
        } else {
            Err(ApiError::bad_input(format!(
                "effect: amounts are 1 to {MAX_AMOUNT} fen (a fixed price may be 0), a \
                 percentage 1 to 100"
            )))
        }
    }

    /// A seat's price with the voucher, from its list price `price` (fen, not negative).
    pub fn price(&self, price: i64) -> i64 {
        match self {
            VoucherEffect::AmountOff(amount) => (price - amount).max(0),
            VoucherEffect::PercentOff(percent) => {
                // i128: price × 100 cannot overflow, whatever the price.
                let off = i128::from(price) * i128::from(*percent) / 100;
                price - i64::try_from(off).unwrap_or(price)
            }
            VoucherEffect::FixedPrice(fixed) => price.min(*fixed),
            VoucherEffect::UnlockTicketType(_) => price,
        }
    }

    /// The ticket type the voucher lets a hold buy, if it unlocks one.
    pub fn unlocks(&self) -> Option<&TicketType> {
        match self {
            VoucherEffect::UnlockTicketType(ticket_type) => Some(ticket_type),
            _ => None,
        }
    }
}

/// When a voucher may be redeemed: from `from` (inclusive) until `until` (exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity {
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

impl Validity {
    /// A window that starts before it ends and lasts at most `MAX_VALIDITY_DAYS`.
    pub fn new(from: DateTime<Utc>, until: DateTime<Utc>) -> Result<Self, ApiError> {
        if from >= until {
            return Err(ApiError::bad_input("validFrom must be before validUntil"));
        }
        if until - from > chrono::Duration::days(MAX_VALIDITY_DAYS) {
            return Err(ApiError::bad_input(format!(
                "a voucher is valid for at most {MAX_VALIDITY_DAYS} days"
            )));
        }
        Ok(Validity { from, until })
    }

    pub fn contains(&self, at: DateTime<Utc>) -> bool {
        self.from <= at && at < self.until
    }
}

/// The most redemptions a voucher may allow one customer (a customer's own slots are found
/// with one look-up of this many keys).
pub const MAX_PER_CUSTOMER: u32 = 20;

/// How often a voucher may be redeemed: in total, and by one customer when capped so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Caps {
    pub total: u32,
    pub per_customer: Option<u32>,
}

impl Caps {
    /// `total` 1 to `MAX_REDEMPTIONS`; `per_customer` 1 to `MAX_PER_CUSTOMER` and at most
    /// `total` (none when not given: then a hold need not name its customer).
    pub fn new(total: i64, per_customer: Option<i64>) -> Result<Self, ApiError> {
        let total = u32::try_from(total)
            .ok()
            .filter(|total| (1..=MAX_REDEMPTIONS).contains(total))
            .ok_or_else(|| {
                ApiError::bad_input(format!("maxRedemptions must be 1 to {MAX_REDEMPTIONS}"))
            })?;
        let per_customer = match per_customer {
            None => None,
            Some(cap) => Some(
                u32::try_from(cap)
                    .ok()
                    .filter(|cap| (1..=total.min(MAX_PER_CUSTOMER)).contains(cap))
                    .ok_or_else(|| {
                        ApiError::bad_input(format!(
                            "maxPerCustomer must be 1 to {MAX_PER_CUSTOMER}, and at most \
                             maxRedemptions"
                        ))
                    })?,
            ),
        };
        Ok(Caps {
            total,
            per_customer,
        })
    }
}

/// Why a hold may not use a voucher: `VOUCHER_REFUSED` with this as `extensions.reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No voucher has this code (or it was made under another server secret).
    Unknown,
    /// Its operator disabled it.
    Disabled,
    /// Its validity window has not begun.
    NotYetValid,
    /// Its validity window has ended.
    Expired,
    /// Its scope does not cover this showtime.
    OutOfScope,
    /// Every redemption it allows is taken (by orders, or by live holds that may lapse).
    UsedUp,
    /// The customer has had as many as it allows one customer.
    CustomerLimit,
    /// It caps redemptions per customer, and the hold named no customer.
    CustomerNeeded,
}

impl Refusal {
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Unknown => "UNKNOWN",
            Refusal::Disabled => "DISABLED",
            Refusal::NotYetValid => "NOT_YET_VALID",
            Refusal::Expired => "EXPIRED",
            Refusal::OutOfScope => "OUT_OF_SCOPE",
            Refusal::UsedUp => "USED_UP",
            Refusal::CustomerLimit => "CUSTOMER_LIMIT",
            Refusal::CustomerNeeded => "CUSTOMER_NEEDED",
        }
    }

    fn explained(self) -> &'static str {
        match self {
            Refusal::Unknown => "no voucher has this code",
            Refusal::Disabled => "the voucher was disabled",
            Refusal::NotYetValid => "the voucher is not valid yet",
            Refusal::Expired => "the voucher is no longer valid",
            Refusal::OutOfScope => "the voucher is not for this showtime",
            Refusal::UsedUp => "every redemption the voucher allows is taken",
            Refusal::CustomerLimit => "the customer has redeemed the voucher as often as it allows",
            Refusal::CustomerNeeded => "the voucher limits each customer: give customerId",
        }
    }

    /// The error a client gets.
    pub fn error(self) -> ApiError {
        ApiError::VoucherRefused {
            message: self.explained().to_owned(),
            reason: self.as_str().to_owned(),
        }
    }
}

/// A voucher as a hold sees it: whether it may be used now, for this sale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voucher {
    pub enabled: bool,
    pub validity: Validity,
    pub scope: VoucherScope,
    pub effect: VoucherEffect,
    pub caps: Caps,
}

impl Voucher {
    /// Why a hold for `sale`, at `now`, by `customer` (if named), may not use it; `None` when
    /// it may (its caps are counted when a redemption is reserved).
    pub fn refusal(
        &self,
        sale: &SaleAt,
        now: DateTime<Utc>,
        customer: Option<&str>,
    ) -> Option<Refusal> {
        if !self.enabled {
            Some(Refusal::Disabled)
        } else if now < self.validity.from {
            Some(Refusal::NotYetValid)
        } else if now >= self.validity.until {
            Some(Refusal::Expired)
        } else if !self.scope.covers(sale) {
            Some(Refusal::OutOfScope)
        } else if self.caps.per_customer.is_some() && customer.is_none() {
            Some(Refusal::CustomerNeeded)
        } else {
            None
        }
    }

    /// Each seat's price with the voucher, from the seats' list prices.
    pub fn prices(&self, list: &[i64]) -> Vec<i64> {
        list.iter().map(|&price| self.effect.price(price)).collect()
    }
}

/// What a hold names its customer by for a voucher's per-customer cap: the channel's id,
/// within the channel (a channel code has no `/`, so the pair is unambiguous).
pub fn customer_of(channel: &str, customer: &CustomerId) -> String {
    format!("{channel}/{}", customer.as_str())
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

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

    #[test]
    fn effects_never_raise_a_price_and_percentages_round_the_discount_down() {
        assert_eq!(VoucherEffect::AmountOff(1_000).price(4_500), 3_500);
        assert_eq!(VoucherEffect::AmountOff(5_000).price(4_500), 0);
        // 15% of 3,333 fen is 499.95: 499 off.
        assert_eq!(VoucherEffect::PercentOff(15).price(3_333), 2_834);
        assert_eq!(VoucherEffect::PercentOff(100).price(3_333), 0);
        assert_eq!(
            VoucherEffect::PercentOff(50).price(i64::MAX),
            i64::MAX / 2 + 1
        );
        assert_eq!(VoucherEffect::FixedPrice(2_000).price(4_500), 2_000);
        assert_eq!(VoucherEffect::FixedPrice(6_000).price(4_500), 4_500);
        let unlock = VoucherEffect::UnlockTicketType(TicketType::adult());
        assert_eq!(unlock.price(4_500), 4_500);
        assert_eq!(unlock.unlocks(), Some(&TicketType::adult()));
    }

    #[test]
    fn effects_are_checked_when_made() {
        for refused in [
            VoucherEffect::AmountOff(0),
            VoucherEffect::AmountOff(MAX_AMOUNT + 1),
            VoucherEffect::FixedPrice(-1),
            VoucherEffect::PercentOff(0),
            VoucherEffect::PercentOff(101),
        ] {
            assert!(refused.clone().checked().is_err(), "{refused:?}");
        }
        assert!(VoucherEffect::FixedPrice(0).checked().is_ok());
        assert!(VoucherEffect::PercentOff(100).checked().is_ok());
    }

    #[test]
    fn a_scope_covers_its_own_sales_and_never_past_its_operators_cinemas() {
        let id = |n: u8| [n; 12];
        let sale = SaleAt {
            cinema: CinemaId(id(1)),
            movie: MovieId(id(2)),
            showtime: ShowtimeId(id(3)),
        };
        let platform = |only| VoucherScope::new(OperatorScope::All, only).unwrap();
        let chain = |cinemas: &[u8], only| {
            let cinemas = cinemas.iter().map(|n| CinemaId(id(*n))).collect();
            VoucherScope::new(OperatorScope::Cinemas(cinemas), only)
        };
        assert!(platform(None).covers(&sale));
        assert!(chain(&[9, 1], None).unwrap().covers(&sale));
        assert!(!chain(&[9], None).unwrap().covers(&sale));
        let cinema = |n| Some(Narrowed::Cinema(CinemaId(id(n))));
        let movie = |n| Some(Narrowed::Movie(MovieId(id(n))));
        let showtime = |n| Some(Narrowed::Showtime(ShowtimeId(id(n))));
        assert!(platform(cinema(1)).covers(&sale));
        assert!(!platform(cinema(4)).covers(&sale));
        assert!(platform(movie(2)).covers(&sale));
        assert!(!platform(movie(4)).covers(&sale));
        assert!(platform(showtime(3)).covers(&sale));
        assert!(!platform(showtime(4)).covers(&sale));
        // A chain's voucher for a movie is for that movie at the chain's cinemas only.
        assert!(chain(&[1], movie(2)).unwrap().covers(&sale));
        assert!(!chain(&[9], movie(2)).unwrap().covers(&sale));
        assert!(!chain(&[9], showtime(3)).unwrap().covers(&sale));
        // Nor may a chain name another's cinema.
        let refused = chain(&[9], cinema(1)).unwrap_err();
        assert_eq!(refused.code().as_str(), "FORBIDDEN");
        assert!(chain(&[9, 1], cinema(1)).unwrap().covers(&sale));
    }

    #[test]
    fn validity_is_half_open_and_bounded() {
        let at = |day: u32| Utc.with_ymd_and_hms(2026, 12, day, 0, 0, 0).unwrap();
        let window = Validity::new(at(1), at(8)).unwrap();
        assert!(window.contains(at(1)));
        assert!(window.contains(at(7)));
        assert!(!window.contains(at(8)));
        assert!(Validity::new(at(8), at(1)).is_err());
        assert!(Validity::new(at(1), at(1)).is_err());
        assert!(Validity::new(at(1), at(1) + chrono::Duration::days(367)).is_err());
    }

    #[test]
    fn caps_are_bounded_and_per_customer_is_optional_and_small() {
        assert_eq!(
            Caps::new(10, None).unwrap(),
            Caps {
                total: 10,
                per_customer: None
            }
        );
        assert_eq!(Caps::new(10, Some(2)).unwrap().per_customer, Some(2));
        assert_eq!(
            Caps::new(1_000, Some(20)).unwrap().per_customer,
            Some(MAX_PER_CUSTOMER)
        );
        for (total, per_customer) in [
            (0, None),
            (-1, None),
            (1_000_001, None),
            (10, Some(11)),
            (1_000, Some(21)),
            (10, Some(0)),
        ] {
            assert!(
                Caps::new(total, per_customer).is_err(),
                "{total} {per_customer:?}"
            );
        }
    }

    #[test]
    fn a_voucher_refuses_outside_its_window_its_scope_or_without_a_customer_it_needs() {
        let at = |day: u32| Utc.with_ymd_and_hms(2026, 12, day, 0, 0, 0).unwrap();
        let sale = SaleAt {
            cinema: CinemaId([1; 12]),
            movie: MovieId([2; 12]),
            showtime: ShowtimeId([3; 12]),
        };
        let voucher = |enabled, only, per_customer| Voucher {
            enabled,
            validity: Validity::new(at(1), at(8)).unwrap(),
            scope: VoucherScope::new(OperatorScope::All, only).unwrap(),
            effect: VoucherEffect::PercentOff(10),
            caps: Caps::new(5, per_customer).unwrap(),
        };
        let open = voucher(true, None, None);
        assert_eq!(open.refusal(&sale, at(1), None), None);
        assert_eq!(open.refusal(&sale, at(7), Some("c")), None);
        assert_eq!(open.refusal(&sale, at(8), None), Some(Refusal::Expired));
        let early = at(1) - chrono::Duration::seconds(1);
        assert_eq!(open.refusal(&sale, early, None), Some(Refusal::NotYetValid));
        let disabled = voucher(false, None, None);
        assert_eq!(
            disabled.refusal(&sale, at(2), None),
            Some(Refusal::Disabled)
        );
        let elsewhere = voucher(true, Some(Narrowed::Movie(MovieId([9; 12]))), None);
        assert_eq!(
            elsewhere.refusal(&sale, at(2), None),
            Some(Refusal::OutOfScope)
        );
        let per_customer = voucher(true, None, Some(1));
        assert_eq!(
            per_customer.refusal(&sale, at(2), None),
            Some(Refusal::CustomerNeeded)
        );
        assert_eq!(per_customer.refusal(&sale, at(2), Some("c")), None);
        assert_eq!(open.prices(&[3_333, 4_500]), vec![3_000, 4_050]);
        let refused = Refusal::UsedUp.error();
        assert_eq!(refused.code().as_str(), "VOUCHER_REFUSED");
    }

    #[test]
    fn a_customer_is_named_within_its_channel_and_bounded() {
        let customer = CustomerId::parse("c-1").unwrap();
        assert_eq!(customer_of("ch", &customer), "ch/c-1");
    }
}
