//! Real processes for the fault tests: a database server of a test's own (to stop, kill and
//! restart without disturbing the other tests), and gateway processes (to kill mid-request).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Sends `signal` to process `pid`.
fn signal(pid: u32, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(pid).expect("a pid");
    // SAFETY: kill(2) with a pid this test started and a valid signal number.
    let status = unsafe { libc::kill(pid, signal) };
    assert_eq!(status, 0, "kill({pid}, {signal})");
}

/// Whether every thread of process `pid` is stopped (state `T` in `/proc/<pid>/task/*/stat`).
fn all_threads_stopped(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.filter_map(Result::ok).all(|task| {
        std::fs::read_to_string(task.path().join("stat")).is_ok_and(|stat| {
            // The state follows the command name, which is in parentheses.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .is_some_and(|state| state == "T" || state == "t")
        })
    })
}

/// What a process wrote on stdout and stderr, line by line, as it came.
pub type Captured = std::sync::Arc<std::sync::Mutex<String>>;

/// Starts `command`, whose stdout will print a line containing `marker` followed by the
/// address it listens on; returns the child and that address. With `capture`, both outputs
/// are kept there.
fn start_listening(
    mut command: Command,
    marker: &str,
    capture: Option<&Captured>,
) -> (Child, SocketAddr) {
    // BOXOFFICE_TEST_PROCESS_OUTPUT=1 shows what the process prints (its logs too).
    let echo = std::env::var_os("BOXOFFICE_TEST_PROCESS_OUTPUT").is_some();
    let stderr = if capture.is_some() {
        Stdio::piped()
    } else if echo {
        Stdio::inherit()
    } else {
        Stdio::null()
    };
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|error| panic!("starting {command:?}: {error}"));
    let stdout = child.stdout.take().expect("piped stdout");
    if let (Some(stderr), Some(capture)) = (child.stderr.take(), capture) {
        let capture = std::sync::Arc::clone(capture);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut captured = capture.lock().unwrap();
                captured.push_str(&line);
                captured.push('\n');
            }
        });
    }
    let stdout_capture = capture.cloned();
    let (found, address) = std::sync::mpsc::channel();
    let marker = marker.to_owned();
    // Reads the whole output (so the process never blocks on a full pipe), reporting the
    // address once.
    std::thread::spawn(move || {
        let mut found = Some(found);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if echo {
                eprintln!("[child] {line}");
            }
            if let Some(capture) = &stdout_capture {
                let mut captured = capture.lock().unwrap();
                captured.push_str(&line);
                captured.push('\n');
            }
            if let Some(rest) = line.split(&marker).nth(1) {
                let address: String = rest
                    .trim_start_matches("http://")
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                    .collect();
                if let Some(found) = found.take() {
                    let _ = found.send(address);
                }
            }
        }
    });
    let address = address
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{command:?} did not say where it listens"));
    (child, address.parse().expect("an address"))
}

/// A database server of one test: SecantusDB on a port and a directory of its own.
pub struct OwnDatabase {
    child: Option<Child>,
    pub address: SocketAddr,
    storage: PathBuf,
}

