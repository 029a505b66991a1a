//! The clients, in a child process of their own: WebSocket subscribers and HTTP writers.
//! Arguments: the scenario and the gateway's address. They write the catalogue first.
//! Between phases they print a marker (`@name fields…`) and most often wait for `next` on
//! their standard input, so that the gateway's memory and CPU can be read in between.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use boxoffice::store::{DatabaseOptions, Store};

use crate::bench_catalogue;
use crate::figures::{self, Seen};
use crate::writes::{pair, write_all};
use boxoffice::domain::global_id::GlobalId;

/// The hidden first argument that makes this program the clients.
pub const CHILD: &str = "__clients";

/// The subscription: a small selection, no whole map on the SNAPSHOT.
const SEAT_MAP: &str = "subscription ($id: ID!) { seatMapChanged(showtimeId: $id) {
    kind version changes { label state } counts { available held sold } } }";

/// Connections opened (and subscribed) at once.
const OPENING_AT_ONCE: usize = 100;
/// How long any one awaited message may take.
const WAIT: Duration = Duration::from_secs(60);
/// busy: connections, each with one subscription to the watched showtime.
const SUBSCRIBERS: usize = 1_000;
/// idle: connections, and subscriptions on each (the default cap is 20).
const IDLE_CONNECTIONS: usize = 1_000;
const SUBSCRIPTIONS_PER_CONNECTION: usize = 10;
/// busy: how long deliveries may stall before the missing events are given up.
const STALL: Duration = Duration::from_secs(15);

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let [scenario, address] = args else {
        anyhow::bail!("usage: {CHILD} SCENARIO ADDRESS");
    };
    // busy: the watched showtime, and an unwatched one for the same writes without fan-out.
    let (showtimes, side) = match scenario.as_str() {
        "busy" => (2, 30),
        "idle" => (1_000, 10),
        other => anyhow::bail!("no scenario {other:?}"),
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let (ids, key) = runtime.block_on(async {
        let uri = std::env::var("MONGODB_URI")?;
        let options = DatabaseOptions {
            monitor_commands: false,
            ..DatabaseOptions::default()
        };
        let store = Store::connect_with(&uri, crate::DATABASE, &options).await?;
        bench_catalogue::insert(&store, showtimes, side).await
    })?;
    let ids: Vec<String> = ids
        .into_iter()
        .map(|id| GlobalId::Showtime(id).encode())
        .collect();
    println!("catalogue: {showtimes} showtimes of {side} × {side} seats");
    let endpoint = Endpoint {
        ws: format!("ws://{address}/graphql"),
        http: format!("http://{address}/graphql"),
        auth: format!("Bearer {}", key.as_str()),
        client: reqwest::Client::new(),
    };
    if scenario == "busy" {
        busy(&runtime, endpoint, &ids[0], &ids[1])
    } else {
        idle(&runtime, endpoint, &ids)
    }
}

/// Where the gateway answers, and the channel's credentials.
#[derive(Clone)]
pub struct Endpoint {
    ws: String,
    pub http: String,
    pub auth: String,
    pub client: reqwest::Client,
}

/// Tells the parent a phase is over (`@name fields`), and waits for it to say `next`.
fn checkpoint(name: &str, fields: &[usize]) -> anyhow::Result<()> {
    let fields: Vec<String> = fields.iter().map(usize::to_string).collect();
    println!("@{name} {}", fields.join(" "));
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    anyhow::ensure!(line.trim() == "next", "expected \"next\", got {line:?}");
    Ok(())
}

