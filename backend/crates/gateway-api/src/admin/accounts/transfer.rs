//! Credential import (dry run + commit) and export (explicit confirmation + password step-up,
//! audited). Imports never change scheduling facts.

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use gateway_admin::auth::{AdminPrincipal, ClientOrigin};
use gateway_admin::services::accounts::Export;
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
    /// Check the shape of every entry and report what would happen: nothing is sent upstream
    /// (refresh tokens are not exchanged) and nothing is written.
    #[serde(default)]
    pub dry_run: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportEntry {
    /// The entry's number in the input, from 1 (token lines without comments, array or bundle
    /// entries).
    pub entry: usize,
    /// `create` or `update` (an existing account keeps its scheduling facts and groups);
    /// `exchange` (dry run only: a refresh token whose shape is valid — it is exchanged, once,
    /// by the real import, so its account is not known yet); `failed` (the upstream refused the
    /// exchange; `error` says why, the other entries are stored).
    pub action: String,
    /// The stored account (not in a dry run).
    pub account_id: Option<i64>,
    pub external_account_id: Option<String>,
    pub email: Option<String>,
    pub plan_type: Option<String>,
    /// `active` or `unverified` (no identity claims).
    pub credential_state: Option<String>,
    /// The upstream's refusal code of a `failed` entry (`invalid_grant`, `refresh_token_reused`, …).
    pub error: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// A dry run checked the shape of every entry and sent nothing upstream.
    pub dry_run: bool,
    pub entries: Vec<ImportEntry>,
    pub created: Vec<i64>,
    pub updated: Vec<i64>,
}

impl From<gateway_admin::account_import::ImportReport> for ImportReport {
    fn from(report: gateway_admin::account_import::ImportReport) -> Self {
        let entries = report
            .entries
            .into_iter()
            .map(|e| ImportEntry {
                entry: e.entry,
                action: e.action.as_str().to_owned(),
                account_id: e.account_id.map(|a| a.0),
                external_account_id: e.external_account_id,
                email: e.email,
                plan_type: e.plan_type,
                credential_state: e.credential_state.map(|s| s.as_str().to_owned()),
                error: e.error,
            })
            .collect();
        Self {
            dry_run: report.dry_run,
            entries,
            created: report.created.iter().map(|a| a.0).collect(),
            updated: report.updated.iter().map(|a| a.0).collect(),
        }
    }
}

/// Imports credentials (one audit row). The input is read once; each refresh-token-only entry
/// is exchanged exactly once and the rotated pair is what is stored; an entry the upstream
/// refuses is reported `failed` without undoing the others. With `dryRun` it only checks the
/// shape of every entry and reports what would happen: nothing is sent upstream or written.
#[utoipa::path(post, path = "/api/admin/accounts/import", tag = "accounts", request_body = ImportRequest,
    responses((status = 200, body = ImportReport), (status = "4XX", body = ErrorBody)))]
pub async fn import_accounts(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<ImportRequest>,
) -> ApiResult<Json<ImportReport>> {
    let (provider, input) = (ProviderKind::from(body.provider), body.content.as_bytes());
    let report = api.services.accounts.import(principal.actor(), provider, input, body.dry_run).await?;
    Ok(Json(report.into()))
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
    let ids: Vec<AccountId> = body.ids.iter().copied().map(AccountId).collect();
    let password = body.password.as_deref().unwrap_or_default();
    let Export::Bundle(bundle) = api.services.accounts.export(&principal, &origin, password, &ids).await? else {
        return Err(ApiFailure::new(
            StatusCode::FORBIDDEN,
            "step_up_required",
            "confirm the export with your password",
        ));
    };
    Ok(Json(ExportBundle {
        format: bundle["format"].as_str().unwrap_or("switchboard.accounts.v1").to_owned(),
        accounts: bundle["accounts"].clone(),
    }))
}
