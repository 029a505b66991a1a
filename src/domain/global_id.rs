//! Global object ids (Relay): the kind of object and its id, as URL-safe base64 of "Kind:hex".

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::ids::{
    CinemaId, HallId, HoldId, MovieId, OrderId, ProductId, RegionId, ReviewId, ShowtimeId,
    VoucherBatchId, WaitingEntryId, WebhookId,
};
use super::pricing::TicketType;
use crate::error::ApiError;

/// The longest global id accepted (those issued are under 100 characters).
pub const MAX_ID_BYTES: usize = 128;

/// Any object that `node(id:)` can fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GlobalId {
    Cinema(CinemaId),
    Hall(HallId),
    Movie(MovieId),
    Review(ReviewId),
    Showtime(ShowtimeId),
    /// A hold lives in its showtime's inventory, so its id names both.
    Hold(ShowtimeId, HoldId),
    /// Orders, like holds, are private to their channel. An order's id names its showtime
    /// too, so that a gateway sends its cancellation to the showtime's owner without a read
    /// (`http::forward`); an id without it (`Order:<order>`, as issued before) is the same
    /// order's.
    Order(Option<ShowtimeId>, OrderId),
    /// A province, city or district.
    Region(RegionId),
    /// A channel's webhook endpoint (private to its channel, not a node).
    WebhookEndpoint(WebhookId),
    /// An operator's batch of voucher codes (private to its operator, not a node).
    VoucherBatch(VoucherBatchId),
    /// A product a cinema sells beside seats (not a node: listed by its cinema).
    Product(ProductId),
    /// A party's place on a waiting list (private to its channel, not a node).
    WaitingListEntry(WaitingEntryId),
    /// A ticket type an operator defined, by code (it is the subject of an audit entry, not a
    /// node).
    TicketType(TicketType),
}

impl GlobalId {
    pub fn encode(&self) -> String {
        let text = match self {
            GlobalId::Cinema(id) => format!("Cinema:{id}"),
            GlobalId::Hall(id) => format!("Hall:{id}"),
            GlobalId::Movie(id) => format!("Movie:{id}"),
            GlobalId::Review(id) => format!("Review:{id}"),
            GlobalId::Showtime(id) => format!("Showtime:{id}"),
            GlobalId::Hold(showtime, hold) => format!("Hold:{showtime}.{hold}"),
            GlobalId::Order(Some(showtime), order) => format!("Order:{showtime}.{order}"),
            GlobalId::Order(None, order) => format!("Order:{order}"),
            GlobalId::Region(id) => format!("Region:{id}"),
            GlobalId::TicketType(code) => format!("TicketType:{code}"),
            GlobalId::WebhookEndpoint(id) => format!("WebhookEndpoint:{id}"),
            GlobalId::VoucherBatch(id) => format!("VoucherBatch:{id}"),
            GlobalId::Product(id) => format!("Product:{id}"),
            GlobalId::WaitingListEntry(id) => format!("WaitingListEntry:{id}"),
        };
        URL_SAFE_NO_PAD.encode(text)
    }

    pub fn decode(id: &str) -> Result<Self, ApiError> {
        // Every id this API issues is far shorter; a longer one is neither decoded nor echoed.
        if id.len() > MAX_ID_BYTES {
            return Err(ApiError::bad_input(format!(
                "an id is at most {MAX_ID_BYTES} characters; this one has {}",
                id.len()
            )));
        }
        let bad = || ApiError::bad_input(format!("`{id}` is not an id this API issued"));
        let bytes = URL_SAFE_NO_PAD.decode(id).map_err(|_| bad())?;
        let text = String::from_utf8(bytes).map_err(|_| bad())?;
        let (kind, hex) = text.split_once(':').ok_or_else(bad)?;
        let parsed = match kind {
            "Cinema" => CinemaId::parse_hex(hex).map(GlobalId::Cinema),
            "Hall" => HallId::parse_hex(hex).map(GlobalId::Hall),
            "Movie" => MovieId::parse_hex(hex).map(GlobalId::Movie),
            "Review" => ReviewId::parse_hex(hex).map(GlobalId::Review),
            "Showtime" => ShowtimeId::parse_hex(hex).map(GlobalId::Showtime),
            "Region" => RegionId::parse_hex(hex).map(GlobalId::Region),
            "WebhookEndpoint" => WebhookId::parse_hex(hex).map(GlobalId::WebhookEndpoint),
            "VoucherBatch" => VoucherBatchId::parse_hex(hex).map(GlobalId::VoucherBatch),
            "Product" => ProductId::parse_hex(hex).map(GlobalId::Product),
            "WaitingListEntry" => WaitingEntryId::parse_hex(hex).map(GlobalId::WaitingListEntry),
            "TicketType" => {
                return TicketType::parse("id", hex)
                    .map(GlobalId::TicketType)
                    .map_err(|_| bad())
            }
            "Hold" => {
                let (showtime, hold) = hex.split_once('.').ok_or_else(bad)?;
                ShowtimeId::parse_hex(showtime)
                    .and_then(|showtime| Ok(GlobalId::Hold(showtime, HoldId::parse_hex(hold)?)))
            }
            "Order" => match hex.split_once('.') {
                Some((showtime, order)) => ShowtimeId::parse_hex(showtime).and_then(|showtime| {
                    Ok(GlobalId::Order(Some(showtime), OrderId::parse_hex(order)?))
                }),
                None => OrderId::parse_hex(hex).map(|order| GlobalId::Order(None, order)),
            },
            _ => return Err(bad()),
        };
        parsed.map_err(|_| bad())
    }

