//! The S3 server the backup tests use: SeaweedFS on loopback, started by `scripts/test`
//! (`ensure_seaweedfs` in `scripts/lib/services.sh`) and named by `SWITCHBOARD_TEST_S3_URL`,
//! `SWITCHBOARD_TEST_S3_ACCESS_KEY` and `SWITCHBOARD_TEST_S3_SECRET_KEY`. A missing server is
//! a test failure with a clear message, never a skip.

/// Where the test S3 server is and its keys.
#[derive(Clone)]
pub struct TestS3 {
    pub endpoint: String,
    pub access_key: String,
    pub secret_key: String,
}

impl std::fmt::Debug for TestS3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestS3").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

impl TestS3 {
    pub fn from_env() -> anyhow::Result<Self> {
        let var = |name: &str| {
            std::env::var(name).map_err(|_| {
                anyhow::anyhow!(
                    "{name} is not set: the backup tests need a real S3 server. Run them through \
                     scripts/test (it starts SeaweedFS), or `source scripts/lib/services.sh; \
                     ensure_seaweedfs` and export the SWITCHBOARD_TEST_S3_* variables it sets"
                )
            })
        };
        Ok(Self {
            endpoint: var("SWITCHBOARD_TEST_S3_URL")?,
            access_key: var("SWITCHBOARD_TEST_S3_ACCESS_KEY")?,
            secret_key: var("SWITCHBOARD_TEST_S3_SECRET_KEY")?,
        })
    }
}

impl TestS3 {
    /// Creates `bucket` on the server (path-style addressing).
    pub async fn create_bucket(&self, bucket: &str) -> anyhow::Result<()> {
        use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
        let config = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(&self.endpoint)
            .force_path_style(true)
            .credentials_provider(Credentials::new(&self.access_key, &self.secret_key, None, None, "test"))
            .build();
        aws_sdk_s3::Client::from_conf(config).create_bucket().bucket(bucket).send().await?;
        Ok(())
    }
}

/// A bucket name no other test uses.
pub fn unique_bucket() -> String {
    format!("sb-test-{}", uuid_like())
}

fn uuid_like() -> String {
    use rand::Rng;
    format!("{:016x}", rand::rng().random::<u64>())
}
