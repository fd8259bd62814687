// The repeat guard: a model stuck making the same tool call with the same arguments and
// the same result is reminded in the tool result, and a few calls later its turn ends
// (reason `repeated`). It replaces a low step limit as the guard against loops.

/** The repeat that brings a reminder, and the one that ends the turn. */
export const REPEAT_REMIND_AT = 3
export const REPEAT_END_AT = 5

export function repeatReminder(count: number): string {
  return `[dsh: this is identical call number ${count} in a row with the same result. Repeating it will not change the outcome: try something different, or stop and say what is blocking you. The turn ends at ${REPEAT_END_AT} repeats.]`
}

/** Counts identical consecutive tool calls of one turn. */
export class RepeatGuard {
  private last: string | undefined
  private count = 0

  /** Records one finished call; returns how many times in a row it has now been seen. */
  observe(name: string, args: string, result: string): number {
    const signature = `${name}\u0000${args}\u0000${result}`
    this.count = signature === this.last ? this.count + 1 : 1
    this.last = signature
    return this.count
  }

  get repeats(): number {
    return this.count
  }
}