fn busy(
    runtime: &tokio::runtime::Runtime,
    endpoint: Endpoint,
    watched: &str,
    unwatched: &str,
) -> anyhow::Result<()> {
    // One pair first, where nobody watches: the gateway's and the database's first use.
    runtime.block_on(pair(&endpoint, unwatched))?;
    checkpoint("ready", &[])?;
    let opened = open(
        runtime,
        &endpoint,
        SUBSCRIBERS,
        |_| vec![watched.to_owned()],
    )?;
    let (stop, stopped) = watch::channel(false);
    let delivered = Arc::new(AtomicUsize::new(0));
    let readers: Vec<_> = opened
        .into_iter()
        .map(|(socket, versions)| {
            let reader = read(socket, versions[0], stopped.clone(), Arc::clone(&delivered));
            runtime.spawn(reader)
        })
        .collect();
    checkpoint("subscribed", &[SUBSCRIBERS])?;

    let baseline = runtime.block_on(write_all(&endpoint, unwatched))?;
    println!(
        "clients, writes to an unwatched showtime: {} in {:.2} s ({} failed)",
        baseline.acks.len(),
        baseline.took.as_secs_f64(),
        baseline.failed
    );
    checkpoint("baseline", &[baseline.acks.len()])?;

    let writes = runtime.block_on(async {
        let writes = write_all(&endpoint, watched).await?;
        // Until every subscriber has every event, or deliveries stall.
        let expected = writes.acks.len() * SUBSCRIBERS;
        let (mut last, mut since) = (0, Instant::now());
        loop {
            let now = delivered.load(Ordering::Relaxed);
            if now >= expected || since.elapsed() > STALL {
                break;
            }
            if now != last {
                (last, since) = (now, Instant::now());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        anyhow::Ok(writes)
    })?;
    let delivered = delivered.load(Ordering::Relaxed);
    println!("@delivered {} {delivered}", writes.acks.len());
    let _ = stop.send(true);
    let mut subscribers = Vec::new();
    let mut sockets = Vec::new();
    for reader in readers {
        let (seen, socket) = runtime.block_on(reader)?;
        subscribers.push(seen);
        sockets.extend(socket);
    }
    figures::report(&writes, &subscribers);
    checkpoint("done", &[])?;
    runtime.block_on(close_all(sockets));
    Ok(())
}

fn idle(
    runtime: &tokio::runtime::Runtime,
    endpoint: Endpoint,
    showtimes: &[String],
) -> anyhow::Result<()> {
    checkpoint("ready", &[])?;
    let opened = open(runtime, &endpoint, IDLE_CONNECTIONS, |i| {
        (0..SUBSCRIPTIONS_PER_CONNECTION)
            .map(|j| showtimes[(i * SUBSCRIPTIONS_PER_CONNECTION + j) % showtimes.len()].clone())
            .collect()
    })?;
    let subscriptions: usize = opened.iter().map(|(_, versions)| versions.len()).sum();
    checkpoint("subscribed", &[subscriptions])?;
    runtime.block_on(close_all(
        opened.into_iter().map(|(socket, _)| socket).collect(),
    ));
    Ok(())
}

/// Opens `count` connections (`@connected`), then subscribes connection `i` to each of
/// `showtimes(i)`, with ids "0", "1", …: each socket, after every SNAPSHOT, with the
/// SNAPSHOTs' versions.
fn open(
    runtime: &tokio::runtime::Runtime,
    endpoint: &Endpoint,
    count: usize,
    showtimes: impl Fn(usize) -> Vec<String>,
) -> anyhow::Result<Vec<(Socket, Vec<i64>)>> {
    let started = Instant::now();
    let sockets = runtime.block_on(at_once((0..count).map(|_| connect(endpoint.clone()))))?;
    let connected = started.elapsed();
    checkpoint("connected", &[count])?;
    let started = Instant::now();
    let subscribing = sockets
        .into_iter()
        .enumerate()
        .map(|(i, socket)| subscribe(socket, showtimes(i)));
    let opened = runtime.block_on(at_once(subscribing))?;
    let subscriptions: usize = opened.iter().map(|(_, versions)| versions.len()).sum();
    println!(
        "clients: {count} connections opened in {:.2} s, then {subscriptions} subscriptions \
         ({} per connection) had every SNAPSHOT in {:.2} s ({OPENING_AT_ONCE} connections at \
         once)",
        connected.as_secs_f64(),
        subscriptions / count.max(1),
        started.elapsed().as_secs_f64(),
    );
    Ok(opened)
}

/// Runs the tasks OPENING_AT_ONCE at a time; their results in order, or the first error.
async fn at_once<T: Send + 'static>(
    tasks: impl Iterator<Item = impl std::future::Future<Output = anyhow::Result<T>> + Send + 'static>,
) -> anyhow::Result<Vec<T>> {
    let running = futures::stream::iter(tasks)
        .map(tokio::spawn)
        .buffered(OPENING_AT_ONCE);
    let done: Vec<_> = running.collect().await;
    done.into_iter().map(|done| done?).collect()
}

/// A connection acknowledged after `connection_init` with the channel's key.
async fn connect(endpoint: Endpoint) -> anyhow::Result<Socket> {
    let mut request = endpoint.ws.as_str().into_client_request()?;
    request.headers_mut().insert(
        "sec-websocket-protocol",
        HeaderValue::from_static("graphql-transport-ws"),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async_with_config(request, None, true).await?;
    let init = json!({ "type": "connection_init", "payload": { "Authorization": endpoint.auth } });
    send(&mut socket, init).await?;
    let ack = receive(&mut socket).await?;
    anyhow::ensure!(
        ack["type"] == "connection_ack",
        "instead of connection_ack: {ack}"
    );
    Ok(socket)
}

/// Subscribes to each showtime's seat map; returns after every SNAPSHOT, with their versions.
async fn subscribe(
    mut socket: Socket,
    showtimes: Vec<String>,
) -> anyhow::Result<(Socket, Vec<i64>)> {
    for (id, showtime) in showtimes.iter().enumerate() {
        let payload = json!({ "query": SEAT_MAP, "variables": { "id": showtime } });
        let subscribe = json!({ "type": "subscribe", "id": id.to_string(), "payload": payload });
        send(&mut socket, subscribe).await?;
    }
    // The SNAPSHOTs come in any order.
    let mut versions = vec![None; showtimes.len()];
    while versions.iter().any(Option::is_none) {
        let message = receive(&mut socket).await?;
        let event = &message["payload"]["data"]["seatMapChanged"];
        anyhow::ensure!(
            message["type"] == "next" && event["kind"] == "SNAPSHOT",
            "instead of a SNAPSHOT: {message}"
        );
        let id: usize = message["id"].as_str().unwrap_or_default().parse()?;
        versions[id] = event["version"].as_i64();
    }
    Ok((socket, versions.into_iter().flatten().collect()))
}

async fn send(socket: &mut Socket, message: Value) -> anyhow::Result<()> {
    socket.send(Message::text(message.to_string())).await?;
    Ok(())
}

/// The next protocol message.
async fn receive(socket: &mut Socket) -> anyhow::Result<Value> {
    loop {
        let frame = tokio::time::timeout(WAIT, socket.next()).await;
        match frame.map_err(|_| anyhow::anyhow!("no message within {WAIT:?}"))? {
            Some(Ok(Message::Text(text))) => return Ok(serde_json::from_str(&text)?),
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            other => anyhow::bail!("instead of a message: {other:?}"),
        }
    }
}

/// Records every event of one subscriber (after its first SNAPSHOT, at `version`) until
/// `stop`; returns them and the socket, unless the connection ended.
async fn read(
    mut socket: Socket,
    version: i64,
    mut stop: watch::Receiver<bool>,
    delivered: Arc<AtomicUsize>,
) -> (figures::Subscriber, Option<Socket>) {
    let mut subscriber = figures::Subscriber {
        version,
        seen: Vec::new(),
        ended: None,
    };
    loop {
        let frame = tokio::select! {
            frame = socket.next() => frame,
            _ = stop.changed() => return (subscriber, Some(socket)),
        };
        let at = Instant::now();
        let text = match frame {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            other => {
                subscriber.ended = Some(format!("{other:?}"));
                return (subscriber, None);
            }
        };
        let message: Value = serde_json::from_str(&text).unwrap_or_default();
        let event = &message["payload"]["data"]["seatMapChanged"];
        let Some(version) = event["version"].as_i64() else {
            subscriber.ended = Some(format!("not an event: {text}"));
            continue;
        };
        let snapshot = event["kind"] == "SNAPSHOT";
        if !snapshot {
            delivered.fetch_add(1, Ordering::Relaxed);
        }
        subscriber.seen.push(Seen {
            at,
            version,
            snapshot,
            write: figures::event_key(event),
        });
    }
}

async fn close_all(sockets: Vec<Socket>) {
    let closing = sockets.into_iter().map(|mut socket| async move {
        let _ = tokio::time::timeout(Duration::from_secs(5), socket.close(None)).await;
    });
    futures::future::join_all(closing).await;
}
