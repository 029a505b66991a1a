//! Sales channels and ticket prices: a base price by format and time of day, sold at that price
//! by the box office and at a discount (or not at all) by the ticketing apps.

use rand::Rng;
use sha2::{Digest, Sha256};

use super::random::DemoRng;
use crate::domain::api_key::ApiKey;
use std::collections::HashSet;

use crate::domain::pricing::TicketType;
use crate::domain::seat::SeatKind;
use crate::store::documents::{ChannelDoc, ChannelPriceDoc, TicketRuleDoc, SCHEMA_VERSION};

pub const BOXOFFICE: &str = "boxoffice";
pub const MAOYAN: &str = "maoyan";
pub const TAOPIAOPIAO: &str = "taopiaopiao";
pub const WECHAT: &str = "wechat";

/// Every channel: (code, name).
pub const CHANNELS: [(&str, &str); 4] = [
    (BOXOFFICE, "影院售票处"),
    (MAOYAN, "猫眼电影"),
    (TAOPIAOPIAO, "淘票票"),
    (WECHAT, "微信电影票"),
];

/// The lowest and highest base price, in fen.
pub const MIN_BASE_PRICE: i64 = 3_500;
pub const MAX_BASE_PRICE: i64 = 12_000;

/// An app's terms: the share of showtimes it sells and its discount range in fen.
struct AppTerms {
    code: &'static str,
    sells: f64,
    discount: (i64, i64),
}

/// The apps compete on price, so each discounts differently; Maoyan sells everything.
const APPS: [AppTerms; 3] = [
    AppTerms {
        code: MAOYAN,
        sells: 1.0,
        discount: (500, 1_500),
    },
    AppTerms {
        code: TAOPIAOPIAO,
        sells: 0.9,
        discount: (300, 1_200),
    },
    AppTerms {
        code: WECHAT,
        sells: 0.85,
        discount: (0, 800),
    },
];

/// The demo channels with the hashes of their demo keys.
pub fn channel_docs(seed: u64) -> Vec<ChannelDoc> {
    CHANNELS
        .iter()
        .map(|&(code, name)| ChannelDoc {
            code: code.to_owned(),
            schema_version: SCHEMA_VERSION,
            name: name.to_owned(),
            api_key_hash: demo_key(seed, code).hash(),
            rate_limit: None,
        })
        .collect()
}

/// Every demo channel's key. Derived from the seed, so the playground's examples and a reloaded
/// demo keep working: demo keys are public by design and must never guard real sales.
pub fn channel_keys(seed: u64) -> Vec<(String, ApiKey)> {
    CHANNELS
        .iter()
        .map(|&(code, _)| (code.to_owned(), demo_key(seed, code)))
        .collect()
}

/// The demo platform operator's code, name and key (derived from the seed, public like the
/// channel keys: demo only).
pub fn platform_operator(seed: u64) -> (&'static str, &'static str, ApiKey) {
    let secret = Sha256::digest(format!("boxoffice demo operator key {seed}"));
    (
        "platform",
        "平台运营",
        ApiKey::operator_from_secret(secret.into()),
    )
}

fn demo_key(seed: u64, code: &str) -> ApiKey {
    let secret = Sha256::digest(format!("boxoffice demo channel key {seed} {code}"));
    ApiKey::from_secret(secret.into())
}

/// The box-office price of a showtime in fen: premium formats cost more, matinees (before
/// noon) less, evenings (from 18:00) more; whole yuan.
pub fn base_price(rng: &mut DemoRng, format: &str, starts_minute_of_day: i64) -> i64 {
    let (low, high) = match format {
        "IMAX" => (8_000, 10_500),
        "4DX" => (7_500, 10_000),
        "DOLBY" => (7_000, 9_500),
        "3D" => (4_500, 7_000),
        _ => (3_500, 6_000),
    };
    let surcharge = match starts_minute_of_day {
        m if m < 12 * 60 => -500,
        m if m >= 18 * 60 => 1_000,
        _ => 0,
    };
    let price = rng.random_range(low..=high) / 100 * 100 + surcharge;
    price.clamp(MIN_BASE_PRICE, MAX_BASE_PRICE)
}

/// The price on each channel selling the showtime, box office first; discounts are in
/// ten-fen steps, so app prices look like ¥39.90.
pub fn channel_prices(rng: &mut DemoRng, base: i64) -> Vec<ChannelPriceDoc> {
    let mut prices = vec![ChannelPriceDoc::flat(BOXOFFICE, base)];
    for app in &APPS {
        if !rng.random_bool(app.sells) {
            continue;
        }
        let discount = rng.random_range(app.discount.0 / 10..=app.discount.1 / 10) * 10;
        prices.push(ChannelPriceDoc::flat(app.code, base - discount));
    }
    prices
}

/// The first start (minutes after midnight, China time) with no children's tickets.
pub const CHILD_CURFEW_MINUTE: i64 = 21 * 60;

/// The rule the demo gives showtimes from [`CHILD_CURFEW_MINUTE`] on.
pub const CHILD_CURFEW_RULE: &str = "no children's tickets for showtimes from 21:00";

