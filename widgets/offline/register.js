// Reading offline (docs/offline.md): register the site's service worker after the page's load
// event; reload onto a new build when its worker takes over this page, so no page mixes two.
(function () {
  "use strict";
  var workers = navigator.serviceWorker;
  if (!workers) return;
  // An inline script can only be mkdocs serve's live reload: the preview keeps no worker.
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
