//! The progress bar of a load: cinemas done out of the plan's, with elapsed time and ETA, on
//! stderr. It stays hidden for the first second, so quick loads (tests, the small demo) print
//! nothing.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a load runs before its bar appears.
const QUIET_PERIOD: Duration = Duration::from_secs(1);

pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    /// Whether the bar may ever be shown.
    enabled: bool,
    shown: bool,
}

impl Progress {
    pub fn new(cinemas: usize, enabled: bool) -> Self {
        let bar = ProgressBar::with_draw_target(Some(cinemas as u64), ProgressDrawTarget::hidden());
        // The template is a constant: if it were ever wrong, the default style is fine.
        if let Ok(style) = ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} cinemas, ETA {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress {
            bar,
            started: Instant::now(),
            enabled,
            shown: false,
        }
    }

    /// Counts `cinemas` more cinemas as written.
    pub fn advance(&mut self, cinemas: usize) {
        if self.enabled && !self.shown && self.started.elapsed() >= QUIET_PERIOD {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            // Keeps elapsed time and ETA moving while a slow chunk is written.
            self.bar.enable_steady_tick(Duration::from_millis(250));
            self.shown = true;
        }
        self.bar.inc(cinemas as u64);
    }

    /// Removes the bar: the caller reports the totals.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
