// Error codes of the MCP seam.

export const McpErrorCode = {
  /** A server entry (config file, `.mcp.json`, ACP request) is not valid. */
  InvalidConfig: 'MCP_INVALID_CONFIG',
  /** `${VAR}` names a variable that is not set and has no default. */
  MissingVariable: 'MCP_MISSING_VARIABLE',
  /** A `.mcp.json` past its size cap, or a server list past MAX_MCP_SERVERS. */
  TooLarge: 'MCP_TOO_LARGE',
  /** A stdio server's `cwd` does not exist or is not a folder. */
  BadCwd: 'MCP_BAD_CWD',
  /** The server is not connected (failed, crashed, still starting, or closed). */
  Unavailable: 'MCP_UNAVAILABLE',
  /** `dsh mcp add` was given a server name or entry that is not valid (what was typed). */
  InvalidEntry: 'MCP_INVALID_ENTRY',
  /** `dsh mcp add/remove` was given a name that exists / does not exist. */
  NameTaken: 'MCP_NAME_TAKEN',
  UnknownServer: 'MCP_UNKNOWN_SERVER',
} as const
