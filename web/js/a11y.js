// Small DOM and accessibility helpers: element building, announcements, focus keeping.
// No innerHTML anywhere: every text from the server is set as text, never parsed as HTML.

/** Build an element: h('button', {class: 'x', onclick: f, 'aria-label': 'y'}, 'text', child). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      node.className = value;
    } else if (name === 'dataset') {
      Object.assign(node.dataset, value);
    } else if (name === 'value') {
      node.value = value;
    } else if (name === 'checked' || name === 'disabled' || name === 'selected') {
      node[name] = Boolean(value);
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Tell screen readers something (the polite live region of the page); repeats are spoken too. */
export function announce(text) {
  const live = document.getElementById('live');
  if (!live || live.dataset.last === text) return;
  live.dataset.last = text;
  live.textContent = text;
}

/** Replace the children of `container` by `nodes`, keeping the focus on the element
 * with the same data-key (so a keyboard user does not lose their place on a re-render). */
export function replaceKeepingFocus(container, ...nodes) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.key : undefined;
  container.replaceChildren(...nodes.flat().filter(Boolean));
  if (key !== undefined) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again && !again.disabled) again.focus({preventScroll: true});
    else container.closest('main')?.focus({preventScroll: true});
  }
}

/** A visually hidden text for screen readers only. */
export function srOnly(text) {
  return h('span', {class: 'visually-hidden'}, text);
}