impl OwnDatabase {
    pub fn start() -> OwnDatabase {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let storage =
            std::env::temp_dir().join(format!("boxoffice-own-db-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&storage).expect("a storage directory");
        let mut database = OwnDatabase {
            child: None,
            address: "127.0.0.1:0".parse().unwrap(),
            storage,
        };
        database.launch(0);
        database
    }

    fn launch(&mut self, port: u16) {
        let binary = std::env::var("BOXOFFICE_TEST_SECANTUSD").expect(
            "BOXOFFICE_TEST_SECANTUSD is not set: run the tests with scripts/test, which \
             installs the test database server",
        );
        let mut command = Command::new(binary);
        command
            .arg("--port")
            .arg(port.to_string())
            .arg("--storage-path")
            .arg(&self.storage)
            .arg("--log-level")
            .arg("WARNING");
        let (child, address) = start_listening(command, "listening on ", None);
        self.child = Some(child);
        self.address = address;
    }

    pub fn uri(&self) -> String {
        format!("mongodb://{}/?directConnection=true", self.address)
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// Freezes the server (SIGSTOP): it keeps its connections and answers nothing. Returns
    /// once every thread of it has stopped: a thread running on another core goes on for a
    /// moment after kill(2) returns, long enough, on a loaded machine, to answer the very
    /// command a test froze the server to keep unanswered.
    pub fn freeze(&self) {
        let pid = self.pid();
        signal(pid, libc::SIGSTOP);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !all_threads_stopped(pid) {
            assert!(
                Instant::now() < deadline,
                "the database server did not stop"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Lets a frozen server go on (SIGCONT).
    pub fn thaw(&self) {
        signal(self.pid(), libc::SIGCONT);
    }

    /// Kills the server (SIGKILL).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port and storage.
    pub fn restart(&mut self) {
        self.kill();
        self.launch_again();
    }

    /// Stops the server as an operator would (SIGTERM: it writes out what it holds; SIGKILL
    /// loses SecantusDB's last second of writes) and starts it again on the same port and
    /// storage.
    pub fn restart_gracefully(&mut self) {
        self.stop();
        self.launch_again();
    }

    /// Stops the server as an operator would (SIGTERM), until [`OwnDatabase::start_again`]:
    /// nothing listens on its port meanwhile.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal(child.id(), libc::SIGTERM);
            let _ = child.wait();
        }
    }

    /// Starts a stopped server again on the same port and storage.
    pub fn start_again(&mut self) {
        self.launch_again();
    }

    fn launch_again(&mut self) {
        let port = self.address.port();
        // The port may take a moment to be free again.
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpListener::bind(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "port {port} stayed taken");
            std::thread::sleep(Duration::from_millis(50));
        }
        self.launch(port);
    }
}

impl Drop for OwnDatabase {
    fn drop(&mut self) {
        if let Some(child) = &self.child {
            // A frozen process must be thawed to die promptly.
            let _ = signal_quietly(child.id(), libc::SIGCONT);
        }
        self.kill();
        let _ = std::fs::remove_dir_all(&self.storage);
    }
}

fn signal_quietly(pid: u32, signal: libc::c_int) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: as in `signal`; a failure is ignored.
    unsafe { libc::kill(pid, signal) == 0 }
}

/// A gateway process (`boxoffice serve`) over database `database` of `uri`.
pub struct GatewayProcess {
    child: Child,
    pub address: SocketAddr,
}

impl GatewayProcess {
    pub fn start(uri: &str, database: &str, extra: &[&str]) -> GatewayProcess {
        GatewayProcess::launch(uri, database, &[], extra, None)
    }

    /// [`GatewayProcess::start`] with more environment variables (test-only delay points).
    pub fn start_with_env(
        uri: &str,
        database: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> GatewayProcess {
        GatewayProcess::launch(uri, database, env, extra, None)
    }

    /// A gateway with `env` set (after the defaults, so `RUST_LOG` may be overridden), whose
    /// stdout and stderr are kept in the returned buffer.
    pub fn start_captured(
        uri: &str,
        database: &str,
        env: &[(&str, &str)],
        extra: &[&str],
    ) -> (GatewayProcess, Captured) {
        let captured = Captured::default();
        let process = GatewayProcess::launch(uri, database, env, extra, Some(&captured));
        (process, captured)
    }

    /// A gateway whose address space is capped at `bytes` (`RLIMIT_AS`): an allocation past
    /// it fails, and the process aborts rather than take the machine's memory.
    pub fn start_capped(uri: &str, database: &str, extra: &[&str], bytes: u64) -> GatewayProcess {
        GatewayProcess::launch_with(uri, database, &[], extra, None, Some(bytes))
    }

    fn launch(
        uri: &str,
        database: &str,
        env: &[(&str, &str)],
        extra: &[&str],
        capture: Option<&Captured>,
    ) -> GatewayProcess {
        GatewayProcess::launch_with(uri, database, env, extra, capture, None)
    }

    fn launch_with(
        uri: &str,
        database: &str,
        env: &[(&str, &str)],
        extra: &[&str],
        capture: Option<&Captured>,
        address_space: Option<u64>,
    ) -> GatewayProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_boxoffice"));
        if let Some(bytes) = address_space {
            use std::os::unix::process::CommandExt;
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            // SAFETY: setrlimit(2) is async-signal-safe and touches nothing of the parent.
            unsafe {
                command.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        command
            .env("MONGODB_URI", uri)
            .env("BOXOFFICE_DATABASE", database)
            .env(
                "BOXOFFICE_TICKET_SECRET",
                crate::helpers::TEST_TICKET_SECRET,
            )
            .env(
                "RUST_LOG",
                std::env::var("BOXOFFICE_TEST_GATEWAY_LOG").unwrap_or_else(|_| "warn".into()),
            )
            // The suite runs many tests at once on a small machine: a request may wait longer
            // at the door than in production (see `helpers::test_database_options`).
            .env("BOXOFFICE_ADMISSION_WAIT_MS", "5000")
            .envs(env.iter().copied())
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(extra);
        let (child, address) = start_listening(command, "Playground: ", capture);
        GatewayProcess { child, address }
    }

    /// Stops the gateway as an operator would (SIGTERM) and waits until it has exited.
    pub fn stop(&mut self) {
        self.terminate();
        let _ = self.child.wait();
    }

    /// Asks the gateway to stop (SIGTERM), as an orchestrator does.
    pub fn terminate(&self) {
        signal(self.child.id(), libc::SIGTERM);
    }

    /// Whether the process is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the process to exit, up to `within`; its exit status, or None if it is still
    /// running then.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the gateway") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/graphql", self.address)
    }

    /// Posts `query` as the channel with `key`, in a task of its own (to kill the gateway
    /// while it runs).
    pub fn post_in_background(
        &self,
        key: &str,
        query: &'static str,
        variables: serde_json::Value,
    ) -> tokio::task::JoinHandle<reqwest::Result<reqwest::Response>> {
        let (url, key) = (self.url(), key.to_owned());
        tokio::spawn(async move {
            reqwest::Client::new()
                .post(url)
                .bearer_auth(key)
                .json(&serde_json::json!({ "query": query, "variables": variables }))
                .send()
                .await
        })
    }

    /// The most resident memory the process has had, in bytes (`VmHWM`).
    pub fn peak_resident_bytes(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the gateway's /proc status");
        let kb: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/<pid>/status");
        kb * 1024
    }

    /// Kills the gateway (SIGKILL): whatever it was doing stops there.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for GatewayProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
