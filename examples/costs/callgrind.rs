//! Counting instructions with valgrind's callgrind.
//!
//! The measured process runs under `valgrind --tool=callgrind --instr-atstart=no`: nothing is
//! counted until it asks callgrind, with a client request, to instrument (`start`), and its
//! one window of work ends with a dump of what was counted (`stop`), written to a file of its
//! own. Instrumentation is process-wide, so every thread's work in the window is counted
//! (collection, callgrind's other switch, is per thread). One window a process: callgrind
//! 3.19's zeroing between windows left some dumps with the windows before them counted in.
//! Outside valgrind the requests do nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `VG_USERREQ_TOOL_BASE('C', 'T')`, callgrind's requests (`valgrind/callgrind.h`).
const BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
const DUMP_STATS_AT: usize = BASE + 3;
const START_INSTRUMENTATION: usize = BASE + 4;
const STOP_INSTRUMENTATION: usize = BASE + 5;

/// Instruments from here on (nothing was counted before).
pub fn start() {
    request(START_INSTRUMENTATION, 0);
}

/// Dumps what was counted since [`start`] (the dump is named `label`) and stops instrumenting.
pub fn stop(label: &str) {
    let label = std::ffi::CString::new(label).expect("no NUL in a label");
    request(DUMP_STATS_AT, label.as_ptr() as usize);
    request(STOP_INSTRUMENTATION, 0);
}

/// A valgrind client request: the "special instruction" sequence of `valgrind/valgrind.h` for
/// amd64 (rotations of `rdi` by 128 bits in all, a no-op on a real CPU, then `xchg rbx, rbx`),
/// with the request and its arguments in an array `rax` points to.
#[cfg(target_arch = "x86_64")]
fn request(request: usize, argument: usize) -> usize {
    let arguments: [usize; 6] = [request, argument, 0, 0, 0, 0];
    let result: usize;
    // SAFETY: outside valgrind the sequence changes no register (rdi is rotated back to its
    // value, rbx is exchanged with itself) and touches no memory; under valgrind it reads the
    // six words of `arguments`, which outlive it, and writes the result to rdx.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") 0usize => result,
            in("rax") arguments.as_ptr(),
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(_request: usize, _argument: usize) -> usize {
    panic!("the instruction counts are taken on x86_64 only");
}

/// Whether valgrind can be run.
pub fn available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The instructions counted in the dump file `path` (its `totals:` line).
pub fn instructions(path: &Path) -> std::io::Result<u64> {
    let text = std::fs::read_to_string(path)?;
    text.lines()
        .find_map(|line| {
            let count = line.strip_prefix("totals:")?;
            count.split_whitespace().next()?.parse().ok()
        })
        .ok_or_else(|| std::io::Error::other(format!("no totals in {}", path.display())))
}

/// The window's dump of the process whose `--callgrind-out-file` was `out` (the first dump
/// is `out.1`; `out` itself is written at exit).
pub fn window(out: &Path) -> PathBuf {
    PathBuf::from(format!("{}.1", out.display()))
}
