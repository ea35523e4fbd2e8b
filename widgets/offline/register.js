// Reading offline: register the site's service worker (sw.js at the site's root, made at build
// time with Workbox by trafikist.offline) after the page's load event, so it never competes
// with the page's own files. When a new build's worker takes over a page opened on an older
// build, the page reloads onto the new one: no page mixes two builds.
(function () {
  "use strict";
  var workers = navigator.serviceWorker;
  if (!workers) return;
  // The only inline script a page can hold is mkdocs serve's live reload (the policy allows
  // none): the preview must never come from a cache, so it drops a worker a built site left.
  if (document.querySelector("script:not([src]):not([type])")) {
    workers.getRegistrations().then(function (found) {
      found.forEach(function (registration) { registration.unregister(); });
    });
    return;
  }
  var updating = Boolean(workers.controller);
  workers.addEventListener("controllerchange", function () {
    if (updating) location.reload();
  });
  function register() {
    workers.register(new URL("sw.js", window.__md_scope)).catch(function () {});
  }
  if (document.readyState === "complete") register();
  else addEventListener("load", register);
})();
