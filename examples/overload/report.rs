//! The printed figures: a Markdown table per scenario, and a few lines per step.

use std::time::Duration;

use crate::record::{Figures, Outcome};

/// What the gateways and the database spent during a load.
#[derive(Clone)]
pub struct Spent {
    pub gateway_cpu: Duration,
    pub database_cpu: Option<Duration>,
    /// The commands the database server ran (`serverStatus.opcounters`), when it counts them:
    /// the clients' requests', the gateways' background work and anything else on the server.
    pub commands: Option<i64>,
    /// The successful seat changes over the same span, which the figures per change divide by.
    pub changes: usize,
    /// Commands inside the database server at once on average, by its own clock
    /// (`serverStatus.opLatencies`), when it keeps one.
    pub database_in_flight: Option<f64>,
    /// The database's threads running or waiting for a CPU on average (`/proc`), with
    /// `BENCH_DATABASE_PID`.
    pub database_runnable: Option<f64>,
    /// The largest gateway's peak RSS, in bytes.
    pub peak_rss: u64,
}

impl Spent {
    /// The database's commands per successful seat change.
    pub fn commands_per_change(&self) -> Option<f64> {
        let commands = self.commands?;
        (self.changes > 0).then(|| commands as f64 / self.changes as f64)
    }

    /// The database's CPU per successful seat change.
    pub fn database_cpu_per_change(&self) -> Option<Duration> {
        let cpu = self.database_cpu?;
        (self.changes > 0).then(|| cpu / self.changes as u32)
    }
}

/// One line of a table.
#[derive(Clone)]
pub struct Row {
    pub clients: usize,
    /// The gateway processes the clients were split over.
    pub gateways: usize,
    pub figures: Figures,
    pub spent: Spent,
}

