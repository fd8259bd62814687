// Error codes of the config seam.

export const ConfigErrorCode = {
  NotFound: 'CONFIG_NOT_FOUND',
  Syntax: 'CONFIG_SYNTAX',
  Invalid: 'CONFIG_INVALID',
  TooLarge: 'CONFIG_TOO_LARGE',
} as const
