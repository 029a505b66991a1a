//! Gateway processes under test: `boxoffice serve` started as a separate process (the release
//! binary, possibly an older build), cold, on a step's database; read from outside through
//! `/proc` and `/metrics`; killed after the step.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::procfs;

/// How the gateways of every step are started.
#[derive(Clone)]
pub struct Launch {
    pub binary: PathBuf,
    pub uri: String,
    /// More flags, after `serve --bind 127.0.0.1:0` (`BENCH_GATEWAY_ARGS`).
    pub extra: Vec<String>,
    /// Where each gateway's log (its stderr) goes.
    pub log_dir: PathBuf,
    /// One ticket secret for every gateway of a run, as a deployment has.
    pub ticket_secret: String,
}

/// One running gateway process.
pub struct Gateway {
    child: Child,
    pub url: String,
    base: String,
    pub log: PathBuf,
}

impl Gateway {
    /// Starts a gateway on `database` and waits until it says where it listens (it prints
    /// the playground's address once it has bound its port, after its start-up work).
    pub fn start(launch: &Launch, database: &str, name: &str) -> anyhow::Result<Gateway> {
        let log = launch.log_dir.join(format!("{name}.log"));
        let mut child = Command::new(&launch.binary)
            .env("MONGODB_URI", &launch.uri)
            .env("BOXOFFICE_DATABASE", database)
            .env("BOXOFFICE_TICKET_SECRET", &launch.ticket_secret)
            .env(
                "RUST_LOG",
                std::env::var("BENCH_GATEWAY_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(&launch.extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log)?)
            .spawn()
            .map_err(|error| anyhow::anyhow!("starting {}: {error}", launch.binary.display()))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (found, address) = std::sync::mpsc::channel();
        // Reads the whole output, so the process never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("Playground: http://").nth(1) {
                    let address: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                        .collect();
                    if let Some(found) = found.take() {
                        let _ = found.send(address);
                    }
                }
            }
        });
        let Ok(address) = address.recv_timeout(Duration::from_secs(120)) else {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!(
                "the gateway did not say where it listens; see {}",
                log.display()
            );
        };
        Ok(Gateway {
            child,
            url: format!("http://{address}/graphql"),
            base: format!("http://{address}"),
            log,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn cpu(&self) -> Duration {
        procfs::process_cpu(self.pid()).unwrap_or_default()
    }

    pub fn peak_resident_bytes(&self) -> u64 {
        procfs::peak_resident_bytes(self.pid()).unwrap_or_default()
    }

    /// The gateway's `/metrics` (Prometheus text), kept whole in `save_to`; returns the lines
    /// about the database, its pool, requests in flight and refusals, whatever the build calls
    /// them (an older build may have none). None when it has no `/metrics` or did not answer
    /// within 5 s.
    pub async fn metrics_excerpt(&self, save_to: &Path) -> Option<Vec<String>> {
        const ABOUT: [&str; 10] = [
            "db_",
            "database",
            "pool",
            "inflight",
            "in_flight",
            "refus",
            "admission",
            "unavailable",
            "rate_limited",
            "errors_total",
        ];
        let response = reqwest::Client::new()
            .get(format!("{}/metrics", self.base))
            .timeout(Duration::from_secs(5))
            .send()
            .await
            .ok()?;
        if !response.status().is_success() {
            return None;
        }
        let text = response.text().await.ok()?;
        let _ = std::fs::write(save_to, &text);
        Some(
            text.lines()
                // Histogram buckets would drown the rest: their `_sum` and `_count` stay.
                .filter(|line| !line.starts_with('#') && !line.contains("_bucket"))
                .filter(|line| {
                    let lower = line.to_ascii_lowercase();
                    ABOUT.iter().any(|word| lower.contains(word))
                })
                .map(str::to_owned)
                .collect(),
        )
    }

    /// Kills the gateway (SIGKILL): a graceful stop would wait for requests the step no longer
    /// cares about, and the step's database is dropped anyway.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What a gateway's log says, in short: its lines and how many are errors and warnings.
pub fn log_summary(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines = text.lines().count();
    let errors = text.lines().filter(|line| line.contains("ERROR")).count();
    let warnings = text.lines().filter(|line| line.contains("WARN")).count();
    format!(
        "{lines} lines ({errors} ERROR, {warnings} WARN) in {}",
        log.display()
    )
}
