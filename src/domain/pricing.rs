//! A showtime's price matrix: channel × seat kind × ticket type (attribute pattern, seed 000),
//! the ticket types themselves, and the rules that refuse a ticket type for a showtime.
//!
//! An entry without a seat kind prices every kind the hall has that no entry of the same
//! channel and ticket type names; an entry without a ticket type is an ADULT price. So the
//! prices of before the matrix (`{channel, amount}`) still mean what they meant: every seat of
//! the showtime, ADULT, at that amount.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::list_caps::MAX_SEATS_PER_HOLD;
use super::seat::SeatKind;
use crate::error::ApiError;
use compact_str::CompactString;

/// A ticket type's code: `ADULT`, `CHILD`, `STUDENT`, `SENIOR`, or a type an operator defined
/// (`MEMBER`): an upper-case letter, then up to 31 upper-case letters, digits or underscores.
///
/// Held inline (a code is at most 32 bytes, and mostly under 24, which `CompactString` keeps
/// without allocating): a showtime's price matrix holds one per entry, and reading a page of
/// showtimes allocated two strings per entry before.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TicketType(CompactString);

/// The ticket types every showtime may price without defining them.
pub const BUILT_IN_TICKET_TYPES: [&str; 4] = ["ADULT", "CHILD", "STUDENT", "SENIOR"];

/// The longest ticket type code.
const MAX_CODE_CHARS: usize = 32;

impl TicketType {
    /// Parses a code, BAD_USER_INPUT naming `argument` when malformed.
    pub fn parse(argument: &str, code: &str) -> Result<Self, ApiError> {
        let mut chars = code.chars();
        let well_formed = chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && code.len() <= MAX_CODE_CHARS;
        if !well_formed {
            return Err(ApiError::bad_input(format!(
                "{argument}: {code:?} is not a ticket type code (an upper-case letter, then up \
                 to {} upper-case letters, digits or underscores)",
                MAX_CODE_CHARS - 1
            )));
        }
        Ok(TicketType(CompactString::new(code)))
    }

    /// ADULT: the type of a price or a seat that names none.
    pub fn adult() -> Self {
        TicketType(CompactString::const_new("ADULT"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether every showtime knows it without an operator defining it.
    pub fn is_built_in(&self) -> bool {
        BUILT_IN_TICKET_TYPES.contains(&self.0.as_str())
    }
}

impl Default for TicketType {
    fn default() -> Self {
        TicketType::adult()
    }
}

impl fmt::Display for TicketType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One entry of a price matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceEntry {
    pub channel: String,
    /// None: every kind no entry of the same channel and type names.
    pub seat_kind: Option<SeatKind>,
    pub ticket_type: TicketType,
    /// Minor units of the showtime's currency.
    pub amount: i64,
}

/// A ticket type a showtime does not sell, and the rule that says so (shown to the buyer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRule {
    pub ticket_type: TicketType,
    /// e.g. "no children's tickets after 21:00".
    pub rule: String,
}

/// One entry of a price matrix, borrowed from wherever it is kept (a page of showtimes looks
/// prices up in its documents without copying their matrices).
#[derive(Debug, Clone, Copy)]
pub struct PriceRef<'a> {
    pub channel: &'a str,
    pub seat_kind: Option<SeatKind>,
    pub ticket_type: &'a TicketType,
    pub amount: i64,
}

impl PriceEntry {
    pub fn borrowed(&self) -> PriceRef<'_> {
        PriceRef {
            channel: &self.channel,
            seat_kind: self.seat_kind,
            ticket_type: &self.ticket_type,
            amount: self.amount,
        }
    }
}

/// The amount of one seat of `kind` as `ticket_type` on `channel`: the entry naming the kind,
/// else the entry for every kind. None when the matrix has neither.
pub fn price_of(
    matrix: &[PriceEntry],
    channel: &str,
    kind: SeatKind,
    ticket_type: &TicketType,
) -> Option<i64> {
    price_among(
        matrix.iter().map(PriceEntry::borrowed),
        channel,
        kind,
        ticket_type,
    )
}

/// [`price_of`] among borrowed entries.
pub fn price_among<'a>(
    matrix: impl IntoIterator<Item = PriceRef<'a>>,
    channel: &str,
    kind: SeatKind,
    ticket_type: &TicketType,
) -> Option<i64> {
    let mut for_every_kind = None;
    for entry in matrix {
        if entry.channel != channel || entry.ticket_type != ticket_type {
            continue;
        }
        match entry.seat_kind {
            Some(named) if named == kind => return Some(entry.amount),
            Some(_) => {}
            None => for_every_kind = Some(entry.amount),
        }
    }
    for_every_kind
}

