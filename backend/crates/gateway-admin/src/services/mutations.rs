//! The unit of work every admin service writes through. It can only be built publishing: each
//! commit's `config_revision` goes out through the [`ChangeNotifier`] (other replicas reload
//! sooner; reconciliation stays the correctness path), so no service can write unannounced.

use std::sync::Arc;

use gateway_core::coordination::ChangeNotifier;

use crate::change_publishing::PublishingUnitOfWork;
use crate::ports::UnitOfWork;

#[derive(Clone)]
pub struct Mutations {
    uow: Arc<dyn UnitOfWork>,
}

impl Mutations {
    /// `store`'s unit of work, publishing each commit through `notifier`.
    pub fn publishing(store: Arc<dyn UnitOfWork>, notifier: Arc<dyn ChangeNotifier>) -> Self {
        Self { uow: Arc::new(PublishingUnitOfWork::new(store, notifier)) }
    }

    pub fn get(&self) -> &dyn UnitOfWork {
        self.uow.as_ref()
    }

    /// The same publishing unit of work, for a part outside the services (the self-update's
    /// outcome audit).
    pub fn shared(&self) -> Arc<dyn UnitOfWork> {
        self.uow.clone()
    }
}