pub fn table(title: &str, rows: &[Row]) {
    println!("\n### {title}\n");
    println!(
        "| clients | seat changes | goodput/s | attempts/s | 503 % | 504 % | 429 % | timeouts % \
         | conn err % | success p50/p99 ms | refusal p50/p99 ms | answered p50/p99 ms \
         | first success s | gateway CPU s | db CPU s | db commands/change | db CPU ms/change \
         | db in flight | db runnable threads | peak RSS MiB |"
    );
    println!(
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for Row {
        clients,
        figures: f,
        spent,
        ..
    } in rows
    {
        let (success_p50, success_p99) = f.success_latency();
        let (refusal_p50, refusal_p99) = f.refusal_latency();
        let (answered_p50, answered_p99) = f.answered_latency();
        let commands = spent
            .commands_per_change()
            .map_or("-".into(), |commands| format!("{commands:.1}"));
        let database_per_change = spent.database_cpu_per_change().map_or("-".into(), |cpu| {
            format!("{:.2}", cpu.as_secs_f64() * 1000.0)
        });
        let [in_flight, runnable] = [spent.database_in_flight, spent.database_runnable]
            .map(|mean| mean.map_or("-".into(), |mean| format!("{mean:.2}")));
        println!(
            "| {clients} | {} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {} / {} \
             | {} / {} | {} / {} | {} | {:.1} | {} | {commands} | {database_per_change} \
             | {in_flight} | {runnable} | {:.0} |",
            f.changes,
            f.goodput(),
            f.attempts_per_second(),
            f.share(Outcome::Unavailable),
            f.share(Outcome::GatewayTimeout),
            f.share(Outcome::RateLimited),
            f.share(Outcome::ClientTimeout),
            f.share(Outcome::ConnectionError),
            millis(success_p50),
            millis(success_p99),
            millis(refusal_p50),
            millis(refusal_p99),
            millis(answered_p50),
            millis(answered_p99),
            f.first_change
                .map_or("-".into(), |at| format!("{:.2}", at.as_secs_f64())),
            spent.gateway_cpu.as_secs_f64(),
            spent
                .database_cpu
                .map_or("-".into(), |cpu| format!("{:.1}", cpu.as_secs_f64())),
            spent.peak_rss as f64 / (1024.0 * 1024.0),
        );
    }
}

/// When a scenario ran some number of clients more than once (`BENCH_CLIENTS=10,600,600,10`),
/// the means of each number's steps, and the largest number's goodput against the smallest's.
/// Alternated steps share the server's drift (its history, the machine's speed from one
/// minute to the next), which a single sequence from few clients to many lays on its last
/// steps. Measured (issue 48, 64 showtimes, 2 gateways): the 10-client steps of four runs
/// within ten minutes served 197 to 388 seat changes/s.
pub fn repeated(rows: &[Row]) {
    let counts = clients_counts(rows);
    if counts.len() == rows.len() {
        return;
    }
    println!("\nmeans of the steps of each number of clients:\n");
    println!("| clients | steps | goodput/s | db CPU ms/change |");
    println!("|---:|---:|---:|---:|");
    let mut goodputs = Vec::new();
    for &clients in &counts {
        let steps: Vec<&Row> = rows.iter().filter(|row| row.clients == clients).collect();
        let n = steps.len() as f64;
        let goodput = steps.iter().map(|row| row.figures.goodput()).sum::<f64>() / n;
        let cpu: Vec<f64> = (steps.iter())
            .filter_map(|row| row.spent.database_cpu_per_change())
            .map(|cpu| cpu.as_secs_f64() * 1000.0)
            .collect();
        let cpu = match cpu.len() {
            0 => "-".into(),
            len => format!("{:.2}", cpu.iter().sum::<f64>() / len as f64),
        };
        println!("| {clients} | {} | {goodput:.0} | {cpu} |", steps.len());
        goodputs.push(goodput);
    }
    if let (Some(fewest), Some(most)) = (goodputs.first(), goodputs.last()) {
        if *fewest > 0.0 {
            println!(
                "\n{} clients served {:.0}% of what {} did",
                counts[counts.len() - 1],
                100.0 * most / fewest,
                counts[0]
            );
        }
    }
}

/// When steps ran with different numbers of gateways (`BENCH_GATEWAYS=1,2`), each number of
/// clients' pairs of steps one after the other (the order the run took: [`Row`]s in turn),
/// the goodput of the last number of gateways against the first's in each pair, and their
/// mean; beside it the means of the database's CPU and commands per seat change.
pub fn compared(rows: &[Row]) {
    let (Some(first), Some(last)) = (rows.first(), rows.iter().map(|row| row.gateways).max())
    else {
        return;
    };
    let first = rows
        .iter()
        .map(|row| row.gateways)
        .min()
        .unwrap_or(first.gateways);
    if first == last {
        return;
    }
    println!("\n{last} gateways against {first}, pair by pair (steps run one after the other):\n");
    println!(
        "| clients | pairs | goodput ratio, each pair | mean ratio | goodput/s {first} gw, {last} gw \
         | db CPU ms/change {first} gw, {last} gw | db commands/change {first} gw, {last} gw |"
    );
    println!("|---:|---:|---|---:|---|---|---|");
    for clients in clients_counts(rows) {
        let of = |gateways: usize| -> Vec<&Row> {
            (rows.iter())
                .filter(|row| row.clients == clients && row.gateways == gateways)
                .collect()
        };
        let (few, many) = (of(first), of(last));
        let pairs: Vec<(&Row, &Row)> = few.iter().copied().zip(many.iter().copied()).collect();
        let ratios: Vec<f64> = (pairs.iter())
            .filter(|(few, _)| few.figures.goodput() > 0.0)
            .map(|(few, many)| many.figures.goodput() / few.figures.goodput())
            .collect();
        if ratios.is_empty() {
            continue;
        }
        let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len().max(1) as f64;
        let means = |rows: &[&Row], value: &dyn Fn(&Row) -> Option<f64>| -> String {
            let values: Vec<f64> = rows.iter().filter_map(|row| value(row)).collect();
            if values.is_empty() {
                "-".into()
            } else {
                format!("{:.2}", mean(&values))
            }
        };
        let goodput = |row: &Row| Some(row.figures.goodput());
        let cpu =
            |row: &Row| (row.spent.database_cpu_per_change()).map(|cpu| cpu.as_secs_f64() * 1000.0);
        let commands = |row: &Row| row.spent.commands_per_change();
        println!(
            "| {clients} | {} | {} | {:.2} | {}, {} | {}, {} | {}, {} |",
            ratios.len(),
            (ratios.iter().map(|ratio| format!("{ratio:.2}")))
                .collect::<Vec<_>>()
                .join(", "),
            mean(&ratios),
            means(&few, &goodput),
            means(&many, &goodput),
            means(&few, &cpu),
            means(&many, &cpu),
            means(&few, &commands),
            means(&many, &commands),
        );
    }
}

/// The numbers of clients of `rows`, each once, fewest first.
fn clients_counts(rows: &[Row]) -> Vec<usize> {
    let mut counts: Vec<usize> = rows.iter().map(|row| row.clients).collect();
    counts.sort_unstable();
    counts.dedup();
    counts
}

/// The counts behind a step's row, and the clients' own CPU.
pub fn summary_line(f: &Figures, load_cpu: Duration) -> String {
    format!(
        "{} attempts, {} seat changes, {} business refusals, {} other answers, {} replay \
         mismatches; the clients' own CPU {:.1} s",
        f.attempts.len(),
        f.changes,
        f.count(Outcome::Business),
        f.count(Outcome::Other),
        f.mismatches,
        load_cpu.as_secs_f64(),
    )
}

pub fn per_second(seconds: &[(usize, Option<Duration>)]) -> String {
    (seconds.iter())
        .map(|(changes, _)| changes.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn per_second_with_p99(seconds: &[(usize, Option<Duration>)]) -> String {
    (seconds.iter())
        .map(|(changes, p99)| format!("{changes}/{}", millis(*p99)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn millis(latency: Option<Duration>) -> String {
    latency.map_or("-".into(), |l| format!("{:.0}", l.as_secs_f64() * 1000.0))
}
