// Error codes of the permission-rule seam.

export const PermissionErrorCode = {
  /** A rule string that is not `Tool` or `Tool(specifier)`. */
  InvalidRule: 'PERMISSION_RULE_INVALID',
} as const
