//! A step's database: 8 sales channels (8 API keys, as many channels selling at once) and
//! `showtimes` showtimes of one 6 × 12 hall (72 seats each), priced on every channel. Written
//! through the library, so that the gateway under test starts on data it has never seen.

use boxoffice::domain::api_key::ApiKey;
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::ids::{CinemaId, HallId, MovieId, ShowtimeId};
use boxoffice::domain::layout::{row_label, seat_label, HallLayout, LayoutRow};
use boxoffice::domain::seat::SeatKind;
use boxoffice::store::documents::*;
use boxoffice::store::{new_id, now, CatalogueBatch, Store};

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
    let cinema: CinemaId = new_id();
    let hall = HallDoc {
        id: new_id::<HallId>(),
        schema_version: SCHEMA_VERSION,
        cinema_id: cinema,
        name: "1号厅".into(),
        format: "2D".into(),
        capacity: layout.capacity() as i32,
        layout,
        schedule_version: 0,
    };
    let movie: MovieId = new_id();
    let (mut ids, mut docs, mut inventories) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..showtimes {
        // Tomorrow, so every hold, sale and refund is allowed for the whole run.
        let starts = now() + chrono::TimeDelta::minutes(24 * 60 + i as i64);
        let showtime = ShowtimeDoc {
            id: new_id::<ShowtimeId>(),
            schema_version: SHOWTIME_SCHEMA_VERSION,
            cinema: CinemaRef {
                id: cinema,
                name: "影城".into(),
                city: "上海".into(),
            },
            movie: MovieRef {
                id: movie,
                title: "电影".into(),
                runtime_minutes: 120,
            },
            theater: HallRef {
                id: hall.id,
                name: hall.name.clone(),
                format: hall.format.clone(),
            },
            starts_at: starts,
            ends_at: starts,
            language: "国语".into(),
            currency: "CNY".into(),
            prices: (0..CHANNELS)
                .map(|n| ChannelPriceDoc::flat(channel(n), 4000))
                .collect(),
            ticket_rules: Vec::new(),
            status: ShowtimeStatus::Scheduled,
            price_revision: 0,
            free_at: starts,
        };
        inventories.push(SeatInventoryDoc::for_showtime(&showtime, &hall));
        ids.push(GlobalId::Showtime(showtime.id).encode());
        docs.push(showtime);
    }
    batch.halls.push(hall);
    store.insert_catalogue(&batch).await?;
    // A minute apart in one hall: they overlap, so they go in unchecked (a bench's catalogue).
    store.insert_unscheduled(&docs, &inventories).await?;
    Ok(Catalogue {
        showtimes: ids,
        keys,
        seats,
    })
}

fn channel(n: usize) -> String {
    format!("bench{n}")
}
