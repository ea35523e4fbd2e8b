// Reading offline (docs/offline.md): register the site's service worker two seconds after the
// page's load event, and never while a Run loads Pyodide (its precache would compete with the
// Run's download); reload onto a new build when its worker takes this page over, so no page
// mixes two builds.
(function () {
  "use strict";
  var workers = navigator.serviceWorker;
  if (!workers) return;
  // The previews of both engines load their reload client from this file: a preview keeps no
  // worker (trafikist.core.preview).
  if (document.querySelector('script[src$="__trafikist/reload.js"]')) {
    workers.getRegistrations().then(function (found) {
      found.forEach(function (registration) { registration.unregister(); });
    });
    return;
  }
  var updating = Boolean(workers.controller);
  workers.addEventListener("controllerchange", function () {
    if (updating) location.reload();
    else keepEarlyRun();
  });
  // A Run drawn before the worker controlled this page fetched its files past the worker. Ask
  // for them again through it, from the browser's HTTP cache only (no second download): the
  // worker's runtime route keeps what it gets, so this visit's Run works offline too.
  function keepEarlyRun() {
    var ran = document.querySelector('.tk-duties[data-boot-from="network"]');
    if (!ran || (navigator.connection && navigator.connection.saveData)) return;
    var sizes = new URL("../model/run-files.json", import.meta.url);
    fetch(sizes).then(function (answer) { return answer.json(); }).then(function (files) {
      Object.keys(files).forEach(function (name) {
        fetch(new URL(name, sizes), { cache: "only-if-cached", mode: "same-origin" })
          .catch(function () {});
      });
    }).catch(function () {});
  }
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
