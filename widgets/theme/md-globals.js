// The globals that mkdocs-material's bundle reads: __md_scope, __md_hash, __md_get, __md_set.
// The theme defines them in an inline <head> script; Trafikist serves them from this file so
// that the Content-Security-Policy can forbid inline scripts (overrides/partials/javascripts/
// base.html). The scope (the site's base URL) comes in the script tag's data-md-scope.
(function () {
  "use strict";
  var script = document.currentScript;
  var scope = new URL((script && script.dataset.mdScope) || ".", location);

  // Storage keys are prefixed with the site's path, so two sites on one host do not mix.
  function get(key, storage, base) {
    storage = storage || localStorage;
    base = base || window.__md_scope;
    return JSON.parse(storage.getItem(base.pathname + "." + key));
  }

  function set(key, value, storage, base) {
    storage = storage || localStorage;
    base = base || window.__md_scope;
    try {
      storage.setItem(base.pathname + "." + key, JSON.stringify(value));
    } catch {
      // Storage full or disabled: the theme works without remembering.
    }
  }

  // A 32-bit string hash; the theme compares it with stored values (dismissed banners).
  function hash(text) {
    var value = 0;
    for (var character of text) {
      value = ((value << 5) - value + character.charCodeAt(0)) | 0;
    }
    return value;
  }

  window.__md_scope = scope;
  window.__md_hash = hash;
  window.__md_get = get;
  window.__md_set = set;
})();
