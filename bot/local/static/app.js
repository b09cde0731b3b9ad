"use strict";
// The local table's page: draws what the chosen person sees (pushed by the server over a websocket) and
// sends what they do (commands, autocomplete, clicks, messages) as JSON. Plain DOM, no build step.

const T = { SUB: 1, GROUP: 2, STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, MENTIONABLE: 9, NUMBER: 10, ATTACHMENT: 11 };
const KIND_WORDS = { owner: "Server owner", gm: "GM", player: "Player" };
const AVATAR_COLOURS = ["#3ba55c", "#faa61a", "#ed4245", "#eb459f", "#757e8a", "#1abc9c"];
const GROUP_WINDOW = 7 * 60 * 1000; // Discord groups one author's messages sent within minutes

const app = {
  state: null, // who I am, the guild, its people, channels and commands (from the server)
  messages: new Map(), // id -> message, every message I can see
  channel: null, // the open channel's id
  unread: new Map(), // channel id -> messages that came while it was not open
  dismissed: new Set(),
  me: localStorage.getItem("table.as") || "",
  ws: null,
  form: null, // the command being filled in
  picker: { items: [], index: 0 },
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "html") node.innerHTML = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// -- the connection -------------------------------------------------------------------------------
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/live`);
  app.ws = ws;
  ws.onopen = () => {
    status("");
    ws.send(JSON.stringify({ as: app.me }));
  };
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    status("The table is not reachable: reconnecting…");
    setTimeout(connect, 1000);
  };
}

function receive(data) {
  if (data.type === "hello") {
    app.state = data.state;
    app.me = data.state.me;
    localStorage.setItem("table.as", app.me);
    app.messages = new Map(data.messages.map((m) => [m.id, m]));
    app.unread.clear();
    if (!channelIds().includes(app.channel)) app.channel = data.state.channels[0].id;
    closeForm();
    renderAll();
  } else if (data.type === "state") {
    app.state = data.state;
    if (!channelIds().includes(app.channel)) app.channel = data.state.channels[0].id;
    renderChrome();
    renderMessages();
  } else if (data.type === "message") {
    const m = data.message;
    const fresh = !app.messages.has(m.id);
    app.messages.set(m.id, m);
    if (m.channel === app.channel) upsert(m);
    else if (fresh) app.unread.set(m.channel, (app.unread.get(m.channel) || 0) + 1);
    renderChannels();
  } else if (data.type === "gone") {
    app.messages.delete(data.id);
    const node = document.querySelector(`.msg[data-id="${data.id}"]`);
    if (node) renderMessages();
  }
}

function status(text) {
  $("status").hidden = !text;
  $("status").textContent = text;
}

async function post(url, body) {
  const init =
    body instanceof FormData
      ? { method: "POST", body }
      : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  try {
    const response = await fetch(url, init);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) return { error: data.error || `The table answered ${response.status}.` };
    return data;
  } catch (err) {
    return { error: "The table is not reachable; is it still running?" };
  }
}

// -- who is who -----------------------------------------------------------------------------------
const me = () => person(app.state.me);
const person = (id) => app.state.people.find((p) => p.id === id);
const isDM = () => app.channel === app.state.dm;
const channelIds = () => (app.state ? [...app.state.channels.map((c) => c.id), app.state.dm] : []);

function displayName(id, fallback) {
  if (app.state && id === app.state.bot.id) return app.state.bot.name;
  const p = person(id);
  return p ? p.name : fallback || "someone";
}

function avatar(id, size) {
  const bot = app.state && id === app.state.bot.id;
  const name = displayName(id);
  let hash = 0; // by username, so a person keeps their colour across tables and renames
  const key = (person(id) || {}).username || id;
  for (const ch of key) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const node = el("div", { class: `avatar ${size || ""}`, "aria-hidden": "true" }, bot ? "🎲" : name.slice(0, 1).toUpperCase());
  node.style.background = bot ? "#5865f2" : AVATAR_COLOURS[hash % AVATAR_COLOURS.length];
  return node;
}

function switchTo(id) {
  if (id === app.me) return;
  app.me = id;
  localStorage.setItem("table.as", id);
  if (app.ws && app.ws.readyState === WebSocket.OPEN) app.ws.send(JSON.stringify({ as: id }));
}

// -- the frame: channels, people, header ----------------------------------------------------------
function renderAll() {
  renderChrome();
  renderMessages();
}

function renderChrome() {
  const s = app.state;
  $("guild-name").textContent = s.guild.name;
  $("rail-guild").textContent = s.guild.name.replace(/^The /, "").slice(0, 1);
  $("rail-guild").title = s.guild.name;
  renderChannels();
  renderPeople();
  const mine = me();
  $("me-panel").replaceChildren(
    avatar(mine.id, "small"),
    el("div", { class: "who" }, el("b", {}, mine.name), el("span", {}, KIND_WORDS[mine.kind])),
  );
  $("playing-as").replaceChildren("Playing as ", el("b", {}, mine.name));
  const channel = s.channels.find((c) => c.id === app.channel);
  $("chat-icon").textContent = isDM() ? "@" : "#";
  $("chat-title").textContent = isDM() ? s.bot.name : channel.name;
  $("chat-topic").textContent = topic(channel);
  $("input").placeholder = isDM()
    ? `Message @${s.bot.name} — type / for commands`
    : `Message #${channel.name} — type / for commands`;
  document.title = `${isDM() ? "@" + s.bot.name : "#" + channel.name} · ${s.guild.name} · local table`;
}

