//! Counting server-sent events in place, chunk by chunk, without copying or allocating.
//!
//! An event ends at a blank line (`\n`, `\r\n` or `\r` terminators, split across chunks at any
//! byte). Blocks made only of comment lines (`: keep-alive`) are not events. The first bytes of
//! each line are kept in a fixed buffer so that `event: NAME` can be matched against the names
//! that mark a failed stream.

/// Longest line start kept for matching `event:` names.
const PREFIX: usize = 64;

/// What one chunk completed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scan {
    pub events: u64,
    /// Completed events whose `event:` name is one of the failure names.
    pub failed: u64,
}

#[derive(Debug, Clone)]
pub struct EventScanner {
    failure_names: Vec<Vec<u8>>,
    after_cr: bool,
    line_len: usize,
    prefix: [u8; PREFIX],
    event_has_field: bool,
    event_failed: bool,
}

impl EventScanner {
    pub fn new(failure_names: &[String]) -> Self {
        Self {
            failure_names: failure_names.iter().map(|n| n.as_bytes().to_vec()).collect(),
            after_cr: false,
            line_len: 0,
            prefix: [0; PREFIX],
            event_has_field: false,
            event_failed: false,
        }
    }

    /// Forgets any partial event, for the next response.
    pub fn reset(&mut self) {
        self.after_cr = false;
        self.line_len = 0;
        self.event_has_field = false;
        self.event_failed = false;
    }

    /// True when bytes of an unterminated event are pending (a stream that ends here was cut).
    pub fn has_partial_event(&self) -> bool {
        self.event_has_field || self.line_len > 0
    }

    pub fn feed(&mut self, mut chunk: &[u8]) -> Scan {
        let mut scan = Scan::default();
        while let Some(&first) = chunk.first() {
            if self.after_cr {
                self.after_cr = false;
                if first == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            match memchr::memchr2(b'\n', b'\r', chunk) {
                None => {
                    self.take(chunk);
                    break;
                }
                Some(end) => {
                    self.take(&chunk[..end]);
                    self.after_cr = chunk[end] == b'\r';
                    self.end_line(&mut scan);
                    chunk = &chunk[end + 1..];
                }
            }
        }
        scan
    }

    fn take(&mut self, bytes: &[u8]) {
        let Some(&first) = bytes.first() else { return };
        if self.line_len == 0 && first != b':' {
            self.event_has_field = true;
        }
        if self.line_len < PREFIX {
            let n = bytes.len().min(PREFIX - self.line_len);
            self.prefix[self.line_len..self.line_len + n].copy_from_slice(&bytes[..n]);
        }
        self.line_len += bytes.len();
    }

    fn end_line(&mut self, scan: &mut Scan) {
        if self.line_len == 0 {
            if self.event_has_field {
                scan.events += 1;
                if self.event_failed {
                    scan.failed += 1;
                }
            }
            self.event_has_field = false;
            self.event_failed = false;
            return;
        }
        if self.line_len <= PREFIX
            && let Some(name) = self.prefix[..self.line_len].strip_prefix(b"event:")
        {
            let name = name.strip_prefix(b" ").unwrap_or(name);
            if self.failure_names.iter().any(|f| f.as_slice() == name) {
                self.event_failed = true;
            }
        }
        self.line_len = 0;
    }
}
