//! A step's database: 8 sales channels (8 API keys, as many channels selling at once) and
//! `showtimes` showtimes of one 6 × 12 hall (72 seats each), priced on every channel. Written
//! through the library (the hall and showtimes by `bench_catalogue`), so that the gateway
//! under test starts on data it has never seen.

use boxoffice::catalogue::CatalogueBatch;
use boxoffice::domain::api_key::ApiKey;
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::layout::{row_label, seat_label, HallLayout, LayoutRow};
use boxoffice::domain::seat::SeatKind;
use boxoffice::store::documents::*;
use boxoffice::store::Store;

pub const CHANNELS: usize = 8;
const ROWS: usize = 6;
const SEATS_PER_ROW: usize = 12;

/// What the clients need to know of the seeded catalogue.
pub struct Catalogue {
    /// The showtimes' global ids, as the API takes them.
    pub showtimes: Vec<String>,
    /// One API key per channel.
    pub keys: Vec<String>,
    /// Every seat label of the hall ("A1" … "F12").
    pub seats: Vec<String>,
    /// The runs every impatient client names its seats in: 4 seats side by side each, in the
    /// middle of the middle rows (C3–C6, C7–C10, D3–D6, D7–D10), as every buyer wants them.
    pub contested: Vec<Vec<String>>,
}

/// The middle rows' middle seats, in runs of 4: 4 runs of the 72 seats (see
/// `Catalogue::contested`).
fn contested_runs(layout: &HallLayout) -> Vec<Vec<String>> {
    const RUN: usize = 4;
    let middle = ROWS / 2 - 1..=ROWS / 2;
    let first = (SEATS_PER_ROW - 2 * RUN) / 2;
    (layout.rows[middle].iter())
        .flat_map(|row| {
            [first, first + RUN].map(|start| {
                (start..start + RUN)
                    .map(|column| seat_label(&row.label, column))
                    .collect()
            })
        })
        .collect()
}

/// Writes the channels, the hall and the showtimes (each with its seat inventory).
pub async fn insert(store: &Store, showtimes: usize) -> anyhow::Result<Catalogue> {
    let mut batch = CatalogueBatch::default();
    let mut keys = Vec::new();
    for n in 0..CHANNELS {
        let key = ApiKey::generate(&mut rand::rng());
        batch.channels.push(ChannelDoc {
            code: channel(n),
            schema_version: SCHEMA_VERSION,
            name: channel(n),
            api_key_hash: key.hash(),
            // The gateway's default limit (1,000 operations a second per channel and process),
            // far above what one channel sends here: the limit is not what is measured.
            rate_limit: None,
        });
        keys.push(key.as_str().to_owned());
    }
    let layout = HallLayout {
        rows: (0..ROWS)
            .map(|r| LayoutRow {
                label: row_label(r),
                positions: vec![Some(SeatKind::Standard); SEATS_PER_ROW],
            })
            .collect(),
    };
    let seats = (layout.rows.iter())
        .flat_map(|row| (0..SEATS_PER_ROW).map(|column| seat_label(&row.label, column)))
        .collect();
    let contested = contested_runs(&layout);
    let prices = (0..CHANNELS)
        .map(|n| ChannelPriceDoc::flat(channel(n), 4000))
        .collect();
    let ids = super::bench_catalogue::insert_showtimes(store, batch, layout, showtimes, prices)
        .await?
        .into_iter()
        .map(|id| GlobalId::Showtime(id).encode())
        .collect();
    Ok(Catalogue {
        showtimes: ids,
        keys,
        seats,
        contested,
    })
}

fn channel(n: usize) -> String {
    format!("bench{n}")
}
