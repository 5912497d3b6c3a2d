// The backups journey: storage configured through the admin API (SeaweedFS, a bucket of its
// own), a backup run from the page and followed by polling to `completed` and verified, a
// restore check on demand, a download link behind the password step-up, and deletion.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { PASSWORD } from './lib/stack.mjs'
import { settled } from './lib/browser.mjs'
import { createBucket, s3FromEnv } from './lib/s3.mjs'

/** The daemon ticks every 30 s (its first tick 30 s after start); the job itself takes seconds. */
const JOB_TIMEOUT_MS = 90_000

async function configureStorage(page, s3) {
  const bucket = `sb-dash-${Date.now()}`
  await createBucket(s3, bucket)
  const body = { enabled: true, endpoint: s3.url, region: s3.region, bucket, pathStyle: true, prefix: 'e2e/', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
  const status = await page.evaluate(async (settings) => {
    const session = await fetch('/api/admin/auth/session').then((r) => r.json())
    const r = await fetch('/api/admin/backups/settings', { method: 'PUT', headers: { 'content-type': 'application/json', 'x-switchboard-csrf': session.session.csrfToken }, body: JSON.stringify(settings) })
    return `${r.status} ${await r.text()}`
  }, body)
  assert.match(status, /^200 /, `PUT backups/settings: ${status}`)
}

/** Watches the row's state attribute until it reaches `completed`; returns every state seen. */
async function followToCompletion(page, row) {
  const seen = []
  const deadline = Date.now() + JOB_TIMEOUT_MS
  while (Date.now() < deadline) {
    const state = await row.getAttribute('data-state')
    if (seen.at(-1) !== state) seen.push(state)
    if (state === 'completed' || state === 'failed') return seen
    await page.waitForTimeout(250)
  }
  throw new Error(`the backup did not finish within ${JOB_TIMEOUT_MS} ms; states seen: ${seen.join(' → ')}`)
}

export async function backupRunVerifyDownloadDelete(page, base) {
  const s3 = s3FromEnv()
  await page.goto(`${base}/backups`)
  await settled(page)
  await page.getByTestId('backup-records').getByText('No backups yet').waitFor()
  assert.ok(await page.getByTestId('backup-run').isDisabled(), 'run now is disabled before storage is configured')
  await configureStorage(page, s3)
  await page.reload()
  await settled(page)

  await page.getByTestId('backup-run').click()
  await page.getByTestId('backup-expires').fill('7')
  await page.getByTestId('backup-run-submit').click()
  const row = page.locator('[data-testid^="backup-"][data-state]').first()
  await row.waitFor()
  const id = Number((await row.getAttribute('data-testid')).slice('backup-'.length))
  assert.ok(await page.getByTestId('backup-run').isDisabled(), 'run now is disabled while a job is active')
  // No reload from here on: the page polls while the job is active.
  const seen = await followToCompletion(page, row)
  const record = await page.evaluate((id) => fetch(`/api/admin/backups/${id}`).then((r) => r.json()), id)
  const story = `states seen: ${seen.join(' → ')}; record: ${JSON.stringify(record)}`
  assert.equal(seen[0], 'queued', story)
  assert.equal(seen.at(-1), 'completed', story)
  assert.ok(record.sizeBytes > 0 && record.bytesDone === record.sizeBytes, JSON.stringify(record))
  assert.ok(record.expiresAt, 'the chosen expiry reached the record')
  assert.match(await row.getByTestId('backup-progress').textContent(), /\d+(\.\d)? (B|KB|MB)/)
  await row.getByTestId('backup-verified').getByText('Verified').waitFor({ timeout: 10_000 })

  await row.getByTestId('backup-verify').click()
  await page.getByText(`Backup #${id} restored into a scratch database; row counts match.`).waitFor({ timeout: 60_000 })

  await row.getByTestId('backup-download').click()
  await page.getByTestId('step-up-password').fill('not-the-password')
  await page.getByTestId('step-up-submit').click()
  await page.getByText('Wrong password.').waitFor()
  await page.getByTestId('step-up-password').fill(PASSWORD)
  await page.getByTestId('step-up-submit').click()
  const url = await page.getByTestId('backup-link').inputValue()
  assert.equal(await page.getByTestId('step-up-password').count(), 0, 'the password field is gone')
  const object = Buffer.from(await (await fetch(url)).arrayBuffer())
  assert.equal(object.length, record.sizeBytes, 'the link downloads the whole object')
  assert.equal(createHash('sha256').update(object).digest('hex'), record.sha256, 'the link downloads this backup')
  await page.getByRole('button', { name: 'Close' }).last().click()

  await row.getByTestId('backup-delete').click()
  await page.getByTestId('confirm-ok').click()
  await page.getByText(`Backup #${id} deleted.`).waitFor()
  await page.getByTestId('backup-records').getByText('No backups yet').waitFor()
  const gone = await page.evaluate((id) => fetch(`/api/admin/backups/${id}`).then((r) => r.status), id)
  assert.equal(gone, 404, 'the record is gone')
}
