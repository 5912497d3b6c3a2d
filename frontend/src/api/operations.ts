/** The admin document's operations as types, keyed by path (without the `/api/admin` prefix)
 * and method: what a call sends (path parameters, query, body) and what it answers. The client
 * (`client.ts`) takes these, so a call states its path and everything else is inferred; a path
 * or body the document does not have fails the type check. */

import type { paths } from './schema'

export const API_PREFIX = '/api/admin'

/** A path of the document as the client takes it, e.g. `/accounts/{id}`. */
export type AdminPath = keyof paths extends infer K ? (K extends `${typeof API_PREFIX}${infer P}` ? P : never) : never

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

type PathItem<P extends AdminPath> = paths[`${typeof API_PREFIX}${P}`]

/** The paths with an operation for `M`. */
export type PathsFor<M extends Method> = {
  [P in AdminPath]: PathItem<P> extends { [X in M]: object } ? P : never
}[AdminPath]

/** The operation of `M` on `P`. */
export type Operation<M extends Method, P extends AdminPath> = PathItem<P> extends { [X in M]: infer O } ? O : never

type ParametersOf<O> = O extends { parameters: infer Q } ? Q : never

type Present<T> = [NonNullable<T>] extends [never] ? false : true

/** Query values the client leaves out of the URL (a filter's "all"). */
type Absent = null | undefined | ''
type LooseQuery<Q> = { [K in keyof Q]?: Q[K] | Absent }

type PathPart<O> = ParametersOf<O> extends { path: infer V } ? { path: V } : { path?: never }

type QueryPart<O> =
  ParametersOf<O> extends { query: infer Q }
    ? { query: LooseQuery<Q> }
    : ParametersOf<O> extends { query?: infer Q }
      ? Present<Q> extends true
        ? { query?: LooseQuery<NonNullable<Q>> }
        : { query?: never }
      : { query?: never }

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never

type BodyPart<O> = O extends { requestBody: infer R }
  ? { body: JsonBody<R> }
  : O extends { requestBody?: infer R }
    ? Present<R> extends true
      ? { body?: JsonBody<NonNullable<R>> }
      : { body?: never }
    : { body?: never }

/** What every call may also pass. */
export interface CallOptions {
  headers?: Record<string, string>
  signal?: AbortSignal
  /** Login and session probes handle 401 themselves. */
  quiet401?: boolean
}

/** The second argument of a call: what the operation needs, and the call options. */
export type Init<O> = PathPart<O> & QueryPart<O> & BodyPart<O> & CallOptions

/** Required when the operation has path parameters, a required query or a required body. */
export type InitArgs<O> = object extends Init<O> ? [init?: Init<O>] : [init: Init<O>]

type SuccessStatus = 200 | 201 | 202 | 204

/** The JSON of the operation's success answer; `null` for an answer without a body. */
export type Answer<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? ([JsonBody<R[S]>] extends [never] ? null : JsonBody<R[S]>) : never }[keyof R]
  : never

/** `/accounts/{id}` with `{ id: 7 }` → `/accounts/7` (each value URL-encoded). */
export function fillPath(template: string, values: Record<string, string | number> | undefined): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values?.[name]
    if (value === undefined) throw new Error(`path parameter ${name} of ${template} is missing`)
    return encodeURIComponent(String(value))
  })
}

/** The query parameters of the operation of `M` on `P` (all optional). */
export type QueryOf<M extends Method, P extends AdminPath> = NonNullable<ParametersOf<Operation<M, P>> extends { query?: infer Q } ? Q : never>
