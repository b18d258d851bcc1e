() => {
  // True once every plot on the page is drawn from its current figure: plotly.js made its svg, app.js marked
  // the node data-rendered="true", and the traces plotly.js holds are the ones in the plot's JSON block (names,
  // x and y, or the merged figure of a plot filled in since), so a plot still showing an earlier figure (before or during an htmx swap) does not count.
  // Used by the browser tests and scripts/screenshot.py: page.wait_for_function(PLOTS_DRAWN).
  const plots = [...document.querySelectorAll(".plot[data-figure]")];
  const values = (v) => (Array.isArray(v) || ArrayBuffer.isView(v) ? Array.from(v) : null);
  const key = (traces) => JSON.stringify(traces.map((t) => [t.name, values(t.x), values(t.y)]));
  return plots.length > 0 && plots.every((p) => {
    const source = document.getElementById(p.dataset.figure);
    if (!source || p.dataset.rendered !== "true" || !p.querySelector(".main-svg") || !p.data) return false;
    // a plot whose left-out points were filled in (app.js's fill) holds its merged figure
    const want = (p._latencyLabFilled || JSON.parse(source.textContent)).data || [];
    // Compare x and y only where the JSON gives them as plain arrays (not plotly's base64 "bdata").
    const have = p.data.map((t, i) => ({
      name: t.name,
      x: want[i] && Array.isArray(want[i].x) ? t.x : null,
      y: want[i] && Array.isArray(want[i].y) ? t.y : null,
    }));
    return key(want.map((t) => ({name: t.name, x: Array.isArray(t.x) ? t.x : null, y: Array.isArray(t.y) ? t.y : null}))) === key(have);
  });
}
