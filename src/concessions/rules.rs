//! Concessions' rules: what a product may be, when it is on sale, and what a hold may ask
//! for beside its seats. Pure; every amount is an integer in fen.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use crate::domain::global_id::GlobalId;
use crate::domain::ids::{CinemaId, ProductId};
use crate::domain::text;
use crate::error::ApiError;

/// The longest name a product may have.
pub const MAX_NAME_CHARS: usize = 60;
/// The highest price of a product: ¥10,000.
pub const MAX_PRICE: i64 = 1_000_000;
/// The most stock a product may have (or be given at once).
pub const MAX_STOCK: i64 = 1_000_000;
/// The most product lines one hold may carry (a hold's own bound: its type shows them).
pub use crate::holds::rules::MAX_ITEM_LINES;
/// The most of one product one hold may take.
pub const MAX_QUANTITY: i64 = 20;
/// The most products one listing shows.
pub const MAX_LISTED: usize = 100;

/// A product as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Product {
    pub id: ProductId,
    pub cinema: CinemaId,
    pub name: String,
    /// Its price, in fen.
    pub price: i64,
    /// Whether it has a stock (a limited number of units); without one it never runs out.
    pub stocked: bool,
    pub sold_from: Option<DateTime<Utc>>,
    pub sold_until: Option<DateTime<Utc>>,
    /// Taken off sale by its operator for good.
    pub retired: bool,
}

impl Product {
    /// Whether it may be sold at `now`: not retired, and within its window.
    pub fn on_sale(&self, now: DateTime<Utc>) -> bool {
        !self.retired
            && self.sold_from.is_none_or(|from| from <= now)
            && self.sold_until.is_none_or(|until| now < until)
    }

    fn global_id(&self) -> String {
        GlobalId::Product(self.id).encode()
    }
}

/// A product's terms as an operator gives them (making or changing one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductTerms {
    pub name: String,
    pub price: i64,
    pub sold_from: Option<DateTime<Utc>>,
    pub sold_until: Option<DateTime<Utc>>,
}

impl ProductTerms {
    /// BAD_USER_INPUT for an empty or long name, a price out of 0 to ¥10,000, or a window
    /// that ends before it starts.
    pub fn checked(
        name: &str,
        price: i64,
        sold_from: Option<DateTime<Utc>>,
        sold_until: Option<DateTime<Utc>>,
    ) -> Result<Self, ApiError> {
        let name = text::required_within("name", name, MAX_NAME_CHARS)?;
        price_checked(price)?;
        window_checked(sold_from, sold_until)?;
        Ok(ProductTerms {
            name,
            price,
            sold_from,
            sold_until,
        })
    }
}

/// BAD_USER_INPUT for a sale window that ends before it starts.
pub fn window_checked(
    sold_from: Option<DateTime<Utc>>,
    sold_until: Option<DateTime<Utc>>,
) -> Result<(), ApiError> {
    match (sold_from, sold_until) {
        (Some(from), Some(until)) if until <= from => Err(ApiError::bad_input(
            "soldUntil must be after soldFrom: the product would never be on sale",
        )),
        _ => Ok(()),
    }
}

/// BAD_USER_INPUT for a price out of 0 to ¥10,000.
pub fn price_checked(price: i64) -> Result<i64, ApiError> {
    if (0..=MAX_PRICE).contains(&price) {
        Ok(price)
    } else {
        Err(ApiError::bad_input(format!(
            "price is 0 to {MAX_PRICE} fen, not {price}"
        )))
    }
}

/// BAD_USER_INPUT for a stock out of 0 to 1,000,000.
pub fn stock_checked(argument: &str, stock: i64) -> Result<i64, ApiError> {
    if (0..=MAX_STOCK).contains(&stock) {
        Ok(stock)
    } else {
        Err(ApiError::bad_input(format!(
            "{argument} is 0 to {MAX_STOCK}, not {stock}"
        )))
    }
}

/// BAD_USER_INPUT for a change of stock that is zero or beyond ±1,000,000.
pub fn stock_change_checked(change: i64) -> Result<i64, ApiError> {
    if change != 0 && change.abs() <= MAX_STOCK {
        Ok(change)
    } else {
        Err(ApiError::bad_input(format!(
            "addStock is -{MAX_STOCK} to {MAX_STOCK} and not 0, not {change}"
        )))
    }
}

/// One line a hold asks for: a quantity of a product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemAsk {
    pub product: ProductId,
    pub quantity: i64,
}

/// BAD_USER_INPUT for more than 10 lines, a quantity out of 1 to 20, or a product named twice.
/// Checked before any product is read.
pub fn check_asks(asks: &[ItemAsk]) -> Result<(), ApiError> {
    if asks.len() > MAX_ITEM_LINES {
        return Err(ApiError::bad_input(format!(
            "items has at most {MAX_ITEM_LINES} lines, not {}",
            asks.len()
        )));
    }
    let mut seen = HashSet::new();
    for ask in asks {
        if !(1..=MAX_QUANTITY).contains(&ask.quantity) {
            return Err(ApiError::bad_input(format!(
                "an item's quantity is 1 to {MAX_QUANTITY}, not {}",
                ask.quantity
            )));
        }
        if !seen.insert(ask.product) {
            return Err(ApiError::bad_input(format!(
                "product {} is named twice in items: give one line with its quantity",
                GlobalId::Product(ask.product).encode()
            )));
        }
    }
    Ok(())
}

/// One line of a hold or an order: a product at its price when it was held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemLine {
    pub product: ProductId,
    pub name: String,
    pub quantity: i64,
    pub unit_price: i64,
    /// Whether the product has a stock (so the line reserved some of it).
    pub stocked: bool,
}

