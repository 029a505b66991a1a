//! Telemetry: log lines (text or JSON, on stderr, filtered by `RUST_LOG`), traces exported
//! over OTLP/HTTP when an endpoint is configured, and the Prometheus figures (`metrics`).
//! `main` calls [`init`] once and keeps the returned [`Telemetry`] until it exits, which
//! flushes the spans not yet exported.

pub mod lag;
pub mod metrics;

use clap::{Args, ValueEnum};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// The service name traces are exported under.
pub const SERVICE_NAME: &str = "boxoffice";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines, the spans' fields (the request id) before the message.
    #[default]
    Text,
    /// One JSON object a line, with the current span and the span list (the request id).
    Json,
}

/// Log and trace settings (flags, or the environment variables beside them).
#[derive(Debug, Clone, Args)]
pub struct TelemetryArgs {
    /// How log lines are written on stderr: `text`, or `json` (one object a line).
    #[arg(long, env = "BOXOFFICE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
    /// Where traces are exported with OTLP over HTTP (JSON), e.g. `http://collector:4318`
    /// (spans are posted to its `/v1/traces`). Unset: no traces are exported.
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT", global = true)]
    pub otlp_endpoint: Option<String>,
}

/// What telemetry keeps while the process runs; dropping it (or [`Telemetry::shutdown`])
/// flushes the spans not yet exported.
#[derive(Debug)]
pub struct Telemetry {
    tracer_provider: Option<SdkTracerProvider>,
}

/// Sets up the process's log lines, traces and metrics recorder. Must run inside the Tokio
/// runtime (the metrics upkeep is a task of it).
pub fn init(args: &TelemetryArgs) -> anyhow::Result<Telemetry> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let tracer_provider = args
        .otlp_endpoint
        .as_deref()
        .filter(|endpoint| !endpoint.trim().is_empty())
        .map(tracer_provider)
        .transpose()?;
    // Only the gateway's own spans are exported: the exporter's HTTP client must not trace
    // its own requests (each export would make spans for the next).
    let traces = tracer_provider.as_ref().map(|provider| {
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer(SERVICE_NAME))
            .with_filter(Targets::new().with_target("boxoffice", LevelFilter::TRACE))
    });
    let logs = match args.log_format {
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
    };
    tracing_subscriber::registry()
        .with(filter)
        .with(logs)
        .with(traces)
        .try_init()?;
    metrics::install();
    Ok(Telemetry { tracer_provider })
}

/// A tracer provider exporting in batches to `endpoint` over OTLP/HTTP with JSON bodies.
fn tracer_provider(endpoint: &str) -> anyhow::Result<SdkTracerProvider> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpJson)
        .with_endpoint(format!("{}/v1/traces", endpoint.trim_end_matches('/')))
        .build()?;
    Ok(SdkTracerProvider::builder()
        .with_resource(Resource::builder().with_service_name(SERVICE_NAME).build())
        .with_batch_exporter(exporter)
        .build())
}

impl Telemetry {
    /// Flushes and stops the trace export (also done on drop).
    pub fn shutdown(&mut self) {
        if let Some(provider) = self.tracer_provider.take() {
            if let Err(error) = provider.shutdown() {
                eprintln!("flushing traces failed: {error}");
            }
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        self.shutdown();
    }
}
