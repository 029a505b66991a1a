//! The `boxoffice` binary: parses the command line and hands over to the library.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use boxoffice::channel_events::rules::EventType;
use boxoffice::config::{
    ChannelCommand, Cli, Command, DatabaseArgs, DemoArgs, OperatorCommand, PeerUrl, ServeArgs,
    WebhookCommand,
};
use boxoffice::domain::api_key::{validate_channel_code, ApiKey};
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::rate_limit::RateLimit;
use boxoffice::domain::ticket_codes::TicketSecret;
use boxoffice::store::Store;
use boxoffice::{background, catalogue, demo, gateways, schema, telemetry, webhooks, AppState};
use clap::Parser;

/// mimalloc: a GraphQL response is thousands of small allocations, freed together, from every
/// worker thread; glibc's allocator spent a quarter of the gateway's CPU on them (and on its
/// arena locks) in the showtimes-page benchmark.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // Before the runtime: the trace exporter's HTTP client must not be built or dropped on it.
    let mut telemetry = telemetry::init(&cli.telemetry)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(run(cli));
    runtime.shutdown_timeout(Duration::from_secs(5));
    telemetry.shutdown();
    outcome
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Schema => {
            print!("{}", schema::sdl());
            Ok(())
        }
        Command::Serve(args) => {
            let store = connect(&cli.database).await?;
            serve(store, args).await
        }
        Command::Channel(ChannelCommand::Create {
            code,
            name,
            requests_per_second,
            burst,
        }) => {
            let store = connect(&cli.database).await?;
            let rate_limit = requests_per_second.map(|per_second| RateLimit {
                per_second,
                burst: burst.unwrap_or(per_second.saturating_mul(2)),
            });
            create_channel(&store, &code, &name, rate_limit).await
        }
        Command::Channel(ChannelCommand::Webhook(WebhookCommand::Add {
            channel,
            url,
            types,
            allow_private,
            ticket_secret,
        })) => {
            let store = connect(&cli.database).await?;
            add_webhook(
                &store,
                &ticket_secret,
                &channel,
                &url,
                &types,
                allow_private,
            )
            .await
        }
        Command::Operator(OperatorCommand::Create {
            code,
            name,
            cinemas,
            all,
        }) => {
            let store = connect(&cli.database).await?;
            let scope = (!all).then_some(cinemas.as_slice());
            let key = catalogue::create_operator(&store, &code, &name, scope).await?;
            let reach = if all {
                "every cinema, and the audit log".to_owned()
            } else {
                format!("{} cinemas", cinemas.len())
            };
            println!(
                "created operator `{code}` ({name}), writing {reach}. Its API key, shown this once:\n\n  {}\n",
                key.as_str()
            );
            println!(
                "Send it as `Authorization: Bearer <key>`. Only its hash is stored: keep it safe."
            );
            Ok(())
        }
        Command::Demo(args) => {
            // Bulk writes and index builds of a large catalogue take longer than a request.
            let store = connect(&cli.database).await?.with_timeout(DEMO_TIMEOUT);
            load_demo(&store, &args).await
        }
    }
}

/// The operation timeout of the demo loader.
const DEMO_TIMEOUT: Duration = Duration::from_secs(600);

async fn connect(database: &DatabaseArgs) -> anyhow::Result<Store> {
    let store = Store::connect_with(
        &database.mongodb_uri,
        &database.database,
        &database.options(),
    )
    .await
    .context("connecting to MongoDB")?;
    store.ensure_indexes().await.context("creating indexes")?;
    Ok(store)
}

async fn serve(store: Store, args: ServeArgs) -> anyhow::Result<()> {
    let store = store.with_event_retention(args.events.retention());
    if args.demo_data && store.catalogue_is_empty().await? {
        tracing::info!("the catalogue is empty: loading the small demo data set");
        let loaded = demo::load(&store, &demo::DemoPlan::small(), true).await?;
        print_channel_keys(&loaded);
    }
    warm_up(&store).await?;
    check_sharding(&store, args.sharded).await?;
    let state = AppState::new(store.clone(), args.limits, args.booking.hold_policy())
        .with_key_policy(args.booking.key_policy())
        .with_admission_window(args.booking.admission_window())
        .with_webhooks_allowing_private(args.events.webhooks_allow_private)
        .with_catalogue_rules(args.catalogue.rules())
        .with_client_ip_header(args.client_ip_header)
        .with_cors_origins(args.cors_origins)
        .with_federation(args.federation);
    let listener = boxoffice::http::listener::listen(args.bind)
        .with_context(|| format!("binding {}", args.bind))?;
    let address = listener.local_addr()?;
    // Whether it sends showtimes' writes to their owners and takes theirs (`gateways::Peers`):
    // only with the deployment's secret, which signs what gateways send each other.
    let peer_url = PeerUrl::advertised(args.peer_url.as_ref(), address);
    let (state, peer_url) = match args.ticket_secret {
        Some(secret) => (state.with_ticket_secret(secret), peer_url),
        None => {
            tracing::warn!(
                "no BOXOFFICE_TICKET_SECRET: ticket codes are made with a random secret and \
                 verify on this process only, until it stops; no showtime's writes are sent to \
                 another gateway"
            );
            (state, None)
        }
    };
    // Counted among the gateways (for its share of the rate limits) before it serves.
    let membership = gateways::Membership::new(
        state.share.clone(),
        args.process.heartbeat(),
        peer_url.clone().flatten(),
    );
    let state = match peer_url {
        Some(_) => state.with_peers(membership.peers()),
        None => state,
    };
    membership.heartbeat(&store).await;
    let webhooks = webhooks::Deliverer::with_lease(
        store.clone(),
        webhooks::Sender::new(args.events.webhooks_allow_private),
        state.ticket_secret.clone(),
        args.events.webhook_lease(),
    );
    let background = tokio::spawn(background::run(
        store.clone(),
        args.booking.intervals(),
        membership,
        webhooks,
        state.shutdown.clone(),
    ));
    println!("Boxoffice is up. Playground: http://{address}/  (GraphQL endpoint: http://{address}/graphql)");
    println!("Seat picker (live seat maps): http://{address}/seats");
    println!("Sales dashboard (an operator key): http://{address}/dashboard");
    state.shutdown.on_signal();
    let grace = args.process.shutdown_grace();
    let tally = Arc::clone(&state.tally);
    let drained = boxoffice::serve_until_shutdown(listener, state, grace).await?;
    // What this gateway counted since the last second, before the database client goes.
    if let Err(error) = tally.flush(&store).await {
        tracing::warn!(%error, "the last approximate counts were not written");
    }
    boxoffice::shutdown::finish(&store, background, drained, grace).await;
    Ok(())
}

