//! Local stop sequences, Unicode-safe: text is held back only while it may still be the start
//! of a stop sequence, always cut at character boundaries, and the text after a match is never
//! released (the caller keeps draining the upstream for its terminal state and usage).

/// The stop filter of one choice.
#[derive(Debug, Clone, Default)]
pub struct StopFilter {
    stops: Vec<String>,
    /// Text received but not yet released: a suffix that may start a stop sequence.
    pending: String,
    stopped: bool,
}

impl StopFilter {
    /// A filter over `stops` (empty sequences are ignored).
    pub fn new(stops: Vec<String>) -> Self {
        Self { stops: stops.into_iter().filter(|s| !s.is_empty()).collect(), pending: String::new(), stopped: false }
    }

    /// Whether a stop sequence matched: nothing more is released.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Feeds `text`; returns what may be released now.
    pub fn push(&mut self, text: &str) -> String {
        if self.stopped {
            return String::new();
        }
        if self.stops.is_empty() {
            return text.to_owned();
        }
        self.pending.push_str(text);
        if let Some(at) = self.stops.iter().filter_map(|stop| self.pending.find(stop.as_str())).min() {
            self.stopped = true;
            let mut released = std::mem::take(&mut self.pending);
            released.truncate(at);
            return released;
        }
        let keep = self.held_back_len();
        let split = self.pending.len() - keep;
        let rest = self.pending.split_off(split);
        std::mem::replace(&mut self.pending, rest)
    }

    /// The end of the text: whatever was held back is released (no stop sequence completed).
    pub fn finish(&mut self) -> String {
        if self.stopped { String::new() } else { std::mem::take(&mut self.pending) }
    }

    /// Applies the stops to a whole text at once: the text before the first match, and
    /// whether one matched.
    pub fn apply(stops: &[String], text: &str) -> (String, bool) {
        let mut filter = Self::new(stops.to_vec());
        let mut out = filter.push(text);
        out.push_str(&filter.finish());
        (out, filter.stopped)
    }

    /// The length of the longest suffix of `pending` (on a character boundary) that is a proper
    /// prefix of a stop sequence.
    fn held_back_len(&self) -> usize {
        let pending = self.pending.as_str();
        pending
            .char_indices()
            .map(|(at, _)| at)
            .find(|&at| {
                let suffix = &pending[at..];
                self.stops.iter().any(|stop| stop.len() > suffix.len() && stop.starts_with(suffix))
            })
            .map_or(0, |at| pending.len() - at)
    }
}
