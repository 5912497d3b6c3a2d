//! `/api/admin/groups*`: account groups, their members and the impact of disabling or
//! deleting one on the client keys scoped to it.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::groups::{GroupPatch, GroupSpec};
use gateway_admin::services::groups::KeysByGroup;
use gateway_core::domain::{AccountGroup, AccountId, GroupId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::egress_proxy_routes::EgressProxyView;
use crate::admin::envelope::{ApiResult, ErrorBody, no_content};
use crate::admin::extract::{IdPath, JsonBody};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(list_groups, post_group))
        .routes(routes!(get_group, patch_group, remove_group))
        .routes(routes!(put_members))
        .routes(routes!(get_impact))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupItem {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub enabled: bool,
    pub account_ids: Vec<i64>,
    pub member_count: u32,
    /// Client keys scoped to this group.
    pub key_ids: Vec<i64>,
    /// The proxy of members without their own; the URL's user info is never shown.
    pub egress_proxy: Option<EgressProxyView>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

#[derive(Serialize, ToSchema)]
pub struct GroupList {
    pub items: Vec<GroupItem>,
}

fn item((group, keys): (AccountGroup, KeysByGroup)) -> GroupItem {
    item_of(group, &keys)
}

fn item_of(group: AccountGroup, keys: &KeysByGroup) -> GroupItem {
    GroupItem {
        id: group.id.0,
        key_ids: keys.get(&group.id).map(|k| k.iter().map(|k| k.0).collect()).unwrap_or_default(),
        member_count: u32::try_from(group.account_ids.len()).unwrap_or(u32::MAX),
        account_ids: group.account_ids.iter().map(|a| a.0).collect(),
        egress_proxy: EgressProxyView::of(group.egress_proxy.as_ref()),
        name: group.name,
        description: group.description,
        enabled: group.enabled,
        created_at: group.created_at,
        updated_at: group.updated_at,
    }
}

/// Every group with members and the keys scoped to it (groups are few: no pagination).
#[utoipa::path(get, path = "/api/admin/groups", tag = "groups",
    responses((status = 200, body = GroupList), (status = "4XX", body = ErrorBody)))]
pub async fn list_groups(State(api): State<AdminApi>) -> ApiResult<Json<GroupList>> {
    let (groups, keys) = api.services.groups.list().await?;
    let items = groups.into_iter().map(|g| item_of(g, &keys)).collect();
    Ok(Json(GroupList { items }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewGroup {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    #[serde(default)]
    #[schema(max_length = 1000)]
    pub description: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub account_ids: Vec<i64>,
}

fn yes() -> bool {
    true
}

/// Creates a group (optionally with members). Audited; bumps the config revision.
#[utoipa::path(post, path = "/api/admin/groups", tag = "groups", request_body = NewGroup,
    responses((status = 201, body = GroupItem), (status = "4XX", body = ErrorBody)))]
pub async fn post_group(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<NewGroup>,
) -> ApiResult<Response> {
    let spec = GroupSpec {
        name: body.name,
        description: body.description,
        enabled: body.enabled,
        members: body.account_ids.into_iter().map(AccountId).collect(),
    };
    let created = api.services.groups.create(principal.actor(), spec).await?;
    Ok((StatusCode::CREATED, Json(item(created))).into_response())
}

#[utoipa::path(get, path = "/api/admin/groups/{id}", tag = "groups", params(("id" = i64, Path)),
    responses((status = 200, body = GroupItem), (status = "4XX", body = ErrorBody)))]
pub async fn get_group(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<GroupItem>> {
    Ok(Json(item(api.services.groups.get(GroupId(id)).await?)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupChangesBody {
    #[schema(min_length = 1, max_length = 100)]
    pub name: Option<String>,
    #[schema(max_length = 1000)]
    pub description: Option<String>,
    pub enabled: Option<bool>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupUpdated {
    pub group: GroupItem,
    /// Values before the change (for undo).
    pub previous: GroupPrevious,
}

#[derive(Serialize, ToSchema)]
pub struct GroupPrevious {
    pub name: String,
    pub description: String,
    pub enabled: bool,
}

/// Renames, describes, enables or disables a group. Audited.
#[utoipa::path(patch, path = "/api/admin/groups/{id}", tag = "groups", params(("id" = i64, Path)),
    request_body = GroupChangesBody,
    responses((status = 200, body = GroupUpdated), (status = "4XX", body = ErrorBody)))]
pub async fn patch_group(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<GroupChangesBody>,
) -> ApiResult<Json<GroupUpdated>> {
    let patch = GroupPatch { name: body.name, description: body.description, enabled: body.enabled };
    let (before, after) = api.services.groups.update(principal.actor(), GroupId(id), patch).await?;
    let previous = GroupPrevious { name: before.name, description: before.description, enabled: before.enabled };
    Ok(Json(GroupUpdated { group: item(after), previous }))
}

/// Deletes a group; refused (409) while client keys are scoped to it. Audited.
#[utoipa::path(delete, path = "/api/admin/groups/{id}", tag = "groups", params(("id" = i64, Path)),
    responses((status = 204, description = "deleted"), (status = "4XX", body = ErrorBody)))]
pub async fn remove_group(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Response> {
    api.services.groups.delete(principal.actor(), GroupId(id)).await?;
    Ok(no_content())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Members {
    pub account_ids: Vec<i64>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MembersUpdated {
    pub group: GroupItem,
    pub previous_account_ids: Vec<i64>,
}

/// Replaces the member set. Audited (added/removed ids).
#[utoipa::path(put, path = "/api/admin/groups/{id}/members", tag = "groups", params(("id" = i64, Path)),
    request_body = Members,
    responses((status = 200, body = MembersUpdated), (status = "4XX", body = ErrorBody)))]
pub async fn put_members(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<Members>,
) -> ApiResult<Json<MembersUpdated>> {
    let members = body.account_ids.into_iter().map(AccountId).collect();
    let (before, after) = api.services.groups.replace_members(principal.actor(), GroupId(id), members).await?;
    Ok(Json(MembersUpdated { group: item(after), previous_account_ids: before.iter().map(|a| a.0).collect() }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupImpactView {
    /// Keys scoped to the group.
    pub key_ids: Vec<i64>,
    /// Keys whose pool would be empty without this group: they would fail closed.
    pub keys_left_empty: Vec<i64>,
}

/// What disabling or deleting the group would do to client keys.
#[utoipa::path(get, path = "/api/admin/groups/{id}/impact", tag = "groups", params(("id" = i64, Path)),
    responses((status = 200, body = GroupImpactView), (status = "4XX", body = ErrorBody)))]
pub async fn get_impact(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<GroupImpactView>> {
    let impact = api.services.groups.impact(GroupId(id)).await?;
    Ok(Json(GroupImpactView {
        key_ids: impact.keys.iter().map(|k| k.0).collect(),
        keys_left_empty: impact.keys_left_empty.iter().map(|k| k.0).collect(),
    }))
}
