// The `todo_write` tool: the model's task list as one whole snapshot, logged as a
// `todo/update` session event (chat shows it; ACP sends it as a plan update).

import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'
import type { ToolDefinition } from '../../plugin-api/index.js'
import type { TodoItem } from '../../session/types.js'
import { TODO_WRITE_DESCRIPTION } from './prompts.js'

export const todoWriteParameters = toolParameters('todo_write', () =>
  z.object({
    todos: z
      .array(
        z.object({
          content: z.string().min(1).describe('The task, in the imperative.'),
          status: z.enum(['pending', 'in_progress', 'completed']),
          activeForm: z
            .string()
            .min(1)
            .optional()
            .describe('The task in present continuous, shown while it runs.'),
        }),
      )
      .describe('The whole task list; it replaces the previous one.'),
  }),
)

const MARKS: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' }

/** The list as text: one line per item with its state mark. */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return '(no tasks)'
  return todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`).join('\n')
}

export function createTodoWriteTool(): ToolDefinition<SchemaOf<typeof todoWriteParameters>> {
  return {
    name: 'todo_write',
    description: TODO_WRITE_DESCRIPTION,
    get parameters() {
      return todoWriteParameters.schema()
    },
    parametersJsonSchema: todoWriteParameters.jsonSchema,
    async execute(args, execution) {
      const todos: TodoItem[] = args.todos.map((todo) => ({
        content: todo.content,
        status: todo.status,
        ...(todo.activeForm !== undefined ? { activeForm: todo.activeForm } : {}),
      }))
      execution.agent?.session.append('todo/update', { todos })
      const done = todos.filter((todo) => todo.status === 'completed').length
      return { content: `Task list updated (${done}/${todos.length} done)\n${renderTodos(todos)}` }
    },
  }
}
