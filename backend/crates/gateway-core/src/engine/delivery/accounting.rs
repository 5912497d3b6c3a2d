//! Accounting at the end of a delivery: the terminal outcome (usage, cost, the model that
//! served) and the spend the release adds to the key's budgets.

use std::sync::Arc;

use gateway_protocol::events::EventFacts;

use crate::accounting::{PriceTable, token_usage};
use crate::coordination::Spend;
use crate::domain::{RequestOutcome, RequestStatus};
use crate::engine::record::RequestRecord;

pub(super) struct Accounting {
    prices: Arc<PriceTable>,
    /// The model sent upstream.
    model: String,
    /// The model the upstream said served the call, when it said.
    served_model: Option<String>,
    /// The tier the key's policy sent upstream (`force_priority`), recorded and priced when
    /// the response names none.
    pub(super) forced_tier: Option<&'static str>,
}

impl Accounting {
    pub(super) fn new(prices: Arc<PriceTable>, model: String, served_model: Option<String>) -> Self {
        Self { prices, model, served_model, forced_tier: None }
    }

    /// The tier to record and price: the response's own, else the one the policy forced.
    fn tier(&self, facts: &EventFacts) -> Option<String> {
        facts.service_tier.clone().or_else(|| self.forced_tier.map(str::to_owned))
    }

    /// The model to record and price: the response's own, else the upstream's header, else the
    /// one sent.
    fn model(&self, facts: &EventFacts) -> String {
        facts.model.clone().or(self.served_model.clone()).unwrap_or_else(|| self.model.clone())
    }

    /// The outcome of a response that reached its end (or failed after the commit).
    pub(super) fn outcome(
        &self,
        status: RequestStatus,
        error_code: Option<&str>,
        facts: &EventFacts,
        record: &RequestRecord,
    ) -> (RequestOutcome, Option<Spend>) {
        let usage = facts.usage.as_ref().map(token_usage);
        let model = self.model(facts);
        let tier = self.tier(facts);
        let cost = facts.usage.as_ref().map(|u| self.prices.charge(&model, tier.as_deref(), u));
        let outcome = RequestOutcome {
            http_status: Some(200),
            error_code: error_code
                .map(str::to_owned)
                .or_else(|| (status != RequestStatus::Completed).then(|| facts.error_code.clone()).flatten()),
            usage,
            cost,
            service_tier: tier,
            upstream_model: Some(model),
            ..RequestOutcome::default()
        }
        .with_response_id(facts.response_id.as_deref());
        let spend = outcome.usage.as_ref().map(|usage| Spend {
            client_key: record.client_key,
            period: record.spend_period,
            tokens: usage.total_tokens,
            cost: outcome.cost.unwrap_or_default(),
        });
        (outcome, spend)
    }

    /// The outcome of a client that went away: what it had received, nothing spent.
    pub(super) fn cancelled(&self, received: bool, facts: &EventFacts) -> RequestOutcome {
        RequestOutcome {
            upstream_model: Some(self.model(facts)),
            ..RequestOutcome::error(received.then_some(200), "client_disconnected")
        }
        .with_response_id(facts.response_id.as_deref())
    }
}
