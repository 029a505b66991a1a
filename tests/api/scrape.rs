//! Reading the Prometheus text format: the samples of a metric, by label.

use std::collections::HashMap;

/// The samples named `name`: their labels and value.
pub fn samples(text: &str, name: &str) -> Vec<(HashMap<String, String>, f64)> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, labels) = match series.split_once('{') {
                Some((metric, rest)) => (metric, rest.strip_suffix('}')?),
                None => (series, ""),
            };
            if metric != name {
                return None;
            }
            let labels = labels
                .split("\",")
                .filter(|pair| !pair.is_empty())
                .filter_map(|pair| {
                    let (key, value) = pair.split_once('=')?;
                    Some((key.to_owned(), value.trim_matches('"').to_owned()))
                })
                .collect();
            Some((labels, value.parse().ok()?))
        })
        .collect()
}

/// The value of the sample `name` with exactly `labels` (0 when there is none: a counter
/// not incremented yet is not written).
pub fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    samples(text, name)
        .into_iter()
        .find(|(found, _)| {
            found.len() == labels.len()
                && labels
                    .iter()
                    .all(|(k, v)| found.get(*k).map(String::as_str) == Some(*v))
        })
        .map_or(0.0, |(_, value)| value)
}

/// The sum of the samples `name` having `labels` (and any others).
pub fn sum(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    samples(text, name)
        .into_iter()
        .filter(|(found, _)| {
            labels
                .iter()
                .all(|(k, v)| found.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|(_, value)| value)
        .sum()
}

/// Whether a sample `name` is written at all.
pub fn present(text: &str, name: &str) -> bool {
    !samples(text, name).is_empty()
}
