//! Credential import (dry run + commit) and export (explicit confirmation + password step-up,
//! audited). Imports never change scheduling facts.

use std::collections::HashSet;

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use gateway_admin::auth::api_keys::{StepUp, confirm_password};
use gateway_admin::auth::{AdminPrincipal, ClientOrigin};
use gateway_core::domain::{AccountId, ProviderKind};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::admin::AdminApi;
use crate::admin::dto::Provider;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};
use crate::admin::extract::JsonBody;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportRequest {
    pub provider: Provider,
    /// The file content: Codex `auth.json`, a Switchboard export bundle, CLIProxyAPI files or
    /// token lines.
    #[schema(min_length = 1)]
    pub content: String,
    /// Decode and report what would happen, write nothing.
    #[serde(default)]
    pub dry_run: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportEntry {
    pub external_account_id: String,
    pub email: Option<String>,
    pub plan_type: Option<String>,
    /// `active` or `unverified` (no identity claims).
    pub credential_state: String,
    /// `create` or `update` (an existing account keeps its scheduling facts and groups).
    pub action: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    pub dry_run: bool,
    pub entries: Vec<ImportEntry>,
    pub created: Vec<i64>,
    pub updated: Vec<i64>,
}

fn importer(
    api: &AdminApi,
    provider: ProviderKind,
) -> ApiResult<&dyn gateway_core::credential_import::CredentialImporter> {
    api.ports
        .importers
        .iter()
        .find(|i| i.provider() == provider)
        .map(|i| i.as_ref())
        .ok_or_else(|| ApiFailure::invalid("provider", format!("importing {provider} accounts is not supported yet")))
}

/// Imports credentials (all or nothing, one audit row). With `dryRun` it only decodes and
/// reports which accounts would be created or updated.
#[utoipa::path(post, path = "/api/admin/accounts/import", tag = "accounts", request_body = ImportRequest,
    responses((status = 200, body = ImportReport), (status = "4XX", body = ErrorBody)))]
pub async fn import_accounts(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<ImportRequest>,
) -> ApiResult<Json<ImportReport>> {
    let provider = ProviderKind::from(body.provider);
    let importer = importer(&api, provider)?;
    let existing: HashSet<String> = api
        .ports
        .accounts
        .list_accounts()
        .await
        .map_err(gateway_admin::AdminError::from)?
        .into_iter()
        .filter(|a| a.provider == provider)
        .map(|a| a.external_account_id)
        .collect();
    let decoded =
        importer.decode(body.content.as_bytes()).await.map_err(|e| gateway_admin::AdminError::Credential(e.0))?;
    if decoded.is_empty() {
        return Err(ApiFailure::invalid("content", "no credential found"));
    }
    let entries: Vec<ImportEntry> = decoded
        .iter()
        .map(|c| ImportEntry {
            external_account_id: c.external_account_id.clone(),
            email: c.profile.email.clone(),
            plan_type: c.profile.plan_type.clone(),
            credential_state: c.facts.state.as_str().to_owned(),
            action: if existing.contains(&c.external_account_id) { "update" } else { "create" }.to_owned(),
        })
        .collect();
    if body.dry_run {
        return Ok(Json(ImportReport { dry_run: true, entries, created: Vec::new(), updated: Vec::new() }));
    }
    let report = gateway_admin::accounts::import_accounts(
        api.ports.uow.as_ref(),
        importer,
        principal.actor(),
        body.content.as_bytes(),
    )
    .await?;
    Ok(Json(ImportReport {
        dry_run: false,
        entries,
        created: report.created.iter().map(|a| a.0).collect(),
        updated: report.updated.iter().map(|a| a.0).collect(),
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportRequest {
    /// Accounts to export; empty = all.
    #[serde(default)]
    pub ids: Vec<i64>,
    /// Must be `true`: the bundle holds live tokens.
    pub confirm: bool,
    /// The current admin's password (step-up; not needed for API-key automation users
    /// without a password).
    pub password: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct ExportBundle {
    /// `switchboard.accounts.v1`
    pub format: String,
    /// One entry per account, re-importable with `POST /api/admin/accounts/import`.
    #[schema(value_type = Vec<Object>)]
    pub accounts: serde_json::Value,
}

/// Exports credentials as a re-importable bundle. Holds live tokens: needs `confirm: true` and
/// the password; audited (without the content).
#[utoipa::path(post, path = "/api/admin/accounts/export", tag = "accounts", request_body = ExportRequest,
    responses((status = 200, body = ExportBundle), (status = "4XX", body = ErrorBody)))]
pub async fn export_accounts(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    Extension(origin): Extension<ClientOrigin>,
    JsonBody(body): JsonBody<ExportRequest>,
) -> ApiResult<Json<ExportBundle>> {
    if !body.confirm {
        return Err(ApiFailure::invalid("confirm", "must be true: the export contains live credentials"));
    }
    let step_up = StepUp { users: api.ports.users.as_ref(), guard: &api.guard, principal: &principal, origin: &origin };
    if !confirm_password(&step_up, body.password.as_deref().unwrap_or_default()).await? {
        return Err(ApiFailure::new(
            StatusCode::FORBIDDEN,
            "step_up_required",
            "confirm the export with your password",
        ));
    }
    let ids: Vec<AccountId> = body.ids.iter().copied().map(AccountId).collect();
    let p = &api.ports;
    let bundle = gateway_admin::accounts::export_accounts(
        p.accounts.as_ref(),
        p.uow.as_ref(),
        &p.importers,
        principal.actor(),
        &ids,
    )
    .await?;
    Ok(Json(ExportBundle {
        format: bundle["format"].as_str().unwrap_or("switchboard.accounts.v1").to_owned(),
        accounts: bundle["accounts"].clone(),
    }))
}
