//! Telemetry: the lock-free series tables, and the engine's metrics as the Prometheus exporter
//! renders them after a scripted run.

mod engine_metrics;
mod series;

/// The sum of the samples of `name` whose labels include all of `labels`, in Prometheus text.
pub fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, "}"));
            (metric == name).then_some((rest.trim_end_matches('}'), value))
        })
        .filter(|(rest, _)| labels.iter().all(|(k, v)| rest.split(',').any(|pair| pair == format!("{k}=\"{v}\""))))
        .filter_map(|(_, value)| value.parse::<f64>().ok())
        .sum()
}
