//! The gateway's side of both scenarios: it lets the clients' process go from phase to phase
//! and reads its own memory and CPU in between.

use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use boxoffice::live::Live;

use crate::clients;
use crate::server_cpu::{self, ThreadCpu};
use crate::{mib, ms, rss_kib, us};

/// What is measured of the gateway.
pub struct Gateway {
    pub cpu: ThreadCpu,
    pub live: Live,
}

/// Both scenarios: the clients open their connections, then subscribe; prints the gateway's
/// memory and CPU for each step, and returns its RSS before the first connection (KiB).
fn subscribe(gateway: &Gateway, clients: &mut Clients) -> anyhow::Result<u64> {
    clients.at("ready")?;
    let (rss_before, cpu_before) = (rss_kib(), gateway.cpu.used());
    clients.next()?;
    let connections: u32 = clients.at("connected")?[0].parse()?;
    let (rss_connected, cpu_connected) = (rss_kib(), gateway.cpu.used());
    clients.next()?;
    let subscribed: u32 = clients.at("subscribed")?[0].parse()?;
    let (rss_subscribed, cpu_subscribed) = (rss_kib(), gateway.cpu.used());
    let per = |kib: u64, count: u32| kib as f64 / count.max(1) as f64;
    println!(
        "gateway, {connections} connections opened (connection_init, no subscription): RSS {} → \
         {}, {:.1} KiB per connection; CPU {} per connection",
        mib(rss_before),
        mib(rss_connected),
        per(rss_connected.saturating_sub(rss_before), connections),
        ms((cpu_connected - cpu_before) / connections.max(1)),
    );
    println!(
        "gateway, {subscribed} subscriptions (Live::subscriptions() = {}): RSS → {}, {:.1} KiB \
         per subscription; CPU {} per subscription",
        gateway.live.subscriptions(),
        mib(rss_subscribed),
        per(rss_subscribed.saturating_sub(rss_connected), subscribed),
        ms((cpu_subscribed - cpu_connected) / subscribed.max(1)),
    );
    println!(
        "gateway, connections and subscriptions together: RSS +{}, {:.1} KiB per connection",
        mib(rss_subscribed.saturating_sub(rss_before)),
        per(rss_subscribed.saturating_sub(rss_before), connections),
    );
    Ok(rss_before)
}

pub fn busy(gateway: &Gateway, clients: &mut Clients) -> anyhow::Result<()> {
    let rss_before = subscribe(gateway, clients)?;

    let cpu_before = gateway.cpu.used();
    clients.next()?;
    let writes: u32 = clients.at("baseline")?[0].parse()?;
    let baseline = (gateway.cpu.used() - cpu_before) / writes.max(1);
    println!(
        "gateway, writes to an unwatched showtime: CPU {} per write",
        ms(baseline)
    );

    let machine = Machine::read(gateway, clients);
    clients.next()?;
    let fields = clients.at("delivered")?;
    let spent = Machine::read(gateway, clients).since(&machine);
    let rss_after = rss_kib();
    let (writes, events): (u32, u32) = (fields[0].parse()?, fields[1].parse()?);
    clients.at("done")?;
    let cpu = spent.gateway;
    let fan_out = cpu.saturating_sub(baseline * writes) / events.max(1);
    println!(
        "gateway, writes to the watched showtime: CPU {} in all, {} per write, {} per delivered \
         event; less the unwatched writes' CPU: {} per delivered event",
        ms(cpu),
        ms(cpu / writes.max(1)),
        us(cpu / events.max(1)),
        us(fan_out),
    );
    println!(
        "CPU over those {:.2} s (wall) on {} cores: gateway {:.2} s, clients {:.2} s, database {}",
        spent.wall.as_secs_f64(),
        std::thread::available_parallelism().map_or(0, usize::from),
        spent.gateway.as_secs_f64(),
        spent.clients.unwrap_or_default().as_secs_f64(),
        spent
            .database
            .map_or("- (set BENCH_DATABASE_PID)".into(), |cpu| format!(
                "{:.2} s",
                cpu.as_secs_f64()
            )),
    );
    println!(
        "gateway RSS after the writes: {} (+{} from before the connections)",
        mib(rss_after),
        mib(rss_after.saturating_sub(rss_before)),
    );
    clients.next()?;
    Ok(())
}

