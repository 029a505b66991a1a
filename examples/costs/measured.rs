//! The measured process, run under callgrind by the coordinator: it serves the gateway or the
//! floor over HTTP, or makes booking pairs itself through the booking layer or with the
//! driver, and counts the instructions of each window of work the coordinator asks for.
//!
//! It prints `ready PORT` once it serves (PORT 0 when it serves nothing), then reads commands
//! on its stdin, one a line, and answers each on its stdout:
//! - `start`: instruments from here on (`started`); the coordinator then sends its requests;
//! - `stop LABEL`: dumps the window's count and stops instrumenting (`stopped`);
//! - `pairs N SHOWTIME LABEL`: N pairs on SHOWTIME in the window (`done OK`, OK the pairs
//!   that succeeded); `warm N SHOWTIME`: the same, not counted.
//!
//! A process counts one window (`callgrind.rs`); it may warm up before it.
//!
//! It exits when its stdin closes.

use std::sync::Arc;

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::domain::ids::ShowtimeId;
use boxoffice::holds::ShowtimeLocks;
use boxoffice::store::{DatabaseOptions, Store};
use boxoffice::{app, AppState};

use crate::booking_pairs::{booking_pair, driver_pair};
use crate::{callgrind, floor};

/// What the process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The gateway's app, as `boxoffice serve` serves it (without the background loops).
    Gateway,
    /// The showtimes page written by hand (`showtimes_page/floor.rs`).
    Floor,
    /// Booking pairs through the booking layer, no HTTP or GraphQL.
    Booking,
    /// Booking pairs written by hand with the driver.
    Driver,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Gateway => "gateway",
            Role::Floor => "floor",
            Role::Booking => "booking",
            Role::Driver => "driver",
        }
    }

    fn parse(name: &str) -> anyhow::Result<Role> {
        [Role::Gateway, Role::Floor, Role::Booking, Role::Driver]
            .into_iter()
            .find(|role| role.name() == name)
            .ok_or_else(|| anyhow::anyhow!("no role {name:?}"))
    }
}

/// `measured ROLE MONGODB_URI DATABASE`.
pub fn main(arguments: &[String]) -> anyhow::Result<()> {
    let [role, uri, database] = arguments else {
        anyhow::bail!("measured ROLE MONGODB_URI DATABASE");
    };
    let role = Role::parse(role)?;
    // Two workers, as the gateway runs on this machine's two cores.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(serve(role, uri, database))
}

async fn serve(role: Role, uri: &str, database: &str) -> anyhow::Result<()> {
    // As `boxoffice serve` connects: no command monitoring (tests turn it on).
    let options = DatabaseOptions {
        monitor_commands: false,
        ..DatabaseOptions::default()
    };
    let store = Store::connect_with(uri, database, &options).await?;
    let db = mongodb::Client::with_uri_str(uri).await?.database(database);
    let policy = BookingArgs::default().hold_policy();
    let port = match role {
        Role::Gateway => {
            let state = AppState::new(store.clone(), Limits::default(), policy);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let port = listener.local_addr()?.port();
            tokio::spawn(async move { axum::serve(listener, app(state)).await });
            port
        }
        Role::Floor => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let port = listener.local_addr()?.port();
            let router = floor::router(db.clone());
            tokio::spawn(async move { axum::serve(listener, router).await });
            port
        }
        Role::Booking => {
            // The relay of this process's events, as `AppState` runs it.
            tokio::spawn(boxoffice::assembly::event_relay(&store).run());
            0
        }
        Role::Driver => 0,
    };
    println!("ready {port}");
    let locks = Arc::new(ShowtimeLocks::default());
    let confirmations = Arc::new(boxoffice::orders::Confirmations::default());
    // Read by a thread of its own, blocked in read(2) between commands.
    let (sender, mut lines) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    while let Some(line) = lines.recv().await {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["start"] => {
                callgrind::start();
                println!("started");
            }
            ["stop", label] => {
                callgrind::stop(label);
                println!("stopped");
            }
            [command @ ("pairs" | "warm"), count, showtime, ..] => {
                let count: usize = count.parse()?;
                let showtime = ShowtimeId(bson::oid::ObjectId::parse_str(showtime)?.bytes());
                let counted = command == "pairs";
                if counted {
                    callgrind::start();
                }
                let mut succeeded = 0;
                for _ in 0..count {
                    let ok = match role {
                        Role::Driver => driver_pair(db.clone(), Arc::clone(&locks), showtime).await,
                        _ => {
                            let queues = (Arc::clone(&locks), Arc::clone(&confirmations));
                            booking_pair(store.clone(), queues, policy, showtime).await
                        }
                    };
                    succeeded += usize::from(ok);
                }
                if counted {
                    callgrind::stop(words.get(3).copied().unwrap_or("pairs"));
                }
                println!("done {succeeded}");
            }
            _ => anyhow::bail!("no command {line:?}"),
        }
    }
    Ok(())
}
