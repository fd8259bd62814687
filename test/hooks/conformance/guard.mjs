// An exec-form Node guard: `"command": "node", "args": ["guard.mjs", "--deny", "curl"]`.
// Blocks Bash commands that use any program named after --deny.
const denied = []
for (let i = 2; i < process.argv.length; i++) if (process.argv[i] === '--deny') denied.push(process.argv[++i])
let raw = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  raw += chunk
})
process.stdin.on('end', () => {
  const { tool_name: tool, tool_input: input } = JSON.parse(raw)
  if (tool !== 'Bash') return
  const hit = denied.find((name) => new RegExp(`(^|[\\s;&|])${name}(\\s|$)`).test(input.command))
  if (hit) {
    console.log(
      JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: `${hit} is not allowed in this project`,
        },
      }),
    )
  }
})
