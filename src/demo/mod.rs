//! Demo data: a deterministic catalogue generator (stub, being written).

use crate::config::{DemoArgs, Scale};
use crate::error::ApiError;
use crate::store::Store;

/// How much to generate.
#[derive(Debug, Clone)]
pub struct DemoPlan {
    pub cinemas: usize,
    pub days: u32,
    pub seed: u64,
}

impl DemoPlan {
    pub fn small() -> Self {
        DemoPlan { cinemas: 40, days: 3, seed: 2015 }
    }

    pub fn from_args(args: &DemoArgs) -> Self {
        let preset = match args.scale {
            Scale::Small => DemoPlan::small(),
            Scale::Medium => DemoPlan { cinemas: 500, days: 2, seed: 2015 },
            Scale::National => DemoPlan { cinemas: 5_000, days: 1, seed: 2015 },
        };
        DemoPlan {
            cinemas: args.cinemas.unwrap_or(preset.cinemas),
            days: args.days.unwrap_or(preset.days),
            seed: args.seed,
        }
    }
}

/// What was loaded.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub documents: usize,
    pub cinemas: usize,
    pub halls: usize,
    pub showtimes: usize,
    pub seats: usize,
}

pub async fn load(_store: &Store, _plan: &DemoPlan, _progress: bool) -> Result<Loaded, ApiError> {
    Ok(Loaded::default())
}
