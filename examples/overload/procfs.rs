//! What `/proc` says about the gateway and database processes: CPU time and peak memory. Read
//! from outside, so the benchmark measures a process exactly as it runs in production.

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