/// Checks a matrix against what only the database knows: every named kind one the hall has,
/// and every type known (`is_known`). (Amounts, currency and repeats: `schedule::validate_prices`.)
/// BAD_USER_INPUT names the first entry at fault.
pub fn validate_matrix(
    matrix: &[PriceEntry],
    hall_kinds: &HashSet<SeatKind>,
    is_known: impl Fn(&TicketType) -> bool,
) -> Result<(), ApiError> {
    for entry in matrix {
        if let Some(kind) = entry.seat_kind {
            if !hall_kinds.contains(&kind) {
                return Err(ApiError::bad_input(format!(
                    "the price {}: the hall has no {kind:?} seats",
                    describe(entry)
                )));
            }
        }
        if !is_known(&entry.ticket_type) {
            return Err(ApiError::bad_input(format!(
                "the price {}: unknown ticket type {}",
                describe(entry),
                entry.ticket_type
            )));
        }
    }
    Ok(())
}

/// Checks the rules a showtime is given: known types, each refused once, a rule text a person
/// can read.
pub fn validate_rules(
    rules: &[TicketRule],
    is_known: impl Fn(&TicketType) -> bool,
) -> Result<(), ApiError> {
    let mut seen = HashSet::new();
    for rule in rules {
        if !is_known(&rule.ticket_type) {
            return Err(ApiError::bad_input(format!(
                "a rule refuses unknown ticket type {}",
                rule.ticket_type
            )));
        }
        if !seen.insert(&rule.ticket_type) {
            return Err(ApiError::bad_input(format!(
                "ticket type {} is refused by two rules",
                rule.ticket_type
            )));
        }
        super::text::required("rule", &rule.rule)?;
    }
    Ok(())
}

fn describe(entry: &PriceEntry) -> String {
    let kind = entry
        .seat_kind
        .map_or_else(|| "every kind".to_owned(), |kind| format!("{kind:?}"));
    format!(
        "for channel {}, {kind}, {}",
        entry.channel, entry.ticket_type
    )
}

/// The price of each seat of a hold: for seat i of kind `kinds[i]`, ticket type `types[i]`.
/// BAD_USER_INPUT naming the rule when a type is refused for the showtime, or naming the seat
/// when the matrix has no price for it (the caller tells an unknown type from an unsold one).
pub fn seat_prices(
    matrix: &[PriceEntry],
    rules: &[TicketRule],
    channel: &str,
    seats: &[(String, SeatKind)],
    types: &[TicketType],
) -> Result<Vec<i64>, Unpriced> {
    seat_prices_unlocking(matrix, rules, channel, seats, types, None)
}

/// [`seat_prices`], with the showtime's rules waived for ticket type `unlocked` (a voucher
/// unlocks it): it costs the matrix's price for it, and still needs one.
pub fn seat_prices_unlocking(
    matrix: &[PriceEntry],
    rules: &[TicketRule],
    channel: &str,
    seats: &[(String, SeatKind)],
    types: &[TicketType],
    unlocked: Option<&TicketType>,
) -> Result<Vec<i64>, Unpriced> {
    seats
        .iter()
        .zip(types)
        .map(|((label, kind), ticket_type)| {
            let refused = rules
                .iter()
                .filter(|_| unlocked != Some(ticket_type))
                .find(|rule| &rule.ticket_type == ticket_type);
            if let Some(rule) = refused {
                return Err(Unpriced::Refused(rule.clone()));
            }
            price_of(matrix, channel, *kind, ticket_type).ok_or_else(|| Unpriced::NotSold {
                seat: label.clone(),
                kind: *kind,
                ticket_type: ticket_type.clone(),
            })
        })
        .collect()
}

/// Why a seat has no price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpriced {
    /// A rule of the showtime refuses the type.
    Refused(TicketRule),
    /// The matrix has no price for the seat's kind and type on the channel.
    NotSold {
        seat: String,
        kind: SeatKind,
        ticket_type: TicketType,
    },
}

impl Unpriced {
    /// BAD_USER_INPUT saying why; `known` tells whether the type exists at all.
    pub fn into_error(self, known: bool) -> ApiError {
        match self {
            Unpriced::Refused(rule) => ApiError::bad_input(format!(
                "{} tickets are not sold for this showtime: {}",
                rule.ticket_type, rule.rule
            )),
            Unpriced::NotSold { ticket_type, .. } if !known => {
                ApiError::bad_input(format!("unknown ticket type {ticket_type}"))
            }
            Unpriced::NotSold {
                seat,
                kind,
                ticket_type,
            } => ApiError::bad_input(format!(
                "seat {seat} ({kind:?}) has no {ticket_type} price on this channel"
            )),
        }
    }

