// An accessible autocomplete (WAI-ARIA 1.2 combobox with a listbox popup):
// debounced fetching, grouped options, arrow keys / Enter / Escape / Tab,
// aria-activedescendant, and a polite announcement of the suggestion count.
import { isAbort } from "./api.js";
import { h } from "./dom.js";

/**
 * @typedef {{ label: string, detail?: string, value: any, kind: string }} Option
 * @typedef {{ label: string, options: Option[] }} Group
 * @typedef {{ close(): void, cancel(): void, isOpen(): boolean }} Combobox
 */

/** Wraps the first case-insensitive occurrence of `text` in `label` in <mark>. */
function highlight(label, text) {
  const at = text ? label.toLowerCase().indexOf(text.toLowerCase()) : -1;
  if (at < 0) return [label];
  return [
    label.slice(0, at),
    h("mark", null, label.slice(at, at + text.length)),
    label.slice(at + text.length),
  ];
}

/**
 * Turns `input` (role=combobox) and `listbox` (role=listbox) into an autocomplete.
 * @param {{
 *   input: HTMLInputElement,
 *   listbox: HTMLElement,
 *   source: (text: string, signal: AbortSignal) => Promise<Group[]>,
 *   onSelect: (option: Option) => void,
 *   minLength?: number,
 *   delay?: number,
 * }} options
 * @returns {Combobox}
 */
export function combobox({ input, listbox, source, onSelect, minLength = 2, delay = 150 }) {
  /** @type {Option[]} */
  let options = [];
  /** @type {HTMLElement[]} */
  let nodes = [];
  let active = -1;
  let timer = 0;
  /** @type {AbortController | null} */
  let controller = null;
  let seq = 0;
  const announcer = h("span", { class: "visually-hidden", role: "status", "aria-live": "polite" });
  listbox.after(announcer);

  const isOpen = () => !listbox.hidden;

  function setActive(index) {
    if (nodes[active]) nodes[active].setAttribute("aria-selected", "false");
    active = index;
    const node = nodes[active];
    if (node) {
      node.setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", node.id);
      node.scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function open() {
    listbox.hidden = false;
    input.setAttribute("aria-expanded", "true");
  }

  function close() {
    setActive(-1);
    listbox.hidden = true;
    input.setAttribute("aria-expanded", "false");
  }

  function cancel() {
    clearTimeout(timer);
    controller?.abort();
    controller = null;
    seq++;
    close();
  }

  function select(index) {
    const option = options[index];
    if (!option) return;
    cancel();
    onSelect(option);
  }

  function render(groups, text) {
    options = [];
    nodes = [];
    active = -1;
    listbox.replaceChildren();
    groups.forEach((group, g) => {
      if (group.options.length === 0) return;
      const labelId = `${listbox.id}-group-${g}`;
      const groupEl = h(
        "div",
        { role: "group", "aria-labelledby": labelId, class: "listbox-group" },
        h("div", { id: labelId, role: "presentation", class: "listbox-group-label" }, group.label),
      );
      for (const option of group.options) {
        const index = options.length;
        const node = h(
          "div",
          {
            id: `${listbox.id}-option-${index}`,
            role: "option",
            "aria-selected": "false",
            class: `option option-${option.kind}`,
            onclick: () => select(index),
          },
          h("span", { class: "option-label" }, highlight(option.label, text)),
          option.detail ? h("span", { class: "option-detail" }, option.detail) : null,
        );
        options.push(option);
        nodes.push(node);
        groupEl.append(node);
      }
      listbox.append(groupEl);
    });
  }

  async function load(text) {
    controller?.abort();
    controller = new AbortController();
    const mine = ++seq;
    try {
      const groups = await source(text, controller.signal);
      if (mine !== seq || document.activeElement !== input) return;
      render(groups, text);
      if (options.length > 0) {
        open();
        announcer.textContent = `${options.length} suggestion${
          options.length === 1 ? "" : "s"
        }: use the up and down arrows to choose`;
      } else {
        close();
        announcer.textContent = "No suggestions";
      }
    } catch (error) {
      if (!isAbort(error) && mine === seq) close();
    }
  }

  function schedule() {
    clearTimeout(timer);
    const text = input.value.trim();
    if (text.length < minLength) {
      controller?.abort();
      seq++;
      options = [];
      close();
      return;
    }
    timer = setTimeout(() => load(text), delay);
  }

  input.addEventListener("input", schedule);
  input.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    const count = options.length;
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        if (!isOpen()) {
          if (count > 0) {
            open();
            setActive(0);
          } else if (input.value.trim().length >= minLength) {
            clearTimeout(timer);
            load(input.value.trim());
          }
        } else if (count > 0) {
          setActive((active + 1) % count);
        }
        break;
      case "ArrowUp":
        if (isOpen() && count > 0) {
          event.preventDefault();
          setActive(active <= 0 ? count - 1 : active - 1);
        }
        break;
      case "Enter":
        if (isOpen() && active >= 0) {
          event.preventDefault();
          select(active);
        } else {
          cancel();
        }
        break;
      case "Escape":
        if (isOpen()) {
          event.preventDefault();
          event.stopPropagation();
          close();
        } else if (input.value) {
          event.preventDefault();
          cancel();
          input.value = "";
        }
        break;
      case "Tab":
        close();
        break;
    }
  });
  input.addEventListener("blur", () => close());
  // Keep focus in the input while the pointer picks an option.
  listbox.addEventListener("mousedown", (event) => event.preventDefault());

  return { close, cancel, isOpen };
}
