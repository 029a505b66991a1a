//! The test harness: the real app on port 0 over a fresh database of a real MongoDB wire-protocol
//! server (`BOXOFFICE_TEST_MONGODB_URI`, set by `scripts/test`), and typed helpers to call it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::holds::rules::HoldPolicy;
use boxoffice::idempotency::KeyPolicy;
use boxoffice::store::{DatabaseOptions, Store};
use boxoffice::{app, AppState};
use serde_json::{json, Value};

/// A running gateway over its own database (a clone is a handle on the same gateway).
#[derive(Clone)]
pub struct TestApp {
    pub address: SocketAddr,
    pub store: Store,
    pub client: reqwest::Client,
    hold_policy: HoldPolicy,
    key_policy: KeyPolicy,
}

/// A GraphQL response body.
#[derive(Debug, Clone)]
pub struct GqlResponse(pub Value);

impl GqlResponse {
    /// `data`, after checking there are no errors.
    pub fn data(&self) -> &Value {
        assert!(
            self.0.get("errors").is_none(),
            "unexpected errors: {:#}",
            self.0
        );
        &self.0["data"]
    }

    /// The errors (panics when there are none).
    pub fn errors(&self) -> &Vec<Value> {
        self.0["errors"]
            .as_array()
            .unwrap_or_else(|| panic!("expected errors, got {:#}", self.0))
    }

    /// The code of the one error.
    pub fn error_code(&self) -> &str {
        let errors = self.errors();
        assert_eq!(errors.len(), 1, "expected one error: {:#}", self.0);
        errors[0]["extensions"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("error without a code: {:#}", self.0))
    }

    /// The message of the one error.
    pub fn error_message(&self) -> &str {
        self.errors()[0]["message"].as_str().unwrap_or_default()
    }
}

pub fn mongodb_uri() -> String {
    let uri = std::env::var("BOXOFFICE_TEST_MONGODB_URI").expect(
        "BOXOFFICE_TEST_MONGODB_URI is not set: run the tests with scripts/test, which starts \
         a test database server",
    );
    static PREPARED: std::sync::Once = std::sync::Once::new();
    PREPARED.call_once(|| {
        let uri = uri.clone();
        // On a thread of its own: the callers are async tests on their own runtimes.
        std::thread::spawn(move || shorten_transaction_lifetime(&uri))
            .join()
            .expect("prepare the test server");
    });
    uri
}

/// Sets the shared test server's `transactionLifetimeLimitSeconds` to 5 (default 60). On the
/// test server (SecantusDB 0.5.3-beta.196), while a transaction has written and not ended,
/// every change stream of the server waits; tests that kill a gateway process can leave its
/// sales projection's transaction open, and the live tests running beside them then saw no
/// change for 60 s. MongoDB does not hold change streams back this way.
pub fn shorten_transaction_lifetime(uri: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let client = mongodb::Client::with_uri_str(uri)
            .await
            .expect("connect to the test server");
        client
            .database("admin")
            .run_command(bson::doc! { "setParameter": 1, "transactionLifetimeLimitSeconds": 5 })
            .await
            .expect("set transactionLifetimeLimitSeconds");
    });
}

/// How the in-process test gateways connect: as in production, except that a request may wait
/// up to 5 s at the door. The suite runs many tests at once on a small machine (races of up to
/// 96 requests, on a debug build), where the production wait (40 ms) would refuse requests
/// the tests expect answered; `tests/api/overload.rs` tests the refusals with short waits of
/// its own.
pub fn test_database_options() -> DatabaseOptions {
    DatabaseOptions {
        admission_wait: std::time::Duration::from_secs(5),
        ..DatabaseOptions::default()
    }
}

/// A store on database `database` of the test server, connected as the test gateways are.
pub async fn connect_test_store(database: &str) -> Store {
    Store::connect_with(&mongodb_uri(), database, &test_database_options())
        .await
        .expect("connect to the test database")
}

/// A database name no other test uses.
pub fn fresh_database_name() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "test_{}_{}_{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The ticket secret of every test gateway, in-process or a process of its own.
pub fn test_ticket_secret() -> boxoffice::domain::ticket_codes::TicketSecret {
    boxoffice::domain::ticket_codes::TicketSecret::new([42; 32])
}

/// [`test_ticket_secret`] as `BOXOFFICE_TICKET_SECRET` takes it (base64url of 32 bytes of 42).
pub const TEST_TICKET_SECRET: &str = "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio";

