// Model-facing text of the permission seam's tool.

export const EXIT_PLAN_MODE_DESCRIPTION = [
  'Use only in plan mode, once your research is done and your plan is ready: pass the plan',
  '(markdown: the steps you will take, the files you will change, how you will check it).',
  'The user is shown the plan and decides. If they approve, plan mode ends and you carry the',
  'plan out; if they refuse, stay in plan mode and refine the plan with them. Outside plan',
  'mode this tool does nothing.',
].join(' ')
