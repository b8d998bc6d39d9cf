/* Medieval Mastery's service worker (issue 32), served at /sw.js with scope "/" (mastery/pwa.py).
 * - push: shows the notification the server built (games/notify/push.py: title, body, url, tag, icon,
 *   badge) and sets the app badge to the number of games waiting (Badging API, where supported);
 * - notificationclick: focuses a window already on the game, or opens it, at its decision (#decision);
 * - fetch: a page navigation that fails (offline) is answered with the cached offline page;
 * - message {type: "notification-targets"}: answers with the URL each shown notification's click opens,
 *   and {type: "notification-click", tag}: runs the click of that notification (tests, tools). */
"use strict";

const CONFIG = {{ config }};

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CONFIG.cache).then((cache) => cache.addAll(CONFIG.precache)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("mastery-offline-") && key !== CONFIG.cache) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate" || event.request.method !== "GET") return;
  event.respondWith(fetch(event.request).catch(async () => {
    const cached = await caches.match(CONFIG.offline);
    return cached || new Response("Offline", {status: 503, headers: {"Content-Type": "text/plain"}});
  }));
});

/* The URL a notification opens: its payload's path, always on this site's own origin. */
function targetOf(data) {
  const path = data && typeof data.url === "string" && data.url.startsWith("/") && !data.url.startsWith("//") ? data.url : "/";
  return new URL(path, self.location.origin).href;
}

async function setBadge(count) {
  const nav = self.navigator;
  if (!nav || typeof count !== "number") return;
  try {
    if (count > 0 && nav.setAppBadge) await nav.setAppBadge(count);
    else if (count === 0 && nav.clearAppBadge) await nav.clearAppBadge();
  } catch (error) { /* the Badging API may refuse outside an installed app */ }
}

async function showPush(data) {
  const title = typeof data.title === "string" && data.title ? data.title : "Medieval Mastery";
  await self.registration.showNotification(title, {
    body: typeof data.body === "string" ? data.body : "",
    icon: typeof data.icon === "string" ? data.icon : CONFIG.icon,
    badge: CONFIG.badge,
    tag: typeof data.tag === "string" ? data.tag : undefined,
    renotify: typeof data.tag === "string",
    data: {url: targetOf(data)},
  });
  await setBadge(data.badge);
}

self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (error) { data = {}; }
  event.waitUntil(showPush(data || {}));
});

/* Focusing needs a notification click's user activation; without one (a message) the window just moves. */
async function focus(client) {
  try { return await client.focus(); } catch (error) { return client; }
}

/* Focus a window already showing the game (then move it to the decision), else open one. */
async function openTarget(url) {
  const wanted = new URL(url);
  const windows = await self.clients.matchAll({type: "window", includeUncontrolled: true});
  for (const client of windows) {
    const at = new URL(client.url);
    if (at.origin === wanted.origin && at.pathname === wanted.pathname) {
      const focused = await focus(client);
      return at.href === wanted.href || !client.navigate ? focused : client.navigate(wanted.href);
    }
  }
  for (const client of windows) {
    if (new URL(client.url).origin === wanted.origin && client.navigate) {
      await focus(client);
      return client.navigate(wanted.href);
    }
  }
  return self.clients.openWindow(wanted.href);
}

async function clickNotification(notification) {
  const url = (notification.data && notification.data.url) || targetOf({});
  notification.close();
  return openTarget(url);
}

self.addEventListener("notificationclick", (event) => {
  event.waitUntil(clickNotification(event.notification));
});

self.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.type === "notification-targets") {
    event.waitUntil(self.registration.getNotifications().then((shown) => {
      event.source.postMessage({type: "notification-targets", targets: shown.map((n) => ({tag: n.tag, title: n.title, body: n.body, url: n.data && n.data.url}))});
    }));
  } else if (message.type === "notification-click") {
    event.waitUntil(self.registration.getNotifications({tag: message.tag}).then((shown) => shown.length ? clickNotification(shown[0]) : null));
  }
});
