//! The S3 side of backups (aws-sdk-s3): a multipart upload that hashes what it sends, a
//! streaming read that hashes what it gets, deletion, abort and presigned links. Path-style or
//! virtual-hosted addressing per the settings; checksums only where S3 requires them (R2,
//! SeaweedFS and MinIO differ on the optional ones).

use std::time::Duration;

use aws_sdk_s3::Client;
use aws_sdk_s3::config::{
    BehaviorVersion, Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation,
};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};
use bytes::{Bytes, BytesMut};
use secrecy::ExposeSecret;
use sha2::{Digest, Sha256};

use gateway_admin::ports::{BackupFailure, BackupTarget, TransferProgress};

/// S3's smallest part (but the last); parts are this size unless configured larger.
pub const MIN_PART_SIZE: usize = 5 * 1024 * 1024;

pub(crate) fn s3_failure(what: &str, error: impl std::fmt::Display) -> BackupFailure {
    BackupFailure::new("s3", format!("{what}: {error}"))
}

/// A client for the target's endpoint with its keys.
pub(crate) fn client(target: &BackupTarget) -> Client {
    let credentials = Credentials::new(
        target.secrets.access_key_id.expose_secret(),
        target.secrets.secret_access_key.expose_secret(),
        None,
        None,
        "switchboard-backup-settings",
    );
    let region = if target.region.is_empty() { "us-east-1".to_owned() } else { target.region.clone() };
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region))
        .endpoint_url(target.endpoint.trim_end_matches('/'))
        .force_path_style(target.path_style)
        .credentials_provider(credentials)
        .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
        .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
        .build();
    Client::from_conf(config)
}

/// An open multipart upload. `write` buffers and sends full parts; `finish` sends the rest and
/// completes; a dropped upload is left open (the daemon aborts it from the record's upload id).
pub(crate) struct MultipartUpload<'a> {
    client: Client,
    bucket: String,
    key: String,
    upload_id: String,
    part_size: usize,
    buffer: BytesMut,
    parts: Vec<CompletedPart>,
    hasher: Sha256,
    size: u64,
    progress: &'a dyn TransferProgress,
}

impl<'a> MultipartUpload<'a> {
    pub(crate) async fn start(
        target: &BackupTarget,
        key: &str,
        part_size: usize,
        progress: &'a dyn TransferProgress,
    ) -> Result<Self, BackupFailure> {
        let client = client(target);
        let created = client
            .create_multipart_upload()
            .bucket(&target.bucket)
            .key(key)
            .content_type("application/octet-stream")
            .send()
            .await
            .map_err(|e| s3_failure("starting the multipart upload", aws_sdk_s3::error::DisplayErrorContext(e)))?;
        let upload_id = created.upload_id().ok_or_else(|| s3_failure("starting the upload", "no upload id"))?;
        progress.upload_started(upload_id).await;
        Ok(Self {
            client,
            bucket: target.bucket.clone(),
            key: key.to_owned(),
            upload_id: upload_id.to_owned(),
            part_size: part_size.max(MIN_PART_SIZE),
            buffer: BytesMut::with_capacity(part_size.max(MIN_PART_SIZE)),
            parts: Vec::new(),
            hasher: Sha256::new(),
            size: 0,
            progress,
        })
    }

    pub(crate) async fn write(&mut self, data: &[u8]) -> Result<(), BackupFailure> {
        self.hasher.update(data);
        self.size += data.len() as u64;
        self.buffer.extend_from_slice(data);
        while self.buffer.len() >= self.part_size {
            let part = self.buffer.split_to(self.part_size).freeze();
            self.send_part(part).await?;
        }
        Ok(())
    }

    async fn send_part(&mut self, body: Bytes) -> Result<(), BackupFailure> {
        let number = i32::try_from(self.parts.len() + 1).map_err(|_| s3_failure("upload", "too many parts"))?;
        let sent = self
            .client
            .upload_part()
            .bucket(&self.bucket)
            .key(&self.key)
            .upload_id(&self.upload_id)
            .part_number(number)
            .body(ByteStream::from(body))
            .send()
            .await
            .map_err(|e| s3_failure(&format!("uploading part {number}"), aws_sdk_s3::error::DisplayErrorContext(e)))?;
        self.parts
            .push(CompletedPart::builder().part_number(number).set_e_tag(sent.e_tag().map(str::to_owned)).build());
        let done: u64 = self.size - self.buffer.len() as u64;
        self.progress.bytes_uploaded(done).await;
        Ok(())
    }

    /// Sends the last part and completes the upload: (size, SHA-256) of what was sent.
    pub(crate) async fn finish(mut self) -> Result<(u64, [u8; 32]), BackupFailure> {
        if !self.buffer.is_empty() || self.parts.is_empty() {
            let last = self.buffer.split().freeze();
            self.send_part(last).await?;
        }
        let completed = CompletedMultipartUpload::builder().set_parts(Some(std::mem::take(&mut self.parts))).build();
        self.client
            .complete_multipart_upload()
            .bucket(&self.bucket)
            .key(&self.key)
            .upload_id(&self.upload_id)
            .multipart_upload(completed)
            .send()
            .await
            .map_err(|e| s3_failure("completing the upload", aws_sdk_s3::error::DisplayErrorContext(e)))?;
        Ok((self.size, self.hasher.finalize().into()))
    }

