//! The downstream commit barrier (invariant 4), crossed in memory on the request's record
//! before the first byte is handed to the HTTP layer; from then on nothing is retried. The
//! barrier owns the record, so every observation of the delivery goes through it.

use crate::engine::record::RequestRecord;

pub(super) struct CommitBarrier {
    record: RequestRecord,
    /// The stream reply (status 200 and headers) went to the HTTP layer.
    handed_over: bool,
}

impl CommitBarrier {
    pub(super) fn new(record: RequestRecord) -> Self {
        Self { record, handed_over: false }
    }

    pub(super) fn record(&mut self) -> &mut RequestRecord {
        &mut self.record
    }

    pub(super) fn id(&self) -> crate::domain::RequestId {
        self.record.id
    }

    /// The status line and headers went out (a stream's first frame is read).
    pub(super) fn hand_over(&mut self) {
        self.handed_over = true;
    }

    /// Before a frame's facts are read: a terminal first frame commits without an observation of
    /// its own (its terminal update carries the commit).
    pub(super) fn before_frame(&mut self, terminal: bool) {
        if terminal && !self.record.is_committed() {
            self.record.commit_at_terminal();
        }
    }

    /// Crosses the barrier before the frame is handed over: observed at once (with the response
    /// id the frame may have announced), so a crash after it still leaves a row that says what
    /// the client received. Crossing again does nothing.
    pub(super) fn cross(&mut self, response_id: Option<&str>) {
        self.record.commit(response_id);
    }

    /// A non-stream answer is committed when its terminal event arrives: from then on it will
    /// be delivered.
    pub(super) fn cross_at_terminal(&mut self) {
        self.record.commit_at_terminal();
    }

    /// Whether the client had received anything (a status line or a frame).
    pub(super) fn received(&self) -> bool {
        self.handed_over || self.record.is_committed()
    }
}