function topic(channel) {
  if (isDM()) return `Your direct messages with ${app.state.bot.name}.`;
  if (channel.name === "gm-screen") return "GM and blind rolls land here. Only the owner and GMs see this channel.";
  return "Where the table plays: rolls, cards, sheets and odds. Type / to see every command.";
}

function renderChannels() {
  const s = app.state;
  const row = (id, glyph, label, extra) => {
    const count = app.unread.get(id) || 0;
    return el(
      "button",
      {
        class: `channel${id === app.channel ? " active" : ""}${count ? " unread" : ""}`,
        "data-channel": label,
        onclick: () => openChannel(id),
      },
      glyph,
      el("span", {}, label),
      extra,
      count ? el("span", { class: "badge" }, count) : null,
    );
  };
  $("channel-list").replaceChildren(
    el("div", { class: "section-title" }, "Text channels"),
    ...s.channels.map((c) => row(c.id, el("span", { class: "glyph" }, "#"), c.name)),
    el("div", { class: "section-title" }, "Direct messages"),
    row(s.dm, avatar(s.bot.id, "tiny"), s.bot.name, el("span", { class: "app-tag" }, "APP")),
  );
}

function openChannel(id) {
  if (id === app.channel) return;
  app.channel = id;
  app.unread.delete(id);
  closeForm();
  closePicker();
  renderAll();
  $("input").focus();
}

function renderPeople() {
  const s = app.state;
  const groups = [
    ["Server owner", s.people.filter((p) => p.kind === "owner")],
    ["GM", s.people.filter((p) => p.kind === "gm")],
    ["Players", s.people.filter((p) => p.kind === "player")],
  ];
  const nodes = [];
  for (const [title, people] of groups) {
    if (!people.length) continue;
    nodes.push(el("div", { class: "section-title" }, `${title} — ${people.length}`));
    for (const p of people) nodes.push(personRow(p));
  }
  nodes.push(el("div", { class: "section-title" }, "App — 1"));
  nodes.push(
    el(
      "div",
      { class: "person", style: "cursor: default" },
      avatar(s.bot.id, "small"),
      el("span", { class: "pname" }, s.bot.name),
      el("span", { class: "app-tag" }, "APP"),
    ),
  );
  $("people").replaceChildren(...nodes);
}

function personRow(p) {
  const mine = p.id === app.state.me;
  const tags = [p.kind === "owner" ? "👑" : null, ...p.roles.map((r) => `@${r}`)].filter(Boolean).join(" ");
  const row = el(
    "div",
    {
      class: `person${mine ? " me" : ""}`,
      role: "button",
      tabindex: "0",
      "data-person": p.username,
      title: mine ? `You are playing as ${p.name}` : `Play as ${p.name}`,
      onclick: (event) => {
        if (!event.target.closest(".edit, input")) switchTo(p.id);
      },
      onkeydown: (event) => {
        if (event.key === "Enter" && event.target === row) switchTo(p.id);
      },
    },
    avatar(p.id, "small"),
    el("span", { class: "pname" }, p.name),
    tags ? el("span", { class: "tag" }, tags) : null,
    mine ? el("span", { class: "you" }, "YOU") : null,
    el("button", { class: "edit", title: `Rename ${p.name}`, "aria-label": `Rename ${p.name}`, onclick: () => rename(p, row) }, "✎"),
  );
  return row;
}

function rename(p, row) {
  const input = el("input", { value: p.name, maxlength: "32", "aria-label": `New name for ${p.name}` });
  const name = row.querySelector(".pname");
  name.replaceWith(input);
  input.focus();
  input.select();
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    if (save && input.value.trim() && input.value.trim() !== p.name) {
      const answer = await post("/api/rename", { id: p.id, name: input.value });
      if (answer.error) showError(answer.error);
    }
    renderPeople();
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") finish(true);
    if (event.key === "Escape") finish(false);
  });
  input.addEventListener("blur", () => finish(true));
}

