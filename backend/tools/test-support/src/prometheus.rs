//! Reading Prometheus text exposition in tests.

/// The sum of the samples of `name` whose labels include every pair of `labels`.
pub fn prometheus_sample(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    prometheus_series(text, name)
        .filter(|(series_labels, _)| labels.iter().all(|(k, v)| series_labels.iter().any(|(a, b)| a == k && b == v)))
        .map(|(_, value)| value)
        .sum()
}

/// Every sample of `name`: its labels and value.
pub fn prometheus_series<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = (Vec<(String, String)>, f64)> + 'a {
    text.lines().filter(|line| !line.starts_with('#')).filter_map(move |line| {
        let (series, value) = line.rsplit_once(' ')?;
        let (metric, rest) = series.split_once('{').unwrap_or((series, "}"));
        if metric != name {
            return None;
        }
        let labels = rest
            .trim_end_matches('}')
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.trim_matches('"').to_owned()))
            .collect();
        Some((labels, value.parse().ok()?))
    })
}

/// The metric names a text exposition declares (`# TYPE` lines).
pub fn prometheus_names(text: &str) -> Vec<String> {
    text.lines().filter_map(|line| line.strip_prefix("# TYPE ")?.split(' ').next().map(str::to_owned)).collect()
}
