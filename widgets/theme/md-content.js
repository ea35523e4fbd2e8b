// After the content: open the content tab that the URL fragment points to, and (with the
// theme's content.tabs.link feature) the tabs the reader chose before. The theme inlines
// this; Trafikist serves it from a file for the Content-Security-Policy.
(function () {
  "use strict";
  var script = document.currentScript;
  if (script && script.hasAttribute("data-md-tabs-link")) {
    var tabs = window.__md_get("__tabs");
    if (Array.isArray(tabs)) {
      for (var set of document.querySelectorAll(".tabbed-set")) {
        // The earliest remembered tab that this set has wins.
        var labels = Array.from(set.querySelector(".tabbed-labels").getElementsByTagName("label"));
        for (var tab of tabs) {
          var chosen = labels.find(function (label) {
            return label.innerText.trim() === tab;
          });
          if (chosen) {
            document.getElementById(chosen.htmlFor).checked = true;
            break;
          }
        }
      }
    }
  }
  var target = document.getElementById(location.hash.slice(1));
  if (target && target.name) target.checked = target.name.startsWith("__tabbed_");
})();
