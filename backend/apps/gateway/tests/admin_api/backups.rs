//! The backup actions over HTTP: run now (one active job), list and get with progress fields,
//! verify/delete/download refused while the job is not completed, download-link step-up, every
//! action audited. (The dump → S3 → restore round trips are gateway-store's
//! `tests/backup/*.rs`, against SeaweedFS; the daemon's first tick comes 30 s after start, after
//! this test.)

use serde_json::json;

use super::{Admin, PASSWORD, gateway, last_audit};

#[tokio::test]
async fn backups_are_queued_listed_guarded_and_audited() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;

    let unconfigured = admin.post("/backups", json!({})).await;
    assert_eq!(unconfigured.status, 409, "{}", unconfigured.text);
    let put = admin
        .put(
            "/backups/settings",
            json!({"enabled": true, "endpoint": "https://203.0.113.10", "region": "auto", "bucket": "b",
                   "accessKeyId": "AKIA-BACKUP-ID", "secretAccessKey": "backup-secret-value"}),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.text);

    let bad = admin.post("/backups", json!({"expiresInDays": 0})).await;
    assert_eq!(bad.status, 422);
    assert_eq!(bad.json()["error"]["fields"][0]["field"], "expiresInDays");
    let run = admin.post("/backups", json!({"expiresInDays": 3})).await;
    assert_eq!(run.status, 202, "{}", run.text);
    let job = run.json();
    assert_eq!(job["state"], "queued");
    assert_eq!(job["trigger"], "manual");
    assert_eq!(job["bytesDone"], 0);
    assert!(job["expiresAt"].is_string());
    let id = job["id"].as_i64().expect("id");
    let (action, target, details) = last_audit(&pool).await;
    assert_eq!((action.as_str(), target.as_deref()), ("backup.run", Some(id.to_string().as_str())));
    assert_eq!(details["expires_in_days"], 3);

    let second = admin.post("/backups", json!({})).await;
    assert_eq!(second.status, 409, "one active job at a time: {}", second.text);

    let list = admin.ok("/backups?limit=10").await;
    assert_eq!(list["items"][0]["id"], id);
    assert_eq!(admin.ok(&format!("/backups/{id}")).await["state"], "queued");
    assert_eq!(admin.get(&format!("/backups/{}", id + 1000)).await.status, 404);

    let verify = admin.post(&format!("/backups/{id}/verify"), json!({})).await;
    assert_eq!(verify.status, 409, "{}", verify.text);
    let delete = admin.delete(&format!("/backups/{id}")).await;
    assert_eq!(delete.status, 409, "a running job cannot be deleted: {}", delete.text);

    let wrong = admin.post(&format!("/backups/{id}/download-link"), json!({"password": "not-it"})).await;
    assert_eq!(wrong.status, 403, "step-up: {}", wrong.text);
    let not_done = admin.post(&format!("/backups/{id}/download-link"), json!({"password": PASSWORD})).await;
    assert_eq!(not_done.status, 409, "{}", not_done.text);
    for answer in [&run, &second, &verify, &wrong, &not_done] {
        assert!(!answer.text.contains("backup-secret-value") && !answer.text.contains("AKIA-BACKUP-ID"));
    }
    assert!(!g.log().contains("backup-secret-value"));
}

#[tokio::test]
async fn backup_records_page_past_fifty_by_an_opaque_cursor() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;
    sqlx::query(
        "INSERT INTO backup_records (trigger, state, error_code, error_message) \
         SELECT 'scheduled', 'failed', 'test', 'record ' || g FROM generate_series(1, 120) g",
    )
    .execute(&pool)
    .await
    .expect("records");

    let first = admin.ok("/backups").await;
    assert_eq!(first["items"].as_array().expect("items").len(), 50, "the default page is 50");
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/backups?limit=50&cursor={c}"),
            None => "/backups?limit=50".to_owned(),
        };
        let page = admin.ok(&path).await;
        pages += 1;
        ids.extend(page["items"].as_array().expect("items").iter().map(|r| r["id"].as_i64().expect("id")));
        match page["nextCursor"].as_str() {
            Some(next) => {
                assert!(next.parse::<i64>().is_err(), "the cursor is opaque, not a bare id: {next}");
                cursor = Some(next.to_owned());
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(ids.len(), 120);
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first, each record once: {ids:?}");

    for bad in ["/backups?cursor=not-a-cursor!", "/backups?limit=0", "/backups?limit=201"] {
        let answer = admin.get(bad).await;
        assert_eq!(answer.status, 422, "{bad}: {}", answer.text);
        let field = answer.json()["error"]["fields"][0]["field"].as_str().map(str::to_owned);
        assert!(matches!(field.as_deref(), Some("cursor" | "limit")), "{bad}: {}", answer.text);
    }
}
