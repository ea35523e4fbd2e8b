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
  // A Run drawn before the worker controlled this page fetched its files past the worker, so
  // the worker keeps none of them. Ask for each again through the worker, whose runtime route
  // keeps what it gets: the browser answers from its HTTP cache when that still holds the file
  // (no second download), else from the network (a private window's cache, in memory only,
  // drops the big files). A file the worker keeps already is not asked for, and a reader whose
  // browser asks to save data gets none kept. One file at a time: the reader may Run again.
  // The widget says when it is done (data-kept-offline), for whoever waits on it (the tests).
  function keepEarlyRun() {
    var ran = document.querySelector('.tk-duties[data-boot-from]:not([data-boot-from="cache"])');
    if (!ran || (navigator.connection && navigator.connection.saveData)) return;
    var sizes = new URL("../model/run-files.json", import.meta.url);
    fetch(sizes).then(function (answer) { return answer.json(); }).then(function (files) {
      return Object.keys(files).reduce(function (done, name) {
        return done.then(function () { return keep(new URL(name, sizes).href); });
      }, Promise.resolve());
    }).then(function () {
      ran.setAttribute("data-kept-offline", "");
    }).catch(function () {});
  }
  function keep(url) {
    return caches.match(url).then(function (kept) {
      if (kept) return null;
      return fetch(url).then(function (answer) { return answer.blob(); });
    }).catch(function () {}); // offline again, say: the next file may still come
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
