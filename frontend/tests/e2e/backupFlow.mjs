// The backups journey: storage configured in the page's form (SeaweedFS, a bucket of its own;
// field errors first), a backup run from the page and followed by live events to `completed` and
// verified, a restore check on demand, a download link behind the password step-up, deletion.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { PASSWORD } from './lib/stack.mjs'
import { settled } from './lib/browser.mjs'
import { createBucket, s3FromEnv } from './lib/s3.mjs'

/** The daemon ticks every 30 s (its first tick 30 s after start); the job itself takes seconds. */
const JOB_TIMEOUT_MS = 90_000

/** Storage configured through the page's form: a bad schedule and a lone access key first
 * (errors under their fields), then the real settings; the secret never shows on the page. */
async function configureStorage(page, s3) {
  const bucket = `sb-dash-${Date.now()}`
  await createBucket(s3, bucket)
  await page.getByTestId('storage-edit').click()
  await page.getByTestId('storage-keys-state').getByText('not set').waitFor()
  await page.getByTestId('storage-enabled').check()
  await page.getByTestId('storage-endpoint').fill(s3.url)
  await page.getByTestId('storage-region').fill(s3.region)
  await page.getByTestId('storage-bucket').fill(bucket)
  await page.getByTestId('storage-path-style').check()
  await page.getByTestId('storage-prefix').fill('e2e/')
  await page.getByTestId('storage-cron').fill('CRON_TZ=Mars/Olympus 0 3 1 1 *')
  await page.getByTestId('storage-access-key').fill(s3.accessKeyId)
  await page.getByTestId('storage-save').click()
  await page.getByTestId('storage-cron-error').getByText(/unknown time zone/).waitFor()
  await page.getByTestId('storage-secret-key-error').getByText(/give both/).waitFor()
  await page.getByTestId('storage-cron').fill('CRON_TZ=Europe/Berlin 0 3 1 1 *')
  await page.getByTestId('storage-secret-key').fill(s3.secretAccessKey)
  await page.getByTestId('storage-save').click()
  await page.getByText('Backup storage settings saved.').waitFor()
  assert.equal((await page.getByTestId('storage-keys').textContent()).trim(), 'set')
  assert.equal((await page.getByTestId('storage-schedule').textContent()).trim(), 'CRON_TZ=Europe/Berlin 0 3 1 1 *')
  assert.ok(!(await page.content()).includes(s3.secretAccessKey), 'the secret is not on the page')
  const stored = await page.evaluate(() => fetch('/api/admin/backups/settings').then((r) => r.json()))
  assert.deepEqual([stored.bucket, stored.pathStyle, stored.credentialsConfigured], [bucket, true, true], JSON.stringify(stored))
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
  // no reload: the saved settings enable "Run backup now"
  await page.waitForFunction(() => !document.querySelector('[data-testid="backup-run"]')?.disabled)

  // with the live stream up the page follows the job from `backup` events, not by polling
  let listFetches = 0
  const countList = (request) => new URL(request.url()).pathname === '/api/admin/backups' && request.method() === 'GET' && listFetches++
  page.on('request', countList)
  await page.getByTestId('backup-run').click()
  await page.getByTestId('backup-expires').fill('7')
  await page.getByTestId('backup-run-submit').click()
  const row = page.locator('[data-testid^="backup-"][data-state]').first()
  await row.waitFor()
  const id = Number((await row.getAttribute('data-testid')).slice('backup-'.length))
  assert.ok(await page.getByTestId('backup-run').isDisabled(), 'run now is disabled while a job is active')
  // No reload from here on: live events (or, without the stream, polling) move the row.
  const seen = await followToCompletion(page, row)
  page.off('request', countList)
  assert.ok(listFetches <= 3, `the list was refetched ${listFetches} times while the job ran (live events expected)`)
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