    /// Aborts the upload after a failed dump (best effort: the daemon retries from the record).
    pub(crate) async fn abort(self) {
        if let Err(e) = abort(&self.client, &self.bucket, &self.key, &self.upload_id).await {
            tracing::warn!(error = %e, "aborting a failed upload failed");
        }
    }
}

pub(crate) async fn abort(client: &Client, bucket: &str, key: &str, upload_id: &str) -> Result<(), BackupFailure> {
    client
        .abort_multipart_upload()
        .bucket(bucket)
        .key(key)
        .upload_id(upload_id)
        .send()
        .await
        .map_err(|e| s3_failure("aborting the upload", aws_sdk_s3::error::DisplayErrorContext(e)))?;
    Ok(())
}

/// A streaming GET that hashes and counts what it yields.
pub(crate) struct ObjectReader {
    body: ByteStream,
    hasher: Sha256,
    size: u64,
}

impl ObjectReader {
    pub(crate) async fn open(target: &BackupTarget, key: &str) -> Result<Self, BackupFailure> {
        let object = client(target)
            .get_object()
            .bucket(&target.bucket)
            .key(key)
            .send()
            .await
            .map_err(|e| s3_failure(&format!("reading {key}"), aws_sdk_s3::error::DisplayErrorContext(e)))?;
        Ok(Self { body: object.body, hasher: Sha256::new(), size: 0 })
    }

    pub(crate) async fn next_chunk(&mut self) -> Result<Option<Bytes>, BackupFailure> {
        let chunk = self.body.try_next().await.map_err(|e| s3_failure("reading the object", e))?;
        if let Some(chunk) = &chunk {
            self.hasher.update(chunk);
            self.size += chunk.len() as u64;
        }
        Ok(chunk)
    }

    /// Checks what was read against the record (`verify_size`, `verify_sha256`).
    pub(crate) fn check(self, size: Option<u64>, sha256: [u8; 32]) -> Result<(), BackupFailure> {
        if let Some(size) = size
            && size != self.size
        {
            return Err(BackupFailure::new("verify_size", format!("read {} bytes, {size} were uploaded", self.size)));
        }
        let got: [u8; 32] = self.hasher.finalize().into();
        if got != sha256 {
            return Err(BackupFailure::new("verify_sha256", "the object's SHA-256 differs from the uploaded one"));
        }
        Ok(())
    }
}

pub(crate) async fn delete(target: &BackupTarget, key: &str) -> Result<(), BackupFailure> {
    client(target)
        .delete_object()
        .bucket(&target.bucket)
        .key(key)
        .send()
        .await
        .map_err(|e| s3_failure(&format!("deleting {key}"), aws_sdk_s3::error::DisplayErrorContext(e)))?;
    Ok(())
}

pub(crate) async fn presign(target: &BackupTarget, key: &str, ttl: Duration) -> Result<String, BackupFailure> {
    let config = aws_sdk_s3::presigning::PresigningConfig::expires_in(ttl).map_err(|e| s3_failure("presign", e))?;
    let request = client(target)
        .get_object()
        .bucket(&target.bucket)
        .key(key)
        .presigned(config)
        .await
        .map_err(|e| s3_failure("presign", aws_sdk_s3::error::DisplayErrorContext(e)))?;
    Ok(request.uri().to_owned())
}

/// Aborts the incomplete multipart uploads under `prefix` started before `before` (by the
/// server's clock), except the upload ids in `keep`; returns the aborted keys.
pub(crate) async fn abort_stale(
    target: &BackupTarget,
    prefix: &str,
    before: time::OffsetDateTime,
    keep: &[String],
) -> Result<Vec<String>, BackupFailure> {
    let client = client(target);
    let cutoff = before.unix_timestamp();
    let mut aborted = Vec::new();
    let (mut key_marker, mut upload_marker) = (None::<String>, None::<String>);
    loop {
        let listed = client
            .list_multipart_uploads()
            .bucket(&target.bucket)
            .prefix(prefix)
            .set_key_marker(key_marker.take())
            .set_upload_id_marker(upload_marker.take())
            .send()
            .await
            .map_err(|e| s3_failure("listing incomplete uploads", aws_sdk_s3::error::DisplayErrorContext(e)))?;
        for upload in listed.uploads() {
            let (Some(key), Some(id)) = (upload.key(), upload.upload_id()) else { continue };
            let stale = upload.initiated().is_some_and(|at| at.secs() < cutoff);
            if stale && !keep.iter().any(|k| k == id) {
                abort(&client, &target.bucket, key, id).await?;
                aborted.push(key.to_owned());
            }
        }
        if !listed.is_truncated().unwrap_or(false) {
            return Ok(aborted);
        }
        key_marker = listed.next_key_marker().map(str::to_owned);
        upload_marker = listed.next_upload_id_marker().map(str::to_owned);
        if key_marker.is_none() {
            return Ok(aborted);
        }
    }
}
