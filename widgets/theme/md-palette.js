// In the header: restore the colour scheme the reader chose before, ahead of the first paint.
// The theme inlines this; Trafikist serves it from a file for the Content-Security-Policy.
(function () {
  "use strict";
  var palette = window.__md_get("__palette");
  if (!palette || !palette.color) return;
  if (palette.color.media === "(prefers-color-scheme)") {
    var light = matchMedia("(prefers-color-scheme: light)").matches;
    var input = document.querySelector(
      light
        ? "[data-md-color-media='(prefers-color-scheme: light)']"
        : "[data-md-color-media='(prefers-color-scheme: dark)']",
    );
    for (var part of ["media", "scheme", "primary", "accent"]) {
      palette.color[part] = input.getAttribute("data-md-color-" + part);
    }
  }
  for (var [key, value] of Object.entries(palette.color)) {
    document.body.setAttribute("data-md-color-" + key, value);
  }
})();