/// The whole matrix from each channel's ADULT price (`flat`, as `channel_prices` makes them):
/// CHILD at 70% and STUDENT at 80% (in ten-fen steps; no CHILD price from
/// [`CHILD_CURFEW_MINUTE`], which gets a rule instead), and for a hall that has them, a VIP seat
/// ¥20 and a couple seat ¥15 dearer as ADULT. Draws nothing from the random stream, so the rest
/// of the demo is what it was.
pub fn price_matrix(
    flat: Vec<ChannelPriceDoc>,
    kinds: &HashSet<SeatKind>,
    starts_minute_of_day: i64,
) -> (Vec<ChannelPriceDoc>, Vec<TicketRuleDoc>) {
    let curfew = starts_minute_of_day >= CHILD_CURFEW_MINUTE;
    let share = |amount: i64, percent: i64| (amount * percent / 100 / 10 * 10).max(10);
    let mut matrix = Vec::with_capacity(flat.len() * 5);
    for adult in flat {
        matrix.push(adult.clone());
        let priced = |seat_kind, ticket_type: &str, amount| ChannelPriceDoc {
            channel: adult.channel.clone(),
            seat_kind,
            ticket_type: TicketType::parse("demo", ticket_type).expect("a built-in type"),
            amount,
        };
        if !curfew {
            matrix.push(priced(None, "CHILD", share(adult.amount, 70)));
        }
        matrix.push(priced(None, "STUDENT", share(adult.amount, 80)));
        if kinds.contains(&SeatKind::Vip) {
            matrix.push(priced(Some(SeatKind::Vip), "ADULT", adult.amount + 2_000));
        }
        if kinds.contains(&SeatKind::Couple) {
            matrix.push(priced(
                Some(SeatKind::Couple),
                "ADULT",
                adult.amount + 1_500,
            ));
        }
        matrix.push(adult);
    }
    // The ADULT price of every kind first for each channel: sorted by channel as they came.
    let rules = match curfew {
        true => vec![TicketRuleDoc {
            ticket_type: TicketType::parse("demo", "CHILD").expect("a built-in type"),
            rule: CHILD_CURFEW_RULE.to_owned(),
        }],
        false => Vec::new(),
    };
    (matrix, rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::random::{rng, Stream};

    #[test]
    fn evenings_and_premium_formats_cost_more() {
        let mut rng = rng(1, Stream::Cinema(0));
        for _ in 0..200 {
            let matinee_2d = base_price(&mut rng, "2D", 10 * 60);
            let evening_imax = base_price(&mut rng, "IMAX", 20 * 60);
            assert!(evening_imax > matinee_2d);
            assert!((MIN_BASE_PRICE..=MAX_BASE_PRICE).contains(&matinee_2d));
            assert!((MIN_BASE_PRICE..=MAX_BASE_PRICE).contains(&evening_imax));
        }
    }

    #[test]
    fn apps_discount_and_sometimes_do_not_sell() {
        let mut rng = rng(2, Stream::Cinema(0));
        let all: Vec<_> = (0..1_000)
            .map(|_| channel_prices(&mut rng, MIN_BASE_PRICE))
            .collect();
        let selling = |code: &str| {
            all.iter()
                .filter(|p| p.iter().any(|p| p.channel == code))
                .count()
        };
        assert_eq!(selling(MAOYAN), 1_000);
        assert!(
            (820..=880).contains(&selling(WECHAT)),
            "{}",
            selling(WECHAT)
        );
        assert!((870..=930).contains(&selling(TAOPIAOPIAO)));
        for prices in &all {
            assert_eq!(prices[0].channel, BOXOFFICE);
            assert!(prices.iter().all(|p| p.ticket_type.as_str() == "ADULT"));
            assert!(prices
                .iter()
                .all(|p| p.amount > 0 && p.amount <= prices[0].amount));
        }
    }

    #[test]
    fn the_matrix_prices_children_students_and_premium_seats_from_the_adult_price() {
        let flat = vec![ChannelPriceDoc::flat(BOXOFFICE, 4_550)];
        let kinds: HashSet<_> = [SeatKind::Standard, SeatKind::Vip].into();
        let (matrix, rules) = price_matrix(flat.clone(), &kinds, 14 * 60);
        let amount = |kind: Option<SeatKind>, ty: &str| {
            matrix
                .iter()
                .find(|p| p.seat_kind == kind && p.ticket_type.as_str() == ty)
                .map(|p| p.amount)
        };
        assert_eq!(amount(None, "ADULT"), Some(4_550));
        assert_eq!(amount(None, "CHILD"), Some(3_180));
        assert_eq!(amount(None, "STUDENT"), Some(3_640));
        assert_eq!(amount(Some(SeatKind::Vip), "ADULT"), Some(6_550));
        assert_eq!(amount(Some(SeatKind::Couple), "ADULT"), None);
        assert!(rules.is_empty());
        let (late, rules) = price_matrix(flat, &kinds, 21 * 60);
        assert!(late.iter().all(|p| p.ticket_type.as_str() != "CHILD"));
        assert_eq!(rules[0].ticket_type.as_str(), "CHILD");
    }
}
