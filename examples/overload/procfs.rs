//! What `/proc` says about the gateway and database processes: CPU time, peak memory and the
//! threads waiting for a CPU. Read from outside, so the benchmark measures a process exactly as
//! it runs in production.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// CPU time (user + system) process `pid` has used so far; the benchmarks' shared reader.
pub use super::server_cpu::process_cpu;

/// The most resident memory process `pid` has had, in bytes (`VmHWM`).
pub fn peak_resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// How many threads of process `pid` are running or waiting for a CPU (state `R`). A server
/// with a thread per connection, as SecantusDB is, has one such thread per command it is
/// working on or about to: on a database pinned to one core, the queue in front of that core.
pub fn runnable_threads(pid: u32) -> Option<usize> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let runnable = |task: std::fs::DirEntry| {
        let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
        // The state follows the command name, which is in parentheses and may hold any byte.
        let (_, rest) = stat.rsplit_once(')')?;
        Some(rest.trim_start().starts_with('R'))
    };
    Some(
        tasks
            .filter_map(Result::ok)
            .filter_map(runnable)
            .filter(|&running| running)
            .count(),
    )
}

/// Samples [`runnable_threads`] of a process every [`RunQueue::EVERY`] on a thread of its own,
/// until dropped or read.
pub struct RunQueue {
    stop: Arc<AtomicBool>,
    sampler: Option<JoinHandle<(usize, usize)>>,
}

impl RunQueue {
    /// Often enough to see a queue that changes with every command, rarely enough that the
    /// sampler (on the clients' core) costs them little: 70 threads, a read of a few microseconds
    /// each, 50 times a second is under 2% of a core.
    pub const EVERY: Duration = Duration::from_millis(20);

    pub fn start(pid: u32) -> RunQueue {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let sampler = std::thread::spawn(move || {
            let (mut sum, mut samples) = (0, 0);
            while !stopped.load(Ordering::Relaxed) {
                if let Some(runnable) = runnable_threads(pid) {
                    sum += runnable;
                    samples += 1;
                }
                std::thread::sleep(RunQueue::EVERY);
            }
            (sum, samples)
        });
        RunQueue {
            stop,
            sampler: Some(sampler),
        }
    }

    /// The mean number of runnable threads since the start; None without a sample.
    pub fn mean(&mut self) -> Option<f64> {
        self.stop.store(true, Ordering::Relaxed);
        let (sum, samples) = self.sampler.take()?.join().ok()?;
        (samples > 0).then(|| sum as f64 / samples as f64)
    }
}

impl Drop for RunQueue {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
