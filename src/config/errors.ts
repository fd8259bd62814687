// Error codes of the config seam.

export const ConfigErrorCode = {
  NotFound: 'CONFIG_NOT_FOUND',
  /** The file exists but cannot be read (a folder, no permission): not a command-line mistake. */
  Unreadable: 'CONFIG_UNREADABLE',
  Syntax: 'CONFIG_SYNTAX',
  Invalid: 'CONFIG_INVALID',
  TooLarge: 'CONFIG_TOO_LARGE',
} as const
