//! CPU time for the benchmarks: the threads of the runtime the servers run on (so the load
//! generator's own work is not counted), and the database server's process.

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A runtime with `workers` threads whose CPU time can be read (named `server`, for profilers).
pub fn server_runtime(workers: usize) -> std::io::Result<(tokio::runtime::Runtime, ThreadCpu)> {
    let cpu = ThreadCpu::default();
    let threads = Arc::clone(&cpu.threads);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .thread_name("server")
        .on_thread_start(move || {
            // SAFETY: gettid(2) has no preconditions.
            let tid = unsafe { libc::gettid() };
            threads.lock().unwrap().push(tid);
        })
        .build()?;
    Ok((runtime, cpu))
}

/// The thread ids of a runtime's threads.
#[derive(Clone, Default)]
pub struct ThreadCpu {
    threads: Arc<Mutex<Vec<i32>>>,
}

impl ThreadCpu {
    /// CPU time the threads have used so far (`/proc/self/task/TID/schedstat`, nanoseconds).
    pub fn used(&self) -> Duration {
        let threads = self.threads.lock().unwrap().clone();
        let nanos: u64 = threads
            .iter()
            .filter_map(|tid| {
                std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()
            })
            .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        Duration::from_nanos(nanos)
    }
}

/// CPU time (user + system) another process has used so far, from `/proc/PID/stat`.
#[allow(dead_code)] // Only some benchmarks watch the database server.
pub fn process_cpu(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: count fields after it.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf(3) has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Some(Duration::from_nanos(ticks * 1_000_000_000 / per_second))
}
