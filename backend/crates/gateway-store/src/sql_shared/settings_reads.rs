//! The one body of the runtime settings reads for both SQL adapters: the snapshot's loaders and
//! [`RuntimeSettingsReader`](gateway_admin::ports::RuntimeSettingsReader). The statements are
//! `rows::runtime_settings`' text on both dialects; each adapter invokes [`sql_settings_reads!`]
//! with its store type, its executor trait and its read pool method, and `storage_error` is the
//! invoking module's own.

/// `sql_settings_reads!(Store, ExecutorTrait, reader_pool_method)`: defines
/// `load_runtime_settings` and `current_config_revision` over any executor of the dialect and
/// implements `RuntimeSettingsReader` for the store.
macro_rules! sql_settings_reads {
    ($store:ident, $executor:ident, $reader:ident) => {
        pub(crate) async fn load_runtime_settings<'c>(
            executor: impl sqlx::$executor<'c>,
        ) -> Result<(gateway_core::domain::ConfigRevision, gateway_core::domain::RuntimeSettings), StorageError> {
            let row = sqlx::query($crate::rows::runtime_settings::RUNTIME_SETTINGS_SELECT)
                .fetch_optional(executor)
                .await
                .map_err(storage_error)?
                .ok_or_else($crate::rows::runtime_settings::missing_singleton)?;
            $crate::rows::runtime_settings::settings_from_row(&row)
        }

        pub(crate) async fn current_config_revision<'c>(
            executor: impl sqlx::$executor<'c>,
        ) -> Result<gateway_core::domain::ConfigRevision, StorageError> {
            let revision: i64 = sqlx::query_scalar($crate::rows::runtime_settings::CONFIG_REVISION_SELECT)
                .fetch_optional(executor)
                .await
                .map_err(storage_error)?
                .ok_or_else($crate::rows::runtime_settings::missing_singleton)?;
            Ok(gateway_core::domain::ConfigRevision(revision))
        }

        #[async_trait::async_trait]
        impl gateway_admin::ports::RuntimeSettingsReader for $store {
            async fn read_runtime_settings(
                &self,
            ) -> Result<(gateway_core::domain::ConfigRevision, gateway_core::domain::RuntimeSettings), StorageError>
            {
                load_runtime_settings(self.$reader()).await
            }
        }
    };
}

pub(crate) use sql_settings_reads;
