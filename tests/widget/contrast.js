// The contrast of every colour the duty widget's timeline uses, measured in the page
// (tests/widget/test_timeline_layout.py). Backgrounds are composited from the page's canvas up
// through every ancestor of the drawing, then the lane's own translucent fill on top of that.
// Returns [{what, ratio, floor, where}], one per colour and what it is drawn on.
(({ panel, fills, nonTextFloor, textFloor }) => {
  const parse = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return [r, g, b, a];
  };
  const over = (top, below) => [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3])).concat(1);
  const channel = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const root = document.querySelector(panel);
  const svg = root.querySelector("svg.tk-tl");
  const chain = [];
  for (let el = svg; el; el = el.parentElement) chain.unshift(el);
  let page = [255, 255, 255, 1];
  for (const el of chain) {
    const layer = parse(getComputedStyle(el).backgroundColor);
    if (layer && layer[3] > 0) page = over(layer, page);
  }
  const laneRect = svg.querySelector(".tk-tl__bg");
  const lane = laneRect ? over(parse(getComputedStyle(laneRect).fill), page) : page;
  const paint = (el, property) => over(parse(getComputedStyle(el)[property]), lane);
  const found = [];
  const check = (what, colour, against, floor, where) =>
    found.push({ what, ratio: ratio(colour, against), floor, where });
  // The palette, from the stylesheet: one element of each class in this drawing.
  for (const name of fills) {
    const probe = document.createElementNS("http://www.w3.org/2000/svg", "path");
    probe.setAttribute("class", name);
    svg.append(probe);
    const colour = paint(probe, "fill");
    check(`bar .${name}`, colour, page, nonTextFloor, "page");
    check(`bar .${name}`, colour, lane, nonTextFloor, "lane");
    probe.remove();
  }
  for (const el of svg.querySelectorAll("path.tk-tl__cmd")) {
    check("command stroke", paint(el, "stroke"), page, nonTextFloor, "page");
  }
  // What this drawing shows.
  for (const el of svg.querySelectorAll("path.tk-tl__axis")) {
    check("axis", paint(el, "stroke"), page, nonTextFloor, "page");
  }
  for (const el of svg.querySelectorAll("text.tk-tl__event")) {
    check(`mark ${el.textContent}`, paint(el, "fill"), page, nonTextFloor, "page");
  }
  for (const el of svg.querySelectorAll("text.tk-tl__lane, text.tk-tl__tick")) {
    check(`label ${el.textContent}`, paint(el, "fill"), page, textFloor, "page");
  }
  for (const el of root.querySelectorAll(".tk-tl__swatch")) {
    const colour = over(parse(getComputedStyle(el).backgroundColor), page);
    check(`swatch ${el.className}`, colour, page, nonTextFloor, "page");
  }
  // A label inside a bar, against that bar: the painted path under the label's middle.
  for (const el of svg.querySelectorAll("text:not([class])")) {
    el.scrollIntoView({ block: "center" }); // elementsFromPoint sees only the viewport
    const box = el.getBoundingClientRect();
    const under = document.elementsFromPoint(box.x + box.width / 2, box.y + box.height / 2)
      .find((hit) => hit.tagName === "path" && hit.closest("svg") === svg && !hit.classList.contains("tk-tl__cmd"));
    if (under) check(`bar label ${el.textContent}`, paint(el, "fill"), paint(under, "fill"), textFloor, "its bar");
  }
  return found;
})
