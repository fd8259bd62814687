// Error codes of the tool seam.

export const ToolErrorCode = {
  InvalidName: 'TOOL_INVALID_NAME',
  Duplicate: 'TOOL_DUPLICATE',
} as const