    pub fn ticket_type(&self) -> &TicketType {
        match self {
            Unpriced::Refused(rule) => &rule.ticket_type,
            Unpriced::NotSold { ticket_type, .. } => ticket_type,
        }
    }
}

/// [`ticket_types_for`] from the arguments as sent: `ticketType` (one code for every seat) and
/// `ticketTypes` (one code per seat), each code checked.
pub fn ticket_types_from_codes(
    count: usize,
    for_all: Option<&str>,
    per_seat: Option<&[String]>,
) -> Result<Vec<TicketType>, ApiError> {
    // The list's length first: no code of a list of the wrong length is parsed.
    if let Some(codes) = per_seat {
        check_length(codes.len(), count)?;
    }
    let for_all = for_all
        .map(|code| TicketType::parse("ticketType", code))
        .transpose()?;
    let per_seat = per_seat
        .map(|codes| {
            codes
                .iter()
                .map(|code| TicketType::parse("ticketTypes", code))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    ticket_types_for(count, for_all, per_seat)
}

/// The ticket type of each of `count` seats: `per_seat` (exactly one per seat) or `for_all`
/// (ADULT when neither is given). BAD_USER_INPUT when both are given or the list is the wrong
/// length, or `count` is over [`MAX_SEATS_PER_HOLD`] (the callers check their own, lower, cap
/// first; this one keeps the vector below from ever being sized by an unchecked count).
pub fn ticket_types_for(
    count: usize,
    for_all: Option<TicketType>,
    per_seat: Option<Vec<TicketType>>,
) -> Result<Vec<TicketType>, ApiError> {
    if count > MAX_SEATS_PER_HOLD {
        return Err(ApiError::bad_input(format!(
            "a hold takes at most {MAX_SEATS_PER_HOLD} seats, not {count}"
        )));
    }
    match (for_all, per_seat) {
        (Some(_), Some(_)) => Err(ApiError::bad_input(
            "give `ticketType` (one for every seat) or `ticketTypes` (one per seat), not both",
        )),
        (None, Some(types)) => {
            check_length(types.len(), count)?;
            Ok(types)
        }
        (for_all, None) => Ok(vec![for_all.unwrap_or_default(); count]),
    }
}

fn check_length(types: usize, count: usize) -> Result<(), ApiError> {
    if types != count {
        return Err(ApiError::bad_input(format!(
            "`ticketTypes` has {types} types for {count} seats: give one per seat"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use SeatKind::*;

    fn t(code: &str) -> TicketType {
        TicketType::parse("t", code).unwrap()
    }

    fn entry(channel: &str, kind: Option<SeatKind>, ty: &str, amount: i64) -> PriceEntry {
        PriceEntry {
            channel: channel.into(),
            seat_kind: kind,
            ticket_type: t(ty),
            amount,
        }
    }

    #[test]
    fn ticket_type_codes_are_upper_case_words() {
        for good in ["ADULT", "MEMBER_2", "A"] {
            assert_eq!(t(good).as_str(), good);
        }
        for bad in ["", "adult", "2X", "A-B", "A B", &"A".repeat(33), "ÄDULT"] {
            assert!(TicketType::parse("t", bad).is_err(), "{bad:?}");
        }
        assert!(t("SENIOR").is_built_in());
        assert!(!t("MEMBER").is_built_in());
    }

    #[test]
    fn a_named_kind_wins_over_every_kind_whatever_the_order() {
        let matrix = [
            entry("maoyan", Some(Vip), "ADULT", 8000),
            entry("maoyan", None, "ADULT", 4500),
            entry("maoyan", None, "CHILD", 2500),
            entry("taobao", None, "ADULT", 4000),
        ];
        assert_eq!(price_of(&matrix, "maoyan", Vip, &t("ADULT")), Some(8000));
        assert_eq!(
            price_of(&matrix, "maoyan", Standard, &t("ADULT")),
            Some(4500)
        );
        assert_eq!(price_of(&matrix, "maoyan", Vip, &t("CHILD")), Some(2500));
        assert_eq!(price_of(&matrix, "taobao", Vip, &t("ADULT")), Some(4000));
        assert_eq!(price_of(&matrix, "taobao", Vip, &t("CHILD")), None);
        assert_eq!(price_of(&matrix, "douyin", Vip, &t("ADULT")), None);
    }

    #[test]
    fn a_matrix_is_refused_for_kinds_the_hall_lacks_and_unknown_types() {
        let kinds: HashSet<_> = [Standard, Couple].into();
        let known = |ty: &TicketType| ty.is_built_in();
        let ok = [
            entry("maoyan", None, "ADULT", 4500),
            entry("maoyan", Some(Couple), "ADULT", 9000),
        ];
        validate_matrix(&ok, &kinds, known).unwrap();
        for (bad, says) in [
            (vec![entry("m", Some(Vip), "ADULT", 1)], "no Vip seats"),
            (
                vec![entry("m", None, "MEMBER", 1)],
                "unknown ticket type MEMBER",
            ),
        ] {
            let error = validate_matrix(&bad, &kinds, known).unwrap_err();
            assert!(error.to_string().contains(says), "{bad:?}: {error}");
        }
    }

    #[test]
    fn seats_are_priced_by_kind_and_type_and_refused_types_name_their_rule() {
        let matrix = [
            entry("maoyan", None, "ADULT", 4500),
            entry("maoyan", Some(Vip), "ADULT", 8000),
            entry("maoyan", None, "CHILD", 2500),
        ];
        let seats = [("A1".to_owned(), Standard), ("A2".to_owned(), Vip)];
        let prices = seat_prices(&matrix, &[], "maoyan", &seats, &[t("ADULT"), t("ADULT")]);
        assert_eq!(prices, Ok(vec![4500, 8000]));
        let prices = seat_prices(&matrix, &[], "maoyan", &seats, &[t("CHILD"), t("ADULT")]);
        assert_eq!(prices, Ok(vec![2500, 8000]));
        let rule = TicketRule {
            ticket_type: t("CHILD"),
            rule: "no children's tickets after 21:00".into(),
        };
        let refused = seat_prices(
            &matrix,
            std::slice::from_ref(&rule),
            "maoyan",
            &seats,
            &[t("CHILD"), t("ADULT")],
        );
        let error = refused.unwrap_err().into_error(true).to_string();
        assert!(error.contains("after 21:00"), "{error}");
        // A voucher that unlocks CHILD waives the rule for CHILD only.
        let types = [t("CHILD"), t("ADULT")];
        let rules = [rule];
        let unlocked =
            seat_prices_unlocking(&matrix, &rules, "maoyan", &seats, &types, Some(&t("CHILD")));
        assert_eq!(unlocked, Ok(vec![2500, 8000]));
        let other =
            seat_prices_unlocking(&matrix, &rules, "maoyan", &seats, &types, Some(&t("ADULT")));
        assert!(other.is_err());
        let unsold = seat_prices(&matrix, &[], "maoyan", &seats, &[t("SENIOR"), t("ADULT")]);
        let unsold = unsold.unwrap_err();
        assert!(unsold.clone().into_error(true).to_string().contains("A1"));
        assert!(unsold
            .into_error(false)
            .to_string()
            .contains("unknown ticket type SENIOR"));
    }

    #[test]
    fn ticket_types_are_one_for_all_or_one_per_seat() {
        assert_eq!(
            ticket_types_for(2, None, None).unwrap(),
            [t("ADULT"), t("ADULT")]
        );
        assert_eq!(
            ticket_types_for(2, Some(t("CHILD")), None).unwrap(),
            [t("CHILD"), t("CHILD")]
        );
        assert_eq!(
            ticket_types_for(2, None, Some(vec![t("CHILD"), t("ADULT")])).unwrap(),
            [t("CHILD"), t("ADULT")]
        );
        assert!(ticket_types_for(2, None, Some(vec![t("CHILD")])).is_err());
        assert!(ticket_types_for(1, Some(t("CHILD")), Some(vec![t("CHILD")])).is_err());
    }

    #[test]
    fn rules_need_known_types_once_and_readable_text() {
        let known = |ty: &TicketType| ty.is_built_in();
        let rule = |ty: &str, text: &str| TicketRule {
            ticket_type: t(ty),
            rule: text.into(),
        };
        validate_rules(&[rule("CHILD", "after 21:00")], known).unwrap();
        assert!(validate_rules(&[rule("MEMBER", "x")], known).is_err());
        assert!(validate_rules(&[rule("CHILD", "x"), rule("CHILD", "y")], known).is_err());
        assert!(validate_rules(&[rule("CHILD", " ")], known).is_err());
    }
}
