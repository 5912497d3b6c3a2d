// The S3 server of the backups journey (SeaweedFS from scripts/lib/services.sh
// `ensure_seaweedfs`): its address and keys from the environment, and a bucket made with one
// SigV4-signed `PUT /bucket` (path style), so the test needs no S3 client library.
import { createHash, createHmac } from 'node:crypto'

const REGION = 'us-east-1'

export function s3FromEnv() {
  const url = process.env.SWITCHBOARD_TEST_S3_URL
  const accessKeyId = process.env.SWITCHBOARD_TEST_S3_ACCESS_KEY
  const secretAccessKey = process.env.SWITCHBOARD_TEST_S3_SECRET_KEY
  if (!url || !accessKeyId || !secretAccessKey) {
    throw new Error('SWITCHBOARD_TEST_S3_URL/_ACCESS_KEY/_SECRET_KEY are not set: run through scripts/e2e.d/50-dashboard.sh (it starts SeaweedFS), or point them at an S3 server')
  }
  return { url: url.replace(/\/$/, ''), accessKeyId, secretAccessKey, region: REGION }
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex')
const hmac = (key, data) => createHmac('sha256', key).update(data).digest()

export async function createBucket(s3, bucket) {
  const target = new URL(`${s3.url}/${bucket}`)
  const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')
  const day = amzDate.slice(0, 8)
  const payload = sha256('')
  const signed = 'host;x-amz-content-sha256;x-amz-date'
  const canonical = ['PUT', target.pathname, '', `host:${target.host}`, `x-amz-content-sha256:${payload}`, `x-amz-date:${amzDate}`, '', signed, payload].join('\n')
  const scope = `${day}/${s3.region}/s3/aws4_request`
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n')
  let key = hmac(`AWS4${s3.secretAccessKey}`, day)
  for (const part of [s3.region, 's3', 'aws4_request']) key = hmac(key, part)
  const signature = createHmac('sha256', key).update(toSign).digest('hex')
  const r = await fetch(target, {
    method: 'PUT',
    headers: { 'x-amz-date': amzDate, 'x-amz-content-sha256': payload, authorization: `AWS4-HMAC-SHA256 Credential=${s3.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}` },
  })
  if (!r.ok) throw new Error(`creating bucket ${bucket}: ${r.status} ${await r.text()}`)
}
