// The single-page app of `dsh web`: a hash router between the sessions page and a session.

import { html } from 'htm/preact'
import { render, type VNode } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { SessionPage } from './session-page.js'
import { SessionsPage } from './sessions-page.js'
import { takeTokenFromUrl } from './token.js'
import { TrustDialog } from './trust.js'
import './app.css'

takeTokenFromUrl()

function route(hash: string): { page: 'sessions' } | { page: 'session'; id: string } {
  const match = /^#\/session\/(.+)$/.exec(hash)
  if (match) {
    try {
      return { page: 'session', id: decodeURIComponent(match[1]!) }
    } catch {
      // A hand-edited hash that is not valid percent-encoding: show the list.
    }
  }
  return { page: 'sessions' }
}

function App(): VNode {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const update = () => setHash(location.hash)
    window.addEventListener('hashchange', update)
    // Effects run after the first paint: a hash that changed before then sent its event to nobody.
    update()
    return () => window.removeEventListener('hashchange', update)
  }, [])
  const current = route(hash)
  return html`<div class="app">
    <header class="top"><a class="brand" href="#/">dsh</a></header>
    ${current.page === 'session' ? html`<${SessionPage} key=${current.id} id=${current.id} />` : html`<${SessionsPage} />`}
    <${TrustDialog} />
  </div>`
}

render(html`<${App} />`, document.getElementById('app')!)