/// With `--sharded`, or on `mongos`: the collections' shard keys against the design
/// (`store::shard_keys`); another key stops the start.
async fn check_sharding(store: &Store, sharded: bool) -> anyhow::Result<()> {
    if !sharded
        && !store
            .is_mongos()
            .await
            .context("asking the server what it is")?
    {
        return Ok(());
    }
    let check = store
        .sharding_check("config")
        .await
        .context("reading config.collections")?;
    for warning in &check.warnings {
        tracing::warn!("{warning}");
    }
    if !check.refusals.is_empty() {
        anyhow::bail!(
            "the cluster's collections are sharded otherwise than the design:\n{}",
            check.refusals.join("\n")
        );
    }
    tracing::info!("the collections' shard keys are the design's");
    Ok(())
}

/// Opens every collection before taking requests (see `store::warm_up`): seconds on the test
/// server with a national catalogue, milliseconds on MongoDB.
async fn warm_up(store: &Store) -> anyhow::Result<()> {
    let took = store
        .with_timeout(WARM_UP_TIMEOUT)
        .warm_up()
        .await
        .context("opening the collections")?;
    for (collection, took) in took {
        if took > Duration::from_secs(1) {
            tracing::info!(
                collection,
                seconds = took.as_secs_f64(),
                "opened a slow collection"
            );
        }
    }
    Ok(())
}

/// How long opening the collections may take.
const WARM_UP_TIMEOUT: Duration = Duration::from_secs(600);

async fn load_demo(store: &Store, args: &DemoArgs) -> anyhow::Result<()> {
    if args.reset {
        store.drop_database().await?;
        store.ensure_indexes().await?;
    }
    let plan = demo::DemoPlan::from_args(args);
    let started = Instant::now();
    let loaded = demo::load(store, &plan, true).await?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "loaded {} documents ({} cinemas, {} halls, {} showtimes, {} seats) in {seconds:.1} s ({:.0} documents/s)",
        loaded.documents,
        loaded.cinemas,
        loaded.halls,
        loaded.showtimes,
        loaded.seats,
        loaded.documents as f64 / seconds
    );
    print_channel_keys(&loaded);
    let size = store.size().await?;
    println!(
        "database {}: {} documents, {:.1} MiB of data, {:.1} MiB on disk with indexes",
        store.database_name(),
        size.objects,
        size.data_bytes as f64 / 1_048_576.0,
        size.storage_bytes as f64 / 1_048_576.0
    );
    Ok(())
}

async fn add_webhook(
    store: &Store,
    secret: &TicketSecret,
    channel: &str,
    url: &str,
    types: &[String],
    allow_private: bool,
) -> anyhow::Result<()> {
    if store.channel_by_code(channel).await?.is_none() {
        anyhow::bail!("there is no channel `{channel}`");
    }
    let types = (types.iter())
        .map(|kind| EventType::parse(kind.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let (endpoint, signing) =
        webhooks::create_webhook_endpoint(store, secret, channel, url, types, allow_private)
            .await?;
    let id = GlobalId::WebhookEndpoint(endpoint.id).encode();
    println!(
        "made webhook endpoint {id} of `{channel}`: {}",
        endpoint.url
    );
    println!(
        "its signing secret, shown this once:\n\n  {}\n",
        signing.as_str()
    );
    println!("Verify each POST's Boxoffice-Signature with it (README, \"Webhooks\").");
    Ok(())
}

async fn create_channel(
    store: &Store,
    code: &str,
    name: &str,
    rate_limit: Option<RateLimit>,
) -> anyhow::Result<()> {
    validate_channel_code(code)?;
    let key = ApiKey::generate(&mut rand::rng());
    store
        .create_channel(code, name, key.hash(), rate_limit)
        .await?;
    println!(
        "created channel `{code}` ({name}). Its API key, shown this once:\n\n  {}\n",
        key.as_str()
    );
    println!("Send it as `Authorization: Bearer <key>`. Only its hash is stored: keep it safe.");
    Ok(())
}

fn print_channel_keys(loaded: &demo::Loaded) {
    println!("Demo sales channels and their API keys (demo only; send as `Authorization: Bearer <key>`):");
    for (code, key) in &loaded.channel_keys {
        println!("  {code:<12} {key}");
    }
    if let Some((code, key)) = &loaded.operator_key {
        println!("Demo platform operator (writes every cinema; demo only):");
        println!("  {code:<12} {key}");
    }
}
