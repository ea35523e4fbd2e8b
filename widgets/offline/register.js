// Reading offline (docs/offline.md): register the site's service worker two seconds after the
// page's load event, and never while a Run loads Pyodide (its precache would compete with the
// Run's download); reload onto a new build when its worker takes this page over, so no page
// mixes two builds.
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
    var run = document.querySelector(".tk-duties[aria-busy]");
    if (run) {
      new MutationObserver(function (changes, observer) {
        if (run.hasAttribute("aria-busy")) return;
        observer.disconnect();
        register();
      }).observe(run, { attributes: true, attributeFilter: ["aria-busy"] });
      return;
    }
    workers.register(new URL("sw.js", window.__md_scope)).catch(function () {});
  }
  function later() { setTimeout(register, 2000); }
  if (document.readyState === "complete") later();
  else addEventListener("load", later);
})();
