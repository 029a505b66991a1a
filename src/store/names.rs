//! Every collection's name, declared once: the registry the start-up's warm-up and the
//! round-trip tests walk. Naming a collection here is not using it: the seat inventory's name
//! is used only by its own module (`inventory`, see `tests/api/architecture.rs`).

pub const CINEMAS: &str = "cinemas";
pub const THEATERS: &str = "theaters";
pub const MOVIES: &str = "movies";
pub const MOVIE_DETAILS: &str = "movie_details";
pub const REVIEWS: &str = "reviews";
pub const SHOWTIMES: &str = "showtimes";
pub const SEAT_INVENTORY: &str = "seat_inventory";
pub const CHANNELS: &str = "channels";
pub const ORDERS: &str = "orders";
pub const IDEMPOTENCY_KEYS: &str = "idempotency_keys";
pub const CINEMA_SALES_HOURLY: &str = "cinema_sales_hourly";
pub const GATEWAYS: &str = "gateways";
pub const REGIONS: &str = "regions";
pub const OPERATORS: &str = "operators";
pub const AUDIT_LOG: &str = "audit_log";
pub const SHOWTIME_PRICE_REVISIONS: &str = "showtime_price_revisions";
pub const TICKET_TYPES: &str = "ticket_types";
pub const EVENTS: &str = "events";
pub const WEBHOOK_ENDPOINTS: &str = "webhook_endpoints";
pub const WEBHOOK_DELIVERIES: &str = "webhook_deliveries";
pub const WANT_TO_SEE: &str = "want_to_see";
pub const WANT_TO_SEE_BY_MOVIE: &str = "want_to_see_by_movie";
pub const WANT_TO_SEE_COUNTS: &str = "want_to_see_counts";
pub const TALLIES: &str = "tallies";
pub const VOUCHER_BATCHES: &str = "voucher_batches";
pub const VOUCHER_CODES: &str = "voucher_codes";
pub const VOUCHER_REDEMPTIONS: &str = "voucher_redemptions";
pub const VOUCHER_CUSTOMERS: &str = "voucher_customers";
pub const PRODUCTS: &str = "products";
pub const WAITING_LIST: &str = "waiting_list";
pub const WAITING_LIST_SEQ: &str = "waiting_list_seq";

/// Every collection.
pub const ALL: [&str; 31] = [
    CINEMAS,
    THEATERS,
    MOVIES,
    MOVIE_DETAILS,
    REVIEWS,
    SHOWTIMES,
    SEAT_INVENTORY,
    CHANNELS,
    ORDERS,
    IDEMPOTENCY_KEYS,
    CINEMA_SALES_HOURLY,
    GATEWAYS,
    REGIONS,
    OPERATORS,
    AUDIT_LOG,
    SHOWTIME_PRICE_REVISIONS,
    TICKET_TYPES,
    EVENTS,
    WEBHOOK_ENDPOINTS,
    WEBHOOK_DELIVERIES,
    WANT_TO_SEE,
    WANT_TO_SEE_BY_MOVIE,
    WANT_TO_SEE_COUNTS,
    TALLIES,
    VOUCHER_BATCHES,
    VOUCHER_CODES,
    VOUCHER_REDEMPTIONS,
    VOUCHER_CUSTOMERS,
    PRODUCTS,
    WAITING_LIST,
    WAITING_LIST_SEQ,
];
