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

/// Raises this process's open-file limit to its hard limit: 4 × the knee can be a couple of
/// thousand client connections, past the usual soft limit of 1,024. The gateways started
/// afterwards inherit it, so they are not refused connections for want of descriptors either.
pub fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) and setrlimit(2) with a valid resource and a pointer to a local.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
