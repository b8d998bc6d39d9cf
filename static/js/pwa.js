/* The installable app and Web Push (issue 32): registers the service worker (/sw.js, scope "/") and drives
 * the profile's "Notifications on your devices" section (templates/accounts/_push.html, accounts/push.py).
 * Progressive enhancement: without JavaScript the section says so and still lists and removes devices. */
(function () {
  "use strict";
  var supported = "serviceWorker" in navigator && window.isSecureContext;

  /* Registered after the page has loaded, so the worker never slows the first paint. */
  var registered = !supported ? Promise.reject(new Error("unsupported")) : new Promise(function (resolve, reject) {
    function register() { navigator.serviceWorker.register("/sw.js", {scope: "/"}).then(resolve, reject); }
    if (document.readyState === "complete") register();
    else window.addEventListener("load", register);
  });
  registered.catch(function () {});

  var section = document.getElementById("push");
  if (!section) return;
  var status = section.querySelector("[data-push-state]");
  var subscribeButton = section.querySelector('[data-push-action="subscribe"]');
  var unsubscribeButton = section.querySelector('[data-push-action="unsubscribe"]');
  var messages = section.querySelector("template[data-push-messages]");
  var csrf = section.querySelector('input[name="csrfmiddlewaretoken"]');

  function show(state) {
    var text = messages && messages.content.querySelector('[data-state="' + state + '"]');
    status.textContent = text ? text.textContent : state;
    status.setAttribute("data-push-state", state);
    subscribeButton.hidden = state !== "available" && state !== "failed";
    unsubscribeButton.hidden = state !== "subscribed";
  }

  /* base64url (RFC 4648 §5) to the bytes PushManager.subscribe takes as applicationServerKey. */
  function keyBytes(base64url) {
    var base64 = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(base64);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf ? csrf.value : ""},
      body: JSON.stringify(body),
    }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response;
    });
  }

  if (!supported || !("PushManager" in window) || !("Notification" in window)) {
    show("unsupported");
    return;
  }
  var publicKey = "";

  function current() {
    return registered.then(function () { return navigator.serviceWorker.ready; }).then(function (registration) {
      return registration.pushManager.getSubscription().then(function (sub) { return {registration: registration, sub: sub}; });
    });
  }

  /* The state of this device: the site's key, the permission, and whether the browser's subscription is
   * one of this account's devices (removed from the list, it is not). */
  function refresh() {
    return current().then(function (state) {
      var url = section.getAttribute("data-push-key-url");
      if (state.sub) url += "?endpoint=" + encodeURIComponent(state.sub.endpoint);
      return fetch(url, {credentials: "same-origin"}).then(function (response) { return response.json(); }).then(function (data) {
        publicKey = data.publicKey || "";
        if (!publicKey) return show("unconfigured");
        if (Notification.permission === "denied") return show("denied");
        return show(state.sub && data.known && Notification.permission === "granted" ? "subscribed" : "available");
      });
    }, function () { show("unsupported"); }).catch(function () { show("failed"); });
  }

  subscribeButton.addEventListener("click", function () {
    show("asking");
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") return show(permission === "denied" ? "denied" : "available");
      return current().then(function (state) {
        return state.sub || state.registration.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: keyBytes(publicKey)});
      }).then(function (sub) {
        return post(section.getAttribute("data-push-subscribe-url"), sub.toJSON());
      }).then(function () {
        window.location.hash = "push";
        window.location.reload();
      });
    }).catch(function () { show("failed"); subscribeButton.focus(); });
  });

  unsubscribeButton.addEventListener("click", function () {
    current().then(function (state) {
      if (!state.sub) return null;
      var endpoint = state.sub.endpoint;
      return state.sub.unsubscribe().then(function () {
        return post(section.getAttribute("data-push-unsubscribe-url"), {endpoint: endpoint});
      });
    }).then(function () {
      window.location.hash = "push";
      window.location.reload();
    }).catch(function () { show("failed"); });
  });

  refresh();
})();
