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
    /// Orders, like holds, are private to their channel.
    Order(OrderId),
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
            GlobalId::Order(id) => format!("Order:{id}"),
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
            "Order" => OrderId::parse_hex(hex).map(GlobalId::Order),
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
            GlobalId::Order(_) => "Order",
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
typed_decode!(order_id, Order, OrderId);
typed_decode!(region_id, Region, RegionId);
typed_decode!(webhook_id, WebhookEndpoint, WebhookId);
typed_decode!(voucher_batch_id, VoucherBatch, VoucherBatchId);
typed_decode!(product_id, Product, ProductId);
typed_decode!(waiting_entry_id, WaitingListEntry, WaitingEntryId);

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
            GlobalId::Order(OrderId(raw)),
            GlobalId::Region(RegionId(raw)),
        ] {
            assert_eq!(GlobalId::decode(&id.encode()).unwrap(), id);
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
