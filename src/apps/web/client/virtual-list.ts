// A windowed list for long transcripts: only the items near the viewport are in the DOM;
// the rest are spacers sized from measured heights (an estimate until an item was shown).
// While the view is at the bottom it follows new items and the growing footer, like a chat.

import { html } from 'htm/preact'
import { Component, type ComponentChildren, type VNode } from 'preact'
import { useLayoutEffect, useRef, useState } from 'preact/hooks'

/** Pixels rendered beyond the viewport on each side. */
const OVERSCAN_PX = 800
/** Within this many pixels of the end counts as "at the bottom". */
const FOLLOW_SLACK_PX = 48

export interface VirtualListProps<T> {
  items: readonly T[]
  keyOf: (item: T) => string
  render: (item: T) => VNode
  /** Height assumed for an item never shown, in pixels. */
  estimatePx: number
  /** Rendered after the items (the live part of a running turn). */
  footer?: ComponentChildren
  /** Changes whenever an item changes in place (a tool card got its result), so it is measured again. */
  itemsVersion?: number
}

export function VirtualList<T>(props: VirtualListProps<T>): VNode {
  const { items, keyOf, estimatePx } = props
  const scroller = useRef<HTMLDivElement>(null)
  const heights = useRef(new Map<string, number>())
  const following = useRef(true)
  const footer = useRef<HTMLDivElement>(null)
  const frame = useRef<number | undefined>(undefined)
  /** Where our last scroll to the end put the view, until its scroll event arrives. */
  const ownScrollTop = useRef<number | undefined>(undefined)
  const [view, setView] = useState({ top: 0, height: 800 })
  const [, setMeasured] = useState(0)

  // The window: the first and last item that overlap the viewport plus overscan.
  const low = view.top - OVERSCAN_PX
  const high = view.top + view.height + OVERSCAN_PX
  let offset = 0
  let start = items.length
  let end = items.length
  let before = 0
  for (let index = 0; index < items.length; index++) {
    const height = heights.current.get(keyOf(items[index]!)) ?? estimatePx
    if (start === items.length && offset + height >= low) {
      start = index
      before = offset
    }
    if (start !== items.length && offset > high) {
      end = index
      break
    }
    offset += height
  }
  let after = 0
  for (let index = end; index < items.length; index++)
    after += heights.current.get(keyOf(items[index]!)) ?? estimatePx

  // Measuring forces a layout: only when the rendered items changed, not on every streamed
  // delta of the footer. Following the end waits for the next frame for the same reason.
  const windowKey = `${items.length}:${start}:${end}:${props.itemsVersion ?? 0}`
  const measuredKey = useRef('')
  useLayoutEffect(() => {
    const element = scroller.current
    if (!element) return
    if (measuredKey.current !== windowKey) {
      measuredKey.current = windowKey
      let changed = false
      for (const child of element.querySelectorAll<HTMLElement>(':scope > .vl-items > [data-key]')) {
        const key = child.dataset.key!
        const height = child.offsetHeight
        if (Math.abs((heights.current.get(key) ?? -1) - height) > 1) {
          heights.current.set(key, height)
          changed = true
        }
      }
      if (changed) setMeasured((n) => n + 1)
    }
    follow()
  })

  /**
   * Scrolls to the end on the next frame while the view follows it. The frame checks again:
   * a person who scrolled up after it was asked for is not pulled back down.
   */
  const follow = () => {
    const element = scroller.current
    if (!element || !following.current || frame.current !== undefined) return
    frame.current = requestAnimationFrame(() => {
      frame.current = undefined
      if (!following.current) return
      const before = element.scrollTop
      element.scrollTop = element.scrollHeight
      // No scroll event comes when the view was already at the end.
      ownScrollTop.current = element.scrollTop === before ? undefined : element.scrollTop
    })
  }

  useLayoutEffect(() => {
    const element = scroller.current
    if (!element) return
    const measureView = () => setView({ top: element.scrollTop, height: element.clientHeight })
    // Only a scroll decides whether the view follows the end. Our own scroll to the end counts
    // as following even if the items grew before its event arrived.
    const onScroll = () => {
      const own = element.scrollTop === ownScrollTop.current
      ownScrollTop.current = undefined
      following.current =
        own || element.scrollTop + element.clientHeight >= element.scrollHeight - FOLLOW_SLACK_PX
      measureView()
    }
    const onResize = () => {
      measureView()
      follow()
    }
    measureView()
    element.addEventListener('scroll', onScroll, { passive: true })
    const observer = new ResizeObserver(onResize)
    observer.observe(element)
    // The footer (a streaming answer) re-renders on its own; its growth is followed here.
    const growth = new ResizeObserver(follow)
    if (footer.current) growth.observe(footer.current)
    return () => {
      element.removeEventListener('scroll', onScroll)
      observer.disconnect()
      growth.disconnect()
    }
  }, [])

  const shown = items.slice(start, end)
  const render = props.render as (item: unknown) => VNode
  return html`<div class="vl" ref=${scroller}>
    <div class="vl-items">
      <div class="vl-spacer" style=${{ height: `${before}px` }}></div>
      ${shown.map((item) => html`<div key=${keyOf(item)} data-key=${keyOf(item)}><${ItemView} item=${item} render=${render} /></div>`)}
      <div class="vl-spacer" style=${{ height: `${after}px` }}></div>
    </div>
    <div class="vl-footer" ref=${footer}>${props.footer}</div>
  </div>`
}

/**
 * One item, rendered again only when it is a new object (items are replaced, never
 * mutated), so scrolling and following the end do not rebuild every visible item.
 */
class ItemView extends Component<{ item: unknown; render: (item: unknown) => VNode }> {
  override shouldComponentUpdate(next: { item: unknown }): boolean {
    return next.item !== this.props.item
  }

  override render(): VNode {
    return this.props.render(this.props.item)
  }
}
