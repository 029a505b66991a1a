//! Settings from command-line flags and environment variables (clap).
//!
//! Split by what each part is: the commands (`Cli`, here, and the small commands in
//! `commands`), the flags of each area (`database`, `serve`, `limits`, `booking`), and what
//! the process builds from them (`policies`: the policies, limits and intervals each feature is
//! given), so a flag and the policy it sets are each found in one place.

mod booking;
mod commands;
mod database;
mod limits;
mod policies;
mod serve;

use clap::{Parser, Subcommand};

pub use booking::BookingArgs;
pub use commands::{ChannelCommand, DemoArgs, OperatorCommand, Scale, WebhookCommand};
pub use database::DatabaseArgs;
pub use limits::Limits;
pub use serve::{CatalogueArgs, EventArgs, PeerUrl, ProcessArgs, ServeArgs};

/// Boxoffice: a GraphQL gateway for cinema ticketing on MongoDB.
#[derive(Debug, Parser)]
#[command(name = "boxoffice", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub telemetry: crate::telemetry::TelemetryArgs,
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: the size of the `serve` variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the GraphQL API and the playground.
    Serve(ServeArgs),
    /// Generate demo data into the database.
    Demo(DemoArgs),
    /// Manage sales channels.
    #[command(subcommand)]
    Channel(ChannelCommand),
    /// Manage operators (cinema chains and the platform, who write the catalogue).
    #[command(subcommand)]
    Operator(OperatorCommand),
    /// Print the schema (SDL).
    Schema,
}