impl TestApp {
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with(Limits::default()).await
    }

    pub async fn spawn_with(limits: Limits) -> TestApp {
        TestApp::spawn_with_policy(limits, BookingArgs::default().hold_policy()).await
    }

    /// A gateway whose state `configure` adjusts (CORS origins, ...).
    pub async fn spawn_configured(limits: Limits, configure: fn(AppState) -> AppState) -> TestApp {
        let store = connect_test_store(&fresh_database_name()).await;
        let hold_policy = BookingArgs::default().hold_policy();
        let state = configure(AppState::new(store.clone(), limits, hold_policy));
        TestApp::listen(store, state).await
    }

    pub async fn spawn_with_policy(limits: Limits, hold_policy: HoldPolicy) -> TestApp {
        TestApp::spawn_with_keys(limits, hold_policy, KeyPolicy::default()).await
    }

    /// A gateway whose idempotency keys follow `key_policy` (a short lease for the fault tests).
    pub async fn spawn_with_keys(
        limits: Limits,
        hold_policy: HoldPolicy,
        key_policy: KeyPolicy,
    ) -> TestApp {
        let store = connect_test_store(&fresh_database_name()).await;
        store.ensure_indexes().await.expect("create indexes");
        TestApp::serve(store, limits, hold_policy, key_policy).await
    }

    /// A gateway over a fresh database of the server at `uri`, connected with `options`.
    pub async fn spawn_on(uri: &str, options: &DatabaseOptions) -> TestApp {
        let store = Store::connect_with(uri, &fresh_database_name(), options)
            .await
            .expect("connect to the database");
        store.ensure_indexes().await.expect("create indexes");
        let hold_policy = BookingArgs::default().hold_policy();
        TestApp::serve(store, Limits::default(), hold_policy, KeyPolicy::default()).await
    }

    /// A gateway keeping channels' events for `retention` (seconds, for the expiry tests).
    pub async fn spawn_with_retention(
        retention: boxoffice::channel_events::rules::Retention,
    ) -> TestApp {
        let store = connect_test_store(&fresh_database_name())
            .await
            .with_event_retention(retention);
        store.ensure_indexes().await.expect("create indexes");
        let hold_policy = BookingArgs::default().hold_policy();
        TestApp::serve(store, Limits::default(), hold_policy, KeyPolicy::default()).await
    }

    /// A gateway whose rate limits run on `clock` (a test's manual clock), alone.
    pub async fn spawn_with_clock(
        limits: Limits,
        clock: std::sync::Arc<boxoffice::domain::clock::ManualClock>,
    ) -> TestApp {
        let store = connect_test_store(&fresh_database_name()).await;
        store.ensure_indexes().await.expect("create indexes");
        let hold_policy = BookingArgs::default().hold_policy();
        let state = AppState::new(store.clone(), limits, hold_policy)
            .with_clock(clock, std::sync::Arc::default());
        TestApp::listen(store, state).await
    }

    async fn serve(
        store: Store,
        limits: Limits,
        hold_policy: HoldPolicy,
        key_policy: KeyPolicy,
    ) -> TestApp {
        let state = AppState::new(store.clone(), limits, hold_policy).with_key_policy(key_policy);
        TestApp::listen(store, state).await
    }

    async fn listen(store: Store, state: AppState) -> TestApp {
        let listener = boxoffice::http::listener::listen("127.0.0.1:0".parse().unwrap()).unwrap();
        TestApp::listen_on(listener, store, state)
    }

    /// Two gateways over one fresh database, each reachable by the other and sending it the
    /// writes of the showtimes it owns (`gateways::Peers`), each having seen the other's
    /// heartbeat; and their memberships (to beat again, or ask who owns what).
    pub async fn peered() -> (TestApp, TestApp, Vec<boxoffice::gateways::Membership>) {
        let name = fresh_database_name();
        let first = connect_test_store(&name).await;
        first.ensure_indexes().await.expect("create indexes");
        let mut apps = Vec::new();
        let mut memberships = Vec::new();
        for _ in 0..2 {
            let store = connect_test_store(&name).await;
            let listener =
                boxoffice::http::listener::listen("127.0.0.1:0".parse().unwrap()).unwrap();
            let url = format!("http://{}", listener.local_addr().unwrap());
            let hold_policy = BookingArgs::default().hold_policy();
            let state = AppState::new(store.clone(), Limits::default(), hold_policy);
            // Beats only when a test says so.
            let membership = boxoffice::gateways::Membership::new(
                state.share.clone(),
                std::time::Duration::from_secs(3_600),
                Some(url),
            );
            let state = state.with_peers(membership.peers());
            apps.push(TestApp::listen_on(listener, store, state));
            memberships.push(membership);
        }
        for membership in memberships.iter().chain(memberships.first()) {
            membership.heartbeat(&first).await;
        }
        let second = apps.pop().unwrap();
        (apps.pop().unwrap(), second, memberships)
    }

    fn listen_on(listener: tokio::net::TcpListener, store: Store, state: AppState) -> TestApp {
        // Every test gateway shares one ticket secret, as a deployment's gateways do.
        let state = state.with_ticket_secret(test_ticket_secret());
        let address = listener.local_addr().unwrap();
        let (hold_policy, key_policy) = (state.hold_policy, state.key_policy);
        let router = app(state);
        let forever = std::future::pending();
        tokio::spawn(async move { boxoffice::serve(listener, router, forever).await.unwrap() });
        TestApp {
            address,
            store,
            client: reqwest::Client::new(),
            hold_policy,
            key_policy,
        }
    }

    /// A second gateway process over the same database, with the same policies: its own
    /// connection pool, showtime locks, key cache, rate limits and fault points.
    pub async fn another_gateway(&self) -> TestApp {
        let store = connect_test_store(self.store.database_name()).await;
        TestApp::serve(store, Limits::default(), self.hold_policy, self.key_policy).await
    }

    /// [`TestApp::another_gateway`] whose holds follow `hold_policy` (another hold lifetime).
    pub async fn another_gateway_with(&self, hold_policy: HoldPolicy) -> TestApp {
        let store = connect_test_store(self.store.database_name()).await;
        TestApp::serve(store, Limits::default(), hold_policy, self.key_policy).await
    }

    /// Creates an operator writing `cinemas` (global ids; `None`: every cinema, the platform)
    /// and returns its API key.
    pub async fn operator_key(&self, code: &str, cinemas: Option<&[String]>) -> String {
        boxoffice::catalogue::create_operator(&self.store, code, code, cinemas)
            .await
            .expect("create an operator")
            .as_str()
            .to_owned()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// Runs one operation anonymously.
    pub async fn graphql(&self, query: &str, variables: Value) -> GqlResponse {
        let (_, body) = self
            .post_json(&json!({ "query": query, "variables": variables }))
            .await;
        GqlResponse(body)
    }

    /// Runs one operation anonymously and gives its answer with the bytes of the one command
    /// it sent to `collection` (the test fails if it sent none or several).
    pub async fn graphql_reading(
        &self,
        collection: &str,
        query: &str,
        variables: Value,
    ) -> (GqlResponse, usize) {
        self.store.commands().start();
        let response = self.graphql(query, variables).await;
        let sent = self.store.commands().take();
        let reads: Vec<_> = sent
            .iter()
            .filter(|c| c.collection.as_deref() == Some(collection))
            .collect();
        assert_eq!(reads.len(), 1, "one command to {collection}: {sent:?}");
        let bytes = reads[0].reply_bytes.expect("the command succeeded");
        (response, bytes)
    }

    /// Runs one operation as the channel whose API key is `key`.
    pub async fn graphql_as(&self, key: &str, query: &str, variables: Value) -> GqlResponse {
        let body = json!({ "query": query, "variables": variables });
        let (_, body) = self
            .post_with_authorization(&format!("Bearer {key}"), &body)
            .await;
        GqlResponse(body)
    }

    /// Posts JSON with an `Authorization` header; returns the status, the
    /// `WWW-Authenticate` header and the body.
    pub async fn post_with_authorization(&self, authorization: &str, body: &Value) -> (u16, Value) {
        let response = self
            .client
            .post(self.url("/graphql"))
            .header("authorization", authorization)
            .json(body)
            .send()
            .await
            .expect("request the gateway");
        let status = response.status().as_u16();
        (status, response.json().await.expect("a JSON body"))
    }

    /// Posts any JSON to `/graphql`.
    pub async fn post_json(&self, body: &Value) -> (u16, Value) {
        self.post_raw(serde_json::to_vec(body).unwrap()).await
    }

    /// Posts raw bytes to `/graphql`.
    pub async fn post_raw(&self, body: Vec<u8>) -> (u16, Value) {
        let response = self
            .client
            .post(self.url("/graphql"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("request the gateway");
        let status = response.status().as_u16();
        let body = response.json().await.expect("a JSON body");
        (status, body)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }
}

/// The nodes of a connection, in order.
pub fn nodes(connection: &Value) -> Vec<Value> {
    connection["edges"]
        .as_array()
        .unwrap_or_else(|| panic!("not a connection: {connection:#}"))
        .iter()
        .map(|edge| edge["node"].clone())
        .collect()
}

/// A string field of every node.
pub fn field_of(connection: &Value, field: &str) -> Vec<String> {
    nodes(connection)
        .iter()
        .map(|node| node[field].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A list nested `levels` deep around one string.
pub fn nested_list(levels: usize) -> Value {
    (0..levels).fold(json!("A1"), |inner, _| json!([inner]))
}

/// Runs `node SCRIPT ARGS…` in `tests/DIR` (after checking `packages` are installed there) and
/// parses its JSON summary: the whole output, or its last line (a script's libraries may log
/// before it).
pub async fn node_summary(dir: &str, packages: &[&str], script: &str, args: &[String]) -> Value {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    for package in packages {
        assert!(
            dir.join("node_modules").join(package).is_dir(),
            "{package} is not installed: run the tests with scripts/test (npm ci in {})",
            dir.display()
        );
    }
    let output = tokio::process::Command::new("node")
        .arg(dir.join(script))
        .args(args)
        .current_dir(&dir)
        .output()
        .await
        .expect("node runs (scripts/test installs Node.js)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script} failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(&stdout)
        .or_else(|_| serde_json::from_str(last))
        .unwrap_or_else(|e| panic!("{script} printed no JSON ({e}): {stdout}"))
}
