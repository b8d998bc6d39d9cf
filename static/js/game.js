/* Medieval Mastery game page: small progressive enhancements (the forms work without this file).
 * - Clicking (or Enter/Space on) a highlighted tile fills the advance form's target; clicking your own
 *   castle or territories fills the redistribution form (first "from", then "to").
 * - The knight count of the advance form follows the chosen target's maximum.
 * - Log entries added since your last visit are marked (remembered in localStorage per game).
 * - Hovering, tapping, clicking or focusing a tile shows what it is and does in the "about this tile" panel
 *   under the map (never over the decision panel); the SVG's native tooltip shows the same text on hover.
 */
(function () {
  "use strict";
  var redisNext = "from";

  function setSelect(select, value) {
    if (!select) return false;
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === value && !select.options[i].disabled) {
        select.selectedIndex = i;
        select.dispatchEvent(new Event("change", { bubbles: true }));
        return true;
      }
    }
    return false;
  }

  function syncAdvanceMax() {
    var select = document.getElementById("advance-to");
    var knights = document.getElementById("advance-knights");
    if (!select || !knights || select.selectedIndex < 0) return;
    var max = select.options[select.selectedIndex].getAttribute("data-max");
    if (max) {
      knights.max = max;
      if (parseInt(knights.value, 10) > parseInt(max, 10)) knights.value = max;
    }
  }

  function markPicked(tile) {
    document.querySelectorAll(".tile.picked").forEach(function (t) { t.classList.remove("picked"); });
    tile.classList.add("picked");
  }

  function pickTile(tile) {
    var pos = tile.getAttribute("data-pos");
    if (tile.classList.contains("target") && setSelect(document.getElementById("advance-to"), pos)) {
      markPicked(tile);
      var knights = document.getElementById("advance-knights");
      if (knights) knights.focus();
      return;
    }
    if (!tile.classList.contains("pickable")) return;
    var loc = tile.getAttribute("data-loc") || pos;
    var target = document.getElementById(redisNext === "from" ? "redis-from" : "redis-to");
    if (setSelect(target, loc)) {
      markPicked(tile);
      redisNext = redisNext === "from" ? "to" : "from";
    }
  }

  function showAbout(tile) {
    var panel = tile.closest("section, figure");
    var about = panel && panel.querySelector(".tile-about");
    if (!about) return;
    about.textContent = "";
    var title = tile.getAttribute("data-about-title");
    if (title) {
      var h = document.createElement("h3");
      h.textContent = title;
      about.appendChild(h);
    }
    var p = document.createElement("p");
    p.textContent = tile.getAttribute("data-about") || "";
    about.appendChild(p);
  }

  document.addEventListener("click", function (event) {
    var tile = event.target.closest && event.target.closest(".tile[data-pos]");
    if (tile) {
      showAbout(tile);
      pickTile(tile);
    }
  });
  document.addEventListener("focusin", function (event) {
    var tile = event.target.closest && event.target.closest(".tile[data-pos]");
    if (tile) showAbout(tile);
  });
  document.addEventListener("mouseover", function (event) {
    var tile = event.target.closest && event.target.closest(".tile[data-pos]");
    if (tile && !tile.contains(event.relatedTarget)) showAbout(tile);
  });
  // A map drawn as a diagram (/rules/) is one Tab stop: the arrow keys (and Home/End) move between its
  // tiles, the tile with the focus keeping the only tabindex="0" (WAI-ARIA roving tabindex).
  var ROVE = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  document.addEventListener("keydown", function (event) {
    var tile = event.target.closest && event.target.closest('svg[data-roving] .tile[data-pos]');
    if (!tile || !(event.key in ROVE || event.key === "Home" || event.key === "End")) return;
    var tiles = Array.prototype.slice.call(tile.closest("svg").querySelectorAll(".tile[data-pos]"));
    var at = tiles.indexOf(tile);
    var next = event.key === "Home" ? 0 : event.key === "End" ? tiles.length - 1 : (at + ROVE[event.key] + tiles.length) % tiles.length;
    event.preventDefault();
    tiles.forEach(function (t) { t.setAttribute("tabindex", "-1"); });
    tiles[next].setAttribute("tabindex", "0");
    tiles[next].focus();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    var tile = event.target.closest && event.target.closest(".tile[data-pos]");
    if (tile) {
      event.preventDefault();
      pickTile(tile);
    }
  });
  // Only the places a chosen source can send knights to stay on offer in "To" (issue 16: forms offer only
  // moves that can be made); the server refuses the rest anyway, with the reason.
  function syncRedistributeDests() {
    var from = document.getElementById("redis-from");
    var to = document.getElementById("redis-to");
    if (!from || !to) return;
    var chosen = from.options[from.selectedIndex];
    var allowed = chosen && chosen.value ? (chosen.getAttribute("data-dests") || "").split(" ") : null;
    for (var i = 0; i < to.options.length; i++) {
      var option = to.options[i];
      if (!option.value) continue;
      option.disabled = allowed !== null && allowed.indexOf(option.value) < 0;
      if (option.disabled && option.selected) to.selectedIndex = 0;
    }
  }

  // Choosing in a form shows the place on the map too (and the map fills the form: pickTile).
  function markFromForm(select) {
    if (!select || !select.value) return;
    var tile = document.querySelector('.tile[data-loc="' + select.value + '"], .tile[data-pos="' + select.value + '"]');
    if (tile) markPicked(tile);
  }

  document.addEventListener("change", function (event) {
    var id = event.target && event.target.id;
    if (id === "advance-to") syncAdvanceMax();
    if (id === "redis-from") syncRedistributeDests();
    if (id === "advance-to" || id === "redis-from" || id === "redis-to") markFromForm(event.target);
  });

  function storageKey() {
    var header = document.getElementById("game-header");
    return header ? "mm-seen-" + header.getAttribute("data-game") : null;
  }

  function markUnseen() {
    var key = storageKey();
    var header = document.getElementById("game-header");
    if (!key || !header) return;
    var seen = null;
    try { seen = parseInt(window.localStorage.getItem(key), 10); } catch (e) { return; }
    if (!isNaN(seen)) {
      document.querySelectorAll("#log li[data-seq]").forEach(function (li) {
        if (parseInt(li.getAttribute("data-seq"), 10) > seen) li.classList.add("unseen");
      });
    }
    try { window.localStorage.setItem(key, header.getAttribute("data-seq")); } catch (e) { /* private mode */ }
  }

  // The guided first game: outline the control its hint points at (the hint says which in words too).
  function markTutorialTarget() {
    document.querySelectorAll(".tutorial-target").forEach(function (el) { el.classList.remove("tutorial-target"); });
    var hint = document.getElementById("tutorial-hint");
    var selector = hint && hint.getAttribute("data-target");
    if (!selector) return;
    var target = document.querySelector(selector);
    if (target) target.classList.add("tutorial-target");
  }

  // Focus and announcements (issue 16). A submit from the decision panel remembers which form sent it;
  // when the new decision has arrived, focus returns to that form's first control if the form is still
  // offered (a refused move, a further redistribution), else to the decision's heading, so a keyboard
  // player goes on from there without tabbing through the page. A poll that replaces the panel moves
  // focus only if it was inside the panel (it would otherwise be lost). The panel's headline is read out
  // by a live region outside it, which, unlike the swapped panel, stays in the page.
  var usedForm = null;
  var focusWasInDecision = false;

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.target.closest && event.target.closest("#decision form[data-act]");
    usedForm = form ? form.getAttribute("data-act") : null;
  });
  document.addEventListener("htmx:beforeSwap", function () {
    var decision = document.getElementById("decision");
    focusWasInDecision = !!(decision && decision.contains(document.activeElement));
  });

  function announceDecision() {
    var announcer = document.getElementById("decision-announcer");
    var decision = document.getElementById("decision");
    if (!announcer || !decision) return;
    var parts = [];
    decision.querySelectorAll("[role=alert], .headline, .waiting, .tutorial-text").forEach(function (el) {
      parts.push(el.textContent.trim());
    });
    announcer.textContent = parts.join(" ");
  }

  function focusDecision() {
    var decision = document.getElementById("decision");
    if (!decision) return;
    var target = null;
    if (usedForm) {
      var form = decision.querySelector('form[data-act="' + usedForm + '"]');
      if (form) target = form.querySelector("select, input:not([type=hidden]), button");
    }
    if (!target) target = document.getElementById("h-decision");
    if (target) target.focus();
  }

  // On a phone the map pans sideways: start with the viewer's castle (or an advance target) in view.
  function centreMap() {
    var board = document.getElementById("board");
    if (!board || board.scrollWidth <= board.clientWidth) return;
    var tile = board.querySelector('.tile.target, .tile[data-loc="castle"]');
    if (!tile) return;
    var boardBox = board.getBoundingClientRect();
    var tileBox = tile.getBoundingClientRect();
    board.scrollLeft += tileBox.left + tileBox.width / 2 - (boardBox.left + boardBox.width / 2);
  }

  document.addEventListener("DOMContentLoaded", function () {
    syncAdvanceMax();
    syncRedistributeDests();
    markUnseen();
    markTutorialTarget();
    centreMap();
    handledDecision = document.getElementById("decision");
  });
  var handledDecision = null;
  function onDecisionReplaced() {
    var decision = document.getElementById("decision");
    if (!decision || decision === handledDecision) return;
    handledDecision = decision;
    announceDecision();
    if (usedForm !== null || focusWasInDecision) focusDecision();
    usedForm = null;
    focusWasInDecision = false;
  }
  // a poll brings the panel out of band; an answer to a submit as the main swap
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var swapped = event.detail && event.detail.target;
    if (swapped && swapped.id === "decision") window.setTimeout(onDecisionReplaced, 0);
  });

  document.addEventListener("htmx:afterSettle", function () {
    syncAdvanceMax();
    syncRedistributeDests();
    markTutorialTarget();
    onDecisionReplaced();
    var key = storageKey();
    var header = document.getElementById("game-header");
    if (key && header) {
      try { window.localStorage.setItem(key, header.getAttribute("data-seq")); } catch (e) { /* ignore */ }
    }
  });
})();

