//! A gateway's metrics lines, made short enough to print after every step: a histogram's
//! `_sum` and `_count` become one line (count and mean), and each family shows its largest
//! series only (the whole scrape is kept beside the gateway's log).

use std::collections::BTreeMap;

/// Series shown per family; the rest are counted.
const PER_FAMILY: usize = 8;

/// One series: its name, its labels (`{…}`, or empty) and its value.
fn parse(line: &str) -> Option<(&str, &str, f64)> {
    let (series, value) = line.rsplit_once(' ')?;
    let value = value.parse().ok()?;
    let (name, labels) = match series.find('{') {
        Some(brace) => series.split_at(brace),
        None => (series, ""),
    };
    Some((name, labels, value))
}

pub fn compact(lines: &[String]) -> Vec<String> {
    let series: Vec<(&str, &str, f64)> = lines.iter().filter_map(|l| parse(l)).collect();
    let value_of = |name: &str, labels: &str| {
        (series.iter())
            .find(|(n, l, _)| *n == name && *l == labels)
            .map(|(_, _, v)| *v)
    };
    // Family → (size to rank by, printed line).
    let mut families: BTreeMap<String, Vec<(f64, String)>> = BTreeMap::new();
    for &(name, labels, value) in &series {
        let summed = |base: &str| value_of(&format!("{base}_sum"), labels).is_some();
        if name.strip_suffix("_count").is_some_and(summed) {
            continue; // Printed with its `_sum`.
        }
        let (family, line) = match name.strip_suffix("_sum") {
            Some(base) => match value_of(&format!("{base}_count"), labels) {
                Some(count) => {
                    let mean = value / count.max(1.0);
                    let mean = if base.ends_with("_seconds") {
                        format!("{:.1} ms", mean * 1000.0)
                    } else {
                        format!("{mean:.3}")
                    };
                    (
                        base,
                        (count, format!("{base}{labels} count {count} mean {mean}")),
                    )
                }
                None => (name, (value, format!("{name}{labels} {value}"))),
            },
            None => (name, (value, format!("{name}{labels} {value}"))),
        };
        families.entry(family.to_owned()).or_default().push(line);
    }
    let mut out = Vec::new();
    for (_, mut lines) in families {
        lines.sort_by(|a, b| b.0.total_cmp(&a.0));
        let more = lines.len().saturating_sub(PER_FAMILY);
        out.extend(lines.into_iter().take(PER_FAMILY).map(|(_, line)| line));
        if more > 0 {
            out.push(format!("  (+{more} smaller series)"));
        }
    }
    out
}