// -- messages -------------------------------------------------------------------------------------
function inChannel() {
  return [...app.messages.values()]
    .filter((m) => m.channel === app.channel && !app.dismissed.has(m.id))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

function atBottom() {
  const box = $("messages");
  return box.scrollHeight - box.scrollTop - box.clientHeight < 60;
}

function toBottom() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}

function renderMessages() {
  const box = $("messages");
  const stay = atBottomBeforeLoad || !box.dataset.channel || box.dataset.channel !== app.channel;
  box.dataset.channel = app.channel;
  const list = inChannel();
  const nodes = [welcome()];
  list.forEach((m, i) => nodes.push(renderMessage(m, list[i - 1])));
  box.replaceChildren(...nodes);
  if (stay) toBottom();
}

function upsert(m) {
  const stay = atBottomBeforeLoad;
  const list = inChannel();
  const index = list.findIndex((x) => x.id === m.id);
  const old = document.querySelector(`.msg[data-id="${m.id}"]`);
  if (old) old.replaceWith(renderMessage(m, list[index - 1]));
  else if (index === list.length - 1) $("messages").append(renderMessage(m, list[index - 1]));
  else renderMessages();
  if (stay) toBottom();
}

function welcome() {
  const s = app.state;
  if (isDM()) {
    return el(
      "div",
      { class: "welcome" },
      el("div", { class: "big-icon" }, "🎲"),
      el("h2", {}, s.bot.name),
      el("p", {}, `The start of your direct messages with ${s.bot.name}. GM copies of hidden rolls and the bot's notes to you arrive here; commands work here too.`),
    );
  }
  const channel = s.channels.find((c) => c.id === app.channel);
  return el(
    "div",
    { class: "welcome" },
    el("div", { class: "big-icon" }, "#"),
    el("h2", {}, `Welcome to #${channel.name}!`),
    el(
      "p",
      { html: channel.name === "gm-screen"
        ? "Copies of GM and blind rolls are posted here for the GMs."
        : "This is a local table: the real bot, without Discord. Type <kbd>/</kbd> to pick a command, fill its options and press Enter. Click someone on the right to play as them." },
    ),
  );
}

function renderMessage(m, prev) {
  const grouped =
    prev && !m.used && !prev.ephemeral && !m.ephemeral && prev.author.id === m.author.id && m.time - prev.time < GROUP_WINDOW;
  const node = el("div", {
    class: `msg${grouped ? " cont" : ""}${m.ephemeral ? " ephemeral" : ""}${m.used ? " has-reply" : ""}`,
    "data-id": m.id,
  });
  node.append(avatar(m.author.id));
  if (m.used) {
    node.append(
      el(
        "div",
        { class: "reply" },
        avatar(m.used.user, "tiny"),
        el("b", {}, displayName(m.used.user, m.used.name)),
        " used ",
        el("span", { class: "cmd" }, m.used.command),
      ),
    );
  }
  node.append(
    el(
      "div",
      { class: "head" },
      el("span", { class: `name${m.author.bot ? " bot" : ""}` }, displayName(m.author.id, m.author.name)),
      m.author.bot ? el("span", { class: "app-tag" }, "APP") : null,
      el("time", { datetime: new Date(m.time).toISOString() }, when(m.time)),
    ),
  );
  if (m.loading) {
    node.append(el("div", { class: "content loading" }, el("span", { class: "dots" }, `${displayName(m.author.id, m.author.name)} is thinking`)));
  } else {
    const content = el("div", { class: "content md", html: markdown(m.content) });
    if (m.edited) content.append(el("span", { class: "edited" }, "(edited)"));
    node.append(content);
  }
  const referenced = new Set();
  for (const embed of m.embeds || []) {
    for (const key of ["image", "thumbnail"]) {
      const url = embed[key] && embed[key].url;
      if (url && url.startsWith("attachment://")) referenced.add(url.slice(13));
    }
    node.append(renderEmbed(embed, m));
  }
  const files = (m.attachments || []).filter((a) => !referenced.has(a.filename));
  if (files.length) node.append(el("div", { class: "attachments" }, files.map(renderAttachment)));
  if (m.components && m.components.length) {
    node.append(el("div", { class: "components" }, m.components.map((c) => renderComponent(c, m))));
  }
  if (m.ephemeral) {
    node.append(
      el(
        "div",
        { class: "ephemeral-note" },
        "👁 Only you can see this • ",
        el("button", { onclick: () => { app.dismissed.add(m.id); renderMessages(); } }, "Dismiss message"),
      ),
    );
  }
  return node;
}

function when(ms) {
  const date = new Date(ms);
  const time = date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const today = new Date();
  if (date.toDateString() === today.toDateString()) return `Today at ${time}`;
  return `${date.toLocaleDateString()} ${time}`;
}

