// Starts the upstream simulator and the real gateway binary (own PostgreSQL database — a backup
// dumps and counts a whole database, so not a schema of the shared one —, own Redis prefix,
// free ports), and stops them. Binaries are built by scripts/e2e.d/50-dashboard.sh.
import { spawn, execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

export const PASSWORD = `dash-e2e-${Date.now()}-pw`

async function firstLine(child) {
  const lines = createInterface({ input: child.stdout })
  const [line] = await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => { throw new Error('process exited before printing its URL') })])
  return line
}

async function waitFor(check, what, ms = 30_000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** A release channel whose newest release (99.0.0) fails verification: its archive does not
 * match `SHA256SUMS`. The System page can start an update that fails without a restart. */
async function startReleaseServer() {
  const version = '99.0.0'
  const platforms = ['linux-x86_64', 'linux-aarch64', 'macos-x86_64', 'macos-aarch64']
  const asset = (p) => `switchboard-${version}-${p}.tar.gz`
  const body = Buffer.from('not the archive the checksum file names')
  const server = createHttpServer((req, res) => {
    const name = req.url.split('/').pop()
    if (name === 'release.json') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ name: 'switchboard', version, checksums: 'SHA256SUMS', assets: platforms.map((p) => ({ platform: p, name: asset(p), size: body.length })) }))
    }
    if (name === 'SHA256SUMS') return res.end(platforms.map((p) => `${'0'.repeat(64)}  ${asset(p)}\n`).join(''))
    if (platforms.some((p) => name === asset(p))) return res.end(body)
    res.writeHead(404).end()
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}/releases/latest/release.json`, version, close: () => server.close() }
}

export async function startStack(repo) {
  const bin = `${repo}/target/debug`
  const children = []
  const sim = spawn(`${bin}/upstream-sim`, ['--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(sim)
  const simUrl = (await firstLine(sim)).trim()
  const db = process.env.SWITCHBOARD_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const redis = process.env.SWITCHBOARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
  const name = `e2e_dash_${Date.now()}_${process.pid}`
  execFileSync('psql', [db, '-qc', `CREATE DATABASE "${name}"`])
  const ownDb = new URL(db)
  ownDb.pathname = `/${name}`
  const port = await freePort()
  const releases = await startReleaseServer()
  // The gateway's own files (update state, the first admin's password file) stay out of the checkout.
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-dash-'))
  const masterKey = execFileSync(`${bin}/switchboard`, ['master-key']).toString().trim()
  const env = {
    ...process.env,
    SWITCHBOARD_DATABASE_URL: ownDb.toString(),
    SWITCHBOARD_REDIS_URL: redis,
    SWITCHBOARD_REDIS_KEY_PREFIX: name,
    SWITCHBOARD_SECRETS_MASTER_KEY: masterKey,
    SWITCHBOARD_PROVIDERS_ALLOW_HTTP_LOOPBACK: 'true',
    SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL: `${simUrl}/backend-api`,
    SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL: simUrl,
    SWITCHBOARD_SERVER_LISTEN: `127.0.0.1:${port}`,
    SWITCHBOARD_ADMIN_BOOTSTRAP_PASSWORD: PASSWORD,
    SWITCHBOARD_ADMIN_LIVE_POLL_MS: '500',
    SWITCHBOARD_ENGINE_SNAPSHOT_POLL_MS: '200',
    SWITCHBOARD_SERVER_DATA_DIR: dataDir,
    SWITCHBOARD_UPDATE_RELEASE_URL: releases.url,
    SWITCHBOARD_UPDATE_ALLOW_HTTP_LOOPBACK: 'true',
    // This machine may itself be a container; the trial update below never swaps the binary.
    SWITCHBOARD_UPDATE_ALLOW_IN_CONTAINER: 'true',
    // The backups journey's S3 server (SeaweedFS) is on loopback.
    SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS: 'true',
  }
  const gw = spawn(`${bin}/switchboard`, ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(gw)
  let log = ''
  const url = `http://127.0.0.1:${port}`
  const onData = (chunk) => {
    log = (log + chunk.toString()).slice(-20_000)
  }
  gw.stdout.on('data', onData)
  gw.stderr.on('data', onData)
  await waitFor(async () => gw.exitCode === null && (await fetch(`${url}/readyz`)).ok, 'the gateway to be ready')
  const stop = async () => {
    for (const child of children.reverse()) {
      child.kill('SIGTERM')
      if (child.exitCode === null) await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 5000))])
    }
    releases.close()
    rmSync(dataDir, { recursive: true, force: true })
    try { execFileSync('psql', [db, '-qc', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`]) } catch { /* best effort */ }
  }
  const simJson = async (method, path, body) => {
    const r = await fetch(`${simUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
    if (!r.ok) throw new Error(`sim ${method} ${path}: ${r.status} ${await r.text()}`)
    return r.json()
  }
  return { url, simUrl, stop, simJson, log: () => log, releaseVersion: releases.version }
}