// Replays: arrow keys step through the game (Home/End jump to the start/end). The controls are ordinary
// links, so the page also works without JavaScript; with htmx they swap only the replay panels.
(function () {
  "use strict";
  var KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    var nav = document.getElementById("replay-nav");
    if (!nav || event.altKey || event.ctrlKey || event.metaKey) return;
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var which = KEYS[event.key];
    if (!which) return;
    var link = nav.querySelector('a[data-step="' + which + '"]');
    if (!link) return;
    event.preventDefault();
    link.click();
  });
  // Each step replaces #replay; the status line outside it says where the replay now stands.
  document.addEventListener("htmx:afterSettle", function () {
    var pos = document.getElementById("replay-pos");
    var status = document.getElementById("replay-status");
    if (pos && status) status.textContent = pos.textContent;
  });
})();

// The lobby's "Copy the link" button (issue 16): copies the invite link and says so; without the
// clipboard API (or JavaScript) the field still selects itself on a click.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy]");
    if (!button) return;
    var field = document.querySelector(button.getAttribute("data-copy"));
    if (!field) return;
    field.select();
    var done = function () { button.textContent = button.getAttribute("data-done") || button.textContent; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
})();

// Sign-up (issue 16): the browser's time zone goes into the hidden field, so mail and dates use it from
// the first day; without JavaScript the profile's default (UTC) stays until the player changes it.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    document.querySelectorAll("input[data-detect-time-zone]").forEach(function (field) { field.value = zone; });
  });
})();

