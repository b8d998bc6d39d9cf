/* Medieval Mastery game page: small progressive enhancements (the forms work without this file).
 * - Clicking (or Enter/Space on) a highlighted tile fills the advance form's target; clicking your own
 *   castle or territories fills the redistribution form (first "from", then "to").
 * - The knight count of the advance form follows the chosen target's maximum.
 * - Log entries added since your last visit are marked (remembered in localStorage per game).
 * - Hovering, tapping, clicking or focusing a tile shows what it is and does in the "about this tile"
 *   popover: next to the pointer on hover, at the tile otherwise, inside the map's panel (never over the
 *   decision panel); the SVG's native tooltip shows the same text on hover.
 * - Map labels too long for their tile are squeezed to fit; on a phone the map fits the screen's width and
 *   an "Enlarge the map" button makes it pan sideways at a larger size (issue 29).
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
    var all = document.getElementById("advance-all");
    if (max) {
      knights.max = max;
      knights.placeholder = "1–" + max;
      if (parseInt(knights.value, 10) > parseInt(max, 10)) knights.value = max;
    }
    // "all 6": one click fills the most knights that can go there (issue 29: nothing is pre-filled)
    if (all) {
      var most = max || all.getAttribute("data-max");
      all.setAttribute("data-most", most);
      all.textContent = all.textContent.replace(/\d+/, most);
      all.hidden = false;
    }
  }

  document.addEventListener("click", function (event) {
    var all = event.target && event.target.closest && event.target.closest("#advance-all");
    if (!all) return;
    var knights = document.getElementById("advance-knights");
    if (knights) {
      knights.value = all.getAttribute("data-most") || all.getAttribute("data-max");
      knights.focus();
    }
  });

  function markPicked(tile) {
    document.querySelectorAll(".tile.picked").forEach(function (t) { t.classList.remove("picked"); });
    tile.classList.add("picked");
  }

  function pickTile(tile) {
    var pos = tile.getAttribute("data-pos");
    if (tile.classList.contains("target") && setSelect(document.getElementById("advance-to"), pos)) {
      markPicked(tile);
      var knights = document.getElementById("advance-knights");
      keepAbout = true;  // the tile's text stays open while the form takes the focus
      if (knights) knights.focus();
      keepAbout = false;
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

  // "About this tile" (issue 29). On the game page it is a popover inside the map's panel: next to the
  // pointer while the mouse hovers a tile, and anchored at the tile after a tap, a click or keyboard focus
  // (until Escape, a tap elsewhere or the focus leaving the map). It stays inside the map's panel, so it
  // never covers the decision. The diagrams of /rules/ keep their box under the diagram.
  var pinned = null;
  var keepAbout = false;

  function aboutFor(tile) {
    var panel = tile.closest("section, figure");
    return panel && panel.querySelector(".tile-about");
  }

  function fillAbout(about, tile) {
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

  // Put the popover at (x, y) of its panel's box, flipped to the other side of (x, y) when it would leave
  // the panel on the right (by the pointer) or at the bottom (under a tile), and never past its edges.
  function placeAbout(about, x, y, flipX, flipY) {
    var board = about.offsetParent || about.parentNode;
    var width = about.offsetWidth;
    var height = about.offsetHeight;
    var room = board.clientWidth;
    var left = x;
    if (flipX !== null && left + width > room - 4) left = flipX - width;
    left = Math.max(4, Math.min(left, room - width - 4));
    var top = y;
    if (flipY !== null && top + height > board.clientHeight - 4 && flipY - height >= 4) top = flipY - height;
    about.style.left = Math.round(left) + "px";
    about.style.top = Math.round(Math.max(4, top)) + "px";
  }

  function showAbout(tile, pointer) {
    var about = aboutFor(tile);
    if (!about) return;
    fillAbout(about, tile);
    if (!about.closest("#board")) return;  // a diagram's box under it
    about.classList.add("open");
    var box = (about.offsetParent || about.parentNode).getBoundingClientRect();
    if (pointer) {
      about.classList.remove("pinned");
      placeAbout(about, pointer.clientX - box.left + 14, pointer.clientY - box.top + 18,
        pointer.clientX - box.left - 14, pointer.clientY - box.top - 10);
      return;
    }
    about.classList.add("pinned");
    var at = tile.getBoundingClientRect();
    var below = at.bottom - box.top - at.height * 0.22;  // over the tile's lower edge, its name in view
    placeAbout(about, at.left - box.left + at.width / 2 - about.offsetWidth / 2, below, null,
      at.top - box.top + at.height * 0.22);
  }

  function hideAbout() {
    pinned = null;
    document.querySelectorAll("#board .tile-about").forEach(function (about) {
      about.classList.remove("open", "pinned");
      about.textContent = "";
    });
  }

  function pin(tile) {
    pinned = tile;
    showAbout(tile, null);
  }

  function tileOf(target) {
    return target && target.closest ? target.closest(".tile[data-pos]") : null;
  }

  document.addEventListener("click", function (event) {
    var tile = tileOf(event.target);
    if (tile) {
      pin(tile);
      pickTile(tile);
    } else if (pinned && !(event.target.closest && event.target.closest(".tile-about"))) {
      hideAbout();
    }
  });
  document.addEventListener("focusin", function (event) {
    var tile = tileOf(event.target);
    if (tile) pin(tile);
    else if (pinned && !keepAbout && !(event.target.closest && event.target.closest(".tile-about"))) hideAbout();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && document.querySelector("#board .tile-about.open")) hideAbout();
  });
  document.addEventListener("mouseover", function (event) {
    var tile = tileOf(event.target);
    if (tile && tile !== pinned && !tile.contains(event.relatedTarget)) showAbout(tile, event);
  });
  document.addEventListener("mousemove", function (event) {
    var tile = tileOf(event.target);
    if (tile && tile !== pinned && tile.closest("#board")) showAbout(tile, event);
  });
  document.addEventListener("mouseout", function (event) {
    var tile = tileOf(event.target);
    if (!tile || !tile.closest("#board") || tileOf(event.relatedTarget)) return;
    if (pinned && document.contains(pinned)) showAbout(pinned, null);  // back to the tile chosen last
    else hideAbout();
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

  // Issue 29: the live region says what just happened (the newest "Since your last move" item, once), then
  // the prompt only when it changed, and a refusal; never the same prompt again.
  var announcedNews = null;
  var announcedPrompt = null;

  function promptText(decision) {
    var parts = [];
    decision.querySelectorAll(".headline, .waiting, .tutorial-text").forEach(function (el) {
      parts.push(el.textContent.replace(/\s+/g, " ").trim());
    });
    return parts.join(" ");
  }

  function newestNews(decision) {
    var item = decision.querySelector("#since [data-announce]");
    return item ? { key: item.getAttribute("data-key"), text: item.getAttribute("data-announce") } : null;
  }

  function rememberAnnounced() {
    var decision = document.getElementById("decision");
    if (!decision) return;
    var news = newestNews(decision);
    announcedNews = news ? news.key : null;
    announcedPrompt = promptText(decision);
  }

  function announceDecision() {
    var announcer = document.getElementById("decision-announcer");
    var decision = document.getElementById("decision");
    if (!announcer || !decision) return;
    var parts = [];
    decision.querySelectorAll("[role=alert]").forEach(function (el) { parts.push(el.textContent.trim()); });
    var news = newestNews(decision);
    if (news && news.key !== announcedNews) parts.push(news.text);
    announcedNews = news ? news.key : announcedNews;
    var prompt = promptText(decision);
    if (prompt && prompt !== announcedPrompt) parts.push(prompt);
    announcedPrompt = prompt;
    if (parts.length) announcer.textContent = parts.join(" ");
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
  // The map on a phone (issue 29): it fits the screen's width on first paint; "Enlarge the map" (a toggle
  // button, aria-pressed) shows it at 1.15 px per map unit (labels of 12 CSS px), panning sideways inside
  // its frame, until pressed again. The choice outlives the panel's refreshes (each move replaces #board).
  var mapEnlarged = false;

  function centreMap() {
    var frame = document.getElementById("map-frame");
    if (!frame || frame.scrollWidth <= frame.clientWidth) return;
    var tile = frame.querySelector('.tile.target, .tile[data-loc="castle"]');
    if (!tile) return;
    var frameBox = frame.getBoundingClientRect();
    var tileBox = tile.getBoundingClientRect();
    frame.scrollLeft += tileBox.left + tileBox.width / 2 - (frameBox.left + frameBox.width / 2);
  }

  // A label wider than its tile allows (data-fit, in map units) is squeezed to that width, measured in the
  // browser's own font (the server's squeeze, an estimate for pages without JavaScript, is redone here).
  function fitLabels(root) {
    root.querySelectorAll("svg.map text[data-fit]").forEach(function (text) {
      var before = text.getAttribute("textLength");
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
      var width = text.getComputedTextLength();
      var limit = parseFloat(text.getAttribute("data-fit"));
      if (width > limit || (!width && before)) {  // not measurable (hidden): keep the server's squeeze
        text.setAttribute("textLength", width ? String(limit) : before);
        text.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    });
  }

  function setUpMap() {
    var board = document.getElementById("board");
    if (!board) return;
    board.setAttribute("data-set-up", "");
    fitLabels(board);
    var button = board.querySelector(".map-zoom");
    var map = board.querySelector("svg.map");
    if (!button || !map) return;
    var small = map.getBoundingClientRect().width / (parseFloat(map.style.getPropertyValue("--map-w")) || 560) < 1.15;
    button.hidden = !(small || mapEnlarged);
    board.classList.toggle("enlarged", mapEnlarged);
    button.setAttribute("aria-pressed", mapEnlarged ? "true" : "false");
    if (mapEnlarged) centreMap();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#board .map-zoom");
    if (!button) return;
    mapEnlarged = !mapEnlarged;
    hideAbout();
    setUpMap();
  });
  // An artefact's rule (the "?" of the player panels) opens next to its button, inside the screen.
  document.addEventListener("toggle", function (event) {
    var pop = event.target;
    if (event.newState !== "open" || !pop.classList || !pop.classList.contains("rule-pop")) return;
    var button = document.querySelector('.rule-q[popovertarget="' + pop.id + '"]');
    if (!button) return;
    pop.style.position = "absolute";  // in the page, so it scrolls with its "?"
    pop.style.inset = "auto";
    pop.style.margin = "0";
    var at = button.getBoundingClientRect();
    var width = pop.offsetWidth;
    var height = pop.offsetHeight;
    var left = Math.max(8, Math.min(at.left + at.width / 2 - width / 2, window.innerWidth - width - 8));
    var top = at.bottom + 6;
    if (top + height > window.innerHeight - 8 && at.top - 6 - height >= 8) top = at.top - 6 - height;
    pop.style.left = Math.round(left + window.scrollX) + "px";
    pop.style.top = Math.round(Math.max(8, top) + window.scrollY) + "px";
  }, true);

  document.addEventListener("DOMContentLoaded", function () {
    setUpMap();
    document.querySelectorAll("figure.diagram, .tile-icon").forEach(fitLabels);
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var swapped = event.detail && event.detail.target;
    if (swapped && swapped.id === "board") {
      pinned = null;
      setUpMap();
    }
  });
  document.addEventListener("htmx:afterSettle", function () {
    var board = document.getElementById("board");
    if (board && !board.hasAttribute("data-set-up")) setUpMap();
  });

  document.addEventListener("DOMContentLoaded", function () {
    syncAdvanceMax();
    syncRedistributeDests();
    markUnseen();
    markTutorialTarget();
    centreMap();
    handledDecision = document.getElementById("decision");
    rememberAnnounced();  // what the page showed on arrival is read with the page, not announced again
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
