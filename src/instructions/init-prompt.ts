// The prompt `/init` sends: the model studies the project and writes a starter AGENTS.md.

export const INIT_PROMPT = `Please study this project and write an AGENTS.md file at its root for future coding agents working here.

Look at the README, the package/build files, the folder layout and a few central source files first. Then write AGENTS.md with:
- the commands to build, lint and test (including how to run a single test);
- the high-level architecture: the main folders and what each owns, and how the parts fit together;
- conventions a newcomer would miss (code style, naming, where tests live, anything unusual).

Keep it short and concrete: no generic advice, nothing you did not see in the project. If an AGENTS.md (or CLAUDE.md) already exists, improve it rather than starting over, and keep what is still true.`
