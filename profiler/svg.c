/* svg.c: a self-contained interactive flamegraph (no network: the script and style are
 * inline). Frames are the calling-context tree of every run merged by display name, the
 * root at the bottom, widths in ticks. Click a frame to zoom on it (its ancestors fill the
 * width, faded), Reset Zoom or Escape to go back; Search (or Ctrl-F) highlights frames whose
 * name matches a regular expression and shows the share of ticks they cover; a frame's
 * tooltip gives its ticks and percent. `#search=RE` in the URL searches on load and
 * `#selftest` zooms and searches by itself, writing the results into the root element's
 * data-selftest attribute (for headless browser tests). */
#include <string.h>

#include "profiler/output.h"
#include "profiler/prof_priv.h"
#include "profiler/wbuf.h"

#define WIDTH      1200.0
#define PAD        10.0
#define FRAME_H    16
#define HEADER     36
#define FOOTER     30
#define MIN_WIDTH  0.1
#define CHAR_W     7.0

static void xml_text(wbuf *w, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        const char *e;
        switch (*s) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '"': e = "&quot;"; break;
        case '\'': e = "&apos;"; break;
        default: continue;
        }
        wb_bytes(w, run, (size_t)(s - run));
        wb_str(w, e);
        run = s + 1;
    }
    wb_bytes(w, run, (size_t)(s - run));
}

/* A non-negative number with two decimals. */
static void wb_fix2(wbuf *w, double v)
{
    uint64_t c = (uint64_t)(v * 100.0 + 0.5);
    wb_u64(w, c / 100);
    char d[3] = {'.', (char)('0' + c / 10 % 10), (char)('0' + c % 10)};
    wb_bytes(w, d, 3);
}