pub fn idle(gateway: &Gateway, clients: &mut Clients) -> anyhow::Result<()> {
    subscribe(gateway, clients)?;
    const QUIET: Duration = Duration::from_secs(10);
    let cpu_before = gateway.cpu.used();
    std::thread::sleep(QUIET);
    println!(
        "gateway CPU over {} s with every subscription idle: {}; RSS then {}",
        QUIET.as_secs(),
        ms(gateway.cpu.used() - cpu_before),
        mib(rss_kib()),
    );
    clients.next()?;
    Ok(())
}

/// CPU used so far by the gateway's runtime, the clients' process and the database's.
struct Machine {
    wall: Instant,
    gateway: Duration,
    clients: Option<Duration>,
    database: Option<Duration>,
}

/// CPU used between two readings.
struct Spent {
    wall: Duration,
    gateway: Duration,
    clients: Option<Duration>,
    database: Option<Duration>,
}

impl Machine {
    fn read(gateway: &Gateway, clients: &Clients) -> Machine {
        let database = std::env::var("BENCH_DATABASE_PID").ok();
        Machine {
            wall: Instant::now(),
            gateway: gateway.cpu.used(),
            clients: server_cpu::process_cpu(clients.process.id()),
            database: database
                .and_then(|pid| pid.parse().ok())
                .and_then(server_cpu::process_cpu),
        }
    }

    fn since(&self, before: &Machine) -> Spent {
        let minus = |after: Option<Duration>, before: Option<Duration>| Some(after? - before?);
        Spent {
            wall: self.wall - before.wall,
            gateway: self.gateway - before.gateway,
            clients: minus(self.clients, before.clients),
            database: minus(self.database, before.database),
        }
    }
}

/// The child process running the WebSocket and HTTP clients. It prints its figures, which
/// are echoed, and a marker (`@name fields…`) when a phase is over; after some markers it
/// waits for `next` on its standard input before going on.
pub struct Clients {
    process: Child,
    input: ChildStdin,
    output: Lines<BufReader<ChildStdout>>,
}

impl Clients {
    pub fn start(scenario: &str, address: &str) -> anyhow::Result<Self> {
        let mut process = Command::new(std::env::current_exe()?)
            .args([clients::CHILD, scenario, address])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let input = process.stdin.take().expect("piped");
        let output = BufReader::new(process.stdout.take().expect("piped")).lines();
        Ok(Clients {
            process,
            input,
            output,
        })
    }

    /// Echoes the clients' lines up to the marker `@name`; returns the marker's fields.
    fn at(&mut self, name: &str) -> anyhow::Result<Vec<String>> {
        for line in self.output.by_ref() {
            let line = line?;
            match line.strip_prefix('@') {
                Some(marker) => {
                    let mut fields = marker.split_whitespace().map(str::to_owned);
                    let found = fields.next().unwrap_or_default();
                    anyhow::ensure!(
                        found == name,
                        "expected @{name} from the clients, got @{found}"
                    );
                    return Ok(fields.collect());
                }
                None => println!("{line}"),
            }
        }
        anyhow::bail!(
            "the clients exited before @{name}: {:?}",
            self.process.wait()?
        )
    }

    /// Lets the clients go on to their next phase.
    fn next(&mut self) -> std::io::Result<()> {
        writeln!(self.input, "next")?;
        self.input.flush()
    }

    /// Echoes the rest of the clients' lines and waits for them to exit.
    pub fn finish(mut self) -> anyhow::Result<()> {
        for line in self.output.by_ref() {
            println!("{}", line?);
        }
        let status = self.process.wait()?;
        anyhow::ensure!(status.success(), "the clients failed: {status}");
        Ok(())
    }
}