    /// The kind name, as in the GraphQL type.
    pub fn kind(&self) -> &'static str {
        match self {
            GlobalId::Cinema(_) => "Cinema",
            GlobalId::Hall(_) => "Hall",
            GlobalId::Movie(_) => "Movie",
            GlobalId::Review(_) => "Review",
            GlobalId::Showtime(_) => "Showtime",
            GlobalId::Hold(..) => "Hold",
            GlobalId::Order(..) => "Order",
            GlobalId::Region(_) => "Region",
            GlobalId::TicketType(_) => "TicketType",
            GlobalId::WebhookEndpoint(_) => "WebhookEndpoint",
            GlobalId::VoucherBatch(_) => "VoucherBatch",
            GlobalId::Product(_) => "Product",
            GlobalId::WaitingListEntry(_) => "WaitingListEntry",
        }
    }
}

macro_rules! typed_decode {
    ($fn_name:ident, $variant:ident, $id:ty) => {
        /// Decodes a global id that must name this kind of object.
        pub fn $fn_name(id: &str) -> Result<$id, ApiError> {
            match GlobalId::decode(id)? {
                GlobalId::$variant(inner) => Ok(inner),
                other => Err(ApiError::bad_input(format!(
                    "`{id}` is the id of a {}, not of a {}",
                    other.kind(),
                    stringify!($variant)
                ))),
            }
        }
    };
}

typed_decode!(cinema_id, Cinema, CinemaId);
typed_decode!(hall_id, Hall, HallId);
typed_decode!(movie_id, Movie, MovieId);
typed_decode!(showtime_id, Showtime, ShowtimeId);
typed_decode!(region_id, Region, RegionId);
typed_decode!(webhook_id, WebhookEndpoint, WebhookId);
typed_decode!(voucher_batch_id, VoucherBatch, VoucherBatchId);
typed_decode!(product_id, Product, ProductId);
typed_decode!(waiting_entry_id, WaitingListEntry, WaitingEntryId);

/// Decodes the global id of an order: its own id.
pub fn order_id(id: &str) -> Result<OrderId, ApiError> {
    order_and_showtime(id).map(|(order, _)| order)
}

/// Decodes the global id of an order: its own id, and its showtime's when the id names it.
/// The showtime only says where a write is sent (a forged one is a detour, not an access):
/// the order is found by its own id, and checked against its caller, wherever it runs.
pub fn order_and_showtime(id: &str) -> Result<(OrderId, Option<ShowtimeId>), ApiError> {
    match GlobalId::decode(id)? {
        GlobalId::Order(showtime, order) => Ok((order, showtime)),
        other => Err(ApiError::bad_input(format!(
            "`{id}` is the id of a {}, not of an Order",
            other.kind()
        ))),
    }
}

/// Decodes the global id of a hold: its showtime and its own id.
pub fn hold_id(id: &str) -> Result<(ShowtimeId, HoldId), ApiError> {
    match GlobalId::decode(id)? {
        GlobalId::Hold(showtime, hold) => Ok((showtime, hold)),
        other => Err(ApiError::bad_input(format!(
            "`{id}` is the id of a {}, not of a Hold",
            other.kind()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_kind() {
        let raw = [7u8; 12];
        for id in [
            GlobalId::Cinema(CinemaId(raw)),
            GlobalId::Hall(HallId(raw)),
            GlobalId::Movie(MovieId(raw)),
            GlobalId::Review(ReviewId(raw)),
            GlobalId::Showtime(ShowtimeId(raw)),
            GlobalId::Hold(ShowtimeId(raw), HoldId([9; 12])),
            GlobalId::Order(Some(ShowtimeId([3; 12])), OrderId(raw)),
            GlobalId::Order(None, OrderId(raw)),
            GlobalId::Region(RegionId(raw)),
        ] {
            assert_eq!(GlobalId::decode(&id.encode()).unwrap(), id);
        }
    }

    #[test]
    fn an_order_id_names_its_showtime_and_one_issued_without_it_is_the_same_order() {
        let (showtime, order) = (ShowtimeId([3; 12]), OrderId([7; 12]));
        let with = GlobalId::Order(Some(showtime), order).encode();
        let text = String::from_utf8(URL_SAFE_NO_PAD.decode(&with).unwrap()).unwrap();
        assert_eq!(text, format!("Order:{showtime}.{order}"));
        assert_eq!(order_and_showtime(&with).unwrap(), (order, Some(showtime)));
        let without = URL_SAFE_NO_PAD.encode(format!("Order:{order}"));
        assert_eq!(order_and_showtime(&without).unwrap(), (order, None));
        assert_eq!(order_id(&with).unwrap(), order_id(&without).unwrap());
        let hold = GlobalId::Hold(showtime, HoldId([7; 12])).encode();
        let error = order_id(&hold).unwrap_err();
        assert!(
            error.to_string().contains("id of a Hold, not of an Order"),
            "{error}"
        );
        for bad in [format!("Order:{showtime}."), format!("Order:x.{order}")] {
            assert!(order_id(&URL_SAFE_NO_PAD.encode(bad)).is_err());
        }
    }

    #[test]
    fn typed_decode_rejects_other_kinds() {
        let movie = GlobalId::Movie(MovieId([1; 12])).encode();
        let error = cinema_id(&movie).unwrap_err();
        assert!(
            error.to_string().contains("id of a Movie, not of a Cinema"),
            "{error}"
        );
        assert_eq!(movie_id(&movie).unwrap(), MovieId([1; 12]));
    }

    #[test]
    fn rejects_malformed_ids() {
        let not_hex = URL_SAFE_NO_PAD.encode("Cinema:xyz");
        let unknown = URL_SAFE_NO_PAD.encode("Planet:010101010101010101010101");
        for bad in ["", "%%%", "Q2luZW1h", not_hex.as_str(), unknown.as_str()] {
            assert!(GlobalId::decode(bad).is_err(), "{bad}");
        }
    }
}
