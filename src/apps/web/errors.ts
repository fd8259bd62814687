// Error codes of `dsh web`: bad flags, a port that cannot be bound, API refusals.

export const WebErrorCode = {
  BadPort: 'WEB_BAD_PORT',
  BadHost: 'WEB_BAD_HOST',
  PortInUse: 'WEB_PORT_IN_USE',
  Listen: 'WEB_LISTEN',
  NoFrontEnd: 'WEB_NO_FRONT_END',
  /** The server closed while something waited for the browser. */
  Closed: 'WEB_CLOSED',
} as const

/** An API refusal: the HTTP status and a one-line message the browser shows. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'HttpError'
  }
}