/* Writes at most `chars` characters of s (UTF-8 aware), with ".." when cut. */
static void xml_label(wbuf *f, const char *s, double width)
{
    int chars = (int)((width - 4.0) / CHAR_W);
    if (chars < 3)
        return;
    size_t n = 0, count = 0, cut = 0;
    while (s[n] != '\0') {
        if (((unsigned char)s[n] & 0xC0) != 0x80) {
            if ((int)count == chars - 2)
                cut = n;
            count++;
        }
        n++;
    }
    if ((int)count <= chars) {
        xml_text(f, s);
        return;
    }
    char buf[1024];
    if (cut >= sizeof buf - 3)
        cut = sizeof buf - 3;
    /* do not split a UTF-8 sequence */
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    memcpy(buf, s, cut);
    memcpy(buf + cut, "..", 3);
    xml_text(f, buf);
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static void color(wbuf *f, wd_prof_kind kind, const char *name)
{
    uint32_t h = name_hash(name);
    unsigned a = h & 0xFF, b = (h >> 8) & 0xFF, c = (h >> 16) & 0xFF;
    int r, g, bl;
    switch (kind) {
    case WD_PROF_INTERNAL: /* phases: blue */
        r = 80 + (int)(a % 50), g = 130 + (int)(b % 60), bl = 200 + (int)(c % 55);
        break;
    case WD_PROF_HOST: /* host functions: aqua */
        r = 50 + (int)(a % 60), g = 180 + (int)(b % 60), bl = 170 + (int)(c % 60);
        break;
    case WD_PROF_SECTION: /* annotations: purple */
        r = 170 + (int)(a % 50), g = 110 + (int)(b % 50), bl = 210 + (int)(c % 45);
        break;
    default: /* wasm functions: warm */
        r = 205 + (int)(a % 50), g = (int)(b % 230), bl = (int)(c % 55);
        break;
    }
    char rgb[32];
    snprintf(rgb, sizeof rgb, "rgb(%d,%d,%d)", r, g, bl);
    wb_str(f, rgb);
}

static const char script[] =
    "var svg, frames, details, matchedtext, unzoombtn, searchbtn, searching = null;\n"
    "var W = 1200, PAD = 10, CHAR_W = 7;\n"
    "function rect(g) { return g.getElementsByTagName('rect')[0]; }\n"
    "function label(g) { return g.getElementsByTagName('text')[0]; }\n"
    "function group(e) {\n"
    "  while (e && e !== frames) { if (e.tagName === 'g' && e.hasAttribute('data-name')) return e;"
    " e = e.parentNode; }\n"
    "  return null;\n"
    "}\n"
    "function fit(g, x, w) {\n"
    "  var t = label(g), name = g.getAttribute('data-name'), n = Math.floor((w - 4) / CHAR_W);\n"
    "  t.setAttribute('x', (x + 3).toFixed(2));\n"
    "  if (n < 3) { t.textContent = ''; return; }\n"
    "  t.textContent = name.length <= n ? name : name.substring(0, n - 2) + '..';\n"
    "}\n"
    "function place(g, x, w) {\n"
    "  var r = rect(g); r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
    "  fit(g, x, w);\n"
    "}\n"
    "function all() { return frames.getElementsByTagName('g'); }\n"
    "function zoom(g) {\n"
    "  var r = rect(g), x0 = +r.getAttribute('data-ox'), w0 = +r.getAttribute('data-ow');\n"
    "  var d0 = +g.getAttribute('data-depth'), scale = (W - 2 * PAD) / w0, gs = all(), e = 0.005;\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var f = gs[i], fr = rect(f), x = +fr.getAttribute('data-ox'), w = +fr.getAttribute('data-ow');\n"
    "    var d = +f.getAttribute('data-depth');\n"
    "    f.classList.remove('parent'); f.classList.remove('hide');\n"
    "    if (d < d0 && x <= x0 + e && x + w >= x0 + w0 - e) { f.classList.add('parent');"
    " place(f, PAD, W - 2 * PAD); }\n"
    "    else if (d >= d0 && x >= x0 - e && x + w <= x0 + w0 + e) place(f, PAD + (x - x0) * scale,"
    " w * scale);\n"
    "    else f.classList.add('hide');\n"
    "  }\n"
    "  unzoombtn.classList.remove('hide');\n"
    "  svg.setAttribute('data-zoomed', g.getAttribute('data-name'));\n"
    "}\n"
    "function unzoom() {\n"
    "  var gs = all();\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var f = gs[i], fr = rect(f);\n"
    "    f.classList.remove('parent'); f.classList.remove('hide');\n"
    "    place(f, +fr.getAttribute('data-ox'), +fr.getAttribute('data-ow'));\n"
    "  }\n"
    "  unzoombtn.classList.add('hide');\n"
    "  svg.removeAttribute('data-zoomed');\n"
    "}\n"
    "function search(term) {\n"
    "  var re, gs = all(), spans = [];\n"
    "  try { re = new RegExp(term); } catch (err) { matchedtext.textContent = 'bad regex'; return -1; }\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var f = gs[i], fr = rect(f);\n"
    "    if (!fr.hasAttribute('data-fill')) fr.setAttribute('data-fill', fr.getAttribute('fill'));\n"
    "    if (re.test(f.getAttribute('data-name'))) {\n"
    "      fr.setAttribute('fill', 'rgb(230,0,230)');\n"
    "      spans.push([+fr.getAttribute('data-ox'), +fr.getAttribute('data-ow')]);\n"
    "    } else fr.setAttribute('fill', fr.getAttribute('data-fill'));\n"
    "  }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var covered = 0, end = -1;\n"
    "  for (var k = 0; k < spans.length; k++) {\n"
    "    var s = spans[k][0], t = s + spans[k][1];\n"
    "    if (s >= end) { covered += t - s; end = t; } else if (t > end) { covered += t - end;"
    " end = t; }\n"
    "  }\n"
    "  var pct = 100 * covered / (W - 2 * PAD);\n"
    "  searching = term;\n"
    "  searchbtn.classList.add('active');\n"
    "  matchedtext.textContent = 'Matched: ' + pct.toFixed(1) + '%';\n"
    "  svg.setAttribute('data-matched', pct.toFixed(1));\n"
    "  return pct;\n"
    "}\n"
    "function reset_search() {\n"
    "  var gs = all();\n"
    "  for (var i = 0; i < gs.length; i++) { var fr = rect(gs[i]);\n"
    "    if (fr.hasAttribute('data-fill')) fr.setAttribute('fill', fr.getAttribute('data-fill')); }\n"
    "  searching = null; searchbtn.classList.remove('active'); matchedtext.textContent = '';\n"
    "  svg.removeAttribute('data-matched');\n"
    "}\n"
    "function search_prompt() {\n"
    "  if (searching !== null) { reset_search(); return; }\n"
    "  var term = prompt('Search for (regular expression):', '');\n"
    "  if (term) search(term);\n"
    "}\n"
    "function selftest() {\n"
    "  var gs = all(), best = null, out = [];\n"
    "  for (var i = 0; i < gs.length; i++)\n"
    "    if (+gs[i].getAttribute('data-depth') === 2 && (best === null ||"
    " +rect(gs[i]).getAttribute('data-ow') > +rect(best).getAttribute('data-ow'))) best = gs[i];\n"
    "  if (best === null && gs.length > 0) best = gs[0];\n"
    "  if (best !== null) {\n"
    "    zoom(best);\n"
    "    var w = +rect(best).getAttribute('width');\n"
    "    out.push('zoom:' + (Math.abs(w - (W - 2 * PAD)) < 0.1 ? 'ok' : 'bad'));\n"
    "    unzoom();\n"
    "    w = +rect(best).getAttribute('width');\n"
    "    out.push('unzoom:' + (Math.abs(w - +rect(best).getAttribute('data-ow')) < 0.1 ? 'ok' :"
    " 'bad'));\n"
    "  }\n"
    "  out.push('search:' + search('kernel_run').toFixed(1));\n"
    "  reset_search();\n"
    "  out.push('frames:' + gs.length);\n"
    "  svg.setAttribute('data-selftest', out.join(' '));\n"
    "}\n"
    "function init(evt) {\n"
    "  svg = document.documentElement;\n"
    "  frames = document.getElementById('frames');\n"
    "  details = document.getElementById('details');\n"
    "  matchedtext = document.getElementById('matched');\n"
    "  unzoombtn = document.getElementById('unzoom');\n"
    "  searchbtn = document.getElementById('search');\n"
    "  var gs = all();\n"
    "  for (var i = 0; i < gs.length; i++) { var r = rect(gs[i]);\n"
    "    r.setAttribute('data-ox', r.getAttribute('x'));"
    " r.setAttribute('data-ow', r.getAttribute('width')); }\n"
    "  frames.addEventListener('click', function (e) { var g = group(e.target); if (g) zoom(g); });\n"
    "  frames.addEventListener('mouseover', function (e) { var g = group(e.target);"
    " if (g) details.textContent = g.getAttribute('data-info'); });\n"
    "  frames.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "  unzoombtn.addEventListener('click', unzoom);\n"
    "  searchbtn.addEventListener('click', search_prompt);\n"
    "  document.addEventListener('keydown', function (e) {\n"
    "    if (e.key === 'Escape') unzoom();\n"
    "    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search_prompt(); }\n"
    "  });\n"
    "  var h = decodeURIComponent(location.hash || '');\n"
    "  if (h.indexOf('#search=') === 0) search(h.substring(8));\n"
    "  if (h === '#selftest') selftest();\n"
    "  svg.setAttribute('data-ready', '1');\n"
    "}\n";

typedef struct svgctx {
    wd_prof *p;
    const prof_tree *tr;
    const uint64_t *tot;
    uint64_t all;
    double *x;      /* left edge of the next child, per depth */
    uint32_t x_cap;
    uint32_t max_depth_seen;
    int height;
    wbuf *f;
    bool oom;
    bool measure;   /* first pass: the depth only */
} svgctx;

static bool svg_visit(void *ud, uint32_t node, uint32_t depth)
{
    svgctx *c = ud;
    double span = WIDTH - 2 * PAD;
    double w = (double)c->tot[node] / (double)c->all * span;
    if (w < MIN_WIDTH)
        return false;
    if (depth + 1 >= c->x_cap &&
        !wd_grow(c->p->ctx, (void **)&c->x, &c->x_cap, sizeof *c->x, (uint64_t)depth + 2)) {
        c->oom = true;
        return false;
    }
    if (depth == 1 && c->x[0] < PAD)
        c->x[0] = PAD;
    double x = c->x[depth - 1];
    c->x[depth - 1] += w;
    c->x[depth] = x;
    if (c->measure) {
        if (depth > c->max_depth_seen)
            c->max_depth_seen = depth;
        return true;
    }
    const prof_node *y = &c->tr->nodes[node];
    const prof_sym *s = &c->p->syms.data[y->sym];
    double pct = 100.0 * (double)c->tot[node] / (double)c->all;
    int top = c->height - FOOTER - (int)depth * FRAME_H;
    wbuf *f = c->f;
    wb_str(f, "<g data-name=\"");
    xml_text(f, s->name);
    wb_str(f, "\" data-depth=\"");
    wb_u64(f, depth);
    wb_str(f, "\" data-info=\"");
    xml_text(f, s->name);
    wb_str(f, " (");
    wb_u64(f, c->tot[node]);
    wb_str(f, " ticks, ");
    wb_fix2(f, pct);
    wb_str(f, "%, ");
    wb_u64(f, y->t);
    wb_str(f, " self, ");
    wb_u64(f, y->calls);
    wb_str(f, " calls)\"><title>");
    xml_text(f, s->name);
    wb_str(f, " (");
    wb_u64(f, c->tot[node]);
    wb_str(f, " ticks, ");
    wb_fix2(f, pct);
    wb_str(f, "%)</title><rect x=\"");
    wb_fix2(f, x);
    wb_str(f, "\" y=\"");
    wb_u64(f, (uint64_t)top);
    wb_str(f, "\" width=\"");
    wb_fix2(f, w);
    wb_str(f, "\" height=\"15\" fill=\"");
    color(f, (wd_prof_kind)s->kind, s->name);
    wb_str(f, "\" rx=\"2\" ry=\"2\"/><text x=\"");
    wb_fix2(f, x + 3);
    wb_str(f, "\" y=\"");
    wb_u64(f, (uint64_t)(top + FRAME_H - 4));
    wb_str(f, "\">");
    xml_label(f, s->name, w);
    wb_str(f, "</text></g>\n");
    return true;
}

/* Pre-order over the merged tree (root 0), skipping frames too narrow to draw. */
static void svg_walk(svgctx *c, const prof_tree *tr)
{
    if (c->x != NULL)
        memset(c->x, 0, (size_t)c->x_cap * sizeof *c->x);
    uint32_t x = tr->nodes[0].first_child, depth = 1;
    while (x != PROF_NONE && !c->oom) {
        bool down = svg_visit(c, x, depth);
        if (down && tr->nodes[x].first_child != PROF_NONE) {
            x = tr->nodes[x].first_child;
            depth++;
            continue;
        }
        while (x != 0 && tr->nodes[x].next_sibling == PROF_NONE) {
            x = tr->nodes[x].parent;
            depth--;
        }
        x = x == 0 ? PROF_NONE : tr->nodes[x].next_sibling;
    }
}

static void svg_head(wbuf *w, const svgctx *c, const wd_prof_out *o, uint64_t all)
{
    char b[1024];
    snprintf(b, sizeof b,
             "<?xml version=\"1.0\" standalone=\"no\"?>\n"
             "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
             "onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\">\n",
             (int)WIDTH, c->height, (int)WIDTH, c->height);
    wb_str(w, b);
    wb_str(w, "<style>\n"
              "text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
              "#frames text { pointer-events: none; }\n"
              "#frames g:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
              ".hide { display: none; }\n"
              ".parent { opacity: 0.5; }\n"
              "#title { font-size: 17px; }\n"
              "#unzoom, #search { cursor: pointer; }\n"
              "#search.active { fill: rgb(230,0,230); }\n"
              "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n");
    wb_str(w, script);
    snprintf(b, sizeof b,
             "]]></script>\n"
             "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n"
             "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">Flame graph: ",
             (int)WIDTH, c->height, (int)(WIDTH / 2));
    wb_str(w, b);
    xml_text(w, o->kernel ? o->kernel : "kernel");
    wb_str(w, " (");
    wb_u64(w, all);
    wb_str(w, " ticks, ");
    xml_text(w, o->tick_model ? o->tick_model : "?");
    snprintf(b, sizeof b,
             ")</text>\n"
             "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
             "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
             "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
             "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n<g id=\"frames\">\n",
             (int)PAD, (int)(WIDTH - PAD - 60), (int)PAD, c->height - 10,
             (int)(WIDTH - PAD - 130), c->height - 10);
    wb_str(w, b);
}

wd_status wd_prof_write_svg(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    uint32_t max_depth = o->max_depth ? o->max_depth : 100;
    uint32_t *groups = prof_display_groups(p);
    prof_tree merged;
    uint64_t *tot = NULL;
    int64_t *tns = NULL;
    if (groups == NULL || !prof_merge_runs(p, groups, max_depth, &merged)) {
        wd_free(p->ctx, groups);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    if (!prof_totals(&merged, &tot, &tns)) {
        prof_tree_fini(&merged);
        wd_free(p->ctx, groups);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    wbuf *wb = wd_alloc(p->ctx, sizeof *wb);
    if (wb == NULL) {
        prof_tree_fini(&merged);
        wd_free(p->ctx, groups);
        wd_free(p->ctx, tot);
        wd_free(p->ctx, tns);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    wb->f = f;
    wb->n = 0;
    wb->failed = false;
    svgctx c = {.p = p, .tr = &merged, .tot = tot, .f = wb, .measure = true};
    uint64_t all = 0;
    for (uint32_t k = merged.nodes[0].first_child; k != PROF_NONE; k = merged.nodes[k].next_sibling)
        all += tot[k];
    c.all = all ? all : 1;
    if (all != 0)
        svg_walk(&c, &merged);
    if (!c.oom) {
        c.measure = false;
        c.height = HEADER + FOOTER + (int)(c.max_depth_seen + 1) * FRAME_H;
        svg_head(wb, &c, o, all);
        if (all != 0)
            svg_walk(&c, &merged);
    }
    wb_str(wb, "</g>\n</svg>\n");
    wb_flush(wb);
    bool oom = c.oom, failed = wb->failed;
    wd_free(p->ctx, wb);
    wd_free(p->ctx, c.x);
    wd_free(p->ctx, tot);
    wd_free(p->ctx, tns);
    wd_free(p->ctx, groups);
    prof_tree_fini(&merged);
    if (oom)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (failed || ferror(f))
        return wd_fail(err, WD_ERR_IO, 0, "write error");
    return WD_OK;
}