const webUrl = (url) => (typeof url === "string" && /^https?:\/\//.test(url) ? url : null);

function fileUrl(url, m) {
  if (!url) return null;
  if (url.startsWith("attachment://")) {
    const found = (m.attachments || []).find((a) => a.filename === url.slice(13));
    return found ? found.url : null;
  }
  return webUrl(url);
}

function image(url, alt) {
  // not lazy: an image that loads late grows the list after it was scrolled to the bottom
  const img = el("img", { src: url, alt: alt || "", onclick: () => window.open(url, "_blank") });
  img.addEventListener("load", () => {
    if (img.closest("#messages") && atBottomBeforeLoad) toBottom();
  });
  return img;
}
let atBottomBeforeLoad = true;
document.addEventListener("DOMContentLoaded", () => {
  $("messages").addEventListener("scroll", () => { atBottomBeforeLoad = atBottom(); });
});

function renderEmbed(e, m) {
  const box = el("div", { class: "embed" });
  if (typeof e.color === "number") box.style.borderLeftColor = "#" + e.color.toString(16).padStart(6, "0");
  if (e.author && e.author.name) box.append(el("div", { class: "e-author" }, e.author.name));
  if (e.title) {
    const title = el("div", { class: "e-title md", html: markdown(e.title) });
    box.append(webUrl(e.url) ? el("a", { href: e.url, target: "_blank", rel: "noopener" }, title) : title);
  }
  if (e.description) box.append(el("div", { class: "e-desc md", html: markdown(e.description) }));
  if (e.fields && e.fields.length) {
    const grid = el("div", { class: "e-fields" });
    let run = [];
    const flush = () => {
      run.forEach((f) => grid.append(field(f, 12 / run.length)));
      run = [];
    };
    for (const f of e.fields) {
      if (f.inline) {
        run.push(f);
        if (run.length === 3) flush();
      } else {
        flush();
        grid.append(field(f, 12));
      }
    }
    flush();
    box.append(grid);
  }
  const picture = fileUrl(e.image && e.image.url, m);
  if (picture) box.append(el("div", { class: "e-image" }, image(picture, e.title)));
  const thumb = fileUrl(e.thumbnail && e.thumbnail.url, m);
  if (thumb) box.append(el("div", { class: "e-thumb" }, image(thumb)));
  if ((e.footer && e.footer.text) || e.timestamp) {
    const parts = [e.footer && e.footer.text, e.timestamp && when(Date.parse(e.timestamp))].filter(Boolean);
    box.append(el("div", { class: "e-footer" }, parts.join(" • ")));
  }
  return box;
}

function field(f, span) {
  const node = el(
    "div",
    { class: "e-field" },
    el("div", { class: "f-name md", html: markdown(f.name) }),
    el("div", { class: "f-value md", html: markdown(f.value) }),
  );
  node.style.gridColumn = `span ${span}`;
  return node;
}

function renderAttachment(a) {
  if (a.image) return image(a.url, a.filename);
  return el(
    "div",
    { class: "file" },
    el("span", { class: "file-icon" }, "📄"),
    el("div", {}, el("a", { href: a.url, download: a.filename }, a.filename), el("div", { class: "file-size" }, size(a.size))),
  );
}

function size(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// -- components: buttons and selects send their interaction ---------------------------------------
function renderComponent(c, m) {
  switch (c.type) {
    case 1:
      return el("div", { class: "row" }, (c.components || []).map((x) => renderComponent(x, m)));
    case 2:
      return button(c, m);
    case 3:
      return select(c, m);
    case 5: case 6: case 7: case 8:
      return el("select", { class: "select", disabled: true }, el("option", {}, c.placeholder || "Select"));
    case 9:
      return el(
        "div",
        { class: "section-v2" },
        el("div", {}, (c.components || []).map((x) => renderComponent(x, m))),
        c.accessory ? renderComponent(c.accessory, m) : null,
      );
    case 10:
      return el("div", { class: "md", html: markdown(c.content || "") });
    case 11:
      return image(fileUrl(c.media && c.media.url, m) || "", c.description);
    case 12:
      return el("div", { class: "attachments" }, (c.items || []).map((item) => image(fileUrl(item.media && item.media.url, m) || "", item.description)));
    case 14:
      return el("hr", { class: "separator-v2" });
    case 17: {
      const box = el("div", { class: "container-v2" }, (c.components || []).map((x) => renderComponent(x, m)));
      if (typeof c.accent_color === "number") box.style.borderLeftColor = "#" + c.accent_color.toString(16).padStart(6, "0");
      return box;
    }
    default:
      return el("div", { class: "file-size" }, `(a component of type ${c.type} the local table does not draw)`);
  }
}

function button(c, m) {
  const emoji = c.emoji ? (c.emoji.id ? `:${c.emoji.name}:` : c.emoji.name) : null;
  if (c.style === 5) {
    return el("a", { class: "btn s5", href: webUrl(c.url) || "#", target: "_blank", rel: "noopener" }, emoji, c.label, " ↗");
  }
  const node = el(
    "button",
    { class: `btn s${c.style || 2}`, disabled: !!c.disabled, "data-custom-id": c.custom_id },
    emoji ? el("span", {}, emoji) : null,
    c.label,
  );
  node.addEventListener("click", () => interact(node, m, c.custom_id, undefined));
  return node;
}

function select(c, m) {
  const many = (c.max_values || 1) > 1;
  const node = el(
    "select",
    { class: "select", disabled: !!c.disabled, "data-custom-id": c.custom_id, multiple: many, "aria-label": c.placeholder || "Select" },
    many ? null : el("option", { value: "", disabled: true, selected: true }, c.placeholder || "Make a selection"),
    (c.options || []).map((o) => el("option", { value: o.value, title: o.description || null }, [o.emoji && o.emoji.name, o.label].filter(Boolean).join(" "))),
  );
  if (!many) {
    node.addEventListener("change", () => interact(node, m, c.custom_id, [node.value]));
    return node;
  }
  const apply = el("button", { class: "btn s1", type: "button" }, "Choose");
  apply.addEventListener("click", () => interact(apply, m, c.custom_id, [...node.selectedOptions].map((o) => o.value)));
  return el("div", { class: "row" }, node, apply);
}

async function interact(node, m, customId, values) {
  node.classList.add("busy");
  const answer = await post("/api/click", { as: app.me, message: m.id, custom_id: customId, values });
  node.classList.remove("busy");
  if (answer.error) showError(`This interaction failed: ${answer.error}`);
}

// -- markdown, as Discord draws it ----------------------------------------------------------------
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

function markdown(text) {
  if (!text) return "";
  const kept = [];
  const keep = (html) => `\u0000${kept.push(html) - 1}\u0000`;
  let src = String(text)
    .replace(/```(?:[a-z0-9+-]*\n)?([\s\S]*?)```/gi, (_, code) => keep(`<pre><code>${escapeHtml(code.replace(/\n$/, ""))}</code></pre>`))
    .replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${escapeHtml(code)}</code>`));
  src = escapeHtml(src);
  const lines = src.split("\n");
  const out = [];
  let quote = null;
  let lastInline = false;
  const flushQuote = () => {
    if (quote) out.push(`<blockquote>${quote.join("\n")}</blockquote>`);
    quote = null;
  };
  for (const line of lines) {
    const q = line.match(/^&gt; ?(.*)$/);
    if (q) {
      (quote = quote || []).push(inline(q[1]));
      lastInline = false;
      continue;
    }
    flushQuote();
    const h = line.match(/^(#{1,3}) (.+)$/);
    const sub = line.match(/^-# (.+)$/);
    if (h) {
      out.push(`<h${h[1].length}>${inline(h[2])}</h${h[1].length}>`);
      lastInline = false;
    } else if (sub) {
      out.push(`<div class="sub">${inline(sub[1])}</div>`);
      lastInline = false;
    } else {
      const bullet = line.replace(/^(\s*)[-*] (?=\S)/, "$1• ");
      out.push((lastInline ? "\n" : "") + inline(bullet));
      lastInline = true;
    }
  }
  flushQuote();
  return out.join("").replace(/\u0000(\d+)\u0000/g, (_, i) => kept[Number(i)]);
}

function inline(text) {
  return text
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, '<a href="$2" target="_blank" rel="noopener">$1</a>')
    .replace(/(^|[\s(])(https?:\/\/[^\s<]+)/g, '$1<a href="$2" target="_blank" rel="noopener">$2</a>')
    .replace(/\*\*\*(.+?)\*\*\*/g, "<strong><em>$1</em></strong>")
    .replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>")
    .replace(/__(.+?)__/g, "<u>$1</u>")
    .replace(/(^|[^*\w])\*(?!\s)(.+?)\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/(^|[^_\w])_(?!\s)(.+?)_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~(.+?)~~/g, "<s>$1</s>")
    .replace(/\|\|(.+?)\|\|/g, '<span class="spoiler" onclick="this.classList.toggle(\'open\')">$1</span>')
    .replace(/&lt;@!?(\d+)&gt;/g, (_, id) => `<span class="mention">@${escapeHtml(displayName(id, "unknown"))}</span>`)
    .replace(/&lt;@&amp;(\d+)&gt;/g, (_, id) => {
      const role = app.state && app.state.roles.find((r) => r.id === id);
      return `<span class="mention">@${escapeHtml(role ? role.name.replace(/^@/, "") : "role")}</span>`;
    })
    .replace(/&lt;#(\d+)&gt;/g, (_, id) => {
      const channel = app.state && app.state.channels.find((c) => c.id === id);
      return `<span class="mention">#${escapeHtml(channel ? channel.name : "channel")}</span>`;
    })
    .replace(/&lt;t:(-?\d+)(?::([tTdDfFR]))?&gt;/g, (_, secs, style) => {
      const date = new Date(Number(secs) * 1000);
      const text = style === "R" ? relative(date) : style === "t" || style === "T" ? date.toLocaleTimeString() : date.toLocaleString();
      return `<span class="mention" title="${escapeHtml(date.toLocaleString())}">${escapeHtml(text)}</span>`;
    })
    .replace(/&lt;a?:(\w+):\d+&gt;/g, ":$1:");
}

