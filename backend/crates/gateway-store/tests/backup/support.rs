//! A bucket per test on the shared SeaweedFS server, a whole PostgreSQL database per test
//! (`pg_dump` dumps databases, not schemas), and the backup settings pointing at the bucket.

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use gateway_admin::backup::{BackupSettingsUpdate, BackupStorageSecrets, SecretsChange};
use gateway_admin::ports::{BackupTarget, UnitOfWork};
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};
use test_support::TestS3;

use crate::postgres::test_store::audit;

pub struct Bucket {
    pub s3: TestS3,
    pub name: String,
    client: aws_sdk_s3::Client,
}

impl Bucket {
    pub async fn create() -> anyhow::Result<Self> {
        let s3 = TestS3::from_env()?;
        let name = test_support::s3::unique_bucket();
        let config = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(&s3.endpoint)
            .force_path_style(true)
            .credentials_provider(Credentials::new(&s3.access_key, &s3.secret_key, None, None, "test"))
            .build();
        let client = aws_sdk_s3::Client::from_conf(config);
        client.create_bucket().bucket(&name).send().await?;
        Ok(Self { s3, name, client })
    }

    pub fn target(&self) -> BackupTarget {
        BackupTarget {
            endpoint: self.s3.endpoint.clone(),
            region: "us-east-1".into(),
            bucket: self.name.clone(),
            path_style: true,
            prefix: "backups/".into(),
            secrets: BackupStorageSecrets::new(self.s3.access_key.clone(), self.s3.secret_key.clone()),
        }
    }

    /// Keys of the objects in the bucket.
    pub async fn objects(&self) -> anyhow::Result<Vec<String>> {
        let listed = self.client.list_objects_v2().bucket(&self.name).send().await?;
        Ok(listed.contents().iter().filter_map(|o| o.key().map(str::to_owned)).collect())
    }

    /// Keys of the multipart uploads still open.
    pub async fn open_uploads(&self) -> anyhow::Result<Vec<String>> {
        let listed = self.client.list_multipart_uploads().bucket(&self.name).send().await?;
        Ok(listed.uploads().iter().filter_map(|u| u.key().map(str::to_owned)).collect())
    }

    /// Starts a multipart upload and leaves it open, as a killed job does; returns its id.
    pub async fn leave_upload_open(&self, key: &str) -> anyhow::Result<String> {
        let created = self.client.create_multipart_upload().bucket(&self.name).key(key).send().await?;
        Ok(created.upload_id().expect("upload id").to_owned())
    }

    /// Replaces an object's bytes (to prove verification notices).
    pub async fn overwrite(&self, key: &str, body: &'static [u8]) -> anyhow::Result<()> {
        self.client.put_object().bucket(&self.name).key(key).body(body.to_vec().into()).send().await?;
        Ok(())
    }

    /// Stores the settings that point at this bucket, through a unit of work.
    pub async fn configure(&self, uow: &dyn UnitOfWork) -> anyhow::Result<()> {
        self.configure_with(uow, None, None).await
    }

    /// [`Self::configure`] with a schedule and a retention count.
    pub async fn configure_with(
        &self,
        uow: &dyn UnitOfWork,
        schedule_cron: Option<&str>,
        retention_count: Option<u32>,
    ) -> anyhow::Result<()> {
        let target = self.target();
        let mut tx = uow.begin().await?;
        tx.update_backup_settings(&BackupSettingsUpdate {
            enabled: true,
            endpoint: target.endpoint,
            region: target.region,
            bucket: target.bucket,
            path_style: true,
            prefix: target.prefix,
            credentials: SecretsChange::Replace(target.secrets),
            schedule_cron: schedule_cron.map(str::to_owned),
            retention_count,
            retention_days: None,
        })
        .await?;
        tx.commit(audit("backup_settings.update", "backup_settings")).await?;
        Ok(())
    }
}

/// A whole database for one test, dropped by `finish`.
pub struct FreshDatabase {
    pub name: String,
    pub url: String,
}

fn url_for(database: &str) -> String {
    let base = test_support::postgres::database_url();
    let (without_query, query) = base.split_once('?').map_or((base.as_str(), None), |(a, q)| (a, Some(q)));
    let server = without_query.rsplit_once('/').map_or(without_query, |(server, _)| server);
    match query {
        Some(q) => format!("{server}/{database}?{q}"),
        None => format!("{server}/{database}"),
    }
}

impl FreshDatabase {
    pub async fn create() -> anyhow::Result<Self> {
        let name = format!("sb_backup_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::connect(&test_support::postgres::database_url()).await?;
        admin.execute(AssertSqlSafe(format!("CREATE DATABASE \"{name}\""))).await?;
        admin.close().await?;
        let url = url_for(&name);
        Ok(Self { name, url })
    }

    pub async fn finish(self) -> anyhow::Result<()> {
        let mut admin = PgConnection::connect(&test_support::postgres::database_url()).await?;
        admin.execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name))).await?;
        admin.close().await?;
        Ok(())
    }
}
