// The colour functions every terminal view takes (made by colorsFor in render.ts).

export interface Colors {
  readonly enabled: boolean
  dim(text: string): string
  bold(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  cyan(text: string): string
  magenta(text: string): string
  italic(text: string): string
  underline(text: string): string
  strike(text: string): string
}
