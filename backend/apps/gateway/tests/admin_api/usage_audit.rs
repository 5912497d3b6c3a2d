//! Usage records, detail, insights, zone-aligned trends and the dashboard over real recorded
//! requests; ops events; the audit list, detail, and tamper detection by the verify endpoint.

use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, gateway};
use crate::gateway::terminal_rows;

#[tokio::test]
async fn usage_views_report_recorded_requests() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    for _ in 0..3 {
        let response = g
            .responses(json!({"model": "gpt-5.4", "input": "sim: input_tokens=100 output_tokens=20", "stream": false}))
            .await;
        assert_eq!(response.status(), 200);
        response.bytes().await.expect("body");
    }
    let bad = g.responses(json!({"model": "gpt-5.4", "input": "sim: status=400", "stream": false})).await;
    bad.bytes().await.expect("body");
    terminal_rows(&g.pool().await, 4).await;
    let admin = Admin::login(&g).await;

    let records = admin.ok("/usage/records?limit=2").await;
    let items = records["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    assert!(items[0]["startedAt"].as_str() >= items[1]["startedAt"].as_str(), "newest first");
    assert_eq!(items[0]["keyName"], "e2e");
    let cursor = records["nextCursor"].as_str().expect("more").to_owned();
    let rest = admin.ok(&format!("/usage/records?limit=10&cursor={cursor}")).await;
    assert_eq!(rest["items"].as_array().map(Vec::len), Some(2));
    let completed = admin.ok("/usage/records?status=completed").await;
    assert_eq!(completed["items"].as_array().map(Vec::len), Some(3));
    assert_eq!(completed["items"][0]["tokens"]["input"], 100);
    assert_eq!(completed["items"][0]["accountEmail"], "acct-a@sim.test");
    let id = completed["items"][0]["id"].as_str().expect("id").to_owned();
    let detail = admin.ok(&format!("/usage/records/{id}")).await;
    assert_eq!(detail["record"]["id"], id.as_str());
    assert_eq!(detail["attemptsComplete"], true);
    assert_eq!(detail["attempts"].as_array().map(Vec::len), Some(1));
    assert_eq!(admin.get("/usage/records/not-a-uuid").await.status, 422);
    assert_eq!(admin.get("/usage/records/0190b7a2-0000-7000-8000-000000000000").await.status, 404);
    assert_eq!(admin.get("/usage/records?from=yesterday").await.status, 422);
    assert_eq!(admin.get("/usage/records?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z").await.status, 422);

    let insights = admin.ok("/usage/insights?groupBy=model").await;
    assert_eq!(insights["totals"]["requests"], 4);
    assert_eq!(insights["totals"]["completed"], 3);
    assert_eq!(insights["groups"][0]["key"], "gpt-5.4");
    assert!(insights["totals"]["totalMsP95"].is_number(), "exact percentiles from stored durations");
    let by_key = admin.ok("/usage/insights?groupBy=key").await;
    assert_eq!(by_key["groups"][0]["label"], "e2e");
    assert_eq!(admin.ok("/usage/insights?groupBy=status").await["groups"].as_array().map(Vec::len), Some(2));

    // Day buckets start at local midnight of the requested zone.
    let trend = admin.ok("/usage/trend?bucket=1d&tz=Asia/Kolkata").await;
    assert_eq!(trend["tz"], "Asia/Kolkata");
    let starts: Vec<&str> =
        trend["points"].as_array().expect("points").iter().filter_map(|p| p["start"].as_str()).collect();
    assert!(!starts.is_empty());
    for start in &starts {
        assert!(start.ends_with("T18:30:00Z"), "Kolkata midnight is 18:30 UTC: {start}");
    }
    let total: u64 =
        trend["points"].as_array().expect("points").iter().filter_map(|p| p["totals"]["requests"].as_u64()).sum();
    assert_eq!(total, 4);
    let minutes = admin.ok("/usage/trend?bucket=5m").await;
    assert_eq!(minutes["bucket"], "5m");
    assert_eq!(admin.get("/usage/trend?bucket=1m&from=2020-01-01T00:00:00Z").await.status, 422, "too many buckets");
    assert_eq!(admin.get("/usage/trend?tz=Not/AZone").await.status, 422);

    let summary = admin.ok("/dashboard/summary?tz=UTC").await;
    assert_eq!(summary["current"]["requests"], 4);
    assert_eq!(summary["previous"]["requests"], 0);
    assert_eq!(summary["pool"]["accounts"]["all"], 1);
    assert_eq!(summary["pool"]["usable"], 1);
    assert_eq!(summary["latest"].as_array().map(Vec::len), Some(4));
    let accounts = admin.ok("/accounts").await;
    assert_eq!(accounts["items"][0]["today"]["requests"], 4);
    assert!(accounts["items"][0]["lastUsedAt"].is_string());
    let keys = admin.ok("/keys").await;
    assert_eq!(keys["items"][0]["today"]["requests"], 4);
}

#[tokio::test]
async fn ops_events_are_listed_with_filters() {
    let g = gateway(vec![], &[]).await;
    let pool = g.pool().await;
    for (level, kind) in
        [("warn", "credential.refresh_failed"), ("info", "request.recovered"), ("error", "credential.banned")]
    {
        sqlx::query("INSERT INTO ops_events (occurred_at, level, kind, message) VALUES (now(), $1, $2, 'm')")
            .bind(level)
            .bind(kind)
            .execute(&pool)
            .await
            .expect("event");
    }
    let admin = Admin::login(&g).await;
    let all = admin.ok("/ops-events").await;
    assert_eq!(all["items"].as_array().map(Vec::len), Some(3));
    assert_eq!(admin.ok("/ops-events?level=warn").await["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(admin.ok("/ops-events?kind=credential.").await["items"].as_array().map(Vec::len), Some(2));
    let page = admin.ok("/ops-events?limit=2").await;
    let cursor = page["nextCursor"].as_str().expect("cursor").to_owned();
    assert_eq!(admin.ok(&format!("/ops-events?cursor={cursor}")).await["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(admin.get("/ops-events?request=nope").await.status, 422);
}

#[tokio::test]
async fn audit_rows_are_listed_and_a_tampered_row_breaks_the_chain() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    for name in ["a", "b", "c"] {
        assert_eq!(admin.post("/groups", json!({"name": name})).await.status, 201);
    }
    let list = admin.ok("/audit?action=group.").await;
    let items = list["items"].as_array().expect("items");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["actorName"], "admin");
    assert!(items[0]["rowHash"].as_str().is_some_and(|h| h.len() == 64));
    let middle = items[1]["id"].as_i64().expect("id");
    let one = admin.ok(&format!("/audit/{middle}")).await;
    assert_eq!(one["action"], "group.create");
    assert_eq!(admin.ok("/audit?actor=bootstrap").await["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(admin.ok("/audit?targetKind=group&limit=1").await["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(admin.get("/audit/999999").await.status, 404);

    let intact = admin.post("/audit/verify", json!({})).await.json();
    assert_eq!(intact["intact"], true);
    assert!(intact["firstBrokenId"].is_null());

    sqlx::query("UPDATE admin_audit_events SET details = '{\"name\": \"forged\"}' WHERE id = $1")
        .bind(middle)
        .execute(&g.pool().await)
        .await
        .expect("tamper");
    let broken = admin.post("/audit/verify", json!({})).await.json();
    assert_eq!(broken["intact"], false);
    assert_eq!(broken["firstBrokenId"], middle);
}
