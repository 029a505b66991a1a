//! The booking benchmarks' catalogue: one hall of `side` × `side` standard seats, `showtimes`
//! showtimes in it a minute apart from tomorrow (one seat inventory each), sold by the channel
//! `bench` (¥40) whose fresh key is returned.

use boxoffice::catalogue::CatalogueBatch;
use boxoffice::domain::api_key::ApiKey;
use boxoffice::domain::ids::{CinemaId, HallId, MovieId, ShowtimeId};
use boxoffice::domain::layout::{row_label, HallLayout, LayoutRow};
use boxoffice::domain::pricing::TicketType;
use boxoffice::domain::seat::SeatKind;
use boxoffice::store::documents::*;
use boxoffice::store::{new_id, now, Store};

/// Inserts the catalogue; returns the showtimes' ids and the channel's key.
pub async fn insert(
    store: &Store,
    showtimes: usize,
    side: usize,
) -> anyhow::Result<(Vec<ShowtimeId>, ApiKey)> {
    let key = ApiKey::generate(&mut rand::rng());
    let mut batch = CatalogueBatch::default();
    batch.channels.push(ChannelDoc {
        code: "bench".into(),
        schema_version: SCHEMA_VERSION,
        name: "bench".into(),
        api_key_hash: key.hash(),
        rate_limit: None,
    });
    let layout = HallLayout {
        rows: (0..side)
            .map(|r| LayoutRow {
                label: row_label(r),
                positions: vec![Some(SeatKind::Standard); side],
            })
            .collect(),
    };
    // A matrix as the demo's: the ADULT price of every kind and a CHILD price.
    let prices = vec![
        ChannelPriceDoc::flat("bench", 4000),
        ChannelPriceDoc {
            ticket_type: TicketType::parse("bench", "CHILD").expect("built in"),
            ..ChannelPriceDoc::flat("bench", 2800)
        },
    ];
    let ids = insert_showtimes(store, batch, layout, showtimes, prices).await?;
    Ok((ids, key))
}

/// Inserts `batch` (the channels), one hall of `layout` and `showtimes` showtimes in it a
/// minute apart from tomorrow (so every hold, sale and refund is allowed for a whole run),
/// each priced `prices` and with its seat inventory; returns the showtimes' ids.
pub async fn insert_showtimes(
    store: &Store,
    mut batch: CatalogueBatch,
    layout: HallLayout,
    showtimes: usize,
    prices: Vec<ChannelPriceDoc>,
) -> anyhow::Result<Vec<ShowtimeId>> {
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
            prices: prices.clone(),
            ticket_rules: Vec::new(),
            status: ShowtimeStatus::Scheduled,
            price_revision: 0,
            free_at: starts,
        };
        inventories.push(SeatInventoryDoc::for_showtime(&showtime, &hall));
        ids.push(showtime.id);
        docs.push(showtime);
    }
    batch.halls.push(hall);
    store.insert_catalogue(&batch).await?;
    // A minute apart in one hall: they overlap, so they go in unchecked (a bench's catalogue).
    store.insert_unscheduled(&docs, &inventories).await?;
    Ok(ids)
}