// Table talk (issue 19): Enter sends and Shift+Enter starts a new line; the newest messages stay in view
// when new ones arrive (unless the reader scrolled up to older ones); after sending, the focus returns
// to the message field, and after a change of channel to its tab. On a phone the "Chat" button opens the
// panel (a link to #chat-panel): the focus goes to its heading. Everything works without this.
(function () {
  "use strict";
  var nearBottom = true;
  var focusIn = null;

  function lines() { return document.getElementById("chat-lines"); }
  function toBottom() {
    var list = lines();
    if (list) list.scrollTop = list.scrollHeight;
  }

  document.addEventListener("keydown", function (event) {
    var field = event.target;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || !field || field.id !== "chat-text") return;
    event.preventDefault();
    var form = field.form;  // one message at a time: not while the last one is on its way
    if (form && field.value.trim() && !form.classList.contains("htmx-request")) form.requestSubmit();
  });

  document.addEventListener("htmx:beforeSwap", function () {
    var list = lines();
    nearBottom = !list || list.scrollHeight - list.scrollTop - list.clientHeight < 48;
    var active = document.activeElement;
    focusIn = null;
    if (active && active.closest) {
      if (active.closest("#chat-form")) focusIn = "form";
      else if (active.closest("#chat-tabs")) focusIn = "tabs";
    }
  });

  function afterChat() {
    if (nearBottom) toBottom();
    if (focusIn === "form") {
      var field = document.getElementById("chat-text");
      if (field && document.activeElement !== field) field.focus();
    } else if (focusIn === "tabs") {
      var tab = document.querySelector("#chat-tabs [aria-current]");
      if (tab && !tab.contains(document.activeElement)) tab.focus();
    }
  }
  document.addEventListener("htmx:afterSettle", afterChat);
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var swapped = event.detail && event.detail.target;
    if (swapped && (swapped.id === "chat" || swapped.id === "chat-lines")) window.setTimeout(afterChat, 0);
  });

  function opened() {
    if (window.location.hash !== "#chat-panel") return;
    toBottom();
    var heading = document.getElementById("h-chat");
    if (heading && window.matchMedia("(max-width: 959px)").matches) heading.focus({ preventScroll: true });
  }
  window.addEventListener("hashchange", opened);
  document.addEventListener("DOMContentLoaded", function () {
    toBottom();
    opened();
  });
})();

// A lost database connection (issue 28): a decision sent with htmx is answered 503 with the decision panel
// itself, whose "Try again" form posts the same fields again (mastery/unavailable.py), marked by the
// X-Try-Again header. It is swapped in like a refused move; any other 5xx (a proxy's own error page) stays
// out of the page, as base.html's htmx-config says.
(function () {
  "use strict";
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status === 503 && xhr.getResponseHeader("X-Try-Again") === "form") {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
