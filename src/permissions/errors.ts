// Error codes of the permission-rule seam.

export const PermissionErrorCode = {
  /** A rule string that is not `Tool` or `Tool(specifier)`. */
  InvalidRule: 'PERMISSION_RULE_INVALID',
  /** A settings file with permissions that is not valid JSON of the expected shape. */
  InvalidSettings: 'PERMISSION_SETTINGS_INVALID',
  /** A permission mode name that is not one of PERMISSION_MODES. */
  InvalidMode: 'PERMISSION_MODE_INVALID',
} as const