function relative(date) {
  const minutes = Math.round((date - Date.now()) / 60000);
  const format = new Intl.RelativeTimeFormat([], { numeric: "auto" });
  if (Math.abs(minutes) < 60) return format.format(minutes, "minute");
  if (Math.abs(minutes) < 60 * 48) return format.format(Math.round(minutes / 60), "hour");
  return format.format(Math.round(minutes / 1440), "day");
}

// -- the command picker ---------------------------------------------------------------------------
function leaves() {
  const commands = isDM() ? app.state.commands.dm : app.state.commands.guild;
  const out = [];
  const add = (path, node, locked) => out.push({ path, description: node.description || "", options: node.options || [], locked });
  for (const c of commands) {
    const subs = (c.options || []).filter((o) => o.type === T.SUB || o.type === T.GROUP);
    if (!subs.length) add(c.name, c, c.locked);
    for (const s of subs) {
      if (s.type === T.SUB) add(`${c.name} ${s.name}`, s, c.locked);
      else for (const g of s.options || []) add(`${c.name} ${s.name} ${g.name}`, g, c.locked);
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

function openPicker(typed) {
  const wanted = typed.trim().toLowerCase().replace(/\s+/g, " ");
  const all = leaves();
  const starts = all.filter((l) => l.path.startsWith(wanted));
  const others = all.filter((l) => !l.path.startsWith(wanted) && l.path.includes(wanted));
  app.picker.items = [...starts, ...others];
  app.picker.index = 0;
  drawPicker(wanted);
}

function drawPicker(wanted) {
  const box = $("picker");
  box.hidden = false;
  const rows = app.picker.items.map((leaf, i) =>
    el(
      "div",
      {
        class: `pick${i === app.picker.index ? " sel" : ""}`,
        "data-path": leaf.path,
        onmousedown: (event) => { event.preventDefault(); choose(leaf); },
      },
      el("span", { class: "path" }, `/${leaf.path}`),
      el("span", { class: "desc" }, leaf.description),
      leaf.locked ? el("span", { class: "lock", title: `Discord hides this from you: it needs ${leaf.locked}.` }, `🔒 ${leaf.locked} on Discord`) : null,
    ),
  );
  box.replaceChildren(
    el("div", { class: "popup-title" }, wanted ? `Commands matching /${wanted}` : `Commands of ${app.state.bot.name}`),
    ...(rows.length ? rows : [el("div", { class: "empty" }, "No command matches.")]),
  );
  const selected = box.querySelector(".pick.sel");
  if (selected) selected.scrollIntoView({ block: "nearest" });
}

function closePicker() {
  $("picker").hidden = true;
  app.picker.items = [];
}

function choose(leaf) {
  closePicker();
  $("input").value = "";
  openForm(leaf);
}

// -- the command form -----------------------------------------------------------------------------
function openForm(leaf) {
  app.form = { leaf, busy: false };
  const form = $("form");
  form.hidden = false;
  $("input-row").hidden = true;
  hideError();
  const required = leaf.options.filter((o) => o.required);
  const optional = leaf.options.filter((o) => !o.required);
  form.replaceChildren(
    el(
      "div",
      { class: "form-head" },
      el("span", { class: "path" }, `/${leaf.path}`),
      leaf.locked
        ? el("span", { class: "lock", title: `Discord shows this command only to members with ${leaf.locked}; here you can try how the bot answers anyone else.` }, `🔒 ${leaf.locked} on Discord`)
        : null,
      el("button", { class: "close", type: "button", title: "Cancel (Esc)", "aria-label": "Cancel", onclick: closeForm }, "×"),
    ),
    el("div", { class: "form-help", id: "form-help" }, leaf.description),
    el("div", { class: "fields", id: "fields" }, required.map((o) => optionField(o, false))),
    optional.length
      ? el(
          "div",
          { class: "optional", id: "optional" },
          el("span", { class: "opt-title" }, required.length ? "Optional:" : "Options:"),
          optional.map((o) => el("button", { class: "chip", type: "button", "data-add": o.name, title: o.description, onclick: () => addOptional(o) }, `+ ${o.name}`)),
        )
      : null,
    el(
      "div",
      { class: "form-foot" },
      el("span", { class: "keys" }, "Enter sends · Esc cancels"),
      el("button", { class: "btn s1", type: "submit", id: "send" }, "Send"),
    ),
  );
  const first = form.querySelector(".field input, .field select");
  if (first) first.focus();
  else $("send").focus();
}

function addOptional(o) {
  const chip = document.querySelector(`#optional [data-add="${o.name}"]`);
  if (chip) chip.remove();
  const node = optionField(o, true);
  $("fields").append(node);
  node.querySelector("input, select").focus();
}

function closeForm() {
  app.form = null;
  $("form").hidden = true;
  $("form").replaceChildren();
  $("input-row").hidden = false;
}

function optionField(o, removable) {
  const hint = rangeHint(o);
  const wrap = el("div", { class: "field", "data-option": o.name, title: o.description || "" });
  const label = el(
    "label",
    { for: `opt-${o.name}` },
    o.name,
    o.required ? el("span", { class: "req" }, "*") : null,
    hint ? el("span", { class: "hint" }, hint) : null,
    removable
      ? el("button", {
          class: "drop", type: "button", title: `Remove ${o.name}`, "aria-label": `Remove ${o.name}`,
          onclick: () => {
            wrap.remove();
            const optional = $("optional");
            if (optional) optional.append(el("button", { class: "chip", type: "button", "data-add": o.name, title: o.description, onclick: () => addOptional(o) }, `+ ${o.name}`));
          },
        }, "×")
      : null,
  );
  const control = optionControl(o);
  control.id = `opt-${o.name}`;
  control.dataset.name = o.name;
  control.addEventListener("focus", () => {
    const help = $("form-help");
    if (help) help.textContent = `${o.name}: ${o.description || ""}`;
  });
  wrap.append(label, control);
  return wrap;
}

function rangeHint(o) {
  if (o.choices) return "";
  if (o.type === T.INTEGER || o.type === T.NUMBER) {
    const low = o.min_value, high = o.max_value;
    if (low !== undefined && high !== undefined && Math.abs(high) < 1e9) return `${low} to ${high}`;
    if (low !== undefined && Math.abs(low) < 1e9) return `≥ ${low}`;
  }
  return "";
}

function optionControl(o) {
  const s = app.state;
  const choice = (value, text) => el("option", { value }, text);
  const placeholder = () => el("option", { value: "" }, "Choose…");
  if (o.choices) return el("select", {}, placeholder(), o.choices.map((c) => choice(String(c.value), c.name)));
  switch (o.type) {
    case T.BOOLEAN:
      return el("select", {}, placeholder(), choice("true", "True"), choice("false", "False"));
    case T.USER:
      return el("select", {}, placeholder(), s.people.map((p) => choice(p.id, p.name)));
    case T.MENTIONABLE:
      return el("select", {}, placeholder(), s.people.map((p) => choice(p.id, p.name)), s.roles.map((r) => choice(r.id, `@${r.name.replace(/^@/, "")}`)));
    case T.ROLE:
      return el("select", {}, placeholder(), s.roles.map((r) => choice(r.id, `@${r.name.replace(/^@/, "")}`)));
    case T.CHANNEL:
      return el("select", {}, placeholder(), s.channels.map((c) => choice(c.id, `#${c.name}`)));
    case T.ATTACHMENT:
      return el("input", { type: "file" });
    default: {
      const numeric = o.type === T.INTEGER || o.type === T.NUMBER;
      const input = el("input", {
        type: "text",
        inputmode: numeric ? (o.type === T.INTEGER ? "numeric" : "decimal") : null,
        maxlength: o.max_length || null,
        placeholder: numeric ? (o.type === T.INTEGER ? "a whole number" : "a number") : o.autocomplete ? "type for suggestions" : "",
      });
      if (o.autocomplete) suggestions(o, input);
      return input;
    }
  }
}

// autocomplete: the bot's own suggestions, asked through the stand-in as Discord does
function suggestions(o, input) {
  let timer = null;
  let list = null;
  let index = 0;
  let asked = 0;
  const close = () => {
    if (list) list.remove();
    list = null;
  };
  const ask = async () => {
    if (!app.form || !input.isConnected) return; // the form was sent or closed meanwhile
    const ticket = ++asked;
    const answer = await post("/api/autocomplete", {
      as: app.me, channel: app.channel, path: app.form.leaf.path, options: { ...formValues(true), [o.name]: input.value }, focused: o.name,
    });
    if (ticket !== asked || !input.isConnected || document.activeElement !== input) return;
    close();
    const choices = answer.choices || [];
    list = el("div", { class: "popup suggest", role: "listbox" });
    index = 0;
    if (answer.error) list.append(el("div", { class: "empty" }, answer.error));
    else if (!choices.length) list.append(el("div", { class: "empty" }, "No suggestions."));
    choices.forEach((c, i) =>
      list.append(
        el("div", { class: `pick${i === 0 ? " sel" : ""}`, "data-value": String(c.value), onmousedown: (event) => { event.preventDefault(); take(c); } }, el("span", { class: "path" }, c.name)),
      ),
    );
    input.parentElement.append(list);
  };
  const take = (c) => {
    input.value = c.name;
    input.dataset.value = String(c.value);
    close();
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(ask, 150);
  };
  input.addEventListener("input", () => {
    delete input.dataset.value;
    later();
  });
  input.addEventListener("focus", later);
  input.addEventListener("blur", () => setTimeout(close, 100));
  input.addEventListener("keydown", (event) => {
    if (!list) return;
    const rows = [...list.querySelectorAll(".pick")];
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      index = (index + (event.key === "ArrowDown" ? 1 : rows.length - 1)) % Math.max(rows.length, 1);
      rows.forEach((r, i) => r.classList.toggle("sel", i === index));
    } else if ((event.key === "Enter" || event.key === "Tab") && rows.length) {
      event.preventDefault();
      event.stopPropagation();
      const row = rows[index];
      take({ name: row.textContent, value: row.dataset.value });
    } else if (event.key === "Escape") {
      event.stopPropagation();
      close();
    }
  });
}

function formValues(partial) {
  const values = {};
  for (const control of $("form").querySelectorAll("[data-name]")) {
    if (control.type === "file") continue;
    const value = control.dataset.value !== undefined ? control.dataset.value : control.value;
    if (value !== "") values[control.dataset.name] = value;
  }
  return values;
}

async function sendForm() {
  if (!app.form || app.form.busy) return;
  const { leaf } = app.form;
  const options = formValues(false);
  const files = {};
  for (const control of $("form").querySelectorAll('input[type="file"]')) {
    if (control.files.length) files[control.dataset.name] = control.files[0];
  }
  const missing = leaf.options.filter((o) => o.required && !(o.name in options) && !(o.name in files)).map((o) => o.name);
  if (missing.length) {
    showError(`Fill in ${missing.join(", ")}.`);
    const field = $(`opt-${missing[0]}`);
    if (field) field.focus();
    return;
  }
  const body = { as: app.me, channel: app.channel, path: leaf.path, options };
  let payload = body;
  if (Object.keys(files).length) {
    payload = new FormData();
    payload.append("json", new Blob([JSON.stringify(body)], { type: "application/json" }));
    for (const [name, file] of Object.entries(files)) payload.append(name, file, file.name);
  }
  app.form.busy = true;
  $("send").textContent = "Sending…";
  const answer = await post("/api/command", payload);
  if (!app.form || app.form.leaf !== leaf) return;
  app.form.busy = false;
  $("send").textContent = "Send";
  if (answer.error) {
    showError(answer.error);
    return;
  }
  closeForm();
  $("input").focus();
}

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(hideError, 10000);
}

function hideError() {
  $("error").hidden = true;
}

// -- the input line -------------------------------------------------------------------------------
async function say(text) {
  const answer = await post("/api/say", { as: app.me, channel: app.channel, text });
  if (answer.error) showError(answer.error);
}

document.addEventListener("DOMContentLoaded", () => {
  const input = $("input");
  input.addEventListener("input", () => {
    hideError();
    if (input.value.startsWith("/")) openPicker(input.value.slice(1));
    else closePicker();
  });
  input.addEventListener("keydown", (event) => {
    const open = !$("picker").hidden;
    if (open && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      const count = app.picker.items.length;
      if (!count) return;
      app.picker.index = (app.picker.index + (event.key === "ArrowDown" ? 1 : count - 1)) % count;
      drawPicker(input.value.slice(1).trim().toLowerCase());
    } else if (open && (event.key === "Enter" || event.key === "Tab")) {
      event.preventDefault();
      const leaf = app.picker.items[app.picker.index];
      if (leaf) choose(leaf);
    } else if (event.key === "Escape") {
      closePicker();
    } else if (event.key === "Enter" && !open && input.value.trim()) {
      event.preventDefault();
      const text = input.value;
      input.value = "";
      say(text);
    }
  });
  input.addEventListener("blur", () => setTimeout(() => { if (document.activeElement !== input) closePicker(); }, 150));
  input.addEventListener("focus", () => { if (input.value.startsWith("/")) openPicker(input.value.slice(1)); });
  $("form").addEventListener("submit", (event) => {
    event.preventDefault();
    sendForm();
  });
  $("form").addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      closeForm();
      $("input").focus();
    } else if (event.key === "Enter" && event.target instanceof HTMLSelectElement) {
      event.preventDefault();
      sendForm();
    }
  });
  connect();
});