impl ItemLine {
    /// What the line costs: its quantity at its unit price.
    pub fn amount(&self) -> i64 {
        self.quantity * self.unit_price
    }
}

/// The lines a hold at cinema `cinema` takes for `asks`, priced from `products` (as read),
/// at `now`. NOT_FOUND for a product that does not exist; BAD_USER_INPUT for another
/// cinema's product or one not on sale now. Whether the stock suffices is the store's to
/// say (`SOLD_OUT`).
pub fn price_items(
    asks: &[ItemAsk],
    products: &[Product],
    cinema: CinemaId,
    now: DateTime<Utc>,
) -> Result<Vec<ItemLine>, ApiError> {
    asks.iter()
        .map(|ask| {
            let product = products
                .iter()
                .find(|product| product.id == ask.product)
                .ok_or_else(|| {
                    ApiError::not_found(format!(
                        "product {} does not exist",
                        GlobalId::Product(ask.product).encode()
                    ))
                })?;
            if product.cinema != cinema {
                return Err(ApiError::bad_input(format!(
                    "product {} ({}) is sold at another cinema, not this showtime's",
                    product.global_id(),
                    product.name
                )));
            }
            if !product.on_sale(now) {
                return Err(ApiError::bad_input(format!(
                    "product {} ({}) is not on sale now",
                    product.global_id(),
                    product.name
                )));
            }
            Ok(ItemLine {
                product: product.id,
                name: product.name.clone(),
                quantity: ask.quantity,
                unit_price: product.price,
                stocked: product.stocked,
            })
        })
        .collect()
}

/// SOLD_OUT for `product`, which has fewer than `quantity` units left.
pub fn sold_out(product: ProductId, name: &str, quantity: i64, left: Option<i64>) -> ApiError {
    let left = match left {
        Some(left) => format!("{left} left"),
        None => "none left".to_owned(),
    };
    ApiError::SoldOut {
        message: format!("product {name} has too little stock for {quantity} ({left})"),
        product: GlobalId::Product(product).encode(),
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn at(hour: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 27, hour, 0, 0).unwrap()
    }

    fn product(id: u8, cinema: u8) -> Product {
        Product {
            id: ProductId([id; 12]),
            cinema: CinemaId([cinema; 12]),
            name: format!("product {id}"),
            price: 2_500,
            stocked: id.is_multiple_of(2),
            sold_from: Some(at(10)),
            sold_until: Some(at(22)),
            retired: false,
        }
    }

    fn ask(id: u8, quantity: i64) -> ItemAsk {
        ItemAsk {
            product: ProductId([id; 12]),
            quantity,
        }
    }

    #[test]
    fn a_product_is_on_sale_within_its_window_until_retired() {
        let mut p = product(1, 1);
        assert!(!p.on_sale(at(9)));
        assert!(p.on_sale(at(10)), "from is inclusive");
        assert!(p.on_sale(at(21)));
        assert!(!p.on_sale(at(22)), "until is exclusive");
        p.sold_from = None;
        p.sold_until = None;
        assert!(p.on_sale(at(3)), "no window: always");
        p.retired = true;
        assert!(!p.on_sale(at(12)));
    }

    #[test]
    fn terms_are_checked() {
        assert!(ProductTerms::checked("爆米花套餐", 3_500, None, None).is_ok());
        assert!(ProductTerms::checked("", 3_500, None, None).is_err());
        assert!(ProductTerms::checked(&"x".repeat(61), 3_500, None, None).is_err());
        assert!(ProductTerms::checked("可乐", -1, None, None).is_err());
        assert!(ProductTerms::checked("可乐", MAX_PRICE + 1, None, None).is_err());
        assert!(ProductTerms::checked("可乐", 0, Some(at(12)), Some(at(12))).is_err());
        assert!(stock_checked("stock", MAX_STOCK + 1).is_err());
        assert!(stock_checked("stock", -1).is_err());
        assert!(stock_change_checked(0).is_err());
        assert_eq!(stock_change_checked(-5).unwrap(), -5);
    }

    #[test]
    fn asks_are_capped_before_anything_is_read() {
        assert!(check_asks(&[ask(1, 1), ask(2, 20)]).is_ok());
        assert!(check_asks(&[ask(1, 0)]).is_err());
        assert!(check_asks(&[ask(1, 21)]).is_err());
        assert!(check_asks(&[ask(1, 1), ask(1, 2)]).is_err(), "named twice");
        let many: Vec<ItemAsk> = (0..11).map(|i| ask(i, 1)).collect();
        assert!(check_asks(&many).is_err());
    }

    #[test]
    fn items_are_priced_from_the_products_of_the_showtimes_cinema_on_sale() {
        let products = [product(1, 7), product(2, 7), product(3, 8)];
        let cinema = CinemaId([7; 12]);
        let lines = price_items(&[ask(1, 2), ask(2, 1)], &products, cinema, at(12)).unwrap();
        assert_eq!(lines.iter().map(ItemLine::amount).sum::<i64>(), 7_500);
        assert!(!lines[0].stocked && lines[1].stocked);
        let other = price_items(&[ask(3, 1)], &products, cinema, at(12)).unwrap_err();
        assert!(other.to_string().contains("another cinema"), "{other}");
        let closed = price_items(&[ask(1, 1)], &products, cinema, at(23)).unwrap_err();
        assert!(closed.to_string().contains("not on sale"), "{closed}");
        let unknown = price_items(&[ask(9, 1)], &products, cinema, at(12)).unwrap_err();
        assert_eq!(unknown.code(), crate::error::ErrorCode::NotFound);
    }
}
